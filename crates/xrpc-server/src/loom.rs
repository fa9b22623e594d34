//! Synchronization primitives that switch to [loom]'s model-checked versions under `--cfg loom`,
//! as `xrpc-net`'s `src/loom.rs` does for the framework.
//!
//! The server's own lock-free protocol, the session run gate ([`crate::run_gate`]), imports its
//! atomics from here, so the same code is explored exhaustively by loom in tests and compiles to
//! plain `std` in production. The models live next to the code they check, under
//! `#[cfg(all(test, loom))]`, and run with
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p xrpc-server --release --lib loom
//! ```
//!
//! Everything else in the server synchronizes through `parking_lot` mutexes, or uses atomics as
//! independent counters and flags with no ordering role (session counters, the live variables),
//! and stays on `std`.
//!
//! [loom]: https://docs.rs/loom

#![allow(
    unused_imports,
    dead_code,
    reason = "a shim re-exports more than the crate uses in every build configuration"
)]

#[cfg(loom)]
pub(crate) use loom::thread;

#[cfg(not(loom))]
pub(crate) use std::thread;

/// `std::sync` or `loom::sync`.
pub(crate) mod sync {
    #[cfg(loom)]
    pub(crate) use loom::sync::{Arc, Mutex};

    #[cfg(not(loom))]
    pub(crate) use std::sync::{Arc, Mutex};

    /// `std::sync::atomic` or `loom::sync::atomic`.
    pub(crate) mod atomic {
        #[cfg(loom)]
        pub(crate) use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};

        #[cfg(not(loom))]
        pub(crate) use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
    }
}

/// `loom::cell::UnsafeCell`, for the models' state that only the gate's holder may touch.
#[cfg(loom)]
pub(crate) mod cell {
    pub(crate) use loom::cell::UnsafeCell;
}
