//! MySQL's catalog statements and MySQL's answers for what SQLite cannot do.
//!
//! # Statements
//!
//! [`of`] tells, from the front end's tree (`xrpc_sql`: sqlparser's statements, and the SHOW
//! forms its token pass reads, `xrpc_sql::Show`), the MySQL statements SQLite has no
//! counterpart for; the engine runs them ([`SqliteConn::run_mysql`]) before anything reaches
//! SQLite. Nothing here reads statement text:
//!
//! | statement | answer |
//! | --- | --- |
//! | `CREATE DATABASE \| SCHEMA [IF NOT EXISTS] db [options]` | creates the database (options are accepted: everything is utf8mb4) |
//! | `DROP DATABASE \| SCHEMA [IF EXISTS] db` | drops it |
//! | `USE db` | makes `db` the session's current database |
//! | `SHOW DATABASES \| SCHEMAS [LIKE 'p']` | `Database` |
//! | `SHOW [FULL] TABLES [FROM \| IN db] [LIKE 'p']` | `Tables_in_db` (and `Table_type` with FULL) |
//! | `SHOW [FULL] COLUMNS \| FIELDS FROM t [FROM db] [LIKE 'p']`, `DESCRIBE \| DESC \| EXPLAIN t [column \| 'p']` | `Field`, `Type`, `Null`, `Key`, `Default`, `Extra` (FULL adds `Collation`, `Privileges`, `Comment`); of a temporary table, it (its rows are put in information_schema for that statement only, hiding the base table of its name) |
//! | `SHOW INDEX \| INDEXES \| KEYS FROM t [FROM db]` (with `WHERE`, 1235) | MariaDB's 14 columns, `Table` … `Ignored`; `Cardinality` is the count of the key prefix's distinct values (see `statistics`), `Sub_part` a key's column prefix; of a temporary table, 1235 |
//! | `SHOW TRIGGERS [FROM db] [LIKE 'p' \| WHERE …]` | no rows (clients create no triggers), MariaDB's 11 columns |
//! | `SHOW TABLE STATUS [FROM db] [LIKE 'p']` (with `WHERE`, 1235) | MariaDB's 20 columns, `Name` … `Temporary`: information_schema.TABLES' row of each table and view |
//! | `SHOW CREATE TABLE t`, `SHOW CREATE DATABASE db` | DDL in MySQL's form, generated from the catalog, with key prefixes and foreign keys as MariaDB writes them (a translated view's, a temporary table's and a table's with CHECK constraints, which MariaDB prints rewritten, are 1235) |
//! | `SHOW CREATE VIEW v` | 1347 for a table, 1146 for neither; a view's is 1235 (MariaDB prints the SELECT as it rewrote it, with every name qualified) |
//! | `SHOW ENGINES` | one row, `SQLite`, `DEFAULT` |
//! | `SHOW WARNINGS [LIMIT [offset,] count]` | the session's diagnostics (the rows LIMIT keeps) (`Level`, `Code` UINT, `Message`): conversions MySQL warns about, and the error of a statement that failed (Level `Error`) |
//! | `SHOW ERRORS [LIMIT [offset,] count]` | the same, errors only |
//! | `SHOW COUNT(*) WARNINGS`, `SHOW COUNT(*) ERRORS` | one row, `@@session.warning_count` / `@@session.error_count` (UINT) |
//! | `SELECT @@[session.\|local.]warning_count \| error_count [[AS] alias] [, …]` | one row, the counts (UINT) |
//!
//! The diagnostics belong to the session (the session layer hands them to the connection for
//! each statement): every statement but these diagnostic ones clears them first, as MySQL does,
//! one that warns leaves its warnings, and one that fails leaves the warnings it raised and its
//! error (`@@error_count` counts the errors, `@@warning_count` every condition, as MySQL's).
//! | `XA …` | 1235, 42000 |
//! | `CALL p(…)` (every procedure but `xrpc.perf_hist`, which admin SQL answers) | 1305, 42000 |
//! | `FLUSH …`, `LOCK TABLES`, `UNLOCK TABLES`, `CREATE \| ALTER \| DROP SEQUENCE`, `GRANT`, `REVOKE`, `CREATE \| DROP \| ALTER \| RENAME USER`, `SHOW` of anything else MySQL has (`PROCESSLIST`, `GRANTS`, `COLLATION`, …), `HANDLER`, `INSTALL \| UNINSTALL`, `CHANGE MASTER`, `START \| STOP SLAVE \| REPLICA`, `RESET`, `PURGE` | 1235, 42000, naming the statement |
//! | `SHOW` of a word MySQL does not have | 1064 |
//!
//! # information_schema
//!
//! Every connection has an in-memory database attached as `information_schema` (the node's
//! own, so the authorizer allows it; clients may read it but not write it). `TABLES` is a view
//! with MariaDB's 23 columns over the node's rows (`xrpc_tables`), whose storage statistics
//! (TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, AVG_ROW_LENGTH) the `statistics` module computes
//! when read (NULL for a view, as in MariaDB), CREATE_TIME from the kept definition (NULL for
//! one kept before it was recorded), UPDATE_TIME and CHECK_TIME NULL, MAX_DATA_LENGTH,
//! DATA_FREE and MAX_INDEX_LENGTH 0; `STATISTICS` likewise, over `xrpc_statistics`, with
//! CARDINALITY computed when read. It holds the tables
//! `SCHEMATA`, `COLUMNS`, `STATISTICS`, `TABLE_CONSTRAINTS`, `CHECK_CONSTRAINTS`, `KEY_COLUMN_USAGE` and
//! `REFERENTIAL_CONSTRAINTS` (keys, foreign keys and CHECK constraints under MariaDB's names; a
//! table declared with MySQL 8's `t_chk_n` names makes `TABLE_CONSTRAINTS` 1235), and `FILES`, which is empty as MariaDB's
//! is (it lists no InnoDB tablespaces; mysqldump reads it before dumping), with MySQL's upper-case column names,
//! database and table names ordered as MariaDB's `utf8mb3_general_ci` orders them
//! ([`NAME_COLLATION`](super::information::NAME_COLLATION)), the other text compared and ordered as it does ([`CI_NAME_COLLATION`](super::information::CI_NAME_COLLATION)), and
//! `VIEWS`, a view of `TABLES`' views whose columns the node does not know as MariaDB has them
//! (VIEW_DEFINITION, IS_UPDATABLE, DEFINER, SECURITY_TYPE, ALGORITHM) are 1235 when read; the
//! others (the names, CHECK_OPTION `NONE`, the character set and collation) are read as any. Before
//! a statement that mentions `information_schema` runs, and before each SHOW, the node rebuilds
//! their rows from every database the connection has attached ([`SqliteConn::refresh_catalog`]);
//! the client's statement is then translated from its tree as any other, reading them as
//! tables with MySQL's columns (the `information` module), so `WHERE`, joins, `ORDER BY` and
//! aggregates work as on any table; the SHOW statements are queries the node writes on them.
//!
//! Why tables rebuilt per statement rather than views or virtual tables: a view in a database
//! other than `temp` may not refer to another database's tables (SQLite refuses it), and temp
//! views would be session state that pins a pooled connection to its session; a virtual table
//! module would need `unsafe` FFI of its own (rusqlite's `vtab` feature) to serve four tables.
//! The rows are read with three queries per database (`sqlite_master` joined with the
//! `pragma_table_info`, `pragma_index_list` and `pragma_index_info` table functions) and
//! written in one savepoint. A connection rebuilds only when a database's `schema_version` or
//! the list of databases changed since its last rebuild (and never reuses one made inside a
//! transaction, which a ROLLBACK takes back); otherwise a catalog query costs what the same
//! query on ordinary tables costs. Measured in a debug build on a loaded 2-core machine: a
//! rebuild over 110 tables is about 50 ms, a query on the rebuilt tables about 1 ms. Only
//! statements that name `information_schema`, and the SHOW statements, pay either. The attachment counts against SQLite's limit of attached databases (see
//! `databases`). A table of `information_schema` the node does not have is 1109 "Unknown
//! table", as in MySQL; `performance_schema` is not a database here, so its tables are 1146.
//!
//! # Types
//!
//! Column types are MySQL's names for the declared type, decided by the same
//! [`types::classify_decl`] that types result columns: `int`, `bigint unsigned`, `varchar(64)`,
//! `decimal(10,2)`, `double`, `datetime(3)`, `blob`, … ([`mysql_type`]). A declaration that
//! names no MySQL type is shown as written, in lower case; a column declared without a type
//! (SQLite allows it, MySQL does not) is shown as `blob`, SQLite's affinity for it.
//!
//! A table the translation created (`translated`) is described from its kept definition
//! instead, as MariaDB describes it: the type as declared with its display width (`int(11)`,
//! `bigint(20) unsigned`, `longtext`, `timestamp`, `enum('a','b')`), a column collation other
//! than the table's, `ON UPDATE current_timestamp()`, indexes under their MySQL names, the
//! declared engine (else InnoDB), and in SHOW CREATE TABLE the table options in MariaDB's order
//! with the next AUTO_INCREMENT value. A translated view's column is described as the table
//! column it is (its type, NULL-ability and default; no key or extra; an AUTO_INCREMENT one's
//! default is 0), as MariaDB does, and nullable when an outer join of the view's SELECT makes
//! it so; an aggregate of a table column (COUNT, SUM, AVG, MIN, MAX) is described with the type
//! MariaDB derives for it, and a UNION's column whose members are table columns of one type as
//! MariaDB merges them. A view with another column that is not a table column as declared (an
//! expression, a union of other columns, a column of a view over an outer join), whose type
//! MariaDB derives from the SELECT, is not described: SHOW COLUMNS and DESCRIBE of it, and any statement naming
//! `information_schema` and `COLUMNS` while such a view exists, are 1235.

use xrpc_proto::codes;
use xrpc_proto::value::Value;

use super::SqliteConn;
use super::front::{self, CatalogTables};
use super::shape::ColumnHint;
use super::types::{self, DeclKind};
use xrpc_engine::result::{
    ExecSummary, ResultSink, SqlError, SqlWarning, WarningLevel, mysql_type,
};
use xrpc_sql::ast::{
    Expr, GroupByExpr, ObjectName, ObjectNamePart, ObjectType, Query, SelectItem, SetExpr,
    ShowCreateObject, ShowStatementFilter, ShowStatementFilterPosition, ShowStatementIn,
    ShowStatementInClause, ShowStatementOptions, Statement,
};
use xrpc_sql::{Body, InDatabase, Kind, ParseError, Parsed, Show};

pub(crate) use super::databases::INFORMATION_SCHEMA;

/// A MySQL statement the engine answers itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stmt {
    CreateDatabase {
        name: String,
        if_not_exists: bool,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
    },
    Use(String),
    ShowDatabases {
        like: Option<String>,
    },
    ShowTables {
        full: bool,
        db: Option<String>,
        like: Option<String>,
    },
    ShowColumns {
        table: String,
        db: Option<String>,
        like: Option<String>,
        /// `SHOW FULL COLUMNS`: also `Collation`, `Privileges` and `Comment`.
        full: bool,
    },
    ShowIndex {
        table: String,
        db: Option<String>,
    },
    ShowTableStatus {
        db: Option<String>,
        like: Option<String>,
    },
    ShowTriggers {
        db: Option<String>,
    },
    ShowCreateView {
        table: String,
        db: Option<String>,
    },
    ShowCreateTable {
        table: String,
        db: Option<String>,
    },
    ShowCreateDatabase(String),
    ShowEngines,
    /// `SHOW WARNINGS` (`errors`: `SHOW ERRORS`): the last statement's conditions (errors
    /// only), the rows `limit` (offset, count) keeps.
    ShowDiagnostics {
        errors: bool,
        limit: Option<(u64, u64)>,
    },
    /// `SHOW COUNT(*) WARNINGS` / `ERRORS` and `SELECT @@warning_count, @@error_count`: one
    /// row of counts, one column per item.
    DiagnosticCounts(Vec<DiagnosticCount>),
    /// XA, FLUSH, LOCK TABLES, …: 1235 naming the statement.
    NotSupported(String),
    /// CALL of a procedure the node does not have: 1305.
    UnknownProcedure(String),
}

/// One column of [`Stmt::DiagnosticCounts`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiagnosticCount {
    /// The column's name.
    pub(crate) label: String,
    /// Errors only (`error_count`), else every condition (`warning_count`: MySQL counts
    /// errors, warnings and notes).
    pub(crate) errors: bool,
}

impl Stmt {
    /// Whether the statement only reads the session's diagnostics, and so keeps them.
    pub(crate) fn is_diagnostic(&self) -> bool {
        matches!(
            self,
            Stmt::ShowDiagnostics { .. } | Stmt::DiagnosticCounts(_)
        )
    }
}

