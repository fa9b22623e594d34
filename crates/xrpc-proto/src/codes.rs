//! The stable table of wire error codes, SQL states and messages.
//!
//! Every error that xrpc sends or synthesises names one [`ErrorCode`] from [`ALL`]. Clients match on
//! `code` (and the Java client on `sql_state`), so a row's code and SQL state never change once
//! released; new conditions get new rows. Codes come from MySQL where MySQL has a fitting one, so
//! that existing MySQL and PolarDB-X clients map them to the right exception; the 6000 and 8000 cache
//! misses are PolarDB-X's; the 7xxx rows are xrpc's own.
//!
//! `docs/PROTOCOL.md` holds the same table, rendered by [`markdown_table`]; a test fails when the two
//! drift apart.

use std::fmt;

/// How hard an error hits: an ERROR ends the request, a FATAL ends the session (or, on sid 0, the
/// connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Severity {
    /// The request failed; the session stays usable.
    Error = 0,
    /// The session (or, on sid 0, the connection) is gone.
    Fatal = 1,
}

impl Severity {
    /// The wire value of the `severity` field.
    pub const fn as_u32(self) -> u32 {
        self as u32
    }

    /// Parses the wire value; anything but 1 is treated as ERROR, as proto2 defaults it.
    pub const fn from_u32(value: u32) -> Self {
        if value == 1 {
            Severity::Fatal
        } else {
            Severity::Error
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
        })
    }
}

/// One row of the error table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorCode {
    /// The symbolic name, as used in logs and docs.
    pub name: &'static str,
    /// The numeric code on the wire.
    pub code: u32,
    /// The five-character SQL state.
    pub sql_state: &'static str,
    /// The severity xrpc sends it with.
    pub severity: Severity,
    /// The message, or the fixed part of it when details follow.
    pub message: &'static str,
    /// When it is sent.
    pub when: &'static str,
}

macro_rules! error_codes {
    ($($name:ident = $code:literal, $state:literal, $severity:ident, $message:literal, $when:literal;)*) => {
        $(
            #[doc = concat!("`", $code, "` / `", $state, "`: ", $when)]
            pub const $name: ErrorCode = ErrorCode {
                name: stringify!($name),
                code: $code,
                sql_state: $state,
                severity: Severity::$severity,
                message: $message,
                when: $when,
            };
        )*
        /// Every row, in the order of the table in `docs/PROTOCOL.md`.
        pub const ALL: &[ErrorCode] = &[$($name),*];
    };
}

