//! What the engine makes of a client request's statement, read by the node's MySQL front end
//! (`xrpc_sql`).
//!
//! Every request's text is parsed once, through the process-wide parse cache
//! ([`xrpc_sql::parse_cached`]), and nothing here looks at the text itself:
//!
//! - A text that does not parse is MySQL's 1064 with MySQL's message; one with no statement is
//!   1065 "Query was empty". A text holding several statements is refused with 1064 before any
//!   of them runs: one request runs one statement, because the protocol allows one result per
//!   request.
//! - SQLite's own statements (`PRAGMA`, `ATTACH`, `VACUUM`) are refused with 1064, as MySQL has
//!   no such statements; the `authorizer` still refuses their table-valued and nested forms
//!   while SQLite compiles a statement.
//! - The session statements ([`xrpc_sql::Session`]) are the engine's own ([`Request`]):
//!
//! | statement | meaning |
//! | --- | --- |
//! | `BEGIN [WORK]`, `START TRANSACTION [READ ONLY \| READ WRITE \| WITH CONSISTENT SNAPSHOT]` | [`Request::Begin`]; without an access mode the session's; in a READ ONLY one INSERT, REPLACE, UPDATE, DELETE and `SELECT … FOR UPDATE` are 1792 (also of temporary tables, which MySQL allows) |
//! | `COMMIT [WORK]` | [`Request::Commit`] |
//! | `ROLLBACK [WORK]` | [`Request::Rollback`]; auto-increment counters keep the values the transaction took, as InnoDB's do (also after `ROLLBACK TO`) |
//! | `SAVEPOINT s`, `ROLLBACK TO [SAVEPOINT] s`, `RELEASE SAVEPOINT s` | [`Request::Savepoint`]: SQLite's savepoint of that name inside a transaction; outside one `SAVEPOINT` does nothing and the others are 1305, as in MySQL's autocommit mode |
//! | `SET NAMES …`, `SET [scope] TRANSACTION …` | [`Request::Set`] without effect (everything is utf8mb4) |
//! | `SET [GLOBAL \| SESSION \| @@…] name = value [, …]`, `SET @user = value` | [`Request::Set`]; what each system variable's SET does is the `variables` module's table: kept per session, without effect, accepted at the values the engine answers under only, or refused with 1235 |
//! | `SET [SESSION] time_zone = value` | [`Request::Set`] with the session's new zone: `SYSTEM` or the system's offset; another offset or a named zone 1235, a malformed one 1298 |
//! | `SET [SESSION] sql_mode = value` | [`Request::Set`] with the session's new mode (see the `sql_mode` module): a literal checked here, any other value when it runs; a mode that changes how text reads or what statements compute (`PIPES_AS_CONCAT`, `ANSI_QUOTES`, `EMPTY_STRING_IS_NULL`, …) refused with 1235 |
//! | `SET [SESSION] sql_select_limit = n \| DEFAULT` | [`Request::Set`]: a SELECT without a LIMIT of its own at the top returns at most n rows, as in MySQL (FOUND_ROWS() after one it cut is refused with 1235: MariaDB counts the rows before the cut); another value 1235 |
//! | `SET [SESSION] max_join_size = n \| DEFAULT` | [`Request::Set`]: kept and shown back (`@@sql_big_selects` is 0 while it is set); a query runs only where MySQL's estimate of the rows it examines is surely within n: the product of its tables' row counts, doubled, plus 1000, is at most n; else 1235 (MySQL's estimate, the node's does not have, might be 1104) |
//! | `SET [SESSION] sql_safe_updates = 0 \| 1` | [`Request::Set`]: an UPDATE or DELETE MariaDB would refuse with 1175 is 1175, one it would run runs, one whose outcome depends on MariaDB's optimizer is 1235 (see `xrpc-sql-sqlite`) |
//! | `SET autocommit = <not a boolean>` | 1231 |
//! | `SET SESSION TRANSACTION READ ONLY \| READ WRITE`, `SET [SESSION] tx_read_only = 0 \| 1` (or `transaction_read_only`) | [`Request::Set`]: the session's access mode; in a read-only session every transaction and statement is read-only unless `START TRANSACTION READ WRITE` opened it, and DDL (also of temporary tables) is 1792 as in MariaDB |
//! | `SET [GLOBAL] TRANSACTION READ ONLY`, and `SET TRANSACTION READ WRITE` in a read-only session | refused with 1235: the engine keeps no access mode for the next transaction only, nor for later sessions |
//! | `USE db` | [`Request::Use`] |
//! | `XA …`, the SHOW forms the token pass reads | [`Request::Catalog`] (XA refused with 1235 by the `catalog` module) |
//!
//! Every other statement is [`Request::Sql`] with its [`SqlInfo`], worked out from the tree.
//! A statement MySQL commits implicitly before and after (DDL but CREATE and DROP of temporary
//! tables, `LOCK TABLES`) commits the open transaction and runs outside one, so a later
//! `ROLLBACK` keeps what came before it, as in MySQL; SQLite's transactional DDL is never seen
//! by clients.
//!
//! The MySQL statements the engine answers itself (SHOW, DESCRIBE, CREATE and DROP DATABASE)
//! or refuses (`FLUSH`, `GRANT`, `CALL`, …) are told from the tree by the `catalog` module;
//! those the front end refuses as unrepresentable (`HANDLER`, `INSTALL`, replication, …)
//! never get here.