/// The hint that makes result column `index` MySQL's INT UNSIGNED (UINT), as `SHOW WARNINGS`'s
/// `Code` and the diagnostic counts are.
fn uint_hint(index: usize) -> ColumnHint {
    ColumnHint {
        index,
        kind: DeclKind::Int {
            mysql: mysql_type::LONG,
            length: 10,
            unsigned: true,
            min: 0,
            max: u64::from(u32::MAX),
        },
    }
}

/// SHOW subjects MySQL has that the node does not answer (1235 rather than 1064), as the
/// first word sqlparser keeps of a SHOW it has no statement for.
const UNSUPPORTED_SHOW: &[&str] = &[
    "processlist",
    "full",
    "table",
    "grants",
    "collation",
    "character",
    "charset",
    "plugins",
    "privileges",
    "events",
    "procedure",
    "function",
    "open",
    "master",
    "slave",
    "replica",
    "replicas",
    "binary",
    "binlog",
    "relaylog",
    "engine",
    "storage",
    "profile",
    "profiles",
    "create",
    "extended",
];

fn syntax_error(near: &str) -> SqlError {
    front::parse_error(&ParseError::Syntax {
        near: near.chars().take(80).collect(),
        line: 1,
    })
}

fn not_supported(what: impl Into<String>) -> Option<Result<Stmt, SqlError>> {
    Some(Ok(Stmt::NotSupported(what.into())))
}

/// The one name of a database (`db`), as written.
fn single_name(name: &ObjectName) -> Result<String, SqlError> {
    match name.0.as_slice() {
        [part] => Ok(part_name(part)),
        _ => Err(syntax_error(&name.to_string())),
    }
}

fn part_name(part: &ObjectNamePart) -> String {
    match part {
        ObjectNamePart::Identifier(ident) => ident.value.clone(),
        other => other.to_string(),
    }
}

/// A table's name, `t` or `db.t`, as written.
fn table_name(name: &ObjectName) -> Result<(Option<String>, String), SqlError> {
    match name.0.as_slice() {
        [table] => Ok((None, part_name(table))),
        [db, table] => Ok((Some(part_name(db)), part_name(table))),
        _ => Err(syntax_error(&name.to_string())),
    }
}

/// The LIKE pattern of a SHOW's options; WHERE is refused, and the other dialects' options
/// (`STARTS WITH`, `LIMIT`, a filter before `IN`) are syntax errors.
fn show_like(options: &ShowStatementOptions) -> Result<Option<String>, SqlError> {
    if options.starts_with.is_some() || options.limit.is_some() || options.limit_from.is_some() {
        return Err(syntax_error(&options.to_string()));
    }
    match &options.filter_position {
        None => Ok(None),
        Some(ShowStatementFilterPosition::Suffix(ShowStatementFilter::Like(pattern))) => {
            Ok(Some(pattern.clone()))
        }
        Some(ShowStatementFilterPosition::Suffix(ShowStatementFilter::Where(_))) => {
            Err(show_where())
        }
        Some(_) => Err(syntax_error(&options.to_string())),
    }
}

fn show_where() -> SqlError {
    SqlError::new(
        &codes::NOT_SUPPORTED_YET,
        "This version doesn't yet support SHOW … WHERE on the SQLite engine; query \
         information_schema instead",
    )
}

/// The database a SHOW's `FROM | IN db` names.
fn show_in(options: &ShowStatementOptions) -> Result<Option<String>, SqlError> {
    match &options.show_in {
        None => Ok(None),
        Some(ShowStatementIn {
            clause: ShowStatementInClause::FROM | ShowStatementInClause::IN,
            parent_type: None,
            parent_name: Some(name),
        }) => single_name(name).map(Some),
        Some(other) => Err(syntax_error(&other.to_string())),
    }
}

/// `SELECT @@warning_count, @@error_count [AS alias]` (with `@@session.` or `@@local.`): the
/// diagnostic counts, which only this module answers; `None` for a SELECT that reads neither.
/// One that reads them with anything else is refused.
fn diagnostic_counts(query: &Query) -> Option<Result<Stmt, SqlError>> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    let count_of = |expr: &Expr| {
        let variable = xrpc_sql::system_variable(expr)?;
        let session = variable.scope.is_none_or(|scope| {
            scope.eq_ignore_ascii_case("@@session") || scope.eq_ignore_ascii_case("@@local")
        });
        let errors = match variable.name.to_ascii_lowercase().as_str() {
            "warning_count" => false,
            "error_count" => true,
            _ => return None,
        };
        session.then(|| {
            let written = match variable.scope {
                Some(scope) => format!("{scope}.{}", variable.name),
                None => format!("@@{}", variable.name),
            };
            (written, errors)
        })
    };
    let mut items = Vec::new();
    let mut others = false;
    for item in &select.projection {
        let (expr, alias) = match item {
            SelectItem::UnnamedExpr(expr) => (expr, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            _ => {
                others = true;
                continue;
            }
        };
        match count_of(expr) {
            Some((written, errors)) => items.push(DiagnosticCount {
                label: alias.unwrap_or(written),
                errors,
            }),
            None => others = true,
        }
    }
    if items.is_empty() {
        return None;
    }
    let plain = !others
        && query.with.is_none()
        && query.order_by.is_none()
        && query.limit_clause.is_none()
        && select.from.is_empty()
        && select.selection.is_none()
        && select.having.is_none()
        && select.distinct.is_none()
        && matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty());
    Some(if plain {
        Ok(Stmt::DiagnosticCounts(items))
    } else {
        Err(SqlError::new(
            &codes::NOT_SUPPORTED_YET,
            "This version of the node doesn't yet support 'SELECT of @@warning_count or \
             @@error_count with other items'",
        ))
    })
}

/// The SHOW and DESCRIBE forms the token pass reads.
fn read_show(show: &Show) -> Result<Stmt, SqlError> {
    Ok(match show {
        Show::Index { extended: true, .. } => Stmt::NotSupported("SHOW EXTENDED INDEX".into()),
        Show::Index {
            database,
            table,
            filter,
            ..
        } => {
            if filter.is_some() {
                return Err(show_where());
            }
            Stmt::ShowIndex {
                table: table.clone(),
                db: database.clone(),
            }
        }
        Show::Engines => Stmt::ShowEngines,
        Show::TableStatus(InDatabase {
            database,
            like,
            filter,
        }) => {
            if filter.is_some() {
                return Err(show_where());
            }
            Stmt::ShowTableStatus {
                db: database.clone(),
                like: like.clone(),
            }
        }
        // Clients create no triggers (CREATE TRIGGER is 1235): every database has none.
        Show::Triggers(InDatabase { database, .. }) => Stmt::ShowTriggers {
            db: database.clone(),
        },
        Show::Conditions { errors, limit } => Stmt::ShowDiagnostics {
            errors: *errors,
            limit: *limit,
        },
        Show::ConditionCount { errors } => {
            let name = if *errors {
                "error_count"
            } else {
                "warning_count"
            };
            Stmt::DiagnosticCounts(vec![DiagnosticCount {
                label: format!("@@session.{name}"),
                errors: *errors,
            }])
        }
        Show::CreateDatabase { name } => Stmt::ShowCreateDatabase(name.clone()),
        Show::DescribeColumns {
            database,
            table,
            pattern,
        } => Stmt::ShowColumns {
            table: table.clone(),
            db: database.clone(),
            like: Some(pattern.clone()),
            full: false,
        },
    })
}

/// The statement `parsed` is if it is one of the statements above, read from the front end's
/// tree: `None` when it is not (it goes to SQLite), an error when it is but asks for what the
/// node does not do.
pub(crate) fn of(parsed: &Parsed) -> Option<Result<Stmt, SqlError>> {
    let statement = match &parsed.body {
        Body::Statement(statement) => statement.as_ref(),
        Body::Show(show) => return Some(read_show(show)),
        Body::Xa(_) => return not_supported("XA transactions"),
        Body::Instance(_) => return not_supported("ALTER INSTANCE"),
    };
    match statement {
        Statement::Query(query) => diagnostic_counts(query),
        Statement::CreateDatabase {
            db_name,
            if_not_exists,
            ..
        } => Some(single_name(db_name).map(|name| Stmt::CreateDatabase {
            name,
            if_not_exists: *if_not_exists,
        })),
        Statement::Drop {
            object_type: ObjectType::Database | ObjectType::Schema,
            if_exists,
            names,
            cascade: false,
            restrict: false,
            ..
        } => Some(match names.as_slice() {
            [name] => single_name(name).map(|name| Stmt::DropDatabase {
                name,
                if_exists: *if_exists,
            }),
            _ => Err(syntax_error(&parsed.text)),
        }),
        Statement::Drop {
            object_type: object @ (ObjectType::Sequence | ObjectType::User | ObjectType::Role),
            ..
        } => not_supported(format!("DROP {object}")),
        Statement::ShowDatabases { show_options, .. }
        | Statement::ShowSchemas { show_options, .. } => {
            Some(show_like(show_options).map(|like| Stmt::ShowDatabases { like }))
        }
        Statement::ShowTables {
            full,
            show_options,
            terse: false,
            history: false,
            extended: false,
            external: false,
        } => Some((|| {
            Ok(Stmt::ShowTables {
                full: *full,
                db: show_in(show_options)?,
                like: show_like(show_options)?,
            })
        })()),
        Statement::ShowColumns { extended: true, .. } => not_supported("SHOW EXTENDED COLUMNS"),
        Statement::ShowColumns {
            extended: false,
            full,
            show_options,
        } => Some((|| {
            let like = show_like(show_options)?;
            let Some(ShowStatementIn {
                clause: ShowStatementInClause::FROM | ShowStatementInClause::IN,
                parent_type: None,
                parent_name: Some(name),
            }) = &show_options.show_in
            else {
                return Err(syntax_error(&parsed.text));
            };
            let (db, table) = table_name(name)?;
            Ok(Stmt::ShowColumns {
                table,
                db,
                like,
                full: *full,
            })
        })()),
        Statement::ShowCreate { obj_type, obj_name } => {
            Some(table_name(obj_name).map(|(db, table)| match obj_type {
                ShowCreateObject::Table => Stmt::ShowCreateTable { table, db },
                ShowCreateObject::View => Stmt::ShowCreateView { table, db },
                other => Stmt::NotSupported(format!("SHOW CREATE {other}")),
            }))
        }
        Statement::ExplainTable {
            hive_format: None,
            has_table_keyword: false,
            table_name: name,
            ..
        } => Some(table_name(name).map(|(db, table)| Stmt::ShowColumns {
            table,
            db,
            like: None,
            full: false,
        })),
        Statement::ShowProcessList { full: false } => not_supported("SHOW PROCESSLIST"),
        Statement::ShowProcessList { full: true } => not_supported("SHOW FULL PROCESSLIST"),
        Statement::ShowCollation { .. } => not_supported("SHOW COLLATION"),
        Statement::ShowCharset(_) => not_supported("SHOW CHARACTER SET"),
        Statement::ShowVariable { variable } => {
            let words: Vec<&str> = variable.iter().map(|w| w.value.as_str()).collect();
            let subject = words.first().map(|w| w.to_ascii_lowercase());
            if subject.is_some_and(|s| UNSUPPORTED_SHOW.contains(&s.as_str())) {
                not_supported(format!("SHOW {}", words.join(" ").to_uppercase()))
            } else {
                Some(Err(syntax_error(&words.join(" "))))
            }
        }
        // SHOW VARIABLES and STATUS are admin SQL's; what reaches the engine of them is a
        // form MySQL does not have. The other SHOW statements are other dialects'.
        _ if parsed.kind == Kind::Show => Some(Err(syntax_error(&parsed.text))),
        Statement::Call(function) => Some(Ok(Stmt::UnknownProcedure(
            function
                .name
                .0
                .iter()
                .map(part_name)
                .collect::<Vec<_>>()
                .join("."),
        ))),
        Statement::Flush { object_type, .. } => not_supported(format!("FLUSH {object_type}")),
        Statement::LockTables { .. } => not_supported("LOCK TABLES"),
        Statement::UnlockTables => not_supported("UNLOCK TABLES"),
        Statement::Grant { .. } => not_supported("GRANT"),
        Statement::Revoke { .. } => not_supported("REVOKE"),
        Statement::Reset(_) => not_supported("RESET"),
        Statement::CreateSequence { .. } => not_supported("CREATE SEQUENCE"),
        Statement::CreateUser(_) => not_supported("CREATE USER"),
        Statement::CreateRole(_) => not_supported("CREATE ROLE"),
        Statement::AlterUser(_) => not_supported("ALTER USER"),
        Statement::AlterRole { .. } => not_supported("ALTER ROLE"),
        Statement::RenameTable(_) => not_supported("RENAME TABLE"),
        _ => None,
    }
}

