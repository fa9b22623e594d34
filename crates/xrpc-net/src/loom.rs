//! Synchronization primitives that switch to [loom]'s model-checked versions under `--cfg loom`.
//!
//! Every lock-free structure in this crate that *synchronizes* through atomics imports them from here
//! (`crate::loom::sync::atomic::AtomicUsize`, `crate::loom::cell::UnsafeCell`, ...), so that the same code
//! is explored exhaustively by loom in tests and compiles to plain `std` in production. The layout
//! follows tokio's `tokio/src/loom/mod.rs`.
//!
//! Loom models live next to the code they check, under `#[cfg(all(test, loom))]`, and are run with
//!
//! ```text
//! RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=/tmp/loom-target cargo test -p xrpc-net --release --lib loom
//! ```
//!
//! Statistics that never publish data to another thread (the counters in [`crate::stats`] and the
//! histograms in [`crate::hist`]) deliberately use `std` atomics directly: they are `Relaxed`
//! increments with no ordering role, and routing them through loom would add a scheduling point to
//! every counter bump in every model without checking anything. The group's hand-off flags
//! (`closing`'s pending flag and `next_deadline` in `group.rs`) do order data, so they go through
//! this shim too; the deferred-close hand-off has its own model.
//!
//! [`cell::UnsafeCell`] has loom's closure API (`with`, `with_mut`) in both builds, so that loom can
//! track every access to the cell's contents.
//!
//! [loom]: https://docs.rs/loom

#![allow(
    unused_imports,
    dead_code,
    reason = "a shim re-exports more than the crate uses in every build configuration"
)]

#[cfg(loom)]
pub(crate) use loom::{hint, thread};

#[cfg(not(loom))]
pub(crate) use std::{hint, thread};

/// `std::sync` or `loom::sync`.
pub(crate) mod sync {
    #[cfg(loom)]
    pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};

    #[cfg(not(loom))]
    pub(crate) use std::sync::{Arc, Mutex, MutexGuard};

    /// `std::sync::atomic` or `loom::sync::atomic`.
    pub(crate) mod atomic {
        #[cfg(loom)]
        pub(crate) use loom::sync::atomic::{
            AtomicBool, AtomicI32, AtomicI64, AtomicIsize, AtomicPtr, AtomicU8, AtomicU32,
            AtomicU64, AtomicUsize, Ordering, fence,
        };

        #[cfg(not(loom))]
        pub(crate) use std::sync::atomic::{
            AtomicBool, AtomicI32, AtomicI64, AtomicIsize, AtomicPtr, AtomicU8, AtomicU32,
            AtomicU64, AtomicUsize, Ordering, fence,
        };
    }
}

/// An `UnsafeCell` with loom's access API.
pub(crate) mod cell {
    #[cfg(loom)]
    pub(crate) use loom::cell::UnsafeCell;

    /// `std::cell::UnsafeCell` behind loom's closure-based API.
    ///
    /// The closures receive raw pointers; dereferencing them is `unsafe` at the call site, which
    /// states why the access is exclusive (for `with_mut`) or free of concurrent writers (for `with`).
    #[cfg(not(loom))]
    #[derive(Debug)]
    #[repr(transparent)]
    pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    #[cfg(not(loom))]
    impl<T> UnsafeCell<T> {
        /// Wraps `data`.
        #[inline(always)]
        pub(crate) const fn new(data: T) -> Self {
            Self(std::cell::UnsafeCell::new(data))
        }

        /// Calls `f` with a shared raw pointer to the contents.
        #[inline(always)]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        /// Calls `f` with a mutable raw pointer to the contents.
        #[inline(always)]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }

        /// Unwraps the contents.
        #[inline(always)]
        pub(crate) fn into_inner(self) -> T {
            self.0.into_inner()
        }
    }
}