use super::authorizer::not_for_clients;
use xrpc_engine::result::SqlError;
use xrpc_proto::codes;
use xrpc_sql::ast::{Expr, Statement, Value as AstValue};
use xrpc_sql::{Access, Assignment, Kind, ParseError, Parsed, Scope, Script, Session, Transaction};

use super::variables::Effect;

/// How the engine reads statements: as the whole node does, with the versioned comments of the
/// MySQL version it reports ([`xrpc_sql::MYSQL_VERSION`]), so the parse cache serves every part.
pub(crate) const OPTIONS: xrpc_sql::Options = xrpc_sql::Options {
    version: xrpc_sql::MYSQL_VERSION,
};

/// How a transaction starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BeginMode {
    /// `BEGIN`/`START TRANSACTION`: the engine's configured default.
    Default,
    /// `START TRANSACTION READ ONLY`: always deferred, since it never writes.
    ReadOnly,
    /// `START TRANSACTION READ WRITE`: writes even in a read-only session.
    ReadWrite,
}

/// What a statement the translation runs is, for the engine's bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SqlInfo {
    /// A schema change: may create or drop temp objects.
    pub(crate) state_change: bool,
    /// DELETE: a foreign key it fails is a parent row's (1451).
    pub(crate) deletes: bool,
    /// A statement MySQL ends the open transaction before and commits after (DDL but a
    /// temporary table's, `LOCK TABLES`).
    pub(crate) implicit_commit: bool,
    /// INSERT, REPLACE, UPDATE or DELETE: refused inside a READ ONLY transaction (1792).
    pub(crate) modifies_rows: bool,
    /// `SELECT … FOR UPDATE`: refused inside a READ ONLY transaction too (1792).
    pub(crate) locks_for_update: bool,
    /// The `information_schema` tables it names.
    pub(crate) catalog: CatalogReads,
}

/// The `information_schema` tables a statement names, from its tree (in any clause): the
/// catalog is rebuilt before a statement that names any, and some of its tables are refused
/// while the catalog cannot list them as MySQL would (see `catalog`). A name without a
/// database names one of them only while `information_schema` is the current database, which
/// the statement's text does not say: both are kept ([`CatalogReads::in_database`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct CatalogReads {
    /// Named `information_schema.t`.
    qualified: CatalogTables,
    /// Named `t`, the name of one of them.
    bare: CatalogTables,
}

/// Which `information_schema` tables a statement reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct CatalogTables {
    /// Any table of `information_schema`.
    pub(crate) any: bool,
    /// `COLUMNS`.
    pub(crate) columns: bool,
    /// `TABLE_CONSTRAINTS`.
    pub(crate) table_constraints: bool,
    /// `CHECK_CONSTRAINTS`.
    pub(crate) check_constraints: bool,
}

impl CatalogTables {
    fn note(&mut self, table: &str) {
        let table = table.to_ascii_lowercase();
        self.any = true;
        self.columns |= table == "columns";
        self.table_constraints |= table == "table_constraints";
        self.check_constraints |= table == "check_constraints";
    }
}