/// A column's MySQL type, as information_schema and SHOW COLUMNS give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MysqlType {
    /// `DATA_TYPE`: `int`, `varchar`, `decimal`, …
    pub(crate) data_type: String,
    /// `COLUMN_TYPE`: `int unsigned`, `varchar(64)`, `decimal(10,2)`, …
    pub(crate) column_type: String,
    /// `CHARACTER_MAXIMUM_LENGTH` (characters, or bytes for binary types).
    pub(crate) char_len: Option<i64>,
    /// `CHARACTER_OCTET_LENGTH`.
    pub(crate) octet_len: Option<i64>,
    /// `NUMERIC_PRECISION`.
    pub(crate) precision: Option<i64>,
    /// `NUMERIC_SCALE`.
    pub(crate) scale: Option<i64>,
    /// `DATETIME_PRECISION`.
    pub(crate) fsp: Option<i64>,
    /// Whether the type holds text (has a character set).
    pub(crate) text: bool,
}

/// MySQL's name for a declared type, by [`types::classify_decl`]'s reading of it.
pub(crate) fn mysql_type(decl: &str) -> MysqlType {
    let upper = decl.trim().to_ascii_uppercase();
    let head = upper
        .split(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_owned();
    let unsigned = if upper.contains("UNSIGNED") {
        " unsigned"
    } else {
        ""
    };
    let mut t = MysqlType {
        data_type: String::new(),
        column_type: String::new(),
        char_len: None,
        octet_len: None,
        precision: None,
        scale: None,
        fsp: None,
        text: false,
    };
    let simple = |t: &mut MysqlType, name: &str| {
        t.data_type = name.to_owned();
        t.column_type = name.to_owned();
    };
    let kind = if decl.trim().is_empty() {
        DeclKind::Runtime
    } else {
        types::classify_decl(Some(decl))
    };
    match kind {
        DeclKind::Int { mysql, .. } => {
            let (name, digits) = match mysql {
                mysql_type::TINY => ("tinyint", 3),
                mysql_type::SHORT => ("smallint", 5),
                mysql_type::INT24 => ("mediumint", 7),
                mysql_type::LONG => ("int", 10),
                _ => ("bigint", if unsigned.is_empty() { 19 } else { 20 }),
            };
            t.data_type = name.to_owned();
            t.column_type = if head.starts_with("BOOL") {
                "tinyint(1)".to_owned()
            } else {
                format!("{name}{unsigned}")
            };
            t.precision = Some(digits);
            t.scale = Some(0);
        }
        DeclKind::Year => simple(&mut t, "year"),
        DeclKind::Enum { set, length } => {
            // Declared by a table without a kept definition as `ENUM TEXT x61 x62` (see
            // `enumset`); MySQL shows the members quoted: enum('a','b').
            let name = if set { "set" } else { "enum" };
            let members = crate::types::enumset::members(decl)
                .map(|(_, members)| members)
                .unwrap_or_default();
            let quoted: Vec<String> = members
                .iter()
                .map(|m| format!("'{}'", String::from_utf8_lossy(m).replace('\'', "''")))
                .collect();
            t.data_type = name.to_owned();
            t.column_type = format!("{name}({})", quoted.join(","));
            t.text = true;
            t.char_len = Some(i64::from(length));
            t.octet_len = Some(i64::from(length) * 4);
        }
        DeclKind::Bit { bits } => {
            t.data_type = "bit".to_owned();
            t.column_type = format!("bit({bits})");
            t.precision = Some(i64::from(bits));
        }
        DeclKind::Float => {
            simple(&mut t, "float");
            t.precision = Some(12);
        }
        DeclKind::Double => {
            simple(&mut t, "double");
            t.precision = Some(22);
        }
        DeclKind::Decimal { precision, scale } => {
            t.data_type = "decimal".to_owned();
            t.column_type = format!("decimal({precision},{scale}){unsigned}");
            t.precision = Some(i64::from(precision));
            t.scale = Some(i64::from(scale));
        }
        DeclKind::Date => simple(&mut t, "date"),
        DeclKind::DateTime { mysql, fsp } => {
            let name = if mysql == mysql_type::TIMESTAMP {
                "timestamp"
            } else {
                "datetime"
            };
            t.data_type = name.to_owned();
            t.column_type = with_fsp(name, fsp);
            t.fsp = Some(i64::from(fsp));
        }
        DeclKind::Time { fsp } => {
            t.data_type = "time".to_owned();
            t.column_type = with_fsp("time", fsp);
            t.fsp = Some(i64::from(fsp));
        }
        DeclKind::Text {
            max_chars,
            max_bytes,
            pad,
            json,
            ..
        } => {
            t.text = !json;
            let bytes = i64::try_from(max_bytes).unwrap_or(i64::MAX);
            if json {
                simple(&mut t, "json");
            } else if head == "ENUM" || head == "SET" {
                t.data_type = head.to_ascii_lowercase();
                t.column_type = decl.trim().to_owned();
                t.column_type
                    .replace_range(..head.len(), &t.data_type.clone());
            } else if let Some(n) = max_chars {
                let name = if pad { "char" } else { "varchar" };
                t.data_type = name.to_owned();
                t.column_type = format!("{name}({n})");
                t.char_len = i64::try_from(n).ok();
                t.octet_len = Some(bytes);
            } else {
                let name = match max_bytes {
                    0..=255 => "tinytext",
                    256..=65_535 => "text",
                    65_536..=16_777_215 => "mediumtext",
                    _ => "longtext",
                };
                simple(&mut t, name);
                t.char_len = Some(bytes);
                t.octet_len = Some(bytes);
            }
        }
        DeclKind::Binary {
            max_bytes, fixed, ..
        } => {
            let bytes = i64::try_from(max_bytes).unwrap_or(i64::MAX);
            t.char_len = Some(bytes);
            t.octet_len = Some(bytes);
            if let Some(n) = fixed {
                t.data_type = "binary".to_owned();
                t.column_type = format!("binary({n})");
            } else if head == "VARBINARY" {
                t.data_type = "varbinary".to_owned();
                t.column_type = format!("varbinary({max_bytes})");
            } else {
                let name = match max_bytes {
                    0..=255 => "tinyblob",
                    256..=65_535 => "blob",
                    65_536..=16_777_215 => "mediumblob",
                    _ => "longblob",
                };
                simple(&mut t, name);
            }
        }
        DeclKind::Runtime if decl.trim().is_empty() => simple(&mut t, "blob"),
        DeclKind::Runtime => {
            let lower = decl.trim().to_ascii_lowercase();
            t.data_type = head.to_ascii_lowercase();
            t.column_type = lower;
        }
    }
    t
}

fn with_fsp(name: &str, fsp: u32) -> String {
    if fsp == 0 {
        name.to_owned()
    } else {
        format!("{name}({fsp})")
    }
}

/// One table or view of the catalog.
#[derive(Debug, Clone)]
pub(crate) struct TableEntry {
    pub(crate) db: String,
    pub(crate) name: String,
    pub(crate) view: bool,
    /// The view's SQL as SQLite keeps it.
    pub(crate) sql: String,
    pub(crate) columns: Vec<ColumnEntry>,
    pub(crate) indexes: Vec<IndexEntry>,
    /// `ENGINE` of a translated table: as its kept definition declares it, else InnoDB,
    /// MySQL's default (other tables are the node's, SQLite).
    pub(crate) engine: Option<String>,
    /// A translated table's options as its kept definition holds them (names upper case).
    pub(crate) options: Vec<(String, String)>,
    /// Described by a translated table's kept definition.
    pub(crate) kept: bool,
    /// A translated table's foreign keys as SHOW CREATE TABLE writes them, by name.
    pub(crate) foreign_keys: Vec<String>,
    /// A translated table with CHECK constraints (a JSON column's among them), which SHOW
    /// CREATE TABLE does not write as MariaDB does (it prints them rewritten).
    pub(crate) has_checks: bool,
    /// Those CHECK constraints' names, as TABLE_CONSTRAINTS lists them; `None` when they are
    /// not MariaDB's (a table declared with MySQL 8's `t_chk_n` names).
    pub(crate) check_names: Option<Vec<String>>,
    /// Those CHECK constraints as MariaDB prints them back, when the kept definition has every
    /// one's printed form; SHOW CREATE TABLE of a table with checks needs them.
    pub(crate) checks_shown: Option<Vec<xrpc_sql_sqlite::ShownCheck>>,
    /// When a translated table was created (its kept definition's), information_schema's
    /// CREATE_TIME.
    pub(crate) created: Option<String>,
}

/// One column of a table.
#[derive(Debug, Clone)]
pub(crate) struct ColumnEntry {
    pub(crate) name: String,
    pub(crate) decl: String,
    pub(crate) not_null: bool,
    /// The default as SQLite keeps it (SQL text).
    pub(crate) default: Option<String>,
    /// Position in the primary key, 0 when not in it.
    pub(crate) pk: i64,
    /// The column is AUTO_INCREMENT: as its kept definition declares, or, for a table
    /// without one, SQLite's rowid alias (a lone `INTEGER PRIMARY KEY`), which generates ids.
    pub(crate) auto_increment: bool,
    /// The MySQL type of a translated table's column, from its kept definition (the SQLite
    /// declaration does not tell it); else [`mysql_type`] of `decl`.
    pub(crate) kept_type: Option<MysqlType>,
    /// `ON UPDATE CURRENT_TIMESTAMP` (a translated table's), as MariaDB shows it
    /// (`current_timestamp()`, `current_timestamp(3)`).
    pub(crate) on_update_now: Option<String>,
    /// `COMMENT` (a translated table's).
    pub(crate) comment: Option<String>,
    /// The collation of a translated table's text column.
    pub(crate) collation: Option<String>,
    /// ` CHARACTER SET … COLLATE …` of a translated table's text column whose collation is not
    /// the table's.
    pub(crate) collation_clause: Option<String>,
    /// A translated table's generated column: its expression as MariaDB prints it, and
    /// whether it is declared STORED (else VIRTUAL).
    pub(crate) generated: Option<(String, bool)>,
}

impl ColumnEntry {
    /// The column's MySQL type.
    pub(crate) fn mysql_type(&self) -> MysqlType {
        self.kept_type
            .clone()
            .unwrap_or_else(|| mysql_type(&self.decl))
    }
}

/// MySQL's name of a collation of the translation.
fn collation_name(collation: xrpc_sql_sqlite::Collation) -> &'static str {
    use xrpc_sql_sqlite::Collation;
    match collation {
        Collation::Ci => "utf8mb4_general_ci",
        Collation::Bin | Collation::Exact => "utf8mb4_bin",
        Collation::Name => "utf8mb3_general_ci",
    }
}

/// An integer type shown with its display width, as MariaDB (and MySQL before 8.0.19) show
/// it: the declared one, else the type's (`int(11)`, `int(10) unsigned`, `bigint(20)`).
fn with_display_width(mut t: MysqlType, declared: &str) -> MysqlType {
    let unsigned = t.column_type.ends_with(" unsigned");
    let default = match (t.data_type.as_str(), unsigned) {
        ("tinyint", false) => 4,
        ("tinyint", true) => 3,
        ("smallint", false) => 6,
        ("smallint", true) => 5,
        ("mediumint", false) => 9,
        ("mediumint", true) => 8,
        ("int", false) => 11,
        ("int", true) => 10,
        ("bigint", _) => 20,
        ("year", _) => 4,
        _ => return t,
    };
    if t.column_type.contains('(') {
        return t;
    }
    let width = declared
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .and_then(|(n, _)| n.trim().parse::<u32>().ok())
        .unwrap_or(default);
    t.column_type = format!(
        "{}({width}){}",
        t.data_type,
        if unsigned { " unsigned" } else { "" }
    );
    t
}

/// `CURRENT_TIMESTAMP` of `fsp` fraction digits as MariaDB shows a default or ON UPDATE.
fn current_timestamp_shown(fsp: u8) -> String {
    match fsp {
        0 => "current_timestamp()".to_owned(),
        _ => format!("current_timestamp({fsp})"),
    }
}

