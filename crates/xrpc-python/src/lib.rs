//! The native part of the `xrpc` Python package (`xrpc._xrpc`): sessions and streamed results
//! over `xrpc-client`, for the pure-Python DB-API module, `xrpc.aio` and the SQLAlchemy dialect
//! in `python/xrpc`.
//!
//! One protocol implementation: every byte on the wire comes from `xrpc-client`'s sans-IO core,
//! driven by its blocking transport (DB-API) or its tokio transport (asyncio). This crate only
//! converts values and errors and keeps the process's shared connections.
//!
//! | module | role |
//! |---|---|
//! | `options` | `connect()`'s settings, and the key of the connections they may share |
//! | `pool` | the process's connections per node and login; sessions spread over a few sockets |
//! | `sync` | DB-API sessions and streamed results on the blocking transport, GIL released while waiting |
//! | `aio` | the same as awaitables on the tokio transport |
//! | `convert`, `describe` | arguments out, typed cells, `description` and counts back |
//! | `errors` | client and server errors as `xrpc.exceptions` classes with MySQL codes and states |

mod aio;
mod convert;
mod describe;
mod errors;
mod options;
mod pool;
mod sync;

use pyo3::prelude::*;

/// Live TCP connections of the process to every node: blocking and asyncio.
#[pyfunction]
fn live_connections() -> (usize, usize) {
    (sync::live_connections(), aio::live_connections())
}

/// The extension module.
#[pymodule]
fn _xrpc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<options::Settings>()?;
    m.add_class::<sync::Session>()?;
    m.add_class::<sync::StatementResult>()?;
    m.add_class::<aio::AsyncSession>()?;
    m.add_class::<aio::AsyncResult>()?;
    m.add_function(wrap_pyfunction!(aio::connect_async, m)?)?;
    m.add_function(wrap_pyfunction!(live_connections, m)?)?;
    Ok(())
}