impl CatalogReads {
    /// The catalog tables `statement` names.
    pub(crate) fn of(statement: &Statement) -> Self {
        let mut reads = Self::default();
        let _ = xrpc_sql::ast::visit_relations(statement, |name| {
            let parts: Vec<_> = name.0.iter().map(|part| part.as_ident()).collect();
            match parts.as_slice() {
                [Some(schema), Some(table)]
                    if schema
                        .value
                        .eq_ignore_ascii_case(super::databases::INFORMATION_SCHEMA) =>
                {
                    reads.qualified.note(&table.value);
                }
                [Some(table)] if super::information::table(&table.value).is_some() => {
                    reads.bare.note(&table.value);
                }
                _ => {}
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        reads
    }

    /// The catalog tables the statement reads when `current` (lower case) is the current
    /// database.
    pub(crate) fn in_database(self, current: &str) -> CatalogTables {
        if current != super::databases::INFORMATION_SCHEMA {
            return self.qualified;
        }
        let (a, b) = (self.qualified, self.bare);
        CatalogTables {
            any: a.any || b.any,
            columns: a.columns || b.columns,
            table_constraints: a.table_constraints || b.table_constraints,
            check_constraints: a.check_constraints || b.check_constraints,
        }
    }
}

/// What a savepoint statement does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SavepointOp {
    /// `SAVEPOINT s`.
    Set,
    /// `ROLLBACK TO [SAVEPOINT] s`.
    RollbackTo,
    /// `RELEASE SAVEPOINT s`.
    Release,
}

/// A boolean system variable's new value: a literal, or a user variable's value when the
/// statement runs (`SET FOREIGN_KEY_CHECKS = @OLD_FOREIGN_KEY_CHECKS`, as a dump ends).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Setting {
    /// ON, OFF, 1, 0, TRUE, FALSE or DEFAULT (ON).
    Value(bool),
    /// `@name`, lower case.
    Variable(String),
}

/// A session `sql_mode`'s or `time_zone`'s new value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TextSetting {
    /// `DEFAULT`: MariaDB's default.
    Default,
    /// A literal's value, as MariaDB shows it.
    Mode(String),
    /// Any other value (`CONCAT(@@sql_mode, ',STRICT_ALL_TABLES')`, `@OLD_SQL_MODE`): the
    /// expression's text, evaluated when the statement runs.
    Expr(String),
}

/// The session variables a SET statement assigns; each is `None` when it does not assign it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SessionSet {
    /// `autocommit`.
    pub(crate) autocommit: Option<bool>,
    /// `foreign_key_checks`.
    pub(crate) foreign_key_checks: Option<Setting>,
    /// `sql_mode`.
    pub(crate) sql_mode: Option<TextSetting>,
    /// `time_zone`.
    pub(crate) time_zone: Option<TextSetting>,
    /// `tx_isolation` (or `transaction_isolation`, or `SET SESSION TRANSACTION ISOLATION
    /// LEVEL`), as `@@tx_isolation` shows it.
    pub(crate) isolation: Option<&'static str>,
    /// `unique_checks`.
    pub(crate) unique_checks: Option<Setting>,
    /// `tx_read_only` (or `transaction_read_only`, or `SET SESSION TRANSACTION READ ONLY |
    /// READ WRITE`): whether the session is read-only.
    pub(crate) read_only: Option<bool>,
    /// `sql_safe_updates`.
    pub(crate) safe_updates: Option<bool>,
    /// `sql_select_limit`: `Some(None)` for no limit (DEFAULT, 18446744073709551615).
    pub(crate) select_limit: Option<Option<u64>>,
    /// `max_join_size`: `Some(None)` for no limit (DEFAULT, 18446744073709551615).
    pub(crate) max_join_size: Option<Option<u64>>,
    /// `SET TRANSACTION READ WRITE` without a scope: the next transaction only.
    pub(crate) next_read_write: bool,
    /// Variables set from user variables, whose values are checked when the statement runs.
    pub(crate) checks: Vec<ValueCheck>,
}

/// `SET name = @user` of a variable the engine accepts at some values only (see the
/// `variables` module): the user variable's value must be one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ValueCheck {
    /// The system variable, lower case.
    pub(crate) variable: String,
    /// The user variable, without `@`, lower case.
    pub(crate) user_variable: String,
    /// The values accepted.
    pub(crate) allowed: &'static [&'static str],
}

/// A request's statement, as the engine runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Request {
    /// Start a transaction (a BEGIN inside one commits it first, as in MySQL).
    Begin(BeginMode),
    /// Commit the open transaction, if any.
    Commit,
    /// Roll back the open transaction, if any.
    Rollback,
    /// A savepoint statement: the SQLite statement that runs it, the savepoint's name and what
    /// it does (`ROLLBACK TO` and `RELEASE` need the savepoint: MySQL's 1305 otherwise).
    Savepoint {
        sql: String,
        name: String,
        op: SavepointOp,
    },
    /// A SET statement, with the session variables it changes.
    Set(SessionSet),
    /// `USE db`.
    Use(String),
    /// A statement the translation runs.
    Sql(SqlInfo),
    /// A statement the token pass read (`XA`, the SHOW forms of `xrpc_sql::Show`, `ALTER
    /// INSTANCE`), which the `catalog` module answers or refuses.
    Catalog,
}

