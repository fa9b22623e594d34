//! What client statements may not do: SQLite's file- and connection-level commands.
//!
//! A client that could run `ATTACH DATABASE '/anywhere/x.db' AS x` would create or open files
//! wherever the node's process can write, and `PRAGMA database_list` would show the data file's
//! absolute path; MySQL guards the same ground with `secure_file_priv`. So client statements are
//! checked by SQLite's authorizer (`sqlite3_set_authorizer`), which SQLite calls while it compiles
//! a statement for every action the compiled program will take, including those inside `WITH …`,
//! subqueries, views and triggers. The check therefore sees what SQLite will do, not how the text
//! spells it.
//!
//! # What is refused, and with which error
//!
//! | action | error |
//! | --- | --- |
//! | `ATTACH`, `DETACH` (any spelling, any expression for the file name) | 1064: MySQL has no such statement |
//! | every `PRAGMA`, and the table-valued `pragma_…` functions (`SELECT * FROM pragma_database_list`) | 1064 |
//! | the SQL function `load_extension` (extension loading is also off at the C level) | 1064 |
//! | writes to `information_schema` (its tables are the node's, rebuilt for each query that reads them) | 1044 |
//! | `VACUUM` (SQLite has no authorizer action for it, see below; refused by the front end) | 1064 |
//!
//! `VACUUM` (and `VACUUM INTO 'file'`) compiles without any authorizer call, so it is refused by
//! the front end instead (`front`), together with `PRAGMA` and `ATTACH` as statements: the
//! parse tree says what the statement is, whatever its spelling, and VACUUM is only ever a
//! whole top-level statement — it cannot appear inside `WITH`, a trigger, a view or an
//! expression — and one request runs one statement.

//! # The node's own statements
//!
//! The node runs its own PRAGMAs and ATTACHes of database files (see `databases`) on the same
//! connections. The check applies only while [`ClientSql`] is held, which the engine takes around
//! preparing and stepping a client's statement (SQLite may recompile a statement during a step
//! when the schema changed, and calls the authorizer again then). The node's own statements are
//! never put in the prepared-statement cache, so a client sending the same text cannot reuse a
//! statement that was compiled without the check.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::{Connection, ffi};
use xrpc_proto::codes;

use xrpc_engine::result::SqlError;

/// The node's table of MySQL table definitions in each database file (the `translated`
/// module's kept catalog), which clients neither read nor write.
pub(crate) const CATALOG_TABLE: &str = "xrpc_catalog";

/// Whether the statement being compiled is a client's, and the error of the last refusal.
#[derive(Debug, Default)]
pub(crate) struct Guard {
    client: AtomicBool,
    refused: Mutex<Option<SqlError>>,
    /// Raised with `refused` set, lowered when it is taken: a client statement starts without
    /// locking `refused` when nothing was refused (the common case). Only the connection's
    /// thread touches either, so `Relaxed` suffices.
    has_refusal: AtomicBool,
}

impl Guard {
    /// The refusal that failed the last compile, if the authorizer refused something; SQLite
    /// itself only reports "not authorized".
    pub(crate) fn take_refusal(&self) -> Option<SqlError> {
        if !self.has_refusal.swap(false, Ordering::Relaxed) {
            return None;
        }
        self.refused.lock().take()
    }

    /// Runs `f`, the node's own statements, with the client check lifted, then puts the check
    /// back as it was: the metadata PRAGMAs the engine reads while a client's result streams
    /// (see `origin`). Such statements must be prepared uncached, like every node statement.
    pub(crate) fn as_node<R>(&self, f: impl FnOnce() -> R) -> R {
        let was_client = self.client.swap(false, Ordering::AcqRel);
        let out = f();
        self.client.store(was_client, Ordering::Release);
        out
    }
}

/// Marks the statement compiled or stepped while it lives as a client's.
pub(crate) struct ClientSql<'a>(&'a Guard);

impl<'a> ClientSql<'a> {
    pub(crate) fn enter(guard: &'a Guard) -> Self {
        guard.take_refusal();
        guard.client.store(true, Ordering::Release);
        Self(guard)
    }
}

impl Drop for ClientSql<'_> {
    fn drop(&mut self) {
        self.0.client.store(false, Ordering::Release);
    }
}

