//! Output pages: callers encode frames into pooled buffers and flush them with one `writev`.
//!
//! XRPC gives each session its own encoder buffer made of 4 KiB pages; the encoder fills pages
//! without any lock and takes the connection's send lock only to write them out
//! ([`crate::ConnRef::send_pages`]). Pages are recycled through a per-group [`PagePool`].
//!
//! # Pooling threshold
//!
//! Only buffers whose capacity is at least [`POOL_MIN`] (1 KiB) go back to the pool. gRPC-Go
//! measured that below 1 KiB the pool costs more than the allocation it saves (seed 002), so smaller
//! buffers are simply dropped. Buffers that grew very large (one huge frame) are dropped too, so
//! that the pool never pins more than `pages × POOL_MAX` bytes.

use parking_lot::Mutex;

/// Smallest buffer capacity that is returned to the pool.
pub const POOL_MIN: usize = 1024;
/// Largest buffer capacity that is returned to the pool.
pub const POOL_MAX: usize = 256 * 1024;
/// Size of a fresh page.
pub const PAGE_SIZE: usize = 4096;

/// A bounded stack of reusable output buffers.
#[derive(Debug)]
pub struct PagePool {
    free: Mutex<Vec<Vec<u8>>>,
    max_cached: usize,
}

impl PagePool {
    /// A pool that keeps at most `max_cached` buffers.
    pub fn new(max_cached: usize) -> Self {
        Self {
            free: Mutex::new(Vec::with_capacity(max_cached.min(1024))),
            max_cached,
        }
    }

    /// An empty buffer with at least `min_capacity` bytes of room: a pooled one when possible.
    pub fn take(&self, min_capacity: usize) -> Vec<u8> {
        if min_capacity <= PAGE_SIZE
            && let Some(mut buf) = self.free.lock().pop()
        {
            buf.clear();
            return buf;
        }
        Vec::with_capacity(min_capacity.max(PAGE_SIZE))
    }

    /// Returns a buffer; it is kept only if its capacity is in [`POOL_MIN`]`..=`[`POOL_MAX`] and the
    /// pool has room.
    pub fn give(&self, buf: Vec<u8>) {
        let cap = buf.capacity();
        if !(POOL_MIN..=POOL_MAX).contains(&cap) {
            return;
        }
        let mut free = self.free.lock();
        if free.len() < self.max_cached {
            free.push(buf);
        }
    }

    /// Buffers currently cached.
    pub fn cached(&self) -> usize {
        self.free.lock().len()
    }
}

/// A caller's output buffer: a list of pages filled front to back.
///
/// Encode with [`OutPages::frame_buf`], which hands out the current page with room for the frame
/// (a frame is never split across pages, and a frame larger than a page gets a page of its own),
/// then flush with [`crate::ConnRef::send_pages`], which writes every page in one `writev` and
/// recycles them.
#[derive(Debug, Default)]
pub struct OutPages {
    pages: Vec<Vec<u8>>,
    bytes: usize,
}

impl OutPages {
    /// No pages.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes encoded and not yet sent.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether nothing is waiting to be sent.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// Number of pages in use.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// A page with at least `need` bytes of room, taken from `pool` if the current one is full.
    /// The caller appends exactly the bytes it announced (more is fine, the page grows) and the
    /// length is accounted by [`OutPages::commit`] automatically at the next call or flush.
    pub fn frame_buf(&mut self, pool: &PagePool, need: usize) -> &mut Vec<u8> {
        self.recount();
        let fits = self
            .pages
            .last()
            .is_some_and(|p| p.capacity() - p.len() >= need);
        if !fits {
            self.pages.push(pool.take(need));
        }
        self.pages.last_mut().expect("a page was just ensured")
    }

    /// Appends `data` as-is.
    pub fn extend(&mut self, pool: &PagePool, data: &[u8]) {
        self.frame_buf(pool, data.len()).extend_from_slice(data);
        self.recount();
    }

    /// Recomputes the byte count after writes through [`OutPages::frame_buf`].
    pub fn commit(&mut self) {
        self.recount();
    }

    fn recount(&mut self) {
        self.bytes = self.pages.iter().map(Vec::len).sum();
    }

    /// The pages, for a vectored write.
    pub(crate) fn pages(&self) -> &[Vec<u8>] {
        &self.pages
    }

    /// Returns every page to `pool` and empties this buffer.
    pub fn recycle(&mut self, pool: &PagePool) {
        for page in self.pages.drain(..) {
            pool.give(page);
        }
        self.bytes = 0;
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn only_buffers_of_one_kib_and_more_are_pooled() {
        let pool = PagePool::new(8);
        pool.give(Vec::with_capacity(512));
        assert_eq!(pool.cached(), 0, "below the gRPC-Go threshold: dropped");
        pool.give(Vec::with_capacity(1024));
        assert_eq!(pool.cached(), 1);
        pool.give(Vec::with_capacity(POOL_MAX + 1));
        assert_eq!(pool.cached(), 1, "huge buffers are not kept");
        let buf = pool.take(100);
        assert!(buf.capacity() >= 1024 && buf.is_empty());
        assert_eq!(pool.cached(), 0);
    }

    #[test]
    fn frames_are_never_split_across_pages() {
        let pool = PagePool::new(8);
        let mut out = OutPages::new();
        out.extend(&pool, &[1; 3000]);
        out.extend(&pool, &[2; 3000]);
        assert_eq!(out.page_count(), 2);
        out.extend(&pool, &[3; 10_000]);
        assert_eq!(out.page_count(), 3);
        assert_eq!(out.len(), 16_000);
        out.recycle(&pool);
        assert!(out.is_empty());
        assert_eq!(pool.cached(), 3);
    }
}