/// The one statement of a request's parsed text, or MySQL's error for the text.
pub(crate) fn single(script: &Script) -> Result<&Parsed, SqlError> {
    let first = match script.first() {
        Some(Ok(first)) => first,
        Some(Err(err)) => return Err(parse_error(err)),
        None => return Err(parse_error(&ParseError::Empty)),
    };
    if script.len() > 1 {
        return Err(SqlError::new(
            &codes::PARSE_ERROR,
            "You have an error in your SQL syntax: one request runs one statement, but this one \
             holds several",
        ));
    }
    Ok(first)
}

/// MySQL's error for a text that does not parse.
pub(crate) fn parse_error(err: &ParseError) -> SqlError {
    SqlError {
        code: u32::from(err.code()),
        sql_state: err.sql_state().to_owned(),
        message: err.to_string(),
    }
}

/// What the engine does with a parsed statement.
pub(crate) fn request(parsed: &Parsed) -> Result<Request, SqlError> {
    let Some(statement) = parsed.statement() else {
        return Ok(Request::Catalog);
    };
    if let Some(session) = Session::of(statement) {
        return session_request(session);
    }
    match statement {
        Statement::Pragma { .. } => return Err(not_for_clients("PRAGMA")),
        Statement::AttachDatabase { .. }
        | Statement::AttachDuckDBDatabase { .. }
        | Statement::DetachDuckDBDatabase { .. } => return Err(not_for_clients("ATTACH")),
        Statement::Vacuum(_) => return Err(not_for_clients("VACUUM")),
        // SET CHARACTER SET and the like: the character set is always utf8mb4.
        Statement::Set(xrpc_sql::ast::Set::SetNamesDefault {}) => {
            return Ok(Request::Set(SessionSet::default()));
        }
        Statement::Set(_) => {
            return Err(SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                format!("This version doesn't yet support '{statement}' on the SQLite engine"),
            ));
        }
        _ => {}
    }
    Ok(Request::Sql(SqlInfo {
        state_change: parsed.kind == Kind::Ddl,
        deletes: parsed.kind == Kind::Delete,
        implicit_commit: commits_implicitly(statement, parsed.kind),
        modifies_rows: matches!(parsed.kind, Kind::Insert | Kind::Update | Kind::Delete),
        locks_for_update: matches!(statement, Statement::Query(query)
            if query.locks.iter().any(|lock| lock.lock_type == xrpc_sql::ast::LockType::Update)),
        catalog: CatalogReads::of(statement),
    }))
}

/// Whether MySQL commits the open transaction before `statement` and commits after it: DDL
/// but CREATE and DROP of temporary tables, and `LOCK TABLES`.
fn commits_implicitly(statement: &Statement, kind: Kind) -> bool {
    match statement {
        Statement::CreateTable(create) => !create.temporary,
        Statement::Drop { temporary, .. } => !temporary,
        Statement::LockTables { .. } => true,
        _ => kind == Kind::Ddl,
    }
}

