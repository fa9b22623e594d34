//! A result set's column definitions, decoded once per distinct definition on a connection.
//!
//! A connection that runs the same statements over and over (a node's backend connection does)
//! receives the same column-definition packets over and over. [`ColumnCache`] keeps the last
//! few distinct sets with the packets they were decoded from; a result set whose packets are
//! byte for byte those of a kept set gets that set again, an `Arc` clone, instead of a fresh
//! decode. What a caller derives from the definitions (its own column descriptions, value
//! converters) can ride along in the set ([`ColumnSet::derived`]), so it too is made once per
//! distinct set rather than once per result.
//!
//! # Invariants
//!
//! - A kept set is only returned for packets equal to the ones it was decoded from, so a hit is
//!   exactly what decoding them again would give.
//! - The cache is bounded: at most [`KEPT_SETS`] sets, each from at most [`KEPT_SET_BYTES`]
//!   bytes of packets; a larger set is decoded every time and not kept.

use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use mysql_common::io::ParseBuf;
use mysql_common::packets::Column;

use crate::error::DecodeError;

/// The most column sets a connection keeps.
pub const KEPT_SETS: usize = 16;

/// The largest set kept, in bytes of its definition packets.
pub const KEPT_SET_BYTES: usize = 8 * 1024;

/// The column definitions of a result set ([`Event::Columns`](crate::Event::Columns)); derefs
/// to the decoded [`Column`]s.
pub struct ColumnSet {
    columns: Box<[Column]>,
    /// The definition packets' payloads, joined, and each one's length: empty when the set is
    /// not kept.
    packets: Box<[u8]>,
    lengths: Box<[u32]>,
    derived: OnceLock<Box<dyn Any + Send + Sync>>,
}

impl ColumnSet {
    /// A set of already decoded definitions (tests, callers that build results themselves).
    pub fn new(columns: Vec<Column>) -> Self {
        Self {
            columns: columns.into(),
            packets: Box::default(),
            lengths: Box::default(),
            derived: OnceLock::new(),
        }
    }

    /// What `make` derives from these definitions, made on the first call and kept with the set
    /// for every later result that gets it. `None` when the set already carries something of
    /// another type (a second kind of caller): that caller derives its own each time.
    pub fn derived<T: Send + Sync + 'static>(
        &self,
        make: impl FnOnce(&[Column]) -> T,
    ) -> Option<&T> {
        self.derived
            .get_or_init(|| Box::new(make(&self.columns)))
            .downcast_ref::<T>()
    }

    fn decoded_from(&self, packets: &[Bytes]) -> bool {
        self.lengths.len() == packets.len() && {
            let mut at = 0;
            packets.iter().zip(&self.lengths).all(|(packet, &length)| {
                let end = at + length as usize;
                let same = packet.len() == length as usize && self.packets[at..end] == packet[..];
                at = end;
                same
            })
        }
    }
}

impl Deref for ColumnSet {
    type Target = [Column];

    fn deref(&self) -> &[Column] {
        &self.columns
    }
}

impl fmt::Debug for ColumnSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.columns.iter()).finish()
    }
}

impl PartialEq for ColumnSet {
    fn eq(&self, other: &Self) -> bool {
        self.columns == other.columns
    }
}

/// The last [`KEPT_SETS`] distinct column sets of one connection, the most recent first.
#[derive(Debug, Default)]
pub(crate) struct ColumnCache {
    sets: Vec<Arc<ColumnSet>>,
}

