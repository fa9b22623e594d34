//! What the core learns from a statement's text: its digest, and its effect on the transaction.
//!
//! # Digest
//!
//! A statement's digest is the first 16 bytes of SHA-1 over its exact bytes. The server treats the
//! digest as an opaque cache key, so any stable hash works; 16 bytes of SHA-1 make an accidental
//! collision (which would run the wrong statement) negligible at any cache size, SHA-1 is already
//! linked for MYSQL41, and hashing costs less than sending the statement does for anything longer
//! than the threshold at which the cache is used.
//!
//! # Transaction tracking
//!
//! A pooled session is reused only when no transaction is open, so the core watches the statements
//! the *client* sends: `BEGIN`, `START TRANSACTION`, `COMMIT`, `ROLLBACK` (not `ROLLBACK TO`) and
//! `SET [SESSION|LOCAL|@@…]autocommit = 0|1|ON|OFF|TRUE|FALSE`. Leading whitespace and comments are
//! skipped. Anything else (procedures that commit, `XA`, DDL's implicit commit) is not recognised;
//! the tracking errs on the side of "dirty", which only costs a session.

use sha1::{Digest as _, Sha1};

/// A statement digest: 16 bytes of SHA-1.
pub(crate) type Digest = [u8; 16];

/// Returns the digest of a statement.
pub(crate) fn digest(stmt: &[u8]) -> Digest {
    let full = Sha1::digest(stmt);
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// How a statement changes the session's transaction state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TxEffect {
    /// Neither opens nor closes a transaction.
    None,
    /// `BEGIN` or `START TRANSACTION`.
    Begin,
    /// `COMMIT` or `ROLLBACK`.
    End,
    /// `SET autocommit = 0`.
    AutocommitOff,
    /// `SET autocommit = 1`, which also commits.
    AutocommitOn,
}

/// Classifies a statement by its leading keywords.
pub(crate) fn tx_effect(stmt: &[u8]) -> TxEffect {
    let mut words = Words {
        rest: skip_space_and_comments(stmt),
    };
    let Some(first) = words.next() else {
        return TxEffect::None;
    };
    match first.to_ascii_lowercase().as_slice() {
        b"begin" => TxEffect::Begin,
        b"start" => match words.next() {
            Some(w) if w.eq_ignore_ascii_case(b"transaction") => TxEffect::Begin,
            _ => TxEffect::None,
        },
        b"commit" => TxEffect::End,
        b"rollback" => match words.next() {
            // `ROLLBACK [WORK] TO [SAVEPOINT] sp` keeps the transaction open.
            Some(w) if w.eq_ignore_ascii_case(b"to") => TxEffect::None,
            Some(w) if w.eq_ignore_ascii_case(b"work") => match words.next() {
                Some(w) if w.eq_ignore_ascii_case(b"to") => TxEffect::None,
                _ => TxEffect::End,
            },
            _ => TxEffect::End,
        },
        b"set" => autocommit_effect(words.rest),
        _ => TxEffect::None,
    }
}

/// Looks for `autocommit = value` in the rest of a SET statement.
fn autocommit_effect(rest: &[u8]) -> TxEffect {
    // `SET SESSION autocommit = 0`, `set @@session.autocommit=OFF` and `SET autocommit=0, names
    // utf8` all name the variable as a whole word followed by `=`.
    let lower: Vec<u8> = rest.iter().take(256).map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(at) = find(&lower[from..], b"autocommit").map(|i| i + from) {
        from = at + b"autocommit".len();
        let whole_word = at == 0 || !is_ident(lower[at - 1]);
        let after = lower[from..].trim_ascii_start();
        let (true, Some(value)) = (whole_word, after.strip_prefix(b"=")) else {
            continue;
        };
        let value = value.trim_ascii_start();
        let end = value
            .iter()
            .position(|&b| !(is_ident(b) || b == b'\''))
            .unwrap_or(value.len());
        return match &value[..end] {
            b"0" | b"off" | b"false" | b"'off'" => TxEffect::AutocommitOff,
            b"1" | b"on" | b"true" | b"'on'" => TxEffect::AutocommitOn,
            _ => TxEffect::None,
        };
    }
    TxEffect::None
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn skip_space_and_comments(mut s: &[u8]) -> &[u8] {
    loop {
        s = s.trim_ascii_start();
        if let Some(rest) = s.strip_prefix(b"/*") {
            s = match find(rest, b"*/") {
                Some(end) => &rest[end + 2..],
                None => &[],
            };
        } else if s.starts_with(b"-- ") || s.starts_with(b"#") {
            s = match s.iter().position(|&b| b == b'\n') {
                Some(end) => &s[end + 1..],
                None => &[],
            };
        } else {
            return s;
        }
    }
}

/// Splits keywords off the front of a statement.
struct Words<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let s = skip_space_and_comments(self.rest);
        let len = s
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .unwrap_or(s.len());
        if len == 0 {
            self.rest = s;
            return None;
        }
        self.rest = &s[len..];
        Some(&s[..len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_statements_are_recognised() {
        for (stmt, effect) in [
            ("BEGIN", TxEffect::Begin),
            ("  begin work", TxEffect::Begin),
            ("/* hint */ START TRANSACTION READ ONLY", TxEffect::Begin),
            ("start slave", TxEffect::None),
            ("COMMIT", TxEffect::End),
            ("rollback;", TxEffect::End),
            ("ROLLBACK WORK", TxEffect::End),
            ("ROLLBACK TO sp1", TxEffect::None),
            ("rollback work to savepoint sp1", TxEffect::None),
            ("SET autocommit = 0", TxEffect::AutocommitOff),
            ("set @@session.autocommit=OFF", TxEffect::AutocommitOff),
            (
                "SET SESSION autocommit = 1, names utf8",
                TxEffect::AutocommitOn,
            ),
            ("SET my_autocommit = 0", TxEffect::None),
            ("set names utf8mb4", TxEffect::None),
            ("-- comment\nCOMMIT", TxEffect::End),
            ("select 'begin'", TxEffect::None),
            ("", TxEffect::None),
        ] {
            assert_eq!(tx_effect(stmt.as_bytes()), effect, "{stmt}");
        }
    }

    #[test]
    fn digests_are_sixteen_bytes_of_sha1() {
        // SHA-1("abc") = a9993e364706816aba3e25717850c26c9cd0d89d.
        assert_eq!(
            digest(b"abc"),
            [
                0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e, 0x25, 0x71, 0x78, 0x50,
                0xc2, 0x6c
            ]
        );
        assert_ne!(digest(b"select 1"), digest(b"select 2"));
    }
}