/// Installs the authorizer on a connection.
pub(crate) fn install(conn: &Connection, guard: &Arc<Guard>) {
    let guard = Arc::clone(guard);
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        if !guard.client.load(Ordering::Acquire) {
            return Authorization::Allow;
        }
        match refusal(&ctx) {
            None => Authorization::Allow,
            Some(err) => {
                let mut refused = guard.refused.lock();
                if refused.is_none() {
                    *refused = Some(err);
                }
                guard.has_refusal.store(true, Ordering::Relaxed);
                Authorization::Deny
            }
        }
    }));
}

/// The error for SQLite's own statements and actions: MySQL has no such statement.
pub(crate) fn not_for_clients(what: &str) -> SqlError {
    SqlError::new(
        &codes::PARSE_ERROR,
        format!(
            "You have an error in your SQL syntax: {what} is SQLite's own and not available to \
             clients; database files are the node's (use CREATE DATABASE, SHOW, information_schema)"
        ),
    )
}

/// Why a client may not take this action, or `None` when it may.
fn refusal(ctx: &AuthContext<'_>) -> Option<SqlError> {
    let writes_information_schema = ctx
        .database_name
        .is_some_and(|db| db.eq_ignore_ascii_case(super::databases::INFORMATION_SCHEMA));
    match ctx.action {
        AuthAction::Attach { .. } => Some(not_for_clients("ATTACH")),
        AuthAction::Detach { .. } => Some(not_for_clients("DETACH")),
        AuthAction::Pragma { pragma_name, .. } => {
            Some(not_for_clients(&format!("PRAGMA {pragma_name}")))
        }
        AuthAction::Function { function_name }
            if function_name.eq_ignore_ascii_case("load_extension") =>
        {
            Some(not_for_clients("load_extension()"))
        }
        // rusqlite reports an action whose arguments it cannot read as `Unknown`: SQLite passes
        // no file name for `ATTACH <expression>` that is not a plain string, for one.
        AuthAction::Unknown { code, .. } if code == ffi::SQLITE_ATTACH => {
            Some(not_for_clients("ATTACH"))
        }
        AuthAction::Unknown { code, .. } if code == ffi::SQLITE_DETACH => {
            Some(not_for_clients("DETACH"))
        }
        AuthAction::Unknown { code, .. } if code == ffi::SQLITE_PRAGMA => {
            Some(not_for_clients("PRAGMA"))
        }
        AuthAction::Unknown { code, .. }
            if code == ffi::SQLITE_FUNCTION || code == ffi::SQLITE_READ =>
        {
            Some(not_for_clients("an unnamed function or table"))
        }
        AuthAction::Read { table_name, .. }
        | AuthAction::Insert { table_name }
        | AuthAction::Update { table_name, .. }
        | AuthAction::Delete { table_name }
        | AuthAction::DropTable { table_name }
        | AuthAction::CreateTable { table_name }
        | AuthAction::AlterTable { table_name, .. }
        | AuthAction::CreateIndex { table_name, .. }
        | AuthAction::CreateTrigger { table_name, .. }
            if table_name.eq_ignore_ascii_case(CATALOG_TABLE) =>
        {
            // The node's definitions of MySQL tables (see `translated`): not a client table.
            Some(SqlError::new(
                &codes::NO_SUCH_TABLE,
                format!("Table '{table_name}' doesn't exist: the name is the node's own"),
            ))
        }
        AuthAction::Read { table_name, .. } if is_pragma_table(table_name) => {
            Some(not_for_clients(&format!("the table-valued {table_name}")))
        }
        AuthAction::Insert { .. }
        | AuthAction::Update { .. }
        | AuthAction::Delete { .. }
        | AuthAction::CreateTable { .. }
        | AuthAction::CreateIndex { .. }
        | AuthAction::CreateView { .. }
        | AuthAction::CreateTrigger { .. }
        | AuthAction::DropTable { .. }
        | AuthAction::DropIndex { .. }
        | AuthAction::DropView { .. }
        | AuthAction::DropTrigger { .. }
        | AuthAction::AlterTable { .. }
            if writes_information_schema =>
        {
            Some(SqlError::new(
                &codes::DB_ACCESS_DENIED,
                "Access denied for user to database 'information_schema'",
            ))
        }
        _ => None,
    }
}

/// SQLite's eponymous virtual tables for PRAGMAs: `pragma_table_info`, `pragma_database_list`, …
fn is_pragma_table(name: &str) -> bool {
    name.len() > 7 && name[..7].eq_ignore_ascii_case("pragma_")
}
