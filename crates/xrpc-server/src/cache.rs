//! The request cache: SQL statement text by digest, so that clients can send a digest instead of
//! a statement they sent before.
//!
//! A request carrying both `stmt` and `stmt_digest` runs and stores the statement under its
//! digest ([`RequestCache::insert`]); a digest-only request looks it up ([`RequestCache::get`]),
//! and a miss is answered with code 6000 so the client resends the full text.
//!
//! # Design
//!
//! The cache is split into shards (16 by default), each a mutex around its own LRU, so that
//! sessions on different workers rarely contend. A digest picks its shard by hash. Each shard is
//! an [`lru::LruCache`] (O(1) get and insert), hashing with the standard library's randomly keyed
//! SipHash like the shard choice, since digests come from clients.
//!
//! The shard's LRU used to be written by hand (a `HashMap` to slot indexes and a recency list
//! threaded through a `Vec`). Measured against `lru` with criterion on one shard behind its lock
//! (64 entries, SipHash, 16-byte digests; release build, the shared two-core machine of
//! `docs/BENCHMARKS.md`): a hit 108 ns by hand, 77 ns with `lru`; a miss 60 ns both;
//! an insert that evicts 172 ns by hand, 213 ns with `lru`. An evicting insert follows only a
//! digest miss, which already costs the client a round trip and the full statement, so the crate
//! costs nothing that shows. `benches/cache.rs` measures the whole cache the same way:
//! `cargo bench -p xrpc-server --bench cache`.
//!
//! # Invariants
//!
//! - A shard holds at most `ceil(capacity / shards)` entries (at least one). Inserting a new digest
//!   into a full shard first evicts that shard's least recently used entry.
//! - A `get` hit or a re-insert makes the entry the shard's most recently used.
//! - Statements longer than `max_len` bytes are never stored (the protocol's 1 MiB default).
//! - The hit, miss and eviction counters only grow; they feed `SHOW STATUS` (`xrpc_sql_hit`,
//!   `xrpc_sql_miss`, `xrpc_sql_evict`).

use std::hash::{BuildHasher, RandomState};
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use bytes::Bytes;
use lru::LruCache;
use parking_lot::Mutex;

/// Default number of shards.
pub const DEFAULT_SHARDS: usize = 16;
/// Default total number of entries.
pub const DEFAULT_CAPACITY: usize = 1024;
/// Default longest statement that is cached, in bytes (1 MiB).
pub const DEFAULT_MAX_LEN: usize = 1024 * 1024;

/// A sharded LRU from statement digest to statement text.
#[derive(Debug)]
pub struct RequestCache {
    shards: Box<[Mutex<Shard>]>,
    hasher: RandomState,
    max_len: AtomicUsize,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
}

/// A snapshot of the cache counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Lookups that found their digest.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Entries dropped to make room for newer ones.
    pub evictions: u64,
    /// Entries held now.
    pub entries: usize,
}

