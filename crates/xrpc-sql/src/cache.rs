//! The process-wide parse cache: each distinct statement text is parsed once, whichever part
//! of the node asks first (admin SQL, the counters, an engine), and the others get the same
//! [`Script`].
//!
//! # Design and invariants
//!
//! - **Keyed by text and version.** A script's parse depends only on its text and the
//!   [`Options::version`] its versioned comments are read against; an entry holds both, and a
//!   hit requires both to match. Nothing else (the current database, the catalog) enters a
//!   parse, so an entry never goes stale: DDL does not invalidate it. What depends on the
//!   catalog (a translation, a result shape) is cached by its owner, not here.
//! - **Bounded by entries and bytes.** Texts longer than [`MAX_CACHED_TEXT`] bytes are parsed
//!   for their run and not kept: they are bulk inserts and generated statements whose text is
//!   rarely repeated, and keeping them would let a few clients fill the memory of every node.
//!   Each lookup of such a text parses it again, so the node parses a request's text once, in
//!   the session layer, and hands that parse to the engine (`EngineConn::execute_parsed`,
//!   `EngineConn::submittable`) rather than have each part look the text up.
//!   Each of the [`SHARDS`] shards keeps at most [`SHARD_ENTRIES`] entries; a full shard drops
//!   an arbitrary entry (the map's first) before inserting. So the cache holds at most
//!   `SHARDS × SHARD_ENTRIES` texts of at most `MAX_CACHED_TEXT` bytes each, plus their trees.
//! - **Shared, not copied.** A hit is an [`Arc`] clone; a shard's lock is held for the map
//!   operation only, never while parsing, so two threads may parse the same new text at once
//!   (the second insert replaces the first; both results are equal).
//! - **The last text of each thread first.** One request looks its text up several times,
//!   all on the worker that runs it; each thread remembers the text it looked up last with
//!   its script, so the repeats compare the text once instead of hashing it and taking a
//!   shard's lock. The memo holds one text of at most [`MAX_CACHED_TEXT`] bytes per thread.
//! - **Hashed with foldhash.** Every statement looks its text up several times (the admin
//!   check, the counters, the engine), so the hash is on the request path: foldhash, seeded per
//!   process, costs a few ns where SipHash costs tens. A shard holds at most
//!   [`SHARD_ENTRIES`] texts, so keys chosen to collide can slow a shard's lookups only that
//!   far.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, OnceLock};

use crate::{Options, ParseError, Parsed, parse};

/// A parsed script: the statements that parsed, and the first error, as [`parse`] returns them.
pub type Script = Vec<Result<Parsed, ParseError>>;

/// Texts longer than this are parsed for their run and not kept.
pub const MAX_CACHED_TEXT: usize = 4096;

/// The number of independently locked shards.
pub(crate) const SHARDS: usize = 16;

/// The most entries one shard keeps.
pub(crate) const SHARD_ENTRIES: usize = 1024;

struct Entry {
    version: u32,
    script: Arc<Script>,
}

type Shard = HashMap<Box<str>, Entry, foldhash::fast::RandomState>;

struct Cache {
    hasher: foldhash::fast::RandomState,
    shards: Vec<Mutex<Shard>>,
}

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Cache {
        hasher: foldhash::fast::RandomState::default(),
        shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
    })
}

/// The text this thread looked up last (its bytes, kept in a reused buffer), its version and
/// its script.
#[derive(Default)]
struct LastLookup {
    text: String,
    version: u32,
    script: Option<Arc<Script>>,
}

thread_local! {
    static LAST: RefCell<LastLookup> = RefCell::default();
}

/// Parses `text` as [`parse`] does, through the process-wide cache: a text seen before with the
/// same version is not parsed again.
pub fn parse_cached(text: &str, options: &Options) -> Arc<Script> {
    if text.len() > MAX_CACHED_TEXT {
        return Arc::new(parse(text, options));
    }
    let repeated = LAST.with_borrow(|last| {
        last.script
            .as_ref()
            .filter(|_| last.version == options.version && last.text == text)
            .map(Arc::clone)
    });
    if let Some(script) = repeated {
        return script;
    }
    let script = shared_lookup(text, options);
    LAST.with_borrow_mut(|last| {
        last.text.clear();
        last.text.push_str(text);
        last.version = options.version;
        last.script = Some(Arc::clone(&script));
    });
    script
}

fn shared_lookup(text: &str, options: &Options) -> Arc<Script> {
    let cache = cache();
    let shard = &cache.shards[(cache.hasher.hash_one(text) as usize) % SHARDS];
    {
        let map = shard
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(entry) = map.get(text)
            && entry.version == options.version
        {
            return Arc::clone(&entry.script);
        }
    }
    let script = Arc::new(parse(text, options));
    let mut map = shard
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if map.len() >= SHARD_ENTRIES
        && !map.contains_key(text)
        && let Some(victim) = map.keys().next().cloned()
    {
        map.remove(&victim);
    }
    map.insert(
        text.into(),
        Entry {
            version: options.version,
            script: Arc::clone(&script),
        },
    );
    script
}

/// The number of texts the cache holds (for tests and status).
pub fn cached_texts() -> usize {
    cache()
        .shards
        .iter()
        .map(|shard| {
            shard
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .len()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_text_is_the_same_parse() {
        let options = Options::default();
        let first = parse_cached("SELECT 'a repeated text'", &options);
        let second = parse_cached("SELECT 'a repeated text'", &options);
        assert!(Arc::ptr_eq(&first, &second));
    }

    #[test]
    fn a_thread_alternating_two_texts_gets_each_its_own_parse() {
        let options = Options::default();
        for _ in 0..3 {
            let first = parse_cached("SELECT 'the first of two'", &options);
            let second = parse_cached("SELECT 'the second of two'", &options);
            assert_ne!(first, second);
            let again = parse_cached("SELECT 'the first of two'", &options);
            assert!(Arc::ptr_eq(&first, &again));
        }
    }

    #[test]
    fn another_version_reads_versioned_comments_again() {
        let text = "/*!80000 SELECT 1 */";
        let new = parse_cached(text, &Options { version: 80036 });
        let old = parse_cached(text, &Options { version: 50700 });
        assert!(new[0].is_ok());
        assert_eq!(old[0], Err(ParseError::Empty));
    }

    #[test]
    fn a_long_text_is_parsed_but_not_kept() {
        let text = format!("SELECT '{}'", "x".repeat(MAX_CACHED_TEXT));
        let options = Options::default();
        let first = parse_cached(&text, &options);
        let second = parse_cached(&text, &options);
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(first, second);
    }

    #[test]
    fn the_cache_stays_within_its_bound() {
        let options = Options::default();
        for n in 0..(SHARDS * SHARD_ENTRIES + 500) {
            parse_cached(&format!("SELECT {n}"), &options);
        }
        assert!(cached_texts() <= SHARDS * SHARD_ENTRIES);
    }
}