/// A translated table's entry as its kept definition describes it: each column's declared
/// MySQL type and AUTO_INCREMENT, the indexes under their MySQL names, the declared engine.
fn apply_kept(entry: &mut TableEntry, kept: &xrpc_sql_sqlite::Table) {
    use xrpc_sql_sqlite::{Collation, ColumnType};
    // The table's collation, which a text column shows unless it declares its own.
    let table_collate = kept
        .options
        .iter()
        .find(|(k, _)| k == "COLLATE" || k == "DEFAULT COLLATE")
        .map(|(_, v)| v.to_ascii_lowercase());
    let table_collation = table_collate
        .as_deref()
        .and_then(Collation::from_mysql_name)
        .unwrap_or(Collation::Ci);
    let table_collation_name = table_collate.unwrap_or_else(|| "utf8mb4_general_ci".to_owned());
    for column in &mut entry.columns {
        let Some(declared) = kept.column(&column.name) else {
            continue;
        };
        if kept.view.is_some() {
            // A view's column is described as the table column it is, without its keys and
            // extras; MariaDB shows 0 as the default of an AUTO_INCREMENT one.
            column.not_null = declared.not_null;
            column.default = if declared.auto_increment {
                Some("0".to_owned())
            } else {
                declared.default.clone()
            };
        } else {
            column.auto_increment = declared.auto_increment;
            column.on_update_now = declared
                .on_update_now
                .then(|| current_timestamp_shown(declared.ty.fsp()));
        }
        column.comment = declared.comment.clone();
        column.generated = declared
            .generated
            .as_ref()
            .map(|g| (g.shown.clone(), g.stored));
        if column
            .default
            .as_deref()
            .is_some_and(|d| d.contains("'now', 'localtime'"))
        {
            column.default = Some(current_timestamp_shown(declared.ty.fsp()));
        }
        // A BIT column's default is shown as its bits, as MariaDB writes it.
        if let ColumnType::Bit { .. } = declared.ty
            && let Some(bits) = column
                .default
                .as_deref()
                .and_then(|d| d.parse::<u64>().ok())
        {
            column.default = Some(format!("b'{bits:b}'"));
        }
        column.collation_clause = match &declared.ty {
            ColumnType::Char { collation, .. }
            | ColumnType::VarChar { collation, .. }
            | ColumnType::Enum { collation, .. }
            | ColumnType::Set { collation, .. }
                if *collation != table_collation =>
            {
                Some(format!(
                    " CHARACTER SET utf8mb4 COLLATE {}",
                    collation_name(*collation)
                ))
            }
            _ => None,
        };
        column.collation = match &declared.ty {
            ColumnType::Char { collation, .. }
            | ColumnType::VarChar { collation, .. }
            | ColumnType::Enum { collation, .. }
            | ColumnType::Set { collation, .. } => Some(if *collation == table_collation {
                table_collation_name.clone()
            } else {
                collation_name(*collation).to_owned()
            }),
            _ => None,
        };
        column.kept_type = match &declared.ty {
            ColumnType::Enum { values, .. } | ColumnType::Set { values, .. } => {
                let name = if matches!(declared.ty, ColumnType::Enum { .. }) {
                    "enum"
                } else {
                    "set"
                };
                let longest = values.iter().map(|v| v.chars().count()).max().unwrap_or(0);
                let quoted: Vec<String> = values
                    .iter()
                    .map(|v| format!("'{}'", v.replace('\'', "''")))
                    .collect();
                let mut t = mysql_type("TEXT");
                t.data_type = name.to_owned();
                t.column_type = format!("{name}({})", quoted.join(","));
                t.char_len = i64::try_from(longest).ok();
                t.octet_len = t.char_len.map(|n| n * 4);
                Some(t)
            }
            _ if declared.declared.is_empty() => None,
            _ => Some(with_display_width(
                mysql_type(&declared.declared),
                &declared.declared,
            )),
        };
    }
    for index in &mut entry.indexes {
        if let Some(declared) = kept.indexes.iter().find(|i| i.sqlite_name == index.name) {
            index.name = declared.name.clone();
            index.prefixes = index.columns.iter().map(|c| declared.prefix(c)).collect();
        }
    }
    entry.kept = true;
    entry.created.clone_from(&kept.created);
    entry.options = kept.options.clone();
    // InnoDB lists a table's foreign keys by name.
    entry.foreign_keys = kept.foreign_keys_shown.clone();
    entry.foreign_keys.sort();
    entry.has_checks = !kept.checks.is_empty();
    entry.checks_shown = (kept.checks_shown.len() == kept.checks.len()
        && kept
            .checks_shown
            .iter()
            .zip(&kept.checks)
            .all(|(shown, (name, _))| shown.name == *name))
    .then(|| kept.checks_shown.clone());
    entry.check_names = kept
        .checks
        .iter()
        .all(|(_, sql)| sql.contains("my_check_constraint("))
        .then(|| kept.checks.iter().map(|(name, _)| name.clone()).collect());
    // A table declared without an engine has MySQL's default one.
    entry.engine = Some(
        kept.options
            .iter()
            .find(|(k, _)| k == "ENGINE")
            .map_or_else(|| "InnoDB".to_owned(), |(_, v)| v.clone()),
    );
}

/// A foreign key as SHOW CREATE TABLE writes it (`CONSTRAINT `n` FOREIGN KEY (`a`) REFERENCES
/// `p` (`id`) ON DELETE CASCADE`), read back for information_schema.
struct ShownForeignKey {
    name: String,
    columns: Vec<String>,
    table: String,
    referenced: Vec<String>,
    on_delete: String,
    on_update: String,
}

impl ShownForeignKey {
    fn parse(shown: &str) -> Option<Self> {
        /// A backquoted name at the start of `text`, and the rest.
        fn name(text: &str) -> Option<(String, &str)> {
            let rest = text.strip_prefix('`')?;
            let mut out = String::new();
            let mut chars = rest.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                if c == '`' {
                    if chars.peek().is_some_and(|(_, n)| *n == '`') {
                        chars.next();
                        out.push('`');
                        continue;
                    }
                    return Some((out, &rest[i + 1..]));
                }
                out.push(c);
            }
            None
        }
        /// `(`a`, `b`)` at the start of `text`, and the rest.
        fn list(text: &str) -> Option<(Vec<String>, &str)> {
            let mut rest = text.strip_prefix('(')?;
            let mut names = Vec::new();
            loop {
                let (n, after) = name(rest)?;
                names.push(n);
                if let Some(after) = after.strip_prefix(", ") {
                    rest = after;
                } else {
                    return Some((names, after.strip_prefix(')')?));
                }
            }
        }
        let (fk_name, rest) = name(shown.strip_prefix("CONSTRAINT ")?)?;
        let (columns, rest) = list(rest.strip_prefix(" FOREIGN KEY ")?)?;
        let (table, rest) = name(rest.strip_prefix(" REFERENCES ")?)?;
        let (referenced, rest) = list(rest.strip_prefix(' ')?)?;
        let rule = |clause: &str| {
            rest.split_once(clause)
                .map_or("RESTRICT".to_owned(), |(_, r)| {
                    [
                        "CASCADE",
                        "SET NULL",
                        "NO ACTION",
                        "SET DEFAULT",
                        "RESTRICT",
                    ]
                    .iter()
                    .find(|a| r.starts_with(*a))
                    .map_or("RESTRICT".to_owned(), |a| (*a).to_owned())
                })
        };
        Some(Self {
            name: fk_name,
            columns,
            table,
            referenced,
            on_delete: rule(" ON DELETE "),
            on_update: rule(" ON UPDATE "),
        })
    }
}

/// One index of a table; the primary key is `PRIMARY`.
#[derive(Debug, Clone)]
pub(crate) struct IndexEntry {
    pub(crate) name: String,
    pub(crate) unique: bool,
    pub(crate) columns: Vec<String>,
    /// Each column's prefix length, when the kept definition keys it by a prefix (empty for
    /// a table without one).
    pub(crate) prefixes: Vec<Option<u32>>,
}

impl IndexEntry {
    /// The prefix length of the key's `seq`th column (from 0), if it has one.
    fn prefix(&self, seq: usize) -> Option<u32> {
        self.prefixes.get(seq).copied().flatten()
    }
}

