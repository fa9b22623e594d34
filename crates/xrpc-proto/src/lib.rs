//! Sans-IO codecs for the PolarDB-X RPC wire protocol: frames, messages, row values, chunks, auth and error codes.
//!
//! This crate does no I/O and reads no clock: every function takes bytes (and, where it matters,
//! the time) as arguments and returns bytes or typed values. The data node, the clients and the
//! fuzzers all drive the same code.
//!
//! | module | what it holds |
//! |---|---|
//! | [`auth`] | the MYSQL41 challenge-response, password hashes and PLAIN parsing |
//! | [`frame`] | the 13-byte standard and 14-byte galaxy headers, and the incremental frame decoder |
//! | [`column`](mod@column) | ColumnMetaData constants: MySQL field types, collations, content types, column flags |
//! | [`codes`] | the stable table of wire error codes and SQL states |
//! | [`value`] | X-protocol row and chunk value encodings (varints, zigzag, decimal BCD, packed times) |
//! | [`chunk`] | the columnar chunk encoder and the reassembling decoder |
//! | [`error`] | error types per operation and their mapping to wire errors |
//! | [`binlog`] | the binary log's entry message, written by the node and read by `xrpc binlog` |

pub mod auth;
pub mod binlog;
pub mod chunk;
pub mod codes;
pub mod column;
pub mod error;
pub mod frame;
pub mod messages;
pub mod value;

pub use codes::{ErrorCode, Severity};
pub use error::{FrameConfigError, FrameError, WireError};
pub use frame::{Frame, FrameConfig, FrameDecoder, FrameHeader, HeaderFormat};