impl RequestCache {
    /// A cache of `capacity` entries in total over `shards` shards, storing statements of at most
    /// `max_len` bytes. Zero shards or capacity are raised to one.
    pub fn new(shards: usize, capacity: usize, max_len: usize) -> Self {
        let shards = shards.max(1);
        let per_shard =
            NonZeroUsize::new(capacity.max(1).div_ceil(shards)).unwrap_or(NonZeroUsize::MIN);
        Self {
            shards: (0..shards)
                .map(|_| Mutex::new(Shard::new(per_shard)))
                .collect(),
            hasher: RandomState::new(),
            max_len: AtomicUsize::new(max_len),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    /// Looks a digest up, marking it most recently used on a hit.
    pub fn get(&self, digest: &[u8]) -> Option<Bytes> {
        let found = self.shard(digest).lock().get(digest);
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Stores `stmt` under `digest`, replacing any earlier statement for it. Returns whether it
    /// was stored: a statement longer than the maximum length is not.
    pub fn insert(&self, digest: Bytes, stmt: Bytes) -> bool {
        if stmt.len() > self.max_len.load(Ordering::Relaxed) {
            return false;
        }
        let evicted = self.shard(&digest).lock().insert(digest, stmt);
        if evicted {
            self.evictions.fetch_add(1, Ordering::Relaxed);
        }
        true
    }

    /// Longest statement stored, in bytes.
    pub fn max_len(&self) -> usize {
        self.max_len.load(Ordering::Relaxed)
    }

    /// Changes the longest statement stored from now on (`SET GLOBAL`); entries already stored stay.
    pub fn set_max_len(&self, max_len: usize) {
        self.max_len.store(max_len, Ordering::Relaxed);
    }

    /// Lookups that found their digest.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Lookups that did not find their digest.
    pub fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    /// Entries evicted to make room.
    pub fn evictions(&self) -> u64 {
        self.evictions.load(Ordering::Relaxed)
    }

    /// Entries held now (takes every shard's lock in turn).
    pub fn len(&self) -> usize {
        self.shards.iter().map(|shard| shard.lock().lru.len()).sum()
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All counters at once.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits(),
            misses: self.misses(),
            evictions: self.evictions(),
            entries: self.len(),
        }
    }

    fn shard(&self, digest: &[u8]) -> &Mutex<Shard> {
        let hash = self.hasher.hash_one(digest);
        // The modulo keeps the index below shards.len(), so the cast back is lossless.
        &self.shards[(hash % self.shards.len() as u64) as usize]
    }
}

impl Default for RequestCache {
    fn default() -> Self {
        Self::new(DEFAULT_SHARDS, DEFAULT_CAPACITY, DEFAULT_MAX_LEN)
    }
}

/// One shard: an LRU of bounded size.
#[derive(Debug)]
struct Shard {
    lru: LruCache<Bytes, Bytes, RandomState>,
}

impl Shard {
    fn new(capacity: NonZeroUsize) -> Self {
        Self {
            lru: LruCache::with_hasher(capacity, RandomState::new()),
        }
    }

    fn get(&mut self, key: &[u8]) -> Option<Bytes> {
        self.lru.get(key).cloned()
    }

    /// Inserts or replaces; returns whether an entry was evicted.
    fn insert(&mut self, key: Bytes, value: Bytes) -> bool {
        let full = self.lru.len() == self.lru.cap().get();
        let replaced = self.lru.put(key, value).is_some();
        full && !replaced
    }

    /// Keys from most to least recently used (tests).
    #[cfg(test)]
    fn order(&self) -> Vec<Bytes> {
        self.lru.iter().map(|(key, _)| key.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn b(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    #[test]
    fn hit_miss_and_replace() {
        let cache = RequestCache::default();
        assert_eq!(cache.get(b"d1"), None);
        assert!(cache.insert(b("d1"), b("select 1")));
        assert_eq!(cache.get(b"d1"), Some(b("select 1")));
        assert!(cache.insert(b("d1"), b("select 2")));
        assert_eq!(cache.get(b"d1"), Some(b("select 2")));
        assert_eq!(
            cache.stats(),
            CacheStats {
                hits: 2,
                misses: 1,
                evictions: 0,
                entries: 1
            }
        );
    }

    #[test]
    fn eviction_is_least_recently_used_first() {
        // One shard, so the order is global.
        let cache = RequestCache::new(1, 3, DEFAULT_MAX_LEN);
        for key in ["a", "b", "c"] {
            cache.insert(b(key), b(key));
        }
        // Touch "a": "b" is now the least recently used.
        assert!(cache.get(b"a").is_some());
        cache.insert(b("d"), b("d"));
        assert_eq!(cache.get(b"b"), None);
        assert_eq!(cache.evictions(), 1);
        assert_eq!(cache.shards[0].lock().order(), [b("d"), b("a"), b("c")]);
        // Re-inserting "c" refreshes it; "a" goes next.
        cache.insert(b("c"), b("c2"));
        cache.insert(b("e"), b("e"));
        assert_eq!(cache.shards[0].lock().order(), [b("e"), b("c"), b("d")]);
        assert_eq!(cache.get(b"c"), Some(b("c2")));
        assert_eq!(cache.get(b"a"), None);
        assert_eq!(cache.evictions(), 2);
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn capacity_of_one_keeps_the_newest() {
        let cache = RequestCache::new(1, 1, DEFAULT_MAX_LEN);
        cache.insert(b("a"), b("1"));
        cache.insert(b("b"), b("2"));
        assert_eq!(cache.get(b"a"), None);
        assert_eq!(cache.get(b"b"), Some(b("2")));
        assert_eq!(cache.shards[0].lock().order(), [b("b")]);
    }

    #[test]
    fn long_statements_are_not_cached() {
        let cache = RequestCache::new(4, 16, 8);
        assert!(cache.insert(b("ok"), b("12345678")));
        assert!(!cache.insert(b("long"), b("123456789")));
        assert_eq!(cache.get(b"long"), None);
        cache.set_max_len(16);
        assert!(cache.insert(b("long"), b("123456789")));
        assert_eq!(cache.max_len(), 16);
    }

    #[test]
    fn shards_split_the_capacity() {
        let cache = RequestCache::new(16, 1024, DEFAULT_MAX_LEN);
        for i in 0..5000 {
            cache.insert(Bytes::from(format!("digest-{i}")), b("x"));
        }
        // Each shard holds at most 64; hashing spreads 5000 keys over all of them.
        assert!(cache.len() <= 1024);
        assert!(cache.len() > 900, "{}", cache.len());
        assert_eq!(cache.evictions() as usize, 5000 - cache.len());
        for shard in cache.shards.iter() {
            let shard = shard.lock();
            assert!(shard.lru.len() <= 64);
            assert_eq!(shard.order().len(), shard.lru.len());
        }
    }

    #[test]
    fn concurrent_smoke() {
        let cache = Arc::new(RequestCache::new(16, 256, DEFAULT_MAX_LEN));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let cache = Arc::clone(&cache);
                std::thread::spawn(move || {
                    for i in 0..5000u32 {
                        let key = Bytes::from(format!("k{}", (i * 7 + t) % 512));
                        if let Some(value) = cache.get(&key) {
                            assert_eq!(value, key, "a digest maps to its own statement");
                        } else {
                            cache.insert(key.clone(), key);
                        }
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let stats = cache.stats();
        assert_eq!(stats.hits + stats.misses, 4 * 5000);
        assert!(stats.entries <= 256);
        for shard in cache.shards.iter() {
            let shard = shard.lock();
            assert_eq!(shard.order().len(), shard.lru.len());
        }
    }
}