impl TableEntry {
    /// Puts the keys in the order MariaDB keeps a table's keys in (`sort_keys`), which SHOW
    /// CREATE TABLE, SHOW INDEX and `STATISTICS` follow: unique keys first — those of NOT NULL
    /// columns only before the others, the primary key first among them, keys without a
    /// prefix part before those with one — then the others, each group in the order the
    /// keys were made.
    fn sort_keys(&mut self) {
        let not_null = |column: &String| {
            self.columns
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(column))
                .is_some_and(|c| c.not_null || c.pk > 0)
        };
        let rank = |index: &IndexEntry| {
            if !index.unique {
                return (1, false, false, false);
            }
            (
                0,
                !index.columns.iter().all(not_null),
                index.name != "PRIMARY",
                index.prefixes.iter().any(Option::is_some),
            )
        };
        let mut ranked: Vec<_> = std::mem::take(&mut self.indexes)
            .into_iter()
            .map(|index| (rank(&index), index))
            .collect();
        // Stable: the keys of one rank stay in the order they were made.
        ranked.sort_by_key(|(rank, _)| *rank);
        self.indexes = ranked.into_iter().map(|(_, index)| index).collect();
    }

    /// Whether the table's id column is SQLite's rowid alias (a lone `INTEGER PRIMARY KEY`),
    /// which the node treats as MySQL's AUTO_INCREMENT.
    fn auto_increment_column(&self) -> Option<&str> {
        let keys: Vec<&ColumnEntry> = self.columns.iter().filter(|c| c.pk > 0).collect();
        match keys.as_slice() {
            [only] if only.auto_increment => Some(&only.name),
            _ => None,
        }
    }

    /// `COLUMN_KEY` of a column: PRI, UNI (first column of a unique index), MUL or empty.
    fn column_key(&self, column: &ColumnEntry) -> &'static str {
        if column.pk > 0 {
            return "PRI";
        }
        let first_of = |unique: bool| {
            self.indexes.iter().any(|i| {
                i.name != "PRIMARY"
                    && i.unique == unique
                    && i.columns
                        .first()
                        .is_some_and(|c| c.eq_ignore_ascii_case(&column.name))
                    && (!unique || i.columns.len() == 1)
            })
        };
        if first_of(true) {
            "UNI"
        } else if first_of(false)
            || self
                .indexes
                .iter()
                .any(|i| i.columns.first() == Some(&column.name))
        {
            "MUL"
        } else {
            ""
        }
    }

    /// The table's character set and collation as its options declare them (utf8mb4 and its
    /// default collation otherwise).
    fn charset_and_collation(&self) -> (String, String) {
        let option = |names: &[&str]| {
            self.options
                .iter()
                .find(|(k, _)| names.contains(&k.as_str()))
                .map(|(_, v)| v.to_ascii_lowercase())
        };
        let charset = option(&[
            "DEFAULT CHARSET",
            "CHARSET",
            "DEFAULT CHARACTER SET",
            "CHARACTER SET",
        ])
        .map(|c| if c == "utf8" { "utf8mb3".to_owned() } else { c })
        .unwrap_or_else(|| "utf8mb4".to_owned());
        let collation = option(&["COLLATE", "DEFAULT COLLATE"])
            .unwrap_or_else(|| format!("{charset}_general_ci"));
        (charset, collation)
    }

    /// What follows a translated table's columns and keys in SHOW CREATE TABLE, in MariaDB's
    /// order: `ENGINE=…`, `AUTO_INCREMENT=n` (the next value, when past 1), the character set
    /// with its collation, `COMMENT='…'`.
    fn options_tail(&self, next_auto_increment: Option<i64>) -> String {
        let option = |names: &[&str]| {
            self.options
                .iter()
                .find(|(k, _)| names.contains(&k.as_str()))
                .map(|(_, v)| v.clone())
        };
        let mut tail = format!("ENGINE={}", self.engine.as_deref().unwrap_or("SQLite"));
        if let Some(next) = next_auto_increment.filter(|n| *n > 1) {
            tail.push_str(&format!(" AUTO_INCREMENT={next}"));
        }
        let (charset, collation) = self.charset_and_collation();
        tail.push_str(&format!(" DEFAULT CHARSET={charset} COLLATE={collation}"));
        if let Some(comment) = option(&["COMMENT"]) {
            tail.push_str(&format!(" COMMENT={}", shown_comment(&comment)));
        }
        tail
    }

    /// `CREATE TABLE` in MySQL's form; `next_auto_increment` is the table's next id, when it
    /// has an AUTO_INCREMENT column (a translated table shows it, as MariaDB does).
    pub(crate) fn create_table(&self, next_auto_increment: Option<i64>) -> String {
        let mut lines: Vec<String> = Vec::new();
        let auto = self.auto_increment_column();
        for c in &self.columns {
            let ty = c.mysql_type();
            let mut line = format!("  {} {}", backquote(&c.name), ty.column_type);
            if let Some(clause) = &c.collation_clause {
                line.push_str(clause);
            }
            if let Some((expression, stored)) = &c.generated {
                let kind = if *stored { "STORED" } else { "VIRTUAL" };
                line.push_str(&format!(" GENERATED ALWAYS AS ({expression}) {kind}"));
                if let Some(comment) = &c.comment {
                    line.push_str(" COMMENT ");
                    line.push_str(&shown_comment(comment));
                }
                lines.push(line);
                continue;
            }
            if c.not_null || c.pk > 0 {
                line.push_str(" NOT NULL");
            } else if self.kept && ty.data_type == "timestamp" {
                // A nullable TIMESTAMP says so (MySQL's TIMESTAMP is NOT NULL unless declared).
                line.push_str(" NULL");
            }
            match &c.default {
                // MariaDB writes a number's default as a number (`DEFAULT 0.00`).
                Some(d) if ty.data_type == "decimal" && d.len() > 1 && d.starts_with('\'') => {
                    line.push_str(" DEFAULT ");
                    line.push_str(&d[1..d.len() - 1]);
                }
                Some(d) => {
                    line.push_str(" DEFAULT ");
                    line.push_str(d);
                }
                None if !(c.not_null || c.pk > 0) => line.push_str(" DEFAULT NULL"),
                None => {}
            }
            if let Some(now) = &c.on_update_now {
                line.push_str(" ON UPDATE ");
                line.push_str(now);
            }
            if auto == Some(c.name.as_str()) {
                line.push_str(" AUTO_INCREMENT");
            }
            if let Some(comment) = &c.comment {
                line.push_str(" COMMENT ");
                line.push_str(&shown_comment(comment));
            }
            for check in self.checks_shown.iter().flatten() {
                if check.column.as_deref() == Some(c.name.as_str()) {
                    line.push_str(&format!(" CHECK ({})", check.clause));
                }
            }
            lines.push(line);
        }
        let list = |index: &IndexEntry| {
            index
                .columns
                .iter()
                .enumerate()
                .map(|(seq, c)| match index.prefix(seq) {
                    Some(n) => format!("{}({n})", backquote(c)),
                    None => backquote(c),
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        for index in &self.indexes {
            let line = if index.name == "PRIMARY" {
                format!("  PRIMARY KEY ({})", list(index))
            } else if index.unique {
                format!("  UNIQUE KEY {} ({})", backquote(&index.name), list(index))
            } else {
                format!("  KEY {} ({})", backquote(&index.name), list(index))
            };
            lines.push(line);
        }
        lines.extend(self.foreign_keys.iter().map(|fk| format!("  {fk}")));
        for check in self.checks_shown.iter().flatten() {
            if check.column.is_none() {
                lines.push(format!(
                    "  CONSTRAINT {} CHECK ({})",
                    backquote(&check.name),
                    check.clause
                ));
            }
        }
        let tail = if !self.kept {
            "ENGINE=SQLite DEFAULT CHARSET=utf8mb4".to_owned()
        } else {
            self.options_tail(next_auto_increment)
        };
        format!(
            "CREATE TABLE {} (\n{}\n) {tail}",
            backquote(&self.name),
            lines.join(",\n"),
        )
    }
}

/// A comment as SHOW CREATE TABLE quotes it (MariaDB's `append_unescaped`): `'` doubled,
/// backslash and the control characters MySQL escapes written with a backslash.
fn shown_comment(comment: &str) -> String {
    let mut out = String::with_capacity(comment.len() + 2);
    out.push('\'');
    for c in comment.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{1a}' => out.push_str("\\Z"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("''"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn backquote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A default as MySQL shows it: a string literal without its quotes, anything else as written.
fn shown_default(default: &str) -> String {
    let d = default.trim();
    if d.len() >= 2 && d.starts_with('\'') && d.ends_with('\'') {
        d[1..d.len() - 1].replace("''", "'")
    } else {
        d.to_owned()
    }
}

/// The types whose defaults information_schema shows bare; every other type's are quoted.
const NUMERIC_TYPES: [&str; 10] = [
    "tinyint",
    "smallint",
    "mediumint",
    "int",
    "bigint",
    "decimal",
    "float",
    "double",
    "bit",
    "year",
];

/// A default as MariaDB's `information_schema.COLUMNS.COLUMN_DEFAULT` shows it: a string or
/// temporal literal quoted (`'n'`, `'it''s'`), a number bare (a DECIMAL kept as text loses its
/// quotes, a DOUBLE kept as `2.0` is `2`), an expression as written; for a column without a
/// default, the text `NULL` when it is nullable and SQL NULL when it is NOT NULL.
/// [`SHOW_COLUMNS_DEFAULT`] turns it back into SHOW COLUMNS' form.
fn schema_default(default: Option<&str>, nullable: bool, data_type: &str) -> Option<String> {
    let Some(d) = default.map(str::trim) else {
        return nullable.then(|| "NULL".to_owned());
    };
    let numeric = NUMERIC_TYPES.contains(&data_type);
    Some(
        if d.len() >= 2 && d.starts_with('\'') && d.ends_with('\'') {
            if numeric {
                shown_default(d)
            } else {
                format!("'{}'", shown_default(d).replace('\'', "''"))
            }
        } else if numeric && d.ends_with(".0") && d.parse::<f64>().is_ok() {
            d[..d.len() - 2].to_owned()
        } else {
            d.to_owned()
        },
    )
}

/// SHOW COLUMNS' `Default` from [`schema_default`]'s form, in SQL: a quoted literal unquoted,
/// the text `NULL` (no default, or DEFAULT NULL) as SQL NULL.
const SHOW_COLUMNS_DEFAULT: &str = "CASE WHEN COLUMN_DEFAULT = 'NULL' THEN NULL \
     WHEN length(COLUMN_DEFAULT) >= 2 AND COLUMN_DEFAULT LIKE '''%''' \
     THEN replace(substr(COLUMN_DEFAULT, 2, length(COLUMN_DEFAULT) - 2), '''''', '''') \
     ELSE COLUMN_DEFAULT END";

/// Text, or NULL.
fn text(s: Option<&str>) -> Value {
    match s {
        Some(s) => Value::Bytes(bytes::Bytes::copy_from_slice(s.as_bytes())),
        None => Value::Null,
    }
}

impl SqliteConn {
    /// `columns` of information_schema.TABLES' rows of database `db` whose names match `like`,
    /// ordered by the first column byte for byte: SHOW TABLES and SHOW TABLE STATUS.
    fn tables_shown(
        &mut self,
        columns: &str,
        db: &str,
        like: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let mut sql =
            format!("SELECT {columns} FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?1");
        let mut args = vec![text(Some(db))];
        if let Some(like) = like {
            sql.push_str(" AND TABLE_NAME LIKE ?2 ESCAPE '\\'");
            args.push(text(Some(like)));
        }
        sql.push_str(" ORDER BY 1 COLLATE BINARY");
        self.query(&sql, &args, sink)
    }

    /// Runs one of the statements [`of`] recognised.
    pub(super) fn run_mysql(
        &mut self,
        stmt: Stmt,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        if let Stmt::ShowColumns { table, db, .. }
        | Stmt::ShowIndex { table, db }
        | Stmt::ShowCreateTable { table, db } = &stmt
            && self.has_temp
        {
            let db = self.resolve_db(db.as_deref())?;
            if super::translated::is_temporary_table(&self.conn, &db, table) {
                if !matches!(stmt, Stmt::ShowColumns { .. }) {
                    return Err(SqlError::new(
                        &codes::NOT_SUPPORTED_YET,
                        format!(
                            "This version of MySQL doesn't yet support 'SHOW INDEX or SHOW \
                             CREATE TABLE of the temporary table {table}'"
                        ),
                    ));
                }
                self.describing_temporary = Some((db, table.clone()));
                self.catalog_built = None;
                let result = self.run_mysql_statement(stmt, sink);
                self.describing_temporary = None;
                self.catalog_built = None;
                return result;
            }
        }
        self.run_mysql_statement(stmt, sink)
    }

    /// Runs one of the statements [`of`] recognised, a temporary table's description set
    /// up (see `run_mysql`).
    fn run_mysql_statement(
        &mut self,
        stmt: Stmt,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let done = ExecSummary::default();
        match stmt {
            Stmt::NotSupported(what) => Err(SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                format!(
                    "This version doesn't yet support '{what}': the SQLite engine has no counterpart"
                ),
            )),
            Stmt::UnknownProcedure(name) => {
                // MySQL's wording, database in lower case and the procedure as written: the
                // compute node matches "PROCEDURE dbms_xa.FIND_BY_XID does not exist".
                let name = match name.split_once('.') {
                    Some((db, procedure)) => format!("{}.{procedure}", db.to_ascii_lowercase()),
                    None => format!("{}.{name}", self.schema),
                };
                Err(SqlError::new(
                    &codes::SP_DOES_NOT_EXIST,
                    format!("PROCEDURE {name} does not exist"),
                ))
            }
            Stmt::CreateDatabase {
                name,
                if_not_exists,
            } => {
                self.commit_implicitly()?;
                let created = self.databases.create(&name, if_not_exists)?;
                self.sync_databases()?;
                Ok(ExecSummary {
                    rows_affected: u64::from(created),
                    ..done
                })
            }
            Stmt::DropDatabase { name, if_exists } => {
                let lower = super::databases::validate(&name)?;
                self.commit_implicitly()?;
                if let Some(at) = self.attached.names.iter().position(|(n, _)| *n == lower) {
                    self.conn
                        .execute("DETACH DATABASE ?1", [&lower])
                        .map_err(|err| self.map(err))?;
                    self.attached.names.remove(at);
                }
                self.databases.drop_database(&lower, if_exists)?;
                if self
                    .session_schema
                    .as_deref()
                    .is_some_and(|s| s.eq_ignore_ascii_case(&lower))
                {
                    self.session_schema = None;
                    self.schema_change = Some(None);
                    self.set_schema("main");
                }
                Ok(done)
            }
            Stmt::Use(name) => {
                let lower = name.to_ascii_lowercase();
                if !self.database_exists(&lower) {
                    return Err(unknown_db(&name));
                }
                self.session_schema = Some(lower.clone());
                self.schema_change = Some(Some(lower.clone()));
                self.set_schema(&lower);
                Ok(done)
            }
            Stmt::ShowDatabases { like } => {
                self.refresh_catalog()?;
                let label = match &like {
                    Some(p) => format!("Database ({p})"),
                    None => "Database".to_owned(),
                };
                let mut sql = format!(
                    "SELECT SCHEMA_NAME AS {} FROM information_schema.SCHEMATA",
                    super::quote(&label)
                );
                let mut args = Vec::new();
                if let Some(like) = like {
                    sql.push_str(" WHERE SCHEMA_NAME LIKE ?1 ESCAPE '\\'");
                    args.push(text(Some(&like)));
                }
                sql.push_str(" ORDER BY 1 COLLATE BINARY");
                self.query(&sql, &args, sink)
            }
            Stmt::ShowTables { full, db, like } => {
                let db = self.resolve_db(db.as_deref())?;
                self.refresh_catalog()?;
                let label = match &like {
                    Some(p) => format!("Tables_in_{db} ({p})"),
                    None => format!("Tables_in_{db}"),
                };
                let columns = format!(
                    "TABLE_NAME AS {}{}",
                    super::quote(&label),
                    if full { ", TABLE_TYPE AS Table_type" } else { "" }
                );
                self.tables_shown(&columns, &db, like.as_deref(), sink)
            }
            Stmt::ShowTriggers { db } => {
                self.resolve_db(db.as_deref())?;
                let sql = "SELECT '' AS \"Trigger\", '' AS Event, '' AS \"Table\", '' AS \"Statement\", \
                     '' AS Timing, NULL AS Created, '' AS sql_mode, '' AS Definer, \
                     '' AS character_set_client, '' AS collation_connection, \
                     '' AS \"Database Collation\" WHERE 0";
                self.query(sql, &[], sink)
            }
            Stmt::ShowTableStatus { db, like } => {
                let db = self.resolve_db(db.as_deref())?;
                self.refresh_catalog()?;
                // information_schema.TABLES under SHOW TABLE STATUS's names (its statistics
                // as the `statistics` module computes them).
                let columns = "TABLE_NAME AS Name, ENGINE AS Engine, VERSION AS Version, \
                     ROW_FORMAT AS Row_format, TABLE_ROWS AS \"Rows\", AVG_ROW_LENGTH AS Avg_row_length, \
                     DATA_LENGTH AS Data_length, MAX_DATA_LENGTH AS Max_data_length, \
                     INDEX_LENGTH AS Index_length, DATA_FREE AS Data_free, \
                     AUTO_INCREMENT AS Auto_increment, CREATE_TIME AS Create_time, \
                     UPDATE_TIME AS Update_time, CHECK_TIME AS Check_time, \
                     TABLE_COLLATION AS \"Collation\", CHECKSUM AS Checksum, \
                     CREATE_OPTIONS AS Create_options, TABLE_COMMENT AS Comment, \
                     MAX_INDEX_LENGTH AS Max_index_length, TEMPORARY AS \"Temporary\"";
                self.tables_shown(columns, &db, like.as_deref(), sink)
            }
            Stmt::ShowColumns {
                table,
                db,
                like,
                full,
            } => {
                let db = self.resolve_db(db.as_deref())?;
                self.refresh_catalog()?;
                self.require_table(&db, &table)?;
                if self
                    .undescribed_views
                    .iter()
                    .any(|(d, t)| *d == db && t.eq_ignore_ascii_case(&table))
                {
                    return Err(undescribed(&table));
                }
                let (collation, privileges) = if full {
                    (
                        "COLLATION_NAME AS Collation, ",
                        ", PRIVILEGES AS \"Privileges\", COLUMN_COMMENT AS \"Comment\"",
                    )
                } else {
                    ("", "")
                };
                let mut sql = format!(
                    "SELECT COLUMN_NAME AS Field, COLUMN_TYPE AS Type, {collation}IS_NULLABLE AS \"Null\", \
                     COLUMN_KEY AS \"Key\", {SHOW_COLUMNS_DEFAULT} AS \"Default\", EXTRA AS Extra{privileges} \
                     FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?1 AND TABLE_NAME = ?2 COLLATE NOCASE"
                );
                let mut args = vec![text(Some(&db)), text(Some(&table))];
                if let Some(like) = like {
                    sql.push_str(" AND COLUMN_NAME LIKE ?3 ESCAPE '\\'");
                    args.push(text(Some(&like)));
                }
                sql.push_str(" ORDER BY ORDINAL_POSITION");
                self.query(&sql, &args, sink)
            }
            Stmt::ShowIndex { table, db } => {
                let db = self.resolve_db(db.as_deref())?;
                self.refresh_catalog()?;
                self.require_table(&db, &table)?;
                // Cardinality as information_schema.STATISTICS computes it (the `statistics`
                // module).
                let sql = "SELECT s.TABLE_NAME AS \"Table\", s.NON_UNIQUE AS Non_unique, \
                     s.INDEX_NAME AS Key_name, s.SEQ_IN_INDEX AS Seq_in_index, \
                     s.COLUMN_NAME AS Column_name, s.COLLATION AS Collation, \
                     (SELECT v.CARDINALITY FROM information_schema.STATISTICS v \
                      WHERE v.TABLE_SCHEMA = s.TABLE_SCHEMA AND v.TABLE_NAME = s.TABLE_NAME \
                      AND v.INDEX_NAME = s.INDEX_NAME AND v.SEQ_IN_INDEX = s.SEQ_IN_INDEX) AS Cardinality, \
                     s.SUB_PART AS Sub_part, s.PACKED AS Packed, s.NULLABLE AS \"Null\", \
                     s.INDEX_TYPE AS Index_type, s.COMMENT AS \"Comment\", \
                     s.INDEX_COMMENT AS Index_comment, s.IGNORED AS Ignored \
                     FROM information_schema.xrpc_statistics s \
                     WHERE s.TABLE_SCHEMA = ?1 AND s.TABLE_NAME = ?2 COLLATE NOCASE \
                     ORDER BY s.INDEX_NAME <> 'PRIMARY', s.rowid";
                self.query(sql, &[text(Some(&db)), text(Some(&table))], sink)
            }
            Stmt::ShowCreateTable { table, db } => {
                let (_, entry) = self.catalog_entry(db.as_deref(), &table)?;
                if entry.view && entry.kept {
                    // MariaDB prints the view's SELECT as it rewrote it (every name qualified,
                    // its own spacing), which the kept text is not.
                    return Err(SqlError::new(
                        &codes::NOT_SUPPORTED_YET,
                        "This version of MySQL doesn't yet support 'SHOW CREATE TABLE of a view'",
                    ));
                }
                if entry.view {
                    let sql = "SELECT ?1 AS \"View\", ?2 AS \"Create View\", 'utf8mb4' AS character_set_client, \
                         'utf8mb4_general_ci' AS collation_connection";
                    self.query(sql, &[text(Some(&entry.name)), text(Some(&entry.sql))], sink)
                } else if entry.has_checks && entry.checks_shown.is_none() {
                    Err(SqlError::new(
                        &codes::NOT_SUPPORTED_YET,
                        "This version of MySQL doesn't yet support 'SHOW CREATE TABLE of a \
                         table with CHECK constraints or JSON columns'",
                    ))
                } else {
                    let next_auto_increment = entry
                        .auto_increment_column()
                        .map(|_| self.next_auto_increment(&entry.db, &entry.name));
                    let ddl = entry.create_table(next_auto_increment);
                    let sql = "SELECT ?1 AS \"Table\", ?2 AS \"Create Table\"";
                    self.query(sql, &[text(Some(&entry.name)), text(Some(&ddl))], sink)
                }
            }
            Stmt::ShowCreateView { table, db } => {
                let (db, entry) = self.catalog_entry(db.as_deref(), &table)?;
                if !entry.view {
                    return Err(SqlError::new(
                        &codes::WRONG_OBJECT,
                        format!("'{db}.{}' is not of type 'VIEW'", entry.name),
                    ));
                }
                // MariaDB prints the SELECT as it rewrote it (every name qualified, its own
                // spacing and DEFINER), which the kept text is not.
                Err(SqlError::new(
                    &codes::NOT_SUPPORTED_YET,
                    "This version of MySQL doesn't yet support 'SHOW CREATE VIEW'",
                ))
            }
            Stmt::ShowCreateDatabase(name) => {
                let lower = name.to_ascii_lowercase();
                if !self.database_exists(&lower) {
                    return Err(unknown_db(&name));
                }
                let ddl = format!(
                    "CREATE DATABASE {} /*!40100 DEFAULT CHARACTER SET utf8mb4 */",
                    backquote(&lower)
                );
                self.query(
                    "SELECT ?1 AS \"Database\", ?2 AS \"Create Database\"",
                    &[text(Some(&lower)), text(Some(&ddl))],
                    sink,
                )
            }
            Stmt::ShowEngines => self.query(
                "SELECT 'SQLite' AS Engine, 'DEFAULT' AS Support, \
                 'SQLite, embedded: transactions, savepoints, one writer at a time' AS \"Comment\", \
                 'YES' AS Transactions, 'NO' AS XA, 'YES' AS Savepoints",
                &[],
                sink,
            ),
            Stmt::ShowDiagnostics { errors, limit } => self.show_diagnostics(errors, limit, sink),
            Stmt::DiagnosticCounts(items) => {
                let warnings = self.last_warnings.clone();
                // `error_count` counts the errors, `warning_count` every condition (MySQL's).
                let count = |errors: bool| {
                    warnings
                        .iter()
                        .filter(|w| !errors || w.level == WarningLevel::Error)
                        .count() as u64
                };
                let sql = format!(
                    "SELECT {}",
                    items
                        .iter()
                        .map(|item| format!("? AS \"{}\"", item.label.replace('"', "\"\"")))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let args: Vec<Value> = items.iter().map(|i| Value::Uint(count(i.errors))).collect();
                let hints: Vec<_> = (0..items.len()).map(uint_hint).collect();
                let result = self.query_hinted(&sql, &args, &hints, sink);
                self.last_warnings = warnings;
                result
            }
        }
    }

    /// `SHOW WARNINGS` (every condition) or `SHOW ERRORS` (errors only): the session's
    /// diagnostics, which showing does not clear.
    fn show_diagnostics(
        &mut self,
        errors_only: bool,
        limit: Option<(u64, u64)>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let warnings = self.last_warnings.clone();
        let (skip, keep) = limit.unwrap_or((0, u64::MAX));
        let as_count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let shown: Vec<&SqlWarning> = warnings
            .iter()
            .filter(|w| !errors_only || w.level == WarningLevel::Error)
            .skip(as_count(skip))
            .take(as_count(keep))
            .collect();
        // `Code` is MySQL's INT UNSIGNED (10).
        let code = [uint_hint(1)];
        let result = if shown.is_empty() {
            self.query_hinted(
                "SELECT '' AS Level, 0 AS Code, '' AS Message WHERE 0",
                &[],
                &code,
                sink,
            )
        } else {
            let sql =
                vec!["SELECT ? AS Level, ? AS Code, ? AS Message"; shown.len()].join(" UNION ALL ");
            let args: Vec<Value> = shown
                .iter()
                .flat_map(|w| {
                    [
                        Value::Bytes(w.level.name().as_bytes().to_vec().into()),
                        Value::Uint(u64::from(w.code)),
                        Value::Bytes(w.message.as_bytes().to_vec().into()),
                    ]
                })
                .collect();
            self.query_hinted(&sql, &args, &code, sink)
        };
        self.last_warnings = warnings;
        result
    }

    /// Runs a query the node built, streaming its rows as any result.
    fn query(
        &mut self,
        sql: &str,
        args: &[Value],
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        self.query_hinted(sql, args, &[], sink)
    }

    /// [`Self::query`] with the types of columns SQLite declares none for given by `hints`.
    fn query_hinted(
        &mut self,
        sql: &str,
        args: &[Value],
        hints: &[ColumnHint],
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let args: Vec<_> = args.iter().map(types::to_arg).collect();
        self.run_query(sql, &args, hints, sink)
    }

    /// MySQL commits an open transaction before CREATE and DROP DATABASE; so does the node.
    fn commit_implicitly(&mut self) -> Result<(), SqlError> {
        if self.in_transaction() {
            self.exec("COMMIT")?;
        }
        Ok(())
    }

    /// Whether `name` (lower case) is a database this connection can use.
    fn database_exists(&self, name: &str) -> bool {
        name == "main"
            || name == INFORMATION_SCHEMA
            || self.attached.names.iter().any(|(n, _)| n == name)
    }

    /// The database a SHOW names, or the current one; 1049 when unknown.
    fn resolve_db(&self, db: Option<&str>) -> Result<String, SqlError> {
        let name = match db {
            Some(db) => db.to_ascii_lowercase(),
            None => self.schema.to_ascii_lowercase(),
        };
        if name == "temp" || self.database_exists(&name) {
            Ok(name)
        } else {
            Err(unknown_db(db.unwrap_or(&name)))
        }
    }

    /// The database a SHOW names (or the current one) and its table or view `table` (1146 if
    /// there is none).
    fn catalog_entry(
        &self,
        db: Option<&str>,
        table: &str,
    ) -> Result<(String, TableEntry), SqlError> {
        let db = self.resolve_db(db)?;
        let entry = self
            .read_catalog(Some((&db, table)))?
            .into_iter()
            .next()
            .ok_or_else(|| no_such_table(&db, table))?;
        Ok((db, entry))
    }

    /// The next id of table `table`'s AUTO_INCREMENT column (1 before any).
    fn next_auto_increment(&self, db: &str, table: &str) -> i64 {
        self.conn
            .query_row(
                &format!(
                    "SELECT seq + 1 FROM {}.sqlite_sequence WHERE name = ?1",
                    super::quote(db)
                ),
                [table],
                |row| row.get::<_, i64>(0),
            )
            .unwrap_or(1)
    }

    fn require_table(&self, db: &str, table: &str) -> Result<(), SqlError> {
        let exists: bool = self
            .conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?1 \
                 AND TABLE_NAME = ?2 COLLATE NOCASE)",
                [db, table],
                |row| row.get(0),
            )
            .map_err(|err| self.map(err))?;
        if exists {
            Ok(())
        } else {
            Err(no_such_table(db, table))
        }
    }

    /// Tables and views (of one, when `only` names it) of every attached database, with their
    /// columns and indexes: three queries per database, joining `sqlite_master` with the
    /// `pragma_…` table functions. The node's own statements: the authorizer does not apply.
    pub(super) fn read_catalog(
        &self,
        only: Option<(&str, &str)>,
    ) -> Result<Vec<TableEntry>, SqlError> {
        let map = |err| self.map(err);
        let mut dbs: Vec<String> = vec!["main".to_owned()];
        dbs.extend(self.attached.names.iter().map(|(n, _)| n.clone()));
        if let Some((db, _)) = only {
            dbs.retain(|d| d.eq_ignore_ascii_case(db));
            if db.eq_ignore_ascii_case("temp") {
                dbs.push("temp".to_owned());
            }
        }
        let table = only.map_or(String::new(), |(_, t)| t.to_owned());
        let mut out = Vec::new();
        for db in dbs {
            let master_from = format!("{}.sqlite_master m", super::quote(&db));
            let master_where = "WHERE m.type IN ('table', 'view') \
                 AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.name <> 'xrpc_catalog' \
                 AND (?1 = '' OR m.name = ?1 COLLATE NOCASE)";
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT m.type, m.name, coalesce(m.sql, '') FROM {master_from} {master_where} ORDER BY m.name"
                ))
                .map_err(map)?;
            let tables: Vec<(String, String, String)> = stmt
                .query_map([&table], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
                .and_then(|rows| rows.collect())
                .map_err(map)?;
            let mut entries: Vec<TableEntry> = tables
                .into_iter()
                .map(|(kind, name, sql)| TableEntry {
                    db: db.clone(),
                    name,
                    view: kind == "view",
                    sql,
                    columns: Vec::new(),
                    indexes: Vec::new(),
                    engine: None,
                    options: Vec::new(),
                    kept: false,
                    foreign_keys: Vec::new(),
                    has_checks: false,
                    check_names: Some(Vec::new()),
                    checks_shown: None,
                    created: None,
                })
                .collect();
            let find = |entries: &mut Vec<TableEntry>, name: &str| {
                entries.iter().position(|e| e.name == name)
            };
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT m.name, p.name, p.type, p.\"notnull\", p.dflt_value, p.pk \
                     FROM {master_from}, pragma_table_xinfo(m.name, ?2) p {master_where} \
                     AND p.hidden IN (0, 2, 3) ORDER BY m.name, p.cid",
                ))
                .map_err(map)?;
            let columns: Vec<(String, ColumnEntry)> = stmt
                .query_map([&table, &db], |row| {
                    Ok((
                        row.get(0)?,
                        ColumnEntry {
                            name: row.get(1)?,
                            decl: row.get(2)?,
                            not_null: row.get(3)?,
                            default: row.get(4)?,
                            pk: row.get(5)?,
                            auto_increment: false,
                            kept_type: None,
                            on_update_now: None,
                            comment: None,
                            collation: None,
                            collation_clause: None,
                            generated: None,
                        },
                    ))
                })
                .and_then(|rows| rows.collect())
                .map_err(map)?;
            for (table_name, column) in columns {
                if let Some(at) = find(&mut entries, &table_name) {
                    entries[at].columns.push(column);
                }
            }
            for entry in &mut entries {
                // The rowid alias generates ids (a kept definition says otherwise when it does).
                let mut keys = entry.columns.iter_mut().filter(|c| c.pk > 0);
                if let (Some(only), None) = (keys.next(), keys.next())
                    && only.decl.eq_ignore_ascii_case("INTEGER")
                {
                    only.auto_increment = true;
                }
                let mut pk: Vec<&ColumnEntry> = entry.columns.iter().filter(|c| c.pk > 0).collect();
                pk.sort_by_key(|c| c.pk);
                if !pk.is_empty() {
                    let columns = pk.iter().map(|c| c.name.clone()).collect();
                    entry.indexes.push(IndexEntry {
                        name: "PRIMARY".to_owned(),
                        unique: true,
                        columns,
                        prefixes: Vec::new(),
                    });
                }
            }
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT m.name, l.name, l.\"unique\", l.origin, coalesce(i.name, '') \
                     FROM {master_from}, pragma_index_list(m.name, ?2) l, pragma_index_info(l.name, ?2) i \
                     {master_where} AND m.type = 'table' AND l.origin <> 'pk' \
                     ORDER BY m.name, l.seq DESC, i.seqno",
                ))
                .map_err(map)?;
            let index_columns: Vec<(String, String, bool, String, String)> = stmt
                .query_map([&table, &db], |row| {
                    Ok((
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                    ))
                })
                .and_then(|rows| rows.collect())
                .map_err(map)?;
            // (table, SQLite's index name) of the index being collected.
            let mut current: Option<(String, String)> = None;
            for (table_name, index, unique, origin, column) in index_columns {
                let Some(at) = find(&mut entries, &table_name) else {
                    continue;
                };
                let key = (table_name, index.clone());
                if current.as_ref() != Some(&key) {
                    // A UNIQUE constraint's index is SQLite's `sqlite_autoindex_t_N`; MySQL names
                    // it after its first column.
                    let name = if origin == "u" { column.clone() } else { index };
                    entries[at].indexes.push(IndexEntry {
                        name,
                        unique,
                        columns: Vec::new(),
                        prefixes: Vec::new(),
                    });
                    current = Some(key);
                }
                if let Some(last) = entries[at].indexes.last_mut() {
                    last.columns.push(column);
                }
            }
            let kept = super::translated::kept_definitions(&self.conn, &db).map_err(map)?;
            if !kept.is_empty() {
                for entry in &mut entries {
                    if let Some(definition) = kept.get(&entry.name.to_ascii_lowercase()) {
                        apply_kept(entry, definition);
                        entry.sort_keys();
                    }
                }
            }
            out.extend(entries);
        }
        Ok(out)
    }

    /// Rebuilds the rows of `information_schema` from every attached database.
    /// Skipped when nothing changed since the last rebuild on this connection: the same
    /// databases, each at the same `schema_version` (SQLite bumps it with every CREATE, DROP and
    /// ALTER). A rebuild inside a transaction is never reused, since a ROLLBACK takes it back.
    pub(super) fn refresh_catalog(&mut self) -> Result<(), SqlError> {
        let version = self.catalog_version()?;
        if self.catalog_built.as_ref() == Some(&version) {
            return Ok(());
        }
        self.catalog_built = None;
        let tables = self.read_catalog(None)?;
        // One transaction for every row, instead of one per INSERT.
        self.exec("SAVEPOINT xrpc_catalog")?;
        let mut result = self.write_catalog(&tables);
        // A temporary table SHOW COLUMNS or SHOW CREATE TABLE describes: its rows are there
        // for that statement only (the next read builds the catalog again without them), under
        // the database it was created in, as information_schema never lists it.
        let describing = self.describing_temporary.clone();
        if let (Ok(()), Some((db, table))) = (&result, &describing) {
            result = self
                .read_catalog(Some(("temp", table)))
                .and_then(|mut entries| {
                    for entry in &mut entries {
                        entry.db.clone_from(db);
                    }
                    // It hides a base table of its name.
                    for from in ["xrpc_tables", "COLUMNS", "xrpc_statistics"] {
                        self.conn
                            .execute(
                                &format!(
                                    "DELETE FROM information_schema.{from} WHERE TABLE_SCHEMA = ?1 \
                                 AND TABLE_NAME = ?2 COLLATE NOCASE"
                                ),
                                [db, table],
                            )
                            .map_err(|err| self.map(err))?;
                    }
                    self.write_table_rows(&entries)
                });
        }
        if result.is_err() {
            let _ = self.exec("ROLLBACK TO xrpc_catalog");
        }
        self.exec("RELEASE xrpc_catalog")?;
        if result.is_ok() && !self.in_transaction() && describing.is_none() {
            self.catalog_built = Some(version);
        }
        result
    }

    /// The databases' generation and every attached database's `schema_version`.
    fn catalog_version(&self) -> Result<Vec<i64>, SqlError> {
        let mut version = vec![i64::try_from(self.attached.generation).unwrap_or(i64::MAX)];
        for db in std::iter::once("main").chain(self.attached.names.iter().map(|(n, _)| n.as_str()))
        {
            let v: i64 = self
                .conn
                .query_row(
                    &format!("PRAGMA {}.schema_version", super::quote(db)),
                    [],
                    |row| row.get(0),
                )
                .map_err(|err| self.map(err))?;
            version.push(v);
        }
        Ok(version)
    }

    /// Refuses a statement that reads `information_schema.COLUMNS` while a translated view has
    /// a column without a declared type (its type there would not be MySQL's), or
    /// `TABLE_CONSTRAINTS` while a table has CHECK constraints named as MySQL 8 names them
    /// (which it does not list: MariaDB's names differ).
    pub(super) fn refuse_undescribed_views(&self, reads: CatalogTables) -> Result<(), SqlError> {
        if self.unlisted_checks && reads.table_constraints {
            return Err(SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                "This version of MySQL doesn't yet support 'information_schema.TABLE_CONSTRAINTS \
                 while a table has CHECK constraints'",
            ));
        }
        if self.unshown_checks && reads.check_constraints {
            return Err(SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                "This version of MySQL doesn't yet support 'information_schema.CHECK_CONSTRAINTS \
                 while a table has a CHECK constraint whose form MariaDB prints is not known'",
            ));
        }
        match self.undescribed_views.first() {
            Some((_, view)) if reads.columns => Err(undescribed(view)),
            _ => Ok(()),
        }
    }

    fn write_catalog(&mut self, tables: &[TableEntry]) -> Result<(), SqlError> {
        self.unlisted_checks = tables.iter().any(|t| t.check_names.is_none());
        self.unshown_checks = tables
            .iter()
            .any(|t| t.has_checks && t.checks_shown.is_none());
        self.undescribed_views = tables
            .iter()
            .filter(|t| t.view && t.kept && t.columns.iter().any(|c| c.kept_type.is_none()))
            .map(|t| (t.db.clone(), t.name.clone()))
            .collect();
        let map = |err| self.map(err);
        self.exec(
            "DELETE FROM information_schema.SCHEMATA; DELETE FROM information_schema.xrpc_tables; \
             DELETE FROM information_schema.COLUMNS; DELETE FROM information_schema.xrpc_statistics; \
             DELETE FROM information_schema.TABLE_CONSTRAINTS; \
             DELETE FROM information_schema.CHECK_CONSTRAINTS; \
             DELETE FROM information_schema.KEY_COLUMN_USAGE; \
             DELETE FROM information_schema.REFERENTIAL_CONSTRAINTS;",
        )?;
        let mut schemata = self
            .conn
            .prepare(
                "INSERT INTO information_schema.SCHEMATA VALUES ('def', ?1, 'utf8mb4', 'utf8mb4_general_ci', NULL)",
            )
            .map_err(map)?;
        schemata.execute([INFORMATION_SCHEMA]).map_err(map)?;
        schemata.execute(["main"]).map_err(map)?;
        for (name, _) in &self.attached.names {
            schemata.execute([name]).map_err(map)?;
        }
        drop(schemata);
        self.write_table_rows(tables)
    }

    /// The rows of `tables` in information_schema's TABLES, COLUMNS and STATISTICS.
    fn write_table_rows(&self, tables: &[TableEntry]) -> Result<(), SqlError> {
        let map = |err| self.map(err);
        let mut insert_table = self
            .conn
            .prepare(
                "INSERT INTO information_schema.xrpc_tables VALUES ('def', ?1, ?2, ?3, ?4, ?5, ?6, NULL, ?10, \
                 ?7, ?8, ?9, ?11)",
            )
            .map_err(map)?;
        let mut insert_column = self
            .conn
            .prepare(
                "INSERT INTO information_schema.COLUMNS VALUES ('def', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, \
                 ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, 'select,insert,update,references', ?18, \
                 CASE WHEN ?19 IS NULL THEN 'NEVER' ELSE 'ALWAYS' END, ?19)",
            )
            .map_err(map)?;
        let mut insert_index = self
            .conn
            .prepare(
                "INSERT INTO information_schema.xrpc_statistics VALUES ('def', ?1, ?2, ?3, ?1, ?4, ?5, ?6, 'A', \
                 NULL, ?8, NULL, ?7, 'BTREE', '', '', 'NO')",
            )
            .map_err(map)?;
        for t in tables {
            // A view's row is MySQL's: no engine, version, format, collation, options or
            // creation time, and the comment `VIEW`; a table's comment is its COMMENT option.
            let table_comment = t
                .options
                .iter()
                .find(|(k, _)| k == "COMMENT")
                .map_or("", |(_, v)| v.as_str());
            let (kind, engine, version, format, collation, options, comment) = if t.view {
                ("VIEW", None, None, None, None, None, "VIEW")
            } else {
                (
                    "BASE TABLE",
                    Some(t.engine.as_deref().unwrap_or("SQLite")),
                    Some(10),
                    Some("Dynamic"),
                    Some(if t.kept {
                        t.charset_and_collation().1
                    } else {
                        "utf8mb4_general_ci".to_owned()
                    }),
                    Some(""),
                    table_comment,
                )
            };
            // The next id of a translated table's AUTO_INCREMENT column, as SHOW CREATE TABLE
            // gives it.
            let next_id = if t.kept && !t.view && t.auto_increment_column().is_some() {
                Some(self.next_auto_increment(&t.db, &t.name))
            } else {
                None
            };
            insert_table
                .execute(rusqlite::params![
                    t.db,
                    t.name,
                    kind,
                    engine,
                    version,
                    format,
                    collation,
                    options,
                    comment,
                    next_id,
                    t.created.as_ref().filter(|_| !t.view)
                ])
                .map_err(map)?;
            let auto = t.auto_increment_column();
            for (position, c) in t.columns.iter().enumerate() {
                let ty = c.mysql_type();
                let nullable = if c.not_null || c.pk > 0 { "NO" } else { "YES" };
                let extra = if auto == Some(c.name.as_str()) {
                    "auto_increment".to_owned()
                } else if let Some((_, stored)) = &c.generated {
                    if *stored {
                        "STORED GENERATED"
                    } else {
                        "VIRTUAL GENERATED"
                    }
                    .to_owned()
                } else if let Some(now) = &c.on_update_now {
                    format!("on update {now}")
                } else {
                    String::new()
                };
                let (charset, collation) = if ty.text {
                    (
                        Some("utf8mb4"),
                        Some(c.collation.as_deref().unwrap_or("utf8mb4_general_ci")),
                    )
                } else {
                    (None, None)
                };
                insert_column
                    .execute(rusqlite::params![
                        t.db,
                        t.name,
                        c.name,
                        position as i64 + 1,
                        schema_default(c.default.as_deref(), nullable == "YES", &ty.data_type),
                        nullable,
                        ty.data_type,
                        ty.char_len,
                        ty.octet_len,
                        ty.precision,
                        ty.scale,
                        ty.fsp,
                        charset,
                        collation,
                        ty.column_type,
                        t.column_key(c),
                        extra,
                        c.comment.as_deref().unwrap_or(""),
                        c.generated.as_ref().map(|(expression, _)| expression),
                    ])
                    .map_err(map)?;
            }
            for index in &t.indexes {
                for (seq, column) in index.columns.iter().enumerate() {
                    let nullable = t
                        .columns
                        .iter()
                        .find(|c| c.name.eq_ignore_ascii_case(column))
                        .map_or("", |c| if c.not_null || c.pk > 0 { "" } else { "YES" });
                    insert_index
                        .execute(rusqlite::params![
                            t.db,
                            t.name,
                            i64::from(!index.unique),
                            index.name,
                            seq as i64 + 1,
                            column,
                            nullable,
                            index.prefix(seq),
                        ])
                        .map_err(map)?;
                }
            }
        }
        self.write_constraint_rows(tables)
    }

    /// The rows of `tables`' keys and foreign keys in TABLE_CONSTRAINTS, KEY_COLUMN_USAGE and
    /// REFERENTIAL_CONSTRAINTS, and of their CHECK constraints in TABLE_CONSTRAINTS and (with
    /// the conditions as MariaDB prints them) CHECK_CONSTRAINTS, as MariaDB lists them (checks
    /// with MySQL 8's names or without a known printed form are not listed: see
    /// `refuse_undescribed_views`).
    fn write_constraint_rows(&self, tables: &[TableEntry]) -> Result<(), SqlError> {
        let map = |err| self.map(err);
        let mut constraint = self
            .conn
            .prepare(
                "INSERT INTO information_schema.TABLE_CONSTRAINTS VALUES ('def', ?1, ?2, ?1, ?3, ?4)",
            )
            .map_err(map)?;
        let mut check_constraint = self
            .conn
            .prepare("INSERT INTO information_schema.CHECK_CONSTRAINTS VALUES ('def', ?1, ?2, ?3, ?4, ?5)")
            .map_err(map)?;
        let mut usage = self
            .conn
            .prepare(
                "INSERT INTO information_schema.KEY_COLUMN_USAGE VALUES ('def', ?1, ?2, 'def', ?1, ?3, \
                 ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .map_err(map)?;
        let mut referential = self
            .conn
            .prepare(
                "INSERT INTO information_schema.REFERENTIAL_CONSTRAINTS VALUES ('def', ?1, ?2, 'def', \
                 ?1, ?3, 'NONE', ?4, ?5, ?6, ?7)",
            )
            .map_err(map)?;
        for t in tables.iter().filter(|t| !t.view) {
            for index in t.indexes.iter().filter(|i| i.unique) {
                let kind = if index.name == "PRIMARY" {
                    "PRIMARY KEY"
                } else {
                    "UNIQUE"
                };
                constraint
                    .execute(rusqlite::params![t.db, index.name, t.name, kind])
                    .map_err(map)?;
                for (seq, column) in index.columns.iter().enumerate() {
                    usage
                        .execute(rusqlite::params![
                            t.db,
                            index.name,
                            t.name,
                            column,
                            seq as i64 + 1,
                            None::<i64>,
                            None::<String>,
                            None::<String>,
                            None::<String>
                        ])
                        .map_err(map)?;
                }
            }
            for fk in t
                .foreign_keys
                .iter()
                .filter_map(|f| ShownForeignKey::parse(f))
            {
                constraint
                    .execute(rusqlite::params![t.db, fk.name, t.name, "FOREIGN KEY"])
                    .map_err(map)?;
                for (seq, (column, referenced)) in fk.columns.iter().zip(&fk.referenced).enumerate()
                {
                    usage
                        .execute(rusqlite::params![
                            t.db,
                            fk.name,
                            t.name,
                            column,
                            seq as i64 + 1,
                            seq as i64 + 1,
                            t.db,
                            fk.table,
                            referenced
                        ])
                        .map_err(map)?;
                }
                // The parent's key the foreign key references: its primary key, else a unique
                // key of those columns.
                let unique = tables
                    .iter()
                    .find(|p| p.db == t.db && p.name.eq_ignore_ascii_case(&fk.table))
                    .and_then(|p| {
                        p.indexes.iter().filter(|i| i.unique).find(|i| {
                            i.columns.len() == fk.referenced.len()
                                && i.columns
                                    .iter()
                                    .zip(&fk.referenced)
                                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
                        })
                    })
                    .map(|i| i.name.clone());
                referential
                    .execute(rusqlite::params![
                        t.db,
                        fk.name,
                        unique,
                        fk.on_update,
                        fk.on_delete,
                        t.name,
                        fk.table
                    ])
                    .map_err(map)?;
            }
            for check in t.check_names.iter().flatten() {
                constraint
                    .execute(rusqlite::params![t.db, check, t.name, "CHECK"])
                    .map_err(map)?;
            }
            for check in t.checks_shown.iter().flatten() {
                let level = if check.column.is_some() {
                    "Column"
                } else {
                    "Table"
                };
                check_constraint
                    .execute(rusqlite::params![
                        t.db,
                        t.name,
                        check.name,
                        level,
                        check.clause
                    ])
                    .map_err(map)?;
            }
        }
        Ok(())
    }
}

