//! The connection table of a group: epoll tokens to live connections.
//!
//! # Why a table and not a pointer in `epoll_data`
//!
//! XRPC stores the TCP context's address in the epoll event and protects it with a reference count
//! plus a delayed release: after `fin()` the context is freed by a timer set to twice the longest
//! `epoll_wait`, on the assumption that no thread still holds an event naming it by then. Here the
//! event carries a *token* `(generation << 32) | index` instead. A worker turns the token into an
//! `Arc` under the slot's lock (the article's `pre_event` reference), and `fin()` empties the slot
//! and bumps its generation. From then on no thread can obtain a new reference, stale events
//! (already returned by `epoll_wait` but not yet handled) find a generation mismatch and are
//! dropped, and the context is freed when the last `Arc` held by a running event, task or timer
//! drops. That is the article's refcount + delayed release with the delay made exact: it is never
//! too short (the article's timer could be, for a thread preempted for longer than the delay), and
//! never longer than needed.
//!
//! Slots live in fixed chunks allocated on demand, so a lookup is two indexings and an uncontended
//! lock, and chunks never move.

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

/// Slots per chunk.
const CHUNK: usize = 256;
/// Chunks per table: up to 1 Mi connections per group.
const MAX_CHUNKS: usize = 4096;
/// Generations wrap before this value so that no token equals a reserved token.
const MAX_GEN: u32 = u32::MAX - 1;

/// A fixed block of slots; never moves once allocated.
type Chunk<T> = Box<[Slot<T>]>;

struct Slot<T: ?Sized> {
    inner: Mutex<SlotInner<T>>,
}

struct SlotInner<T: ?Sized> {
    generation: u32,
    value: Option<Arc<T>>,
}

struct FreeList {
    free: Vec<u32>,
    next: u32,
}

/// Token-indexed slots of `Arc<T>`.
pub(crate) struct ConnTable<T: ?Sized> {
    chunks: Box<[OnceLock<Chunk<T>>]>,
    free: Mutex<FreeList>,
}

impl<T: ?Sized> ConnTable<T> {
    /// An empty table.
    pub(crate) fn new() -> Self {
        Self {
            chunks: (0..MAX_CHUNKS).map(|_| OnceLock::new()).collect(),
            free: Mutex::new(FreeList {
                free: Vec::new(),
                next: 0,
            }),
        }
    }

    fn slot(&self, index: u32) -> Option<&Slot<T>> {
        let index = index as usize;
        self.chunks
            .get(index / CHUNK)?
            .get()
            .map(|chunk| &chunk[index % CHUNK])
    }

    fn split(token: u64) -> (u32, u32) {
        (token as u32, (token >> 32) as u32)
    }

    /// Reserves an empty slot and returns its token, or `None` if the table is full.
    pub(crate) fn reserve(&self) -> Option<u64> {
        let index = {
            let mut free = self.free.lock();
            match free.free.pop() {
                Some(i) => i,
                None => {
                    if free.next as usize >= CHUNK * MAX_CHUNKS {
                        return None;
                    }
                    let i = free.next;
                    free.next += 1;
                    i
                }
            }
        };
        let chunk = &self.chunks[index as usize / CHUNK];
        let chunk = chunk.get_or_init(|| {
            (0..CHUNK)
                .map(|_| Slot {
                    inner: Mutex::new(SlotInner {
                        generation: 0,
                        value: None,
                    }),
                })
                .collect()
        });
        let generation = chunk[index as usize % CHUNK].inner.lock().generation;
        Some((u64::from(generation) << 32) | u64::from(index))
    }

    /// Stores `value` in the reserved slot `token`.
    pub(crate) fn fill(&self, token: u64, value: Arc<T>) {
        let (index, generation) = Self::split(token);
        let slot = self.slot(index).expect("filling an unreserved slot");
        let mut inner = slot.inner.lock();
        debug_assert_eq!(inner.generation, generation);
        inner.value = Some(value);
    }

    /// The live value named by `token`, if the slot still holds that generation.
    #[inline]
    pub(crate) fn get(&self, token: u64) -> Option<Arc<T>> {
        let (index, generation) = Self::split(token);
        let inner = self.slot(index)?.inner.lock();
        if inner.generation == generation {
            inner.value.clone()
        } else {
            None
        }
    }

    /// Empties the slot `token` (if it still holds that generation and a value), retires the
    /// generation and frees the index. Returns the value that was there.
    pub(crate) fn remove(&self, token: u64) -> Option<Arc<T>> {
        let (index, generation) = Self::split(token);
        let slot = self.slot(index)?;
        let value = {
            let mut inner = slot.inner.lock();
            // A reserved slot not filled yet stays reserved: its owner fills it and removes it.
            if inner.generation != generation || inner.value.is_none() {
                return None;
            }
            inner.generation = if inner.generation >= MAX_GEN {
                0
            } else {
                inner.generation + 1
            };
            inner.value.take()
        };
        self.free.lock().free.push(index);
        value
    }

    /// Every live value (for shutdown).
    pub(crate) fn all(&self) -> Vec<Arc<T>> {
        let mut out = Vec::new();
        for chunk in self.chunks.iter() {
            let Some(chunk) = chunk.get() else { break };
            for slot in chunk.iter() {
                if let Some(v) = slot.inner.lock().value.clone() {
                    out.push(v);
                }
            }
        }
        out
    }
}

impl<T: ?Sized> std::fmt::Debug for ConnTable<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let free = self.free.lock();
        f.debug_struct("ConnTable")
            .field("slots", &free.next)
            .field("free", &free.free.len())
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn stale_tokens_miss_after_remove_and_reuse() {
        let table: ConnTable<u32> = ConnTable::new();
        let t1 = table.reserve().unwrap();
        table.fill(t1, Arc::new(1));
        assert_eq!(table.get(t1).as_deref(), Some(&1));
        assert_eq!(table.remove(t1).as_deref(), Some(&1));
        assert!(table.get(t1).is_none());
        let t2 = table.reserve().unwrap();
        assert_eq!(t2 as u32, t1 as u32, "index reused");
        assert_ne!(t2, t1, "generation differs");
        table.fill(t2, Arc::new(2));
        assert!(
            table.get(t1).is_none(),
            "a stale event cannot reach the new connection"
        );
        assert!(table.remove(t1).is_none());
        assert_eq!(table.all().len(), 1);
    }
}