/// The request of a session statement.
fn session_request(session: Session) -> Result<Request, SqlError> {
    Ok(match session {
        Session::Transaction(Transaction::Begin { access }) => Request::Begin(match access {
            None => BeginMode::Default,
            Some(Access::ReadOnly) => BeginMode::ReadOnly,
            Some(Access::ReadWrite) => BeginMode::ReadWrite,
        }),
        Session::Transaction(Transaction::Commit) => Request::Commit,
        Session::Transaction(Transaction::Rollback) => Request::Rollback,
        Session::Transaction(Transaction::Savepoint(name)) => Request::Savepoint {
            sql: format!("SAVEPOINT {}", quote(&name)),
            name,
            op: SavepointOp::Set,
        },
        Session::Transaction(Transaction::RollbackTo(name)) => Request::Savepoint {
            sql: format!("ROLLBACK TO SAVEPOINT {}", quote(&name)),
            name,
            op: SavepointOp::RollbackTo,
        },
        Session::Transaction(Transaction::Release(name)) => Request::Savepoint {
            sql: format!("RELEASE SAVEPOINT {}", quote(&name)),
            name,
            op: SavepointOp::Release,
        },
        Session::Transaction(Transaction::Characteristics {
            session,
            isolation,
            access,
        }) => {
            // A read-only mode the engine accepted and then let write would answer where MySQL
            // refuses (1792).
            if !session && access == Some(Access::ReadOnly) {
                return Err(SqlError::new(
                    &codes::NOT_SUPPORTED_YET,
                    "This version doesn't yet support 'SET TRANSACTION READ ONLY' for the next \
                     transaction or later sessions on the SQLite engine; SET SESSION TRANSACTION \
                     READ ONLY makes the session read-only",
                ));
            }
            Request::Set(SessionSet {
                isolation: isolation.filter(|_| session),
                read_only: access.filter(|_| session).map(|a| a == Access::ReadOnly),
                next_read_write: !session && access == Some(Access::ReadWrite),
                ..SessionSet::default()
            })
        }
        Session::Names { .. } => Request::Set(SessionSet::default()),
        Session::Use(name) => Request::Use(name),
        Session::Set(assignments) => {
            let mut set = SessionSet::default();
            for assignment in &assignments {
                let Assignment::System { scope, name, value } = assignment else {
                    continue;
                };
                match super::variables::effect(name) {
                    None => return Err(set_refused(*scope, name, None)),
                    Some(Effect::Inert) => continue,
                    Some(Effect::Only(allowed)) => {
                        match value {
                            Expr::Identifier(ident)
                                if ident.value.starts_with('@')
                                    && !ident.value.starts_with("@@") =>
                            {
                                set.checks.push(ValueCheck {
                                    variable: name.clone(),
                                    user_variable: ident.value[1..].to_lowercase(),
                                    allowed,
                                });
                            }
                            _ if is_default(value)
                                || super::variables::accepts(allowed, &written(value)) => {}
                            _ => return Err(set_refused(*scope, name, Some(value))),
                        }
                        continue;
                    }
                    Some(Effect::Kept) if *scope == Scope::Global => {
                        return Err(set_refused(*scope, name, None));
                    }
                    Some(Effect::Kept) => {}
                }
                if name == "sql_mode" {
                    let setting = text_setting(value, super::sql_mode::normalize)?;
                    if *scope == Scope::Session {
                        set.sql_mode = Some(setting);
                    }
                }
                if name == "time_zone" {
                    let setting = text_setting(value, super::sql_mode::time_zone)?;
                    if *scope == Scope::Session {
                        set.time_zone = Some(setting);
                    }
                }
                if name == "tx_isolation" || name == "transaction_isolation" {
                    let level = isolation_level(name, value)?;
                    if *scope == Scope::Session {
                        set.isolation = Some(level);
                    }
                }
                if name == "tx_read_only" || name == "transaction_read_only" {
                    set.read_only = Some(literal_switch(*scope, name, value)?);
                }
                if name == "sql_safe_updates" {
                    set.safe_updates = Some(literal_switch(*scope, name, value)?);
                }
                if name == "sql_select_limit" || name == "max_join_size" {
                    let limit = if is_default(value) {
                        None
                    } else {
                        match written(value).as_str() {
                            "18446744073709551615" | "-1" => None,
                            text => Some(
                                text.parse::<u64>()
                                    .map_err(|_| set_refused(*scope, name, Some(value)))?,
                            ),
                        }
                    };
                    if name == "max_join_size" {
                        set.max_join_size = Some(limit);
                    } else {
                        set.select_limit = Some(limit);
                    }
                }
                if name == "unique_checks" {
                    let setting = boolean_setting(name, value)?;
                    if *scope == Scope::Session {
                        set.unique_checks = Some(setting);
                    }
                }
                if name == "autocommit" && *scope == Scope::Session {
                    match boolean(value) {
                        Some(on) => set.autocommit = Some(on),
                        None => {
                            return Err(SqlError::new(
                                &codes::WRONG_VALUE_FOR_VAR,
                                format!(
                                    "Variable 'autocommit' can't be set to the value of '{}'",
                                    written(value)
                                ),
                            ));
                        }
                    }
                }
                if name == "foreign_key_checks" && *scope == Scope::Session {
                    set.foreign_key_checks = Some(boolean_setting(name, value)?);
                }
            }
            Request::Set(set)
        }
    })
}

/// The refusal of `SET [GLOBAL] name [= value]` (1235): a variable the engine does not know, one
/// whose value would change answers the engine does not change, or a global one it keeps per
/// session only (see the `variables` module).
fn set_refused(scope: Scope, name: &str, value: Option<&Expr>) -> SqlError {
    let global = if scope == Scope::Global {
        "GLOBAL "
    } else {
        ""
    };
    let what = match value {
        Some(value) => format!("SET {global}{name} = {value}"),
        None => format!("SET {global}{name}"),
    };
    SqlError::new(
        &codes::NOT_SUPPORTED_YET,
        format!("This version doesn't yet support '{what}' on the SQLite engine"),
    )
}

/// `DEFAULT` as a SET's value.
fn is_default(value: &Expr) -> bool {
    matches!(value, Expr::Identifier(ident)
        if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("default"))
}