error_codes! {
    ACCESS_DENIED = 1045, "28000", Error,
        "Access denied for user",
        "Wrong user or password, or any request other than the capabilities probe before authentication. FATAL on sid 0, and the connection is closed, at the `xrpc_auth_max_failures`-th failure.";
    NOT_SUPPORTED_AUTH_MODE = 1251, "08004", Error,
        "Authentication mechanism not supported",
        "An authentication mechanism other than MYSQL41 and PLAIN, or PLAIN on a connection that has not switched to TLS.";
    SECURE_TRANSPORT_REQUIRED = 3159, "HY000", Fatal,
        "Connections using insecure transport are prohibited while --require_secure_transport=ON.",
        "AuthenticateStart on a connection that has not switched to TLS while `require_secure_transport` is ON; sent on sid 0, and the connection is closed.";
    CAPABILITIES_PREPARE_FAILED = 5001, "HY000", Error,
        "Capability prepare failed",
        "CapabilitiesSet `tls` that cannot be honoured: the node has no certificate, the connection already uses TLS or has authenticated, the value is not true, or more frames follow it in the same read.";
    TLS_RELOAD_FAILED = 3889, "HY000", Error,
        "Failed to set up SSL because of the following SSL library error",
        "`ALTER INSTANCE RELOAD TLS` when the node was started without a certificate, or the files no longer make a valid configuration; the previous certificate stays in force.";
    CAPABILITY_NOT_FOUND = 5002, "HY000", Error,
        "Capability doesn't exist",
        "CapabilitiesSet naming a capability other than `tls`.";
    HANDSHAKE_TIMEOUT = 1043, "08S01", Fatal,
        "Bad handshake",
        "A connection did not authenticate within `connect_timeout` seconds; sent on sid 0, and the connection is closed.";
    PACKET_TOO_LARGE = 1153, "S1000", Fatal,
        "Got a packet bigger than 'max_allowed_packet' bytes",
        "A frame header announces more than `max_allowed_packet`; the connection is closed after this.";
    MALFORMED_FRAME = 5000, "HY000", Fatal,
        "Malformed frame",
        "A header with length 0, a galaxy version mismatch, or a body that does not decode; sent on sid 0, and the connection is closed after this.";
    UNKNOWN_MESSAGE_TYPE = 1047, "08S01", Fatal,
        "Unknown message type",
        "A type id that no client message has; the connection is closed after this.";
    UNEXPECTED_MESSAGE = 7001, "HY000", Error,
        "Unexpected message",
        "A known message on a sid that cannot take it, e.g. anything but EXEC_SQL on an auto-commit sid.";
    SESSION_NOT_FOUND = 7002, "HY000", Fatal,
        "Session not found.",
        "A request names a sid with no session on this connection.";
    SESSION_QUEUE_OVERFLOW = 7003, "HY000", Fatal,
        "Session max_queued_messages limit exceed.",
        "A session's command queue is full; the session is removed and its queued requests are not run (this is its last frame).";
    WORK_QUEUE_OVERFLOW = 7004, "70100", Fatal,
        "Work queue overflow.",
        "The epoll group's task queue is full and `xrpc_work_queue_spill` is OFF; the session is removed.";
    SESSION_KILLED = 7005, "70100", Fatal,
        "Session is killing.",
        "SESS_KILL with type CONNECTION removed the session; this is its last frame.";
    DUPLICATE_SESSION = 7006, "HY000", Fatal,
        "Duplicate session ID.",
        "SESS_NEW for a sid that already has a session; that session is ended (this is its last frame).";
    TOO_MANY_SESSIONS = 1040, "08004", Fatal,
        "Too many sessions",
        "SESS_NEW over the node's `max_sessions` (\"Too many sessions\"), or a connection over `max_connections` (\"Too many connections\", on sid 0, and the connection is closed).";
    UNSUPPORTED_OPTION = 7007, "HY000", Error,
        "Unsupported request option",
        "An option the sid cannot honour, e.g. chunk results, feedback or a digest-only request on an auto-commit sid, or a statement that would leave state on one (BEGIN, START TRANSACTION, SET autocommit = 0, a temporary table).";
    INVALID_TOKEN = 7008, "HY000", Error,
        "Invalid flow-control token",
        "A `token` below -1.";
    SQL_CACHE_MISS = 6000, "HY000", Error,
        "SQL digest not found in cache",
        "A digest-only EXEC_SQL whose digest is not cached; the client resends the full statement.";
    PLAN_CACHE_MISS = 8000, "HY000", Error,
        "Plan digest not found in cache",
        "A digest-only EXEC_PLAN_READ whose digest is not cached; the client resends the full plan.";
    SERVER_SHUTDOWN = 1053, "08S01", Fatal,
        "Server shutdown in progress",
        "A queued request that the node will not run because it is draining.";
    QUERY_INTERRUPTED = 1317, "70100", Error,
        "Query execution was interrupted",
        "SESS_KILL with type QUERY (or SQL `KILL QUERY`) stopped the running statement, or a drain interrupted it after `xrpc_drain_timeout`.";
    DUP_ENTRY = 1062, "23000", Error,
        "Duplicate entry",
        "A unique or primary key constraint failed.";
    PARSE_ERROR = 1064, "42000", Error,
        "You have an error in your SQL syntax",
        "The engine could not parse the statement.";
    EMPTY_QUERY = 1065, "42000", Error,
        "Query was empty",
        "The statement's text holds nothing but comments and `;`.";
    KEY_DOES_NOT_EXIST = 1176, "42000", Error,
        "Key doesn't exist in table",
        "An EXEC_PLAN_READ plan names an index the table does not have (MySQL's ER_KEY_DOES_NOT_EXITS, as for `FORCE INDEX`).";
    NO_SUCH_TABLE = 1146, "42S02", Error,
        "Table doesn't exist",
        "The statement names an unknown table.";
    BAD_FIELD = 1054, "42S22", Error,
        "Unknown column",
        "The statement names an unknown column.";
    MULTIPLE_PRI_KEY = 1068, "42000", Error,
        "Multiple primary key defined",
        "SQLite engine: CREATE TABLE declaring two primary keys, or ALTER TABLE … ADD PRIMARY KEY to a table that has one.";
    KEY_COLUMN_DOES_NOT_EXIST = 1072, "42000", Error,
        "Key column doesn't exist in table",
        "SQLite engine: a PRIMARY KEY, UNIQUE or index (in CREATE TABLE, CREATE INDEX or ALTER TABLE) naming a column the table does not have.";
    INVALID_DEFAULT = 1067, "42000", Error,
        "Invalid default value",
        "SQLite engine: a column DEFAULT the column cannot hold (a negative number for an UNSIGNED column, a number out of its range, text too long, no member of its ENUM or SET), or SET DEFAULT NULL on a NOT NULL column.";
    ILLEGAL_PARAMETER_TYPE = 4079, "HY000", Error,
        "Illegal parameter data type for operation",
        "SQLite engine (MariaDB's code): GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK or IS_USED_LOCK of a number or a temporal value, naming the type and the function.";
    WRONG_OBJECT = 1347, "HY000", Error,
        "Is not of type",
        "SQLite engine: SHOW CREATE VIEW of a table (`'db.t' is not of type 'VIEW'`), and in a translated statement ALTER TABLE, CREATE INDEX or DROP INDEX of a view (`… 'BASE TABLE'`), as MySQL's ER_WRONG_OBJECT.";
    NON_UPDATABLE_TABLE = 1288, "HY000", Error,
        "The target table of the statement is not updatable",
        "SQLite engine: UPDATE or DELETE of a view MySQL cannot write through (a union, LIMIT, DISTINCT, GROUP BY, HAVING, an aggregate or window function, no table, or a view over such a view).";
    NONUPDATEABLE_COLUMN = 1348, "HY000", Error,
        "Column is not updatable",
        "SQLite engine: a write to a view's computed column.";
    NON_INSERTABLE_TABLE = 1471, "HY000", Error,
        "The target table of the INSERT is not insertable-into",
        "SQLite engine: INSERT or REPLACE into a view MySQL cannot write through, or without a column list into a view with a computed column.";
    VIEW_MULTIUPDATE = 1393, "HY000", Error,
        "Can not modify more than one base table through a join view",
        "SQLite engine: an UPDATE or INSERT through a view of a join naming columns of several of its tables (or, for an INSERT, a computed column).";
    VIEW_NO_INSERT_FIELD_LIST = 1394, "HY000", Error,
        "Can not insert into join view without fields list",
        "SQLite engine: an INSERT into a view of a join without a column list.";
    VIEW_DELETE_MERGE_VIEW = 1395, "HY000", Error,
        "Can not delete from join view",
        "SQLite engine: a DELETE from a view of a join.";
    BAD_DB = 1049, "42000", Error,
        "Unknown database",
        "`schema_name`, `USE`, `SHOW … FROM` or the session's current database names no database.";
    LOCK_WAIT_TIMEOUT = 1205, "HY000", Error,
        "Lock wait timeout exceeded; try restarting transaction",
        "The engine's busy timeout ran out while waiting for a lock. SQLite engine, also at once, without waiting: a write in a deferred transaction that another connection's commit has overtaken (see \"Lock waits\" under the SQLite engine).";
    WRONG_ARGUMENTS = 1210, "HY000", Error,
        "Incorrect arguments",
        "Statement arguments that do not match its placeholders, or a value of an unsupported type. For EXEC_PLAN_READ: a malformed plan (a missing node or field, an unknown plan or expression type, nesting deeper than 32 plan or 32 expression levels, a placeholder without its parameter, key parts that are not a prefix of the index).";
    UNKNOWN_SYSTEM_VARIABLE = 1193, "HY000", Error,
        "Unknown system variable",
        "SET or SHOW names a variable the node does not have.";
    WRONG_VALUE_FOR_VAR = 1231, "42000", Error,
        "Variable can't be set to the value",
        "SET GLOBAL with a value outside the variable's range, or one the node cannot apply (`xrpc_binlog` switched on with a binlog directory it cannot create or open); the variable keeps its value.";
    UNKNOWN_TIME_ZONE = 1298, "HY000", Error,
        "Unknown or incorrect time zone",
        "SET time_zone to a value that is neither SYSTEM nor an offset within ±13:59 (the SQLite engine).";
    READ_ONLY_VARIABLE = 1238, "HY000", Error,
        "Variable is a read only variable",
        "SET GLOBAL of a variable fixed at start-up (ER_INCORRECT_GLOBAL_LOCAL_VAR).";
    UNKNOWN_THREAD_ID = 1094, "HY000", Error,
        "Unknown thread id",
        "SQL `KILL [QUERY] n` or `KILL CONNECTION n` where `n` is no live session's `connection_id()`.";
    NOT_OWNER_OF_THREAD = 1095, "HY000", Error,
        "You are not owner of thread",
        "SQL `KILL` of a session that belongs to another user, by a user without `connection_admin` (MySQL's CONNECTION_ADMIN/SUPER).";
    GLOBAL_VARIABLE = 1229, "HY000", Error,
        "Variable is a GLOBAL variable and should be set with SET GLOBAL",
        "A session-scope SET of one of the node's global `xrpc_*` variables.";
    BAD_NULL = 1048, "23000", Error,
        "Column cannot be null",
        "A NULL written to a NOT NULL column.";
    INCORRECT_VALUE = 1366, "HY000", Error,
        "Incorrect value for column",
        "A write of a value that is not of the column's declared type ('abc' into an INT, invalid UTF-8 into text), or a stored value that does not fit the column type already sent in a result.";
    OUT_OF_RANGE = 1264, "22003", Error,
        "Out of range value for column",
        "A write of a number outside the declared type's range.";
    AUTO_INCREMENT_OUT_OF_RANGE = 167, "22003", Error,
        "Out of range value for column",
        "SQLite engine: an AUTO_INCREMENT id generated beyond the column's declared type (`TINYINT` past 127), refused at the insert as MariaDB does (its handler error 167).";
    INCORRECT_DATETIME = 1292, "22007", Error,
        "Incorrect date or time value",
        "A write of text that is not a valid date, datetime, timestamp or time for the column (calendar-checked).";
    UPDATE_WITHOUT_KEY_IN_SAFE_MODE = 1175, "HY000", Error,
        "You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column",
        "SQLite engine, under `SET sql_safe_updates = 1`: an UPDATE or DELETE without a WHERE (an UPDATE with a LIMIT runs), or whose WHERE names no column an index leads with, as MariaDB refuses it.";
    DIVISION_BY_ZERO = 1365, "22012", Error,
        "Division by 0",
        "SQLite engine: `/`, `%`, `MOD` or `DIV` by zero in an INSERT, REPLACE or UPDATE (strict mode with `ERROR_FOR_DIVISION_BY_ZERO`, as MariaDB); in a query the value is NULL with `Warning 1365`.";
    DATA_OUT_OF_RANGE = 1690, "22003", Error,
        "BIGINT value is out of range",
        "SQLite engine: an expression whose integer result does not fit BIGINT (`a DIV b` beyond it), as MySQL's ER_DATA_OUT_OF_RANGE.";
    DATA_TOO_LONG = 1406, "22001", Error,
        "Data too long for column",
        "A write of text, bytes or bits longer than the declared length.";
    DATA_TRUNCATED = 1265, "01000", Error,
        "Data truncated for column",
        "A write of a number followed by junk ('12abc'), or a fraction into an integer column.";
    INVALID_JSON = 3140, "22032", Error,
        "Invalid JSON text",
        "A write of text that is not valid JSON into a JSON column.";
    NOT_SUPPORTED_YET = 1235, "42000", Error,
        "This version doesn't yet support it",
        "SQL the engine would answer differently from MySQL, refused rather than answered wrongly. Front end: a MySQL statement the parse tree cannot hold (CREATE and ALTER FUNCTION, PROCEDURE and EVENT, DROP EVENT, a CREATE TRIGGER it cannot read, HANDLER, DO, PREPARE … FROM, CHECK, CHECKSUM, OPTIMIZE and REPAIR TABLE, DELETE IGNORE, UPDATE IGNORE), named by its kind; the MySQL engine still sends its text to the backend. SQLite engine: what the translation does not cover, naming it (`This version of MySQL doesn't yet support 'statement EXPLAIN SELECT 1'`); a table without a kept definition (made by a node that ran statements as their text, or by another tool) in a translated statement, and a function or collation such a node's stored SQL names (`xrpc_…`); SET sql_mode with PIPES_AS_CONCAT, ANSI_QUOTES, NO_BACKSLASH_ESCAPES or a mode holding one (statements read as under the default sql_mode). In an EXEC_PLAN_READ plan: an operator, function or expression type the node does not compile, a non-zero scan `flag`, a plan option it cannot honour (`snapshot_seq`, `commit_seq`, flashback, session variables), a range key with NULL.";
    DB_CREATE_EXISTS = 1007, "HY000", Error,
        "Can't create database; database exists",
        "CREATE DATABASE (without IF NOT EXISTS) of a database that exists, `main` and `information_schema` included.";
    DB_DROP_EXISTS = 1008, "HY000", Error,
        "Can't drop database; database doesn't exist",
        "DROP DATABASE (without IF EXISTS) of a database that does not exist.";
    WRONG_DB_NAME = 1102, "42000", Error,
        "Incorrect database name",
        "A database name that is empty, over 64 characters, or holds anything but ASCII letters, digits, `_` and `$` (checked before the name comes near a file path).";
    DB_ACCESS_DENIED = 1044, "42000", Error,
        "Access denied for user to database",
        "DROP DATABASE of `main` (the node's default database) or of `information_schema`, and CREATE or DROP of a name the node reserves.";
    SP_DOES_NOT_EXIST = 1305, "42000", Error,
        "PROCEDURE does not exist",
        "CALL of a procedure the node does not have (every one but `xrpc.perf_hist`), and on SQLite a call of a function it does not have (`FUNCTION db.x does not exist`) and `ROLLBACK TO`/`RELEASE` of a savepoint the transaction does not have (`SAVEPOINT s does not exist`).";
    READ_ONLY_TRANSACTION = 1792, "25006", Error,
        "Cannot execute statement in a READ ONLY transaction",
        "SQLite engine: an INSERT, REPLACE, UPDATE, DELETE or `SELECT … FOR UPDATE` inside a read-only transaction (`START TRANSACTION READ ONLY`, or any in a read-only session), and DDL in a read-only session (`SET SESSION TRANSACTION READ ONLY`).";
    WRONG_PARAMCOUNT_TO_NATIVE_FCT = 1582, "42000", Error,
        "Incorrect parameter count in the call to native function",
        "SQLite engine: a call of a MySQL function with fewer arguments than it takes (`CONCAT()`, `CONCAT_WS(',')`).";
    NO_REFERENCED_ROW = 1452, "23000", Error,
        "Cannot add or update a child row: a foreign key constraint fails",
        "SQLite engine: an INSERT, REPLACE or UPDATE whose foreign key names no parent row (and any other statement SQLite's foreign-key check fails, but a DELETE and an UPDATE of a table that has no foreign key of its own).";
    ROW_IS_REFERENCED = 1451, "23000", Error,
        "Cannot delete or update a parent row: a foreign key constraint fails",
        "SQLite engine: a DELETE of a parent row that child rows still reference, or an UPDATE of one (of a table that has no foreign key of its own).";
    CONSTRAINT_FAILED = 4025, "23000", Error,
        "CONSTRAINT failed",
        "SQLite engine: an INSERT, REPLACE, UPDATE or ALTER TABLE whose row fails a CHECK constraint (a JSON column's validity check included), named as MariaDB names it: ``CONSTRAINT `t.c` failed for `db`.`t` `` for a column's check, the constraint's name (or `CONSTRAINT_n`) for a table's.";
    GENERATED_COLUMN_VALUE = 1906, "HY000", Error,
        "The value specified for generated column has been ignored",
        "SQLite engine: an INSERT, REPLACE or UPDATE that writes a value other than DEFAULT to a generated column (MariaDB's strict mode makes this warning an error), naming the column and its table.";
    INVALID_GROUP_FUNC_USE = 1111, "HY000", Error,
        "Invalid use of group function",
        "An aggregate where MySQL allows none: in WHERE, or nested in another aggregate.";
    WRONG_USAGE = 1221, "HY000", Error,
        "Incorrect usage of CUBE/ROLLUP and ORDER BY",
        "SQLite engine: `GROUP BY … WITH ROLLUP` with an ORDER BY, which MariaDB refuses too.";
    UNKNOWN_STORAGE_ENGINE = 1286, "42000", Error,
        "Unknown storage engine",
        "SQLite engine: CREATE TABLE … ENGINE= a name that is no MySQL storage engine (InnoDB, MyISAM and Aria are kept as names; MySQL's other engines are 1235).";
    TOO_BIG_PRECISION = 1426, "42000", Error,
        "Too big precision specified",
        "SQLite engine: a TIME, DATETIME or TIMESTAMP column with more than 6 fraction digits.";
    UNKNOWN_TABLE = 1109, "42S02", Error,
        "Unknown table",
        "A table of `information_schema` the node does not provide (it has SCHEMATA, TABLES, VIEWS, COLUMNS, STATISTICS, TABLE_CONSTRAINTS, CHECK_CONSTRAINTS, KEY_COLUMN_USAGE, REFERENTIAL_CONSTRAINTS and FILES).";
    CONVERSION_OVERFLOW = 1916, "22003", Error,
        "Got overflow when converting a value",
        "SQLite engine: in INSERT, REPLACE or UPDATE, a CAST whose value overflowed its type (MySQL's strict mode turns that warning into this error).";
    ENGINE_ERROR = 1105, "HY000", Error,
        "Unknown error",
        "Any other engine error; the message keeps the engine's own words.";
    TABLE_FULL = 1114, "HY000", Error,
        "The table is full",
        "A write that needs the database to grow when it cannot: the disk is full, or the SQLite database reached its size cap (`xrpc_sqlite_max_page_count`). Reads keep working; the statement's changes are undone.";
    HOST_BLOCKED = 1129, "HY000", Fatal,
        "Host is blocked because of many connection errors",
        "A new connection, or a new AuthenticateStart, from an address that failed authentication `xrpc_max_connect_errors` times in a row; sent on sid 0, and the connection is closed. The block lasts `xrpc_host_block_time` seconds; admin SQL `FLUSH HOSTS` ends every block.";
    BACKEND_BUSY = 7009, "HY000", Error,
        "No backend connection became free in time",
        "`mysql` engine: every backend connection stayed busy for `xrpc_backend_wait_timeout`; retry, or raise the backend pool size.";
    BACKEND_UNREACHABLE = 2003, "HY000", Error,
        "Can't connect to the backend MySQL server",
        "`mysql` engine: a new backend connection could not be opened (refused, timed out, unknown host). The backend's own refusals (1045, 1040) keep their codes.";
    BACKEND_LOST = 2013, "HY000", Error,
        "Lost connection to the backend MySQL server during query",
        "`mysql` engine: the backend connection broke during the statement; a transaction it held is gone. The session stays usable.";
}

