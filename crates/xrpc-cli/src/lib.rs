//! The `xrpc` command-line tool's library: an interactive SQL shell, scripted statements, node
//! status, and `xrpc bench`, the load generator for xrpc nodes, echo servers and their MySQL peers.
//!
//! The binary (`src/main.rs`) only parses the command line and calls into these modules:
//!
//! | module | role |
//! |---|---|
//! | [`conn`] | the `--host --port --user --password --database` flags and opening a session |
//! | [`split`] | splitting SQL text into statements at `;`, outside quotes and comments |
//! | [`errors`] | failures as the mysql client reports them, `ERROR 1146 (42S02): …` |
//! | [`format`](mod@format) | results as mysql-client tables, CSV or one JSON document |
//! | [`shell`] | `xrpc shell` (interactive or from stdin) and `xrpc exec` |
//! | [`status`] | `xrpc status` and `\status`: the connection, `SHOW STATUS` and the stage histograms |
//! | [`bench`](mod@bench) | `xrpc bench` and `xrpc bench prepare` |
//! | [`binlog`](mod@binlog) | `xrpc binlog FILE…`: a node's binary log as JSON lines, with filters and `--follow` |
//!
//! Exit codes: 0 on success, 1 when a statement or a benchmark step failed, 2 for bad usage.

pub mod bench;
pub mod binlog;
pub mod conn;
pub mod errors;
pub mod format;
pub mod shell;
pub mod split;
pub mod status;