/// The new value of a boolean session variable `name` (`foreign_key_checks`, `unique_checks`):
/// a literal (DEFAULT is ON), or a user variable read when the statement runs; another literal
/// is MySQL's 1231.
fn boolean_setting(name: &str, value: &Expr) -> Result<Setting, SqlError> {
    Ok(match value {
        Expr::Identifier(ident) if ident.value.starts_with('@') => {
            Setting::Variable(ident.value[1..].to_lowercase())
        }
        _ => Setting::Value(boolean(value).ok_or_else(|| {
            SqlError::new(
                &codes::WRONG_VALUE_FOR_VAR,
                format!(
                    "Variable '{name}' can't be set to the value of '{}'",
                    written(value)
                ),
            )
        })?),
    })
}

/// The new value of a boolean session variable that is OFF by DEFAULT and is set from a literal
/// only (`tx_read_only`, `sql_safe_updates`): a user variable is 1235, another literal 1231.
fn literal_switch(scope: Scope, name: &str, value: &Expr) -> Result<bool, SqlError> {
    if is_default(value) {
        return Ok(false);
    }
    match boolean_setting(name, value)? {
        Setting::Value(on) => Ok(on),
        Setting::Variable(_) => Err(set_refused(scope, name, Some(value))),
    }
}

/// The level `SET tx_isolation = value` sets, as `@@tx_isolation` shows it: MySQL's names
/// (`'READ-COMMITTED'`, any case), their numbers 0 to 3, or DEFAULT (REPEATABLE-READ); anything
/// other literal is MySQL's 1231, any other expression 1235.
fn isolation_level(name: &str, value: &Expr) -> Result<&'static str, SqlError> {
    const LEVELS: [&str; 4] = [
        "READ-UNCOMMITTED",
        "READ-COMMITTED",
        "REPEATABLE-READ",
        "SERIALIZABLE",
    ];
    let text = written(value);
    let level = match value {
        // A bare word names a level as a string does (`SET tx_isolation = serializable`).
        Expr::Identifier(ident) if !ident.value.starts_with('@') => {
            if is_default(value) {
                Some(LEVELS[2])
            } else {
                LEVELS
                    .iter()
                    .copied()
                    .find(|l| l.eq_ignore_ascii_case(&ident.value))
            }
        }
        Expr::Value(v) => match &v.value {
            AstValue::Number(n, _) => n.parse::<usize>().ok().and_then(|i| LEVELS.get(i).copied()),
            AstValue::SingleQuotedString(s) | AstValue::DoubleQuotedString(s) => {
                LEVELS.iter().copied().find(|l| l.eq_ignore_ascii_case(s))
            }
            _ => None,
        },
        _ => {
            return Err(SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                format!(
                    "This version doesn't yet support 'SET {name} = {value}' on the SQLite engine"
                ),
            ));
        }
    };
    level.ok_or_else(|| {
        SqlError::new(
            &codes::WRONG_VALUE_FOR_VAR,
            format!("Variable '{name}' can't be set to the value of '{text}'"),
        )
    })
}

/// The new value of `SET sql_mode | time_zone = value`: a literal is checked here by `check`
/// (which gives it as MariaDB shows it, or MariaDB's error).
fn text_setting(
    value: &Expr,
    check: fn(&str) -> Result<String, SqlError>,
) -> Result<TextSetting, SqlError> {
    Ok(match value {
        _ if is_default(value) => TextSetting::Default,
        Expr::Value(v) => match &v.value {
            AstValue::SingleQuotedString(s) | AstValue::DoubleQuotedString(s) => {
                TextSetting::Mode(check(s)?)
            }
            AstValue::Number(n, _) => TextSetting::Mode(check(n)?),
            AstValue::Null => TextSetting::Mode(check("NULL")?),
            _ => TextSetting::Expr(value.to_string()),
        },
        _ => TextSetting::Expr(value.to_string()),
    })
}