impl ColumnCache {
    /// The set for a result set's definition packets: a kept one decoded from the same bytes,
    /// else the packets decoded (and kept when small enough).
    pub(crate) fn get(&mut self, packets: &[Bytes]) -> Result<Arc<ColumnSet>, DecodeError> {
        if let Some(at) = self.sets.iter().position(|set| set.decoded_from(packets)) {
            let set = Arc::clone(&self.sets[at]);
            // Most recent first, so the least recently used goes when the cache is full.
            self.sets[..=at].rotate_right(1);
            return Ok(set);
        }
        let columns = packets
            .iter()
            .map(|packet| {
                ParseBuf(packet)
                    .parse::<Column>(())
                    .map_err(|err| DecodeError::malformed("column definition", err))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut set = ColumnSet::new(columns);
        let bytes: usize = packets.iter().map(Bytes::len).sum();
        if bytes > KEPT_SET_BYTES {
            return Ok(Arc::new(set));
        }
        set.packets = packets.concat().into();
        set.lengths = packets
            .iter()
            .map(|packet| u32::try_from(packet.len()).unwrap_or(u32::MAX))
            .collect();
        let set = Arc::new(set);
        self.sets.truncate(KEPT_SETS - 1);
        self.sets.insert(0, Arc::clone(&set));
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition packet of a column `name` of table `t`.
    fn packet(name: &str, column_type: u8) -> Bytes {
        let mut out = Vec::new();
        for field in ["def", "db", "t", "t", name, name] {
            out.push(field.len() as u8);
            out.extend_from_slice(field.as_bytes());
        }
        out.push(0x0c);
        out.extend_from_slice(&[0x21, 0x00]); // character set
        out.extend_from_slice(&11u32.to_le_bytes()); // length
        out.push(column_type);
        out.extend_from_slice(&[0x00, 0x00]); // flags
        out.push(0x00); // decimals
        out.extend_from_slice(&[0x00, 0x00]);
        Bytes::from(out)
    }

    #[test]
    fn the_same_packets_get_the_same_set_and_what_was_derived_from_it() {
        let mut cache = ColumnCache::default();
        let first = cache.get(&[packet("a", 3), packet("b", 3)]).unwrap();
        assert_eq!(first.derived(|columns| columns.len()), Some(&2));
        let again = cache.get(&[packet("a", 3), packet("b", 3)]).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(again.derived(|_| 99usize), Some(&2));
    }

    #[test]
    fn packets_that_differ_in_one_byte_get_a_set_of_their_own() {
        let mut cache = ColumnCache::default();
        let ints = cache.get(&[packet("a", 3)]).unwrap();
        let longs = cache.get(&[packet("a", 8)]).unwrap();
        assert!(!Arc::ptr_eq(&ints, &longs));
        assert_ne!(ints[0].column_type(), longs[0].column_type());
        let renamed = cache.get(&[packet("b", 3)]).unwrap();
        assert_eq!(renamed[0].name_str(), "b");
    }

    #[test]
    fn a_set_derived_by_another_kind_of_caller_answers_none() {
        let set = ColumnSet::new(Vec::new());
        assert_eq!(set.derived(|_| 1u8), Some(&1));
        assert_eq!(set.derived(|_| 1u16), None);
    }

    #[test]
    fn the_cache_keeps_the_most_recently_used_sets_only() {
        let mut cache = ColumnCache::default();
        let kept = cache.get(&[packet("kept", 3)]).unwrap();
        for i in 0..KEPT_SETS * 2 {
            cache.get(&[packet(&format!("c{i}"), 3)]).unwrap();
            // Used again between the others: it stays.
            assert!(Arc::ptr_eq(
                &kept,
                &cache.get(&[packet("kept", 3)]).unwrap()
            ));
        }
        assert_eq!(cache.sets.len(), KEPT_SETS);
        let first = cache.get(&[packet("c0", 3)]).unwrap();
        assert_eq!(first[0].name_str(), "c0");
    }

    #[test]
    fn a_set_larger_than_the_bound_is_decoded_every_time() {
        let mut cache = ColumnCache::default();
        let wide: Vec<Bytes> = (0..KEPT_SET_BYTES / 20)
            .map(|i| packet(&format!("column_{i}"), 3))
            .collect();
        let one = cache.get(&wide).unwrap();
        let two = cache.get(&wide).unwrap();
        assert!(!Arc::ptr_eq(&one, &two));
        assert_eq!(one, two);
        assert!(cache.sets.is_empty());
    }

    #[test]
    fn a_malformed_definition_is_a_decode_error_and_nothing_is_kept() {
        let mut cache = ColumnCache::default();
        assert!(cache.get(&[Bytes::from_static(b"\x03de")]).is_err());
        assert!(cache.sets.is_empty());
    }
}