/// Looks up a row by its numeric code.
pub fn by_code(code: u32) -> Option<&'static ErrorCode> {
    ALL.iter().find(|row| row.code == code)
}

/// The error table as Markdown, exactly as it stands in `docs/PROTOCOL.md`.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| code | SQL state | severity | name | message | when |\n|---:|---|---|---|---|---|\n",
    );
    for row in ALL {
        out.push_str(&format!(
            "| {} | `{}` | {} | `{}` | {} | {} |\n",
            row.code, row.sql_state, row.severity, row.name, row.message, row.when
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn codes_and_names_are_unique() {
        let codes: HashSet<u32> = ALL.iter().map(|row| row.code).collect();
        let names: HashSet<&str> = ALL.iter().map(|row| row.name).collect();
        assert_eq!(codes.len(), ALL.len());
        assert_eq!(names.len(), ALL.len());
    }

    #[test]
    fn sql_states_are_five_characters() {
        for row in ALL {
            assert_eq!(row.sql_state.len(), 5, "{}", row.name);
            assert!(
                row.sql_state.chars().all(|c| c.is_ascii_alphanumeric()),
                "{}",
                row.name
            );
        }
    }

    #[test]
    fn the_codes_clients_interpret_are_pinned() {
        // The Java client recognises these numbers; changing them breaks it.
        assert_eq!(
            (ACCESS_DENIED.code, ACCESS_DENIED.sql_state),
            (1045, "28000")
        );
        assert_eq!(
            (PACKET_TOO_LARGE.code, PACKET_TOO_LARGE.sql_state),
            (1153, "S1000")
        );
        assert_eq!((DUP_ENTRY.code, DUP_ENTRY.sql_state), (1062, "23000"));
        assert_eq!(SQL_CACHE_MISS.code, 6000);
        assert_eq!(PLAN_CACHE_MISS.code, 8000);
        assert_eq!(SQL_CACHE_MISS.severity, Severity::Error);
        assert_eq!(SESSION_KILLED.sql_state, "70100");
        assert_eq!(SESSION_NOT_FOUND.message, "Session not found.");
    }

    #[test]
    fn protocol_doc_carries_the_same_table() {
        let doc = include_str!("../../../docs/PROTOCOL.md");
        let table = markdown_table();
        assert!(
            doc.contains(&table),
            "docs/PROTOCOL.md's error table is stale; replace it with:\n{table}"
        );
    }
}