/// A value as MySQL names it in its errors: a literal without its quotes.
fn written(value: &Expr) -> String {
    match value {
        Expr::Value(v) => match &v.value {
            AstValue::SingleQuotedString(s) | AstValue::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        Expr::Identifier(ident) => ident.value.clone(),
        other => other.to_string(),
    }
}

/// MySQL's boolean spellings for a system variable, quoted or not.
fn boolean(value: &Expr) -> Option<bool> {
    if let Expr::Value(v) = value
        && let AstValue::Boolean(b) = v.value
    {
        return Some(b);
    }
    if !matches!(value, Expr::Value(_) | Expr::Identifier(_)) {
        return None;
    }
    let text = written(value);
    if ["1", "on", "true", "default"]
        .iter()
        .any(|t| text.eq_ignore_ascii_case(t))
    {
        Some(true)
    } else if ["0", "off", "false"]
        .iter()
        .any(|f| text.eq_ignore_ascii_case(f))
    {
        Some(false)
    } else {
        None
    }
}

/// An SQLite identifier.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str) -> Result<Request, SqlError> {
        let script = xrpc_sql::parse(text, &OPTIONS);
        request(single(&script)?)
    }

    fn set(autocommit: Option<bool>) -> Request {
        Request::Set(SessionSet {
            autocommit,
            ..SessionSet::default()
        })
    }

    fn isolation(level: Option<&'static str>) -> Request {
        Request::Set(SessionSet {
            isolation: level,
            ..SessionSet::default()
        })
    }

    #[test]
    fn transactions() {
        assert_eq!(of("BEGIN").unwrap(), Request::Begin(BeginMode::Default));
        assert_eq!(
            of("begin work").unwrap(),
            Request::Begin(BeginMode::Default)
        );
        assert_eq!(
            of("START TRANSACTION READ ONLY").unwrap(),
            Request::Begin(BeginMode::ReadOnly)
        );
        assert_eq!(
            of("start transaction with consistent snapshot").unwrap(),
            Request::Begin(BeginMode::Default)
        );
        assert_eq!(of("COMMIT WORK;").unwrap(), Request::Commit);
        assert_eq!(of("/* c */ rollback").unwrap(), Request::Rollback);
        assert_eq!(
            of("SAVEPOINT `a b`").unwrap(),
            Request::Savepoint {
                sql: "SAVEPOINT \"a b\"".into(),
                name: "a b".into(),
                op: SavepointOp::Set
            }
        );
        assert_eq!(
            of("rollback to s1").unwrap(),
            Request::Savepoint {
                sql: "ROLLBACK TO SAVEPOINT \"s1\"".into(),
                name: "s1".into(),
                op: SavepointOp::RollbackTo
            }
        );
    }

    #[test]
    fn set_statements() {
        assert_eq!(of("SET autocommit = 0").unwrap(), set(Some(false)));
        assert_eq!(of("set @@session.autocommit=ON").unwrap(), set(Some(true)));
        assert_eq!(of("SET autocommit = 'off'").unwrap(), set(Some(false)));
        assert_eq!(of("SET autocommit = DEFAULT").unwrap(), set(Some(true)));
        // Every session here starts from the defaults: a global change would not be kept.
        assert_eq!(of("SET GLOBAL autocommit = 0").unwrap_err().code, 1235);
        assert_eq!(of("SET NAMES utf8mb4").unwrap(), set(None));
        assert_eq!(of("/*!40101 SET NAMES utf8mb4 */").unwrap(), set(None));
        assert_eq!(
            of("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED").unwrap(),
            isolation(Some("READ-COMMITTED"))
        );
        // For the next transaction only, or for later sessions: the session's level stays.
        assert_eq!(
            of("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE").unwrap(),
            isolation(None)
        );
        assert_eq!(
            of("SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE").unwrap(),
            isolation(None)
        );
        assert_eq!(
            of("SET tx_isolation = 'read-committed'").unwrap(),
            isolation(Some("READ-COMMITTED"))
        );
        assert_eq!(
            of("SET @@session.transaction_isolation = 3").unwrap(),
            isolation(Some("SERIALIZABLE"))
        );
        assert_eq!(
            of("SET tx_isolation = DEFAULT").unwrap(),
            isolation(Some("REPEATABLE-READ"))
        );
        for bad in ["'read committed'", "4", "x"] {
            let err = of(&format!("SET tx_isolation = {bad}")).unwrap_err();
            assert_eq!(err.code, 1231, "{bad}: {err}");
        }
        assert_eq!(of("SET tx_isolation = @level").unwrap_err().code, 1235);
        assert_eq!(
            of("SET SESSION unique_checks = 0").unwrap(),
            Request::Set(SessionSet {
                unique_checks: Some(Setting::Value(false)),
                ..SessionSet::default()
            })
        );
        assert_eq!(of("SET unique_checks = 2").unwrap_err().code, 1231);
        assert_eq!(
            of("SET wait_timeout = 1, autocommit = 1").unwrap(),
            set(Some(true))
        );
        let err = of("SET autocommit = 2").unwrap_err();
        assert_eq!(err.code, 1231, "{err}");
        assert!(err.message.contains("'2'"), "{err}");
        let err = of("SET sql_mode = 'ANSI,STRICT_TRANS_TABLES'").unwrap_err();
        assert_eq!(err.code, 1235, "{err}");
        assert!(err.message.contains("ANSI"), "{err}");
    }

    #[test]
    fn a_variable_that_would_change_answers_is_accepted_only_at_the_engines_values() {
        for accepted in [
            "SET net_write_timeout = 600, wait_timeout = 28800",
            "SET GLOBAL net_read_timeout = 60",
            "SET character_set_results = NULL",
            "SET @@session.collation_connection = 'utf8mb4_unicode_ci'",
            "SET div_precision_increment = 4",
        ] {
            assert_eq!(of(accepted).unwrap(), set(None), "{accepted}");
        }
        for refused in [
            "SET sql_select_limit = 'ten'",
            "SET sql_select_limit = @limit",
            "SET max_join_size = 'big'",
            "SET div_precision_increment = 6",
            "SET auto_increment_increment = 2",
            "SET timestamp = 1700000000",
            "SET character_set_client = latin1",
            "SET GLOBAL sql_mode = ''",
            "SET no_such_variable = 1",
        ] {
            let err = of(refused).unwrap_err();
            assert_eq!(err.code, 1235, "{refused}: {err}");
        }
        let err = of("SET div_precision_increment = 6").unwrap_err();
        assert!(
            err.message.contains("'SET div_precision_increment = 6'"),
            "{err}"
        );
        assert_eq!(
            of("SET max_join_size = 1000000").unwrap(),
            Request::Set(SessionSet {
                max_join_size: Some(Some(1_000_000)),
                ..SessionSet::default()
            })
        );
        assert_eq!(
            of("SET character_set_client = @saved_cs_client").unwrap(),
            Request::Set(SessionSet {
                checks: vec![ValueCheck {
                    variable: "character_set_client".into(),
                    user_variable: "saved_cs_client".into(),
                    allowed: &["utf8mb4", "utf8", "utf8mb3"],
                }],
                ..SessionSet::default()
            })
        );
    }

    /// Under ANSI_QUOTES `"a"` named a column, under NO_BACKSLASH_ESCAPES `'\n'` is two
    /// characters: the node reads statements as under the default sql_mode, so it refuses them.
    #[test]
    fn sql_modes_that_change_how_text_reads_are_refused() {
        for mode in [
            "ANSI_QUOTES",
            "no_backslash_escapes",
            "STRICT_TRANS_TABLES,ANSI_QUOTES",
        ] {
            let err = of(&format!("SET sql_mode = '{mode}'")).unwrap_err();
            assert_eq!(err.code, 1235, "{mode}: {err}");
        }
        assert_eq!(
            of("SET sql_mode = 'no_engine_substitution,STRICT_TRANS_TABLES'").unwrap(),
            Request::Set(SessionSet {
                sql_mode: Some(TextSetting::Mode(
                    "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION".into()
                )),
                ..SessionSet::default()
            })
        );
        assert_eq!(
            of("SET SQL_MODE = CONCAT(@@sql_mode, ',STRICT_ALL_TABLES')").unwrap(),
            Request::Set(SessionSet {
                sql_mode: Some(TextSetting::Expr(
                    "CONCAT(@@sql_mode, ',STRICT_ALL_TABLES')".into()
                )),
                ..SessionSet::default()
            })
        );
        assert_eq!(of("SET sql_mode = 'nope'").unwrap_err().code, 1231);
    }

    #[test]
    fn texts_that_are_not_one_statement() {
        let err = of("select 1; select 2").unwrap_err();
        assert_eq!((err.code, err.message.contains("several")), (1064, true));
        let err = of(" ; ").unwrap_err();
        assert_eq!((err.code, &*err.message), (1065, "Query was empty"));
        let err = of("selec 1").unwrap_err();
        assert_eq!(err.code, 1064);
        assert!(err.message.contains("near 'selec 1'"), "{err}");
    }

    #[test]
    fn sqlite_statements_are_refused() {
        for text in ["PRAGMA foreign_keys = OFF", "VACUUM", "ATTACH 'x.db' AS x"] {
            let err = of(text).unwrap_err();
            assert_eq!((err.code, &*err.sql_state), (1064, "42000"), "{text}");
        }
    }

    #[test]
    fn statements_for_sqlite_carry_their_info() {
        let Request::Sql(info) = of("CREATE TABLE t (a INT)").unwrap() else {
            panic!()
        };
        assert_eq!((info.state_change, info.deletes), (true, false));
        let Request::Sql(info) = of("DELETE FROM t WHERE a = 1").unwrap() else {
            panic!()
        };
        assert!(info.deletes && !info.state_change);
        assert_eq!(of("XA START 'x'").unwrap(), Request::Catalog);
        assert_eq!(of("USE shop").unwrap(), Request::Use("shop".into()));
    }
}