/// The refusal to describe a translated view's columns that are not table columns as declared
/// (computed, of a union, of the outer side of a join).
fn undescribed(view: &str) -> SqlError {
    SqlError::new(
        &codes::NOT_SUPPORTED_YET,
        format!(
            "This version of MySQL doesn't yet support 'the column types of the view {view}, \
             which MySQL derives from its SELECT'"
        ),
    )
}

fn unknown_db(name: &str) -> SqlError {
    SqlError::new(&codes::BAD_DB, format!("Unknown database '{name}'"))
}

fn no_such_table(db: &str, table: &str) -> SqlError {
    SqlError::new(
        &codes::NO_SUCH_TABLE,
        format!("Table '{db}.{table}' doesn't exist"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(sql: &str) -> Option<Result<Stmt, SqlError>> {
        match xrpc_sql::parse(sql, &front::OPTIONS).remove(0) {
            Ok(parsed) => of(&parsed),
            Err(err) => Some(Err(front::parse_error(&err))),
        }
    }

    #[test]
    fn recognises_mysql_statements() {
        assert_eq!(
            p("create database if not exists `App` character set utf8mb4")
                .unwrap()
                .unwrap(),
            Stmt::CreateDatabase {
                name: "App".into(),
                if_not_exists: true
            }
        );
        assert_eq!(
            p("DROP SCHEMA IF EXISTS x;").unwrap().unwrap(),
            Stmt::DropDatabase {
                name: "x".into(),
                if_exists: true
            }
        );
        assert!(
            p("use app").is_none(),
            "USE is the front end's session statement"
        );
        assert_eq!(
            p("show full tables from app like 't%'").unwrap().unwrap(),
            Stmt::ShowTables {
                full: true,
                db: Some("app".into()),
                like: Some("t%".into())
            }
        );
        assert_eq!(
            p("describe app.t").unwrap().unwrap(),
            Stmt::ShowColumns {
                table: "t".into(),
                db: Some("app".into()),
                like: None,
                full: false,
            }
        );
        assert_eq!(
            p("SHOW COLUMNS FROM t FROM app").unwrap().unwrap(),
            Stmt::ShowColumns {
                table: "t".into(),
                db: Some("app".into()),
                like: None,
                full: false,
            }
        );
        assert!(matches!(p("xa start 'x'"), Some(Ok(Stmt::NotSupported(_)))));
        assert_eq!(
            p("call mydb.proc(1, 'a')").unwrap().unwrap(),
            Stmt::UnknownProcedure("mydb.proc".into())
        );
        assert!(matches!(p("flush tables"), Some(Ok(Stmt::NotSupported(_)))));
        assert!(matches!(
            p("show processlist"),
            Some(Ok(Stmt::NotSupported(_)))
        ));
        assert!(matches!(
            p("show create trigger g"),
            Some(Ok(Stmt::NotSupported(_)))
        ));
        assert_eq!(
            p("show create view d.v").unwrap().unwrap(),
            Stmt::ShowCreateView {
                table: "v".into(),
                db: Some("d".into())
            }
        );
        assert_eq!(p("show nonsense").unwrap().unwrap_err().code, 1064);
        assert_eq!(p("show tables from").unwrap().unwrap_err().code, 1064);
        assert_eq!(p("show index from d t").unwrap().unwrap_err().code, 1064);
        assert_eq!(p("show count(x) warnings").unwrap().unwrap_err().code, 1064);
        assert_eq!(
            p("show index in t from app").unwrap().unwrap(),
            Stmt::ShowIndex {
                table: "t".into(),
                db: Some("app".into())
            }
        );
        assert_eq!(
            p("SHOW WARNINGS LIMIT 1, 2").unwrap().unwrap(),
            Stmt::ShowDiagnostics {
                errors: false,
                limit: Some((1, 2))
            }
        );
        assert_eq!(
            p("describe app.t 'a%'").unwrap().unwrap(),
            Stmt::ShowColumns {
                table: "t".into(),
                db: Some("app".into()),
                like: Some("a%".into()),
                full: false,
            }
        );
        assert_eq!(
            p("select @@warning_count, @@session.error_count as e")
                .unwrap()
                .unwrap(),
            Stmt::DiagnosticCounts(vec![
                DiagnosticCount {
                    label: "@@warning_count".into(),
                    errors: false
                },
                DiagnosticCount {
                    label: "e".into(),
                    errors: true
                },
            ])
        );
        assert_eq!(
            p("select @@warning_count, 1").unwrap().unwrap_err().code,
            1235
        );
        assert_eq!(
            p("show tables where Tables_in_app = 't'")
                .unwrap()
                .unwrap_err()
                .code,
            1235
        );
        assert_eq!(
            p("show table status like 't%'").unwrap().unwrap(),
            Stmt::ShowTableStatus {
                db: None,
                like: Some("t%".into())
            }
        );
        assert_eq!(
            p("install plugin p soname 'x'").unwrap().unwrap_err().code,
            1235
        );
        for other in [
            "select 1",
            "explain select 1",
            "create table t (a int)",
            "drop table t",
            "insert into t values (1)",
        ] {
            assert!(p(other).is_none(), "{other}");
        }
    }

    #[test]
    fn mysql_type_names() {
        let cases = [
            ("INT", "int", "int"),
            ("int unsigned", "int", "int unsigned"),
            ("INTEGER", "bigint", "bigint"),
            (
                "BIG UNSIGNED TEXT COLLATE xrpc_decimal_0",
                "bigint",
                "bigint unsigned",
            ),
            ("VARCHAR(64)", "varchar", "varchar(64)"),
            ("CHAR(3)", "char", "char(3)"),
            ("TEXT", "text", "text"),
            ("DOUBLE", "double", "double"),
            ("DECIMAL TEXT(10,2)", "decimal", "decimal(10,2)"),
            ("DATETIME(3)", "datetime", "datetime(3)"),
            ("BLOB", "blob", "blob"),
            ("VARBINARY(16)", "varbinary", "varbinary(16)"),
            ("BOOLEAN", "tinyint", "tinyint(1)"),
            ("JSON", "json", "json"),
            ("", "blob", "blob"),
        ];
        for (decl, data, column) in cases {
            let t = mysql_type(decl);
            assert_eq!(
                (t.data_type.as_str(), t.column_type.as_str()),
                (data, column),
                "{decl}"
            );
        }
    }
}
