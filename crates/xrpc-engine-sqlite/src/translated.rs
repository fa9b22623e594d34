//! MySQL statements translated from the parse tree (`xrpc_sql_sqlite::translate`) and run as
//! the translation says: every statement the engine does not answer itself.
//!
//! # The kept catalog
//!
//! The translation resolves every name against a catalog of MySQL table definitions
//! ([`xrpc_sql_sqlite::Table`]: MySQL types, defaults, AUTO_INCREMENT, indexes, options). The
//! engine keeps them in a node-owned table of each database file, [`CATALOG_TABLE`]
//! (`name TEXT PRIMARY KEY` — the table's name in lower case — and `definition TEXT`, the
//! definition as JSON), written in the same SQLite transaction as the DDL that changes it (a
//! savepoint around both), so every connection and a restarted node see the definitions of the
//! tables that exist. Each connection caches a database's definitions with the database's
//! `PRAGMA schema_version` they were read at and reads them again when it changed: the version
//! is read before the definitions, so a cache is never newer than its version says. A ROLLBACK
//! (or ROLLBACK TO a savepoint) forgets the cache, since SQLite's schema version goes back with
//! it and may meet another connection's later change.
//!
//! A temporary table (`CREATE TEMPORARY TABLE`, plain, LIKE or AS SELECT) is SQLite's table of
//! its name in the connection's `temp` schema, its definition kept in `temp`'s own
//! [`CATALOG_TABLE`] (marked temporary, with its MySQL database), so SQLite's transactions
//! treat both alike. While the connection has temp objects, a name is looked up there first
//! and a temporary table of the statement's database hides the database's table of its name
//! (its DDL, like any, forgets the connection's kept translations, which did not look there). `temp` holds one table
//! of a name, so a second temporary table of that name in another database is 1235, as are
//! ALTER and RENAME of a temporary table, its foreign keys, and SHOW COLUMNS, DESCRIBE, SHOW
//! INDEX and SHOW CREATE TABLE of it (they describe the database's tables). A temporary table is
//! session state: the connection stays with its session, and a reset drops it. MySQL's CREATE
//! and DROP TEMPORARY TABLE commit nothing and are not undone by the transaction around them
//! (its rows are), so a ROLLBACK (or ROLLBACK TO) after one puts the temporary tables back as
//! they were before it, empty where they were made in the rolled-back part
//! (`keep_temporary_tables`).
//!
//! A view (`CREATE VIEW`) is kept there too, as its SELECT's text with the column types it gave
//! (`Table::view`); SQLite's own object of its name is the translation's stand-in view, which
//! only holds the name (see `xrpc_sql_sqlite`'s module docs), so a database's kept definitions
//! hold its tables and its views and SQLite's tables are its tables only.
//!
//! Clients neither read nor write [`CATALOG_TABLE`] (the `authorizer` refuses it as a table that
//! does not exist) and SHOW TABLES and `information_schema` do not list it.
//!
//! A table that exists in a database file without a definition (created by a node that ran
//! statements as their text, or by another tool) is not adopted: a translated statement naming
//! it is refused with 1235, naming the table. Its declared types are SQLite's reading of MySQL
//! DDL, without the defaults, the AUTO_INCREMENT counter and the storage forms the translation
//! relies on (DECIMAL as exact text under its collation, text under MySQL's collations), so
//! answers from it could differ without an error. SHOW COLUMNS, SHOW CREATE TABLE and
//! `information_schema` describe it from those declared types (`types::classify_decl`). SQL
//! such a node stored (its views, triggers, and indexes under its collations) may name functions
//! and collations of its own (`xrpc_…`), which this engine does not have: a statement that
//! needs one, the catalog's reading of such a view's columns among them, is refused with 1235
//! naming it.
//!
//! # Translations
//!
//! A translation depends on the statement's text, the current database and the definitions it
//! read: it is kept per connection by text and current database, and used again while the
//! definitions it read are unchanged, so a repeated statement costs no translation. Outside a
//! transaction that is one atomic load: the engine-wide generation of definitions
//! ([`Databases`](super::databases::Databases)), read before the definitions are, is bumped by
//! a connection whose translated DDL changed definitions before every session statement it runs
//! (its COMMIT, or the RELEASE that commits an autocommit DDL) and after every statement, until
//! its transaction is over; so a translation whose generation is still current was made after
//! the last commit of a change began, from definitions at least as new. The connection that
//! runs DDL forgets its own translations at once (its transaction sees its change before it
//! commits). Inside a transaction, whose snapshot may be older than the generation says, and
//! for translations made inside one, the check is the `schema_version` of every database the
//! translation consulted, as of the snapshot. A comparison with a `?`
//! argument is translated for the class of the argument's value (NULL, integer, double,
//! text, bytes; `ArgClass`) as with the literal it stands for, which lets SQLite search an
//! index; such a translation is kept for those classes too, a few per text.
//!
//! MySQL databases are the engine's attached SQLite databases, under their lower-case names
//! (the default database is `main`): the catalog view says so (`Catalog::sqlite_schema`), the
//! translation names every table with it, and each database file keeps the definitions of its
//! own tables. A table of a database that does not exist is MySQL's 1146.
//!
//! # Running one
//!
//! The statements of [`Translation::sql`] run in order; the last one's rows (a query) or its
//! count ([`Affected`]) is the answer. `?` arguments bind to every statement that has
//! placeholders. A DDL statement runs inside a savepoint together with the write of the
//! definitions it changed. An INSERT that reserves auto-increment values (`Reservation`)
//! reads the table's sequence first and leaves it past the reserved values whether it succeeds
//! or fails on a duplicate key, as InnoDB does. `SELECT … INTO @a` sets the variables from the
//! query's one row (more than one is 1172); `SQL_CALC_FOUND_ROWS` runs the translation's count.
//!
//! A result column that is a table column (the translation's `Origin`) carries its database,
//! table alias and name, column name and MySQL's flags (NOT NULL, PRIMARY KEY, UNIQUE KEY,
//! MULTIPLE KEY, AUTO_INCREMENT), and takes its X type, MySQL type, length and fractional
//! digits from the column's kept declaration, as the engine's table for declared types says
//! (TINYINT is TINY, an UNSIGNED integer is UINT, DATETIME(3) has 3 digits, …). Any other
//! result column takes them from the translation's [`Ty`]:
//!
//! | `Ty` | X type | MySQL type | fractional digits |
//! | --- | --- | --- | --- |
//! | Int | SINT | LONGLONG | 0 |
//! | Decimal(s) | DECIMAL | NEWDECIMAL | s |
//! | Double, Float | DOUBLE, FLOAT | DOUBLE, FLOAT | 31 |
//! | Str | BYTES, collation 45 | VAR_STRING | 0 |
//! | Bytes | BYTES, collation 63 | VAR_STRING | 0 |
//! | Date | DATETIME | DATE | 0 |
//! | DateTime, Time | DATETIME, TIME | DATETIME, TIME | the longest fraction in the rows read ahead |
//! | Null | BYTES, collation 63 | NULL | 0 |
//! | Dyn (an argument or user variable) | BYTES, collation 45 | VAR_STRING | 0 |
//!
//! A value is MySQL's text of it ([`text_of`]) converted to the column's X type exactly; a
//! DATETIME or TIME value with more fraction digits than the rows read ahead had ends the result
//! with 1366 rather than being sent cut.
//!
//! # Session state
//!
//! The user variables and the previous statement's counts (ROW_COUNT(), FOUND_ROWS(),
//! LAST_INSERT_ID()) live in the connection's [`xrpc_sql_sqlite::SessionState`], which the function library
//! reads. A connection holding user variables holds session state (it stays with its session).
//! The counts are reported after every statement; a connection that changes session forgets
//! them and the variables, so a count asked for on another connection than the statement that
//! made it is refused (1235) rather than answered with another session's.
//!
//! # Errors
//!
//! A function library error keeps its MySQL code and message ([`error_of`]); SQLite's errors map
//! as the crate's docs list them (1062, 1048, 1452, and 1451 for a DELETE of a parent row).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OptionalExtension};
use xrpc_engine::result::{
    COLLATION_BINARY, ColumnInfo, ExecSummary, KeptMetadata, ResultSink, SqlError, SqlWarning,
    WarningLevel, column_flags, mysql_type,
};
use xrpc_proto::codes;
use xrpc_proto::value::{ColumnType as XType, Value};
use xrpc_sql::ast::Statement as Tree;
use xrpc_sql_sqlite::{
    Affected, ArgClass, Catalog, CatalogChange, ColumnType, OutColumn, SystemValue, TEMP_SCHEMA,
    Table, Translation, Ty, error_of, text_of, translate_parsed, variable_value,
};

use super::authorizer::{CATALOG_TABLE, ClientSql};
use super::databases::INFORMATION_SCHEMA;
use super::front::SqlInfo;
use super::types::{self, Arg, Conv, DeclKind, LOOKAHEAD_ROWS};
use super::{SqliteConn, map_error, parent_row_error, quote};

/// Whether the translation runs `statement` although the `catalog` module has an answer
/// for its text (a refusal of a statement SQLite has no counterpart for).
pub(crate) fn runs_itself(statement: &Tree) -> bool {
    matches!(
        statement,
        Tree::RenameTable(_) | Tree::LockTables { .. } | Tree::UnlockTables
    )
}

/// Translations kept per connection before the cache starts over.
const MAX_TRANSLATIONS: usize = 512;

/// One database's definitions, as read at a `schema_version`.
#[derive(Debug)]
struct KeptDatabase {
    version: i64,
    tables: HashMap<String, Table>,
}

/// A translation with what its answers reuse.
#[derive(Debug)]
pub(crate) struct Translated {
    translation: Translation,
    /// The result's columns as sent, made by the first answer, when they do not depend on the
    /// rows (no DATETIME or TIME column, whose fraction digits the rows read ahead settle).
    shape: OnceLock<ResultShape>,
}

impl std::ops::Deref for Translated {
    type Target = Translation;

    fn deref(&self) -> &Translation {
        &self.translation
    }
}

/// A result's columns as sent: each one's metadata and how its values are sent, and the
/// metadata as the encoder keeps it for the next answer.
#[derive(Debug)]
struct ResultShape {
    plans: Vec<(ColumnInfo, Sending)>,
    infos: Vec<ColumnInfo>,
    encoded: KeptMetadata,
}

/// Translations of one text kept for different argument classes, at most.
const MAX_VARIANTS: usize = 4;

/// A translation kept for its text.
#[derive(Debug)]
struct KeptTranslation {
    schema: Arc<str>,
    /// The classes of the arguments it was translated for, where it depends on them.
    args: Option<Box<[ArgClass]>>,
    /// The databases whose definitions it read, at their versions.
    versions: Vec<(String, i64)>,
    /// The engine's generations of definitions and databases before it was made, when it was
    /// made outside a transaction (see "Translations").
    generation: Option<(u64, u64)>,
    translation: Arc<Translated>,
}

/// A connection's cache of the kept catalog and of its translations.
#[derive(Debug, Default)]
pub(crate) struct KeptCatalog {
    databases: HashMap<String, KeptDatabase>,
    translations: HashMap<String, Vec<KeptTranslation>>,
}

impl KeptTranslation {
    /// Whether it serves its text in database `schema` with arguments `args`.
    fn serves(&self, schema: &str, args: &[Value]) -> bool {
        *self.schema == *schema
            && self.args.as_deref().is_none_or(|classes| {
                classes.len() == args.len()
                    && classes.iter().zip(args).all(|(c, a)| *c == arg_class(a))
            })
    }
}

/// The class of an argument's value, as the translation reads the `?` it binds to (an
/// argument binds as `types::to_arg` says).
fn arg_class(value: &Value) -> ArgClass {
    match value {
        Value::Null => ArgClass::Null,
        Value::Sint(_) => ArgClass::Int,
        Value::Uint(u) | Value::Bit(u) if i64::try_from(*u).is_ok() => ArgClass::Int,
        Value::Double(_) | Value::Float(_) => ArgClass::Real,
        Value::Bytes(b) | Value::Enum(b) => match std::str::from_utf8(b) {
            Ok(_) => ArgClass::Text,
            Err(_) => ArgClass::Bytes,
        },
        Value::Uint(_)
        | Value::Bit(_)
        | Value::Set(_)
        | Value::Decimal(_)
        | Value::DateTime(_)
        | Value::Time(_) => ArgClass::Unknown,
    }
}

fn schema_version(conn: &Connection, db: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached(&format!("PRAGMA {}.schema_version", quote(db)))?
        .query_row([], |row| row.get(0))
}

impl KeptCatalog {
    /// Forgets everything (after a rollback, or a reset).
    pub(crate) fn forget(&mut self) {
        self.databases.clear();
        self.translations.clear();
    }

    /// The definitions of database `db`, read again if its schema changed.
    fn database(&mut self, conn: &Connection, db: &str) -> rusqlite::Result<&KeptDatabase> {
        let version = schema_version(conn, db)?;
        let fresh = self.databases.get(db).is_some_and(|d| d.version == version);
        if !fresh {
            let tables = kept_definitions(conn, db)?;
            self.databases
                .insert(db.to_owned(), KeptDatabase { version, tables });
        }
        Ok(&self.databases[db])
    }
}

/// The kept definitions of database `db`'s tables, by lower-case name (none when the database
/// has no [`CATALOG_TABLE`]).
pub(crate) fn kept_definitions(
    conn: &Connection,
    db: &str,
) -> rusqlite::Result<HashMap<String, Table>> {
    let mut tables = HashMap::new();
    let kept: bool = conn.query_row(
        &format!(
            "SELECT EXISTS (SELECT 1 FROM {}.sqlite_master WHERE type = 'table' AND name = '{CATALOG_TABLE}')",
            quote(db)
        ),
        [],
        |row| row.get(0),
    )?;
    if kept {
        let mut stmt = conn.prepare(&format!(
            "SELECT name, definition FROM {}.{CATALOG_TABLE}",
            quote(db)
        ))?;
        let rows = stmt.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?;
        for row in rows {
            let (name, definition) = row?;
            let table: Table = serde_json::from_str(&definition).map_err(|err| {
                rusqlite::Error::UserFunctionError(
                    format!("the node's definition of table {name} does not read: {err}").into(),
                )
            })?;
            tables.insert(name, table);
        }
    }
    Ok(tables)
}

/// The kept catalog as the translation reads it, for one statement.
struct CatalogView<'a> {
    conn: &'a Connection,
    kept: RefCell<&'a mut KeptCatalog>,
    current: &'a str,
    /// Whether the connection has temp objects: only then can a name be a temporary table's.
    has_temp: bool,
    /// `@@foreign_key_checks`.
    foreign_key_checks: bool,
    /// `@@sql_mode`.
    sql_mode: &'a str,
    /// `@@time_zone`.
    time_zone: &'a str,
    /// `@@tx_isolation`.
    isolation: &'a str,
    /// `@@tx_read_only`.
    read_only: bool,
    /// `@@sql_select_limit` when a SET gave one.
    select_limit: Option<u64>,
    /// `@@max_join_size` when a SET gave one.
    max_join_size: Option<u64>,
    /// `@@sql_safe_updates`.
    safe_updates: bool,
    /// `@@unique_checks`.
    unique_checks: bool,
    /// The databases read, at their versions.
    consulted: RefCell<Vec<(String, i64)>>,
    /// Why the statement cannot be translated, found while resolving a name.
    problem: RefCell<Option<SqlError>>,
}

impl CatalogView<'_> {
    fn refuse(&self, err: SqlError) {
        self.problem.borrow_mut().get_or_insert(err);
    }

    /// The definitions of database `db` (SQLite's schema name), noted as consulted.
    fn consult<T>(&self, db: &str, read: impl FnOnce(&KeptDatabase) -> T) -> Option<T> {
        let mut kept = self.kept.borrow_mut();
        let database = match kept.database(self.conn, db) {
            Ok(d) => d,
            // A database that does not exist has no tables (MySQL's 1146 for `db.t`).
            Err(err) if err.to_string().contains("unknown database") => return None,
            Err(err) => {
                self.refuse(map_error(err, false));
                return None;
            }
        };
        let mut consulted = self.consulted.borrow_mut();
        if !consulted.iter().any(|(d, _)| d == db) {
            consulted.push((db.to_owned(), database.version));
        }
        Some(read(database))
    }
}

fn unsupported(what: impl std::fmt::Display) -> SqlError {
    SqlError::new(
        &codes::NOT_SUPPORTED_YET,
        format!("This version of MySQL doesn't yet support '{what}'"),
    )
}

impl Catalog for CatalogView<'_> {
    /// The variables a mysqldump header saves and restores and those drivers read, as this
    /// engine has them: UTF-8 throughout, and the session's time zone, `sql_mode`, foreign-key
    /// and unique checks and isolation level as its SETs left them (see `front`); notes on.
    /// `@@autocommit` is read when the statement runs (`SessionState::set_autocommit`).
    fn system_variable(&self, name: &str) -> Option<SystemValue> {
        Some(match name {
            "time_zone" => SystemValue::Text(self.time_zone.into()),
            "sql_mode" => SystemValue::Text(self.sql_mode.into()),
            "foreign_key_checks" => SystemValue::Int(i64::from(self.foreign_key_checks)),
            "unique_checks" => SystemValue::Int(i64::from(self.unique_checks)),
            "tx_isolation" | "transaction_isolation" => SystemValue::Text(self.isolation.into()),
            "tx_read_only" | "transaction_read_only" => SystemValue::Int(i64::from(self.read_only)),
            "sql_safe_updates" => SystemValue::Int(i64::from(self.safe_updates)),
            "sql_select_limit" => match self.select_limit {
                Some(limit) => SystemValue::Int(i64::try_from(limit).unwrap_or(i64::MAX)),
                None => SystemValue::Text(u64::MAX.to_string()),
            },
            "max_join_size" => match self.max_join_size {
                Some(limit) => SystemValue::Int(i64::try_from(limit).unwrap_or(i64::MAX)),
                None => SystemValue::Text(u64::MAX.to_string()),
            },
            // MySQL turns SQL_BIG_SELECTS off when max_join_size is set below its maximum.
            "sql_big_selects" => SystemValue::Int(i64::from(self.max_join_size.is_none())),
            _ => return self.global_system_variable(name),
        })
    }

    /// Every session starts from these: `SET GLOBAL` of them changes nothing on this engine.
    fn global_system_variable(&self, name: &str) -> Option<SystemValue> {
        Some(match name {
            "character_set_client"
            | "character_set_results"
            | "character_set_connection"
            | "character_set_database"
            | "character_set_server" => SystemValue::Text("utf8mb4".into()),
            // Every database is utf8mb4_general_ci: CREATE DATABASE's options are not kept.
            "collation_connection" | "collation_database" | "collation_server" => {
                SystemValue::Text("utf8mb4_general_ci".into())
            }
            "time_zone" => SystemValue::Text("SYSTEM".into()),
            "sql_mode" => SystemValue::Text(super::sql_mode::DEFAULT.into()),
            "foreign_key_checks" | "unique_checks" | "sql_notes" | "autocommit" => {
                SystemValue::Int(1)
            }
            "tx_isolation" | "transaction_isolation" => SystemValue::Text("REPEATABLE-READ".into()),
            "tx_read_only" | "transaction_read_only" => SystemValue::Int(0),
            "sql_select_limit" | "max_join_size" => SystemValue::Text(u64::MAX.to_string()),
            "sql_big_selects" => SystemValue::Int(1),
            "sql_safe_updates" => SystemValue::Int(0),
            _ => return None,
        })
    }

    fn foreign_key_checks(&self) -> bool {
        self.foreign_key_checks
    }

    /// Whether each of the table's ON UPDATE triggers (named `t.c.on_update`) reads
    /// `my_renumbering()`.
    fn on_update_skips_renumbering(&self, table: &Table) -> bool {
        let schema = if table.temporary {
            TEMP_SCHEMA.to_owned()
        } else {
            self.sqlite_schema(&table.database)
        };
        let older: rusqlite::Result<i64> = self.conn.query_row(
            &format!(
                "SELECT count(*) FROM {}.sqlite_master WHERE type = 'trigger' \
                 AND tbl_name = ?1 COLLATE NOCASE AND name GLOB '*.on_update' \
                 AND instr(sql, 'my_renumbering()') = 0",
                quote(&schema)
            ),
            [&table.name],
            |row| row.get(0),
        );
        older.is_ok_and(|n| n == 0)
    }

    fn temporary_table(&self, name: &str) -> Option<Table> {
        if !self.has_temp || name.eq_ignore_ascii_case(CATALOG_TABLE) {
            return None;
        }
        self.consult(TEMP_SCHEMA, |temp| {
            temp.tables.get(&name.to_ascii_lowercase()).cloned()
        })
        .flatten()
    }

    fn table(&self, schema: Option<&str>, name: &str) -> Option<Table> {
        let db = schema.unwrap_or(self.current).to_ascii_lowercase();
        if name.eq_ignore_ascii_case(CATALOG_TABLE) {
            return None;
        }
        if let Some(t) = self.temporary_table(name)
            && t.database.eq_ignore_ascii_case(&db)
        {
            return Some(t);
        }
        self.base_table(&db, name)
    }

    fn base_table(&self, schema: &str, name: &str) -> Option<Table> {
        let db = schema.to_ascii_lowercase();
        if db == INFORMATION_SCHEMA {
            let table = super::information::table(name);
            if table.is_none() {
                self.refuse(SqlError::new(
                    &codes::UNKNOWN_TABLE,
                    format!("Unknown table '{name}' in information_schema"),
                ));
            }
            return table;
        }
        if name.eq_ignore_ascii_case(CATALOG_TABLE) {
            return None;
        }
        let found = self.consult(&db, |database| {
            database.tables.get(&name.to_ascii_lowercase()).cloned()
        })?;
        if found.is_none() {
            let exists = self
                .conn
                .query_row(
                    &format!(
                        "SELECT 1 FROM {}.sqlite_master WHERE type IN ('table', 'view') AND name = ?1 COLLATE NOCASE",
                        quote(&db)
                    ),
                    [name],
                    |_| Ok(()),
                )
                .optional();
            match exists {
                Ok(Some(())) => self.refuse(unsupported(format!(
                    "table {name}, which has no definition in the node's catalog (created by an \
                     older node or another tool), in a translated statement"
                ))),
                Ok(None) => {}
                Err(err) => self.refuse(map_error(err, false)),
            }
        }
        found
    }

    fn current_schema(&self) -> Option<String> {
        Some(self.current.to_owned())
    }

    fn sqlite_schema(&self, database: &str) -> String {
        // Attached under its lower-case name; the default database is `main`.
        database.to_ascii_lowercase()
    }

    fn has_database(&self, database: &str) -> bool {
        schema_version(self.conn, &database.to_ascii_lowercase()).is_ok()
    }

    fn tables(&self, database: &str) -> Option<Vec<Table>> {
        let db = database.to_ascii_lowercase();
        if db == INFORMATION_SCHEMA {
            return None;
        }
        let mut kept = self.kept.borrow_mut();
        let database = match kept.database(self.conn, &db) {
            Ok(d) => d,
            Err(err) => {
                self.refuse(map_error(err, false));
                return None;
            }
        };
        let mut consulted = self.consulted.borrow_mut();
        if !consulted.iter().any(|(d, _)| *d == db) {
            consulted.push((db.clone(), database.version));
        }
        // Tables without a definition could reference the one being rebuilt: not listable.
        let stored: i64 = self
            .conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM {}.sqlite_master WHERE type = 'table' \
                     AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '{CATALOG_TABLE}'",
                    quote(&db)
                ),
                [],
                |row| row.get(0),
            )
            .ok()?;
        // A view's SQLite stand-in is a view, not a table.
        let tables = database
            .tables
            .values()
            .filter(|t| t.view.is_none())
            .count();
        (usize::try_from(stored).ok()? == tables)
            .then(|| database.tables.values().cloned().collect())
    }
}

/// Writes the definitions a DDL statement changed into their databases' [`CATALOG_TABLE`]s.
fn persist(conn: &Connection, change: &CatalogChange) -> rusqlite::Result<()> {
    let table_of = |db: &str, temporary: bool| -> rusqlite::Result<String> {
        let db = if temporary {
            TEMP_SCHEMA.to_owned()
        } else {
            db.to_ascii_lowercase()
        };
        conn.execute_batch(&create_catalog_sql(&db))?;
        Ok(format!("{}.{CATALOG_TABLE}", quote(&db)))
    };
    let put = |t: &Table| {
        let definition = serde_json::to_string(t)
            .map_err(|err| rusqlite::Error::ToSqlConversionFailure(Box::new(err)))?;
        conn.execute(
            &format!(
                "INSERT OR REPLACE INTO {} (name, definition) VALUES (?1, ?2)",
                table_of(&t.database, t.temporary)?
            ),
            [t.name.to_ascii_lowercase(), definition],
        )
        .map(drop)
    };
    match change {
        // information_schema's CREATE_TIME, in the node's local time as MySQL's is.
        CatalogChange::Create(t) => put(&Table {
            created: Some(chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string()),
            ..t.clone()
        }),
        CatalogChange::Replace(t) => put(t),
        CatalogChange::Drop {
            database,
            table,
            temporary,
        } => conn
            .execute(
                &format!(
                    "DELETE FROM {} WHERE name = ?1",
                    table_of(database, *temporary)?
                ),
                [table.to_ascii_lowercase()],
            )
            .map(drop),
        CatalogChange::Rename { database, from, to } => {
            let table = table_of(database, false)?;
            let definition: Option<String> = conn
                .query_row(
                    &format!("SELECT definition FROM {table} WHERE name = ?1"),
                    [from.to_ascii_lowercase()],
                    |row| row.get(0),
                )
                .optional()?;
            conn.execute(
                &format!("DELETE FROM {table} WHERE name = ?1"),
                [from.to_ascii_lowercase()],
            )?;
            if let Some(definition) = definition {
                let mut t: Table = serde_json::from_str(&definition)
                    .map_err(|err| rusqlite::Error::ToSqlConversionFailure(Box::new(err)))?;
                t.name = to.clone();
                put(&t)?;
            }
            Ok(())
        }
        CatalogChange::Several(changes) => changes.iter().try_for_each(|c| persist(conn, c)),
    }
}

/// Whether `name` in database `db` is a temporary table a translated statement made.
pub(crate) fn is_temporary_table(conn: &Connection, db: &str, name: &str) -> bool {
    kept_definitions(conn, TEMP_SCHEMA).is_ok_and(|temp| {
        temp.get(&name.to_ascii_lowercase())
            .is_some_and(|t| t.database.eq_ignore_ascii_case(db))
    })
}

/// The SQL that creates a database's [`CATALOG_TABLE`] if it is missing.
fn create_catalog_sql(db: &str) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS {}.{CATALOG_TABLE} (name TEXT PRIMARY KEY, definition TEXT NOT NULL)",
        quote(db)
    )
}

/// How one result column is sent.
#[derive(Debug, Clone, Copy)]
enum Sending {
    Int,
    /// An UNSIGNED integer column's values.
    Uint,
    /// A BIT column's values (held as their number).
    Bit,
    Double,
    Float,
    /// MySQL's text, as BYTES.
    Text,
    /// The stored bytes.
    Binary,
    /// Through the engine's conversion of a declared type; `fraction` bounds the fraction
    /// digits of a DATETIME or TIME value.
    Declared(DeclKind, Option<u32>),
}

/// The fraction digits of a DATETIME or TIME text (`…:SS.ffffff`).
fn fraction_digits(text: &str) -> u32 {
    match text.rsplit_once('.') {
        Some((whole, fraction))
            if whole.contains(':') && fraction.bytes().all(|b| b.is_ascii_digit()) =>
        {
            fraction.len() as u32
        }
        _ => 0,
    }
}

/// The engine's reading of a catalog column type, for the result metadata of a table column.
fn declared_kind(ty: &ColumnType) -> Option<DeclKind> {
    use xrpc_sql_sqlite::ColumnType as C;
    Some(match *ty {
        C::Int { min, max } => {
            let (mysql, length) = match (min, max) {
                (-128, 127) => (mysql_type::TINY, 4),
                (0, 255) => (mysql_type::TINY, 3),
                (-32_768, 32_767) => (mysql_type::SHORT, 6),
                (0, 65_535) => (mysql_type::SHORT, 5),
                (-8_388_608, 8_388_607) => (mysql_type::INT24, 9),
                (0, 16_777_215) => (mysql_type::INT24, 8),
                (-2_147_483_648, 2_147_483_647) => (mysql_type::LONG, 11),
                (0, 4_294_967_295) => (mysql_type::LONG, 10),
                (i64::MIN, i64::MAX) | (0, i64::MAX) => (mysql_type::LONGLONG, 20),
                _ => return None,
            };
            DeclKind::Int {
                mysql,
                length,
                unsigned: min == 0,
                min,
                max: u64::try_from(max).ok()?,
            }
        }
        C::Year => DeclKind::Year,
        C::Bit { width } => DeclKind::Bit {
            bits: u32::from(width),
        },
        C::Decimal {
            precision, scale, ..
        } => DeclKind::Decimal {
            precision: u32::from(precision),
            scale,
        },
        C::Double => DeclKind::Double,
        C::Float => DeclKind::Float,
        C::Char { length, .. } | C::VarChar { length, .. } => DeclKind::Text {
            // The TEXT types (65535 characters and up; JSON is a LONGTEXT) are MySQL's BLOB
            // type of a character set; TINYTEXT reads as the VARCHAR(255) it holds as much as.
            mysql: if matches!(ty, C::Char { .. }) {
                mysql_type::STRING
            } else if length >= 65_535 {
                mysql_type::BLOB
            } else {
                mysql_type::VAR_STRING
            },
            max_chars: Some(u64::from(length)),
            max_bytes: (u64::from(length) * 4).min(u64::from(u32::MAX)),
            pad: matches!(ty, C::Char { .. }),
            json: false,
        },
        C::Bytes { length, fixed } => DeclKind::Binary {
            mysql: if fixed {
                mysql_type::STRING
            } else if length >= 65_535 {
                mysql_type::BLOB
            } else {
                mysql_type::VAR_STRING
            },
            max_bytes: u64::from(length),
            fixed: fixed.then_some(length),
        },
        C::Date => DeclKind::Date,
        C::DateTime { fsp, timestamp } => DeclKind::DateTime {
            mysql: if timestamp {
                mysql_type::TIMESTAMP
            } else {
                mysql_type::DATETIME
            },
            fsp: u32::from(fsp),
        },
        C::Time { fsp } => DeclKind::Time {
            fsp: u32::from(fsp),
        },
        C::Set { ref values, .. } => DeclKind::Enum {
            set: true,
            // Every member and the commas between them.
            length: u32::try_from(
                values.iter().map(|v| v.chars().count()).sum::<usize>()
                    + values.len().saturating_sub(1),
            )
            .unwrap_or(u32::MAX / 4)
                * 4,
        },
        C::Enum { ref values, .. } => DeclKind::Enum {
            set: false,
            length: values
                .iter()
                .map(|v| u32::try_from(v.chars().count()).unwrap_or(u32::MAX / 4) * 4)
                .max()
                .unwrap_or(0),
        },
    })
}

/// A result column's metadata and how its values are sent: from the declaration of the table
/// column it is (`declared`), else from its type; `fsp`: the longest fraction of its values
/// read ahead.
fn plan_column(
    column: &OutColumn,
    declared: Option<&ColumnType>,
    fsp: u32,
) -> (ColumnInfo, Sending) {
    let (mut info, sending) = match declared
        .filter(|d| d.ty() == column.ty)
        .and_then(declared_kind)
    {
        Some(kind) => {
            let mut plan = types::plan_columns(vec![column.name.clone()], &[kind], &[], true, "");
            let info = plan.remove(0).info;
            let sending = match kind {
                DeclKind::Int { unsigned: true, .. } => Sending::Uint,
                DeclKind::Int { .. } => Sending::Int,
                DeclKind::Bit { .. } => Sending::Bit,
                DeclKind::Year => Sending::Uint,
                DeclKind::Double => Sending::Double,
                DeclKind::Float => Sending::Float,
                DeclKind::Text { .. } => Sending::Text,
                DeclKind::Binary { .. } => Sending::Binary,
                DeclKind::DateTime { fsp, .. } | DeclKind::Time { fsp } => {
                    Sending::Declared(kind, Some(fsp))
                }
                _ => Sending::Declared(kind, None),
            };
            (info, sending)
        }
        None => by_type(column, fsp),
    };
    if let Some(origin) = &column.origin {
        info.original_name.clone_from(&origin.column);
        info.table.clone_from(&origin.table);
        info.original_table.clone_from(&origin.original_table);
        info.schema.clone_from(&origin.database);
        let f = origin.flags;
        for (on, flag) in [
            (f.not_null, column_flags::NOT_NULL),
            (f.primary_key, column_flags::PRIMARY_KEY),
            (f.unique_key, column_flags::UNIQUE_KEY),
            (f.multiple_key, column_flags::MULTIPLE_KEY),
            (f.auto_increment, column_flags::AUTO_INCREMENT),
        ] {
            if on {
                info.flags |= flag;
            }
        }
    } else {
        info.schema.clear();
    }
    (info, sending)
}

/// [`plan_column`] of an expression: from its type alone.
fn by_type(column: &OutColumn, fsp: u32) -> (ColumnInfo, Sending) {
    let name = column.name.clone();
    let declared = |kind: DeclKind, fraction: Option<u32>| {
        let mut plan = types::plan_columns(vec![name.clone()], &[kind], &[], true, "");
        let mut info = plan.remove(0).info;
        info.schema.clear();
        (info, Sending::Declared(kind, fraction))
    };
    match column.ty {
        Ty::Int if column.unsigned => {
            let mut info = ColumnInfo::new(name, XType::Uint, mysql_type::LONGLONG);
            info.length = 20;
            (info, Sending::Uint)
        }
        Ty::Int => {
            let mut info = ColumnInfo::bigint(name);
            info.length = 21;
            (info, Sending::Int)
        }
        Ty::Double => {
            let mut info = ColumnInfo::double(name);
            info.length = 22;
            info.fractional_digits = 31;
            (info, Sending::Double)
        }
        Ty::Float => {
            let mut info = ColumnInfo::new(name, XType::Float, mysql_type::FLOAT);
            info.length = 12;
            info.fractional_digits = 31;
            (info, Sending::Float)
        }
        Ty::Decimal(scale) => declared(
            DeclKind::Decimal {
                precision: 65,
                scale,
            },
            None,
        ),
        Ty::Date => declared(DeclKind::Date, None),
        Ty::DateTime => declared(
            DeclKind::DateTime {
                mysql: mysql_type::DATETIME,
                fsp,
            },
            Some(fsp),
        ),
        Ty::Time => declared(DeclKind::Time { fsp }, Some(fsp)),
        Ty::Str(_) | Ty::Dyn => (ColumnInfo::text(name), Sending::Text),
        // A computed binary string is MySQL's VAR_STRING of the binary collation (UNHEX,
        // CAST AS BINARY), as MariaDB sends it.
        Ty::Bytes => {
            let mut column = ColumnInfo::new(name, XType::Bytes, mysql_type::VAR_STRING);
            column.collation = COLLATION_BINARY;
            (column, Sending::Binary)
        }
        Ty::Null => {
            let mut info = ColumnInfo::new(name, XType::Bytes, mysql_type::NULL);
            info.collation = COLLATION_BINARY;
            (info, Sending::Text)
        }
    }
}

/// One value as its column sends it, or why it cannot be.
fn send_value(send: Sending, ty: &Ty, value: ValueRef<'_>) -> Result<Value, String> {
    if matches!(value, ValueRef::Null) {
        return Ok(Value::Null);
    }
    let text = || text_of(value, ty).unwrap_or_default();
    Ok(match send {
        Sending::Uint => match value {
            ValueRef::Integer(i) => Value::Uint(u64::try_from(i).map_err(|_| i.to_string())?),
            _ => {
                let text = text();
                Value::Uint(text.parse().map_err(|_| text)?)
            }
        },
        Sending::Bit => match value {
            ValueRef::Integer(i) => Value::Bit(u64::try_from(i).map_err(|_| i.to_string())?),
            _ => return Err(text()),
        },
        Sending::Int => match value {
            ValueRef::Integer(i) => Value::Sint(i),
            _ => {
                let text = text();
                Value::Sint(text.parse().map_err(|_| text)?)
            }
        },
        Sending::Double | Sending::Float => {
            let f = match value {
                ValueRef::Real(f) => f,
                ValueRef::Integer(i) => i as f64,
                _ => {
                    let text = text();
                    text.parse().map_err(|_| text)?
                }
            };
            if matches!(send, Sending::Float) {
                Value::Float(f as f32)
            } else {
                Value::Double(f)
            }
        }
        Sending::Text => Value::Bytes(Bytes::from(text())),
        Sending::Binary => Value::Bytes(Bytes::copy_from_slice(match value {
            ValueRef::Blob(b) | ValueRef::Text(b) => b,
            _ => return Ok(Value::Bytes(Bytes::from(text()))),
        })),
        Sending::Declared(kind, fraction) => {
            let text = text();
            if fraction.is_some_and(|fsp| fraction_digits(&text) > fsp) {
                return Err(text);
            }
            types::convert(Conv::Declared(kind), ValueRef::Text(text.as_bytes()))
                .map_err(|_| text)?
        }
    })
}

/// Rows counted while they pass to the sink (FOUND_ROWS() of a query), up to `limit`
/// (`sql_select_limit`): the rows past it are dropped, and `cut` says so.
pub(crate) struct CountingSink<'a> {
    pub(crate) inner: &'a mut dyn ResultSink,
    pub(crate) rows: u64,
    pub(crate) limit: Option<u64>,
    pub(crate) cut: bool,
}

impl ResultSink for CountingSink<'_> {
    fn metadata(&mut self, columns: &[ColumnInfo]) -> Result<(), xrpc_engine::result::SinkError> {
        self.inner.metadata(columns)
    }

    fn metadata_kept(
        &mut self,
        columns: &[ColumnInfo],
        kept: &xrpc_engine::result::KeptMetadata,
    ) -> Result<(), xrpc_engine::result::SinkError> {
        self.inner.metadata_kept(columns, kept)
    }

    fn row(&mut self, row: &[Value]) -> Result<(), xrpc_engine::result::SinkError> {
        if self.limit.is_some_and(|limit| self.rows >= limit) {
            self.cut = true;
            return Ok(());
        }
        self.rows += 1;
        self.inner.row(row)
    }

    fn warning(
        &mut self,
        warning: &xrpc_engine::result::SqlWarning,
    ) -> Result<(), xrpc_engine::result::SinkError> {
        self.inner.warning(warning)
    }
}

/// A function library error as MySQL's.
pub(crate) fn library_error(err: &rusqlite::Error) -> Option<SqlError> {
    let e = error_of(err)?;
    let code = u32::from(e.code);
    Some(SqlError {
        code,
        sql_state: codes::by_code(code)
            .map_or("HY000", |c| c.sql_state)
            .to_owned(),
        message: e.message,
    })
}

/// A translation's refusal as MySQL's error.
fn refusal(err: &xrpc_sql_sqlite::TranslateError) -> SqlError {
    SqlError {
        code: u32::from(err.code()),
        sql_state: err.sql_state().to_owned(),
        message: err.to_string(),
    }
}

impl SqliteConn {
    /// Maps an error of a translated statement's SQL.
    fn translated_error(&self, err: rusqlite::Error, info: SqlInfo) -> SqlError {
        if let Some(refused) = self.guard.take_refusal() {
            return refused;
        }
        if let rusqlite::Error::UserFunctionError(inner) = &err
            && let Some(SinkOrValue(carried)) = inner.downcast_ref::<SinkOrValue>()
        {
            return carried.clone();
        }
        if let Some(err) = library_error(&err) {
            return err;
        }
        let interrupted = self
            .shared
            .interrupted
            .load(std::sync::atomic::Ordering::Acquire);
        parent_row_error(map_error(err, interrupted), info.deletes)
    }

    /// Takes the current database's write lock before a write in a transaction reads the kept
    /// catalog: SQLite waits for the lock (the busy handler) only while the transaction has
    /// not read, and a write after the catalog read would fail at once with 1205 whenever
    /// another connection wrote since. A write of no rows to [`CATALOG_TABLE`] takes it; a
    /// database without the table has no definitions to read, and the statement's own write
    /// then takes the lock (or the statement is refused).
    fn take_write_lock(&mut self) {
        let db = self.schema.to_ascii_lowercase();
        let sql = format!("DELETE FROM {}.{CATALOG_TABLE} WHERE 0", quote(&db));
        // Preparing reads the schema without leaving a read transaction open; a failure here
        // (no such table, or the lock not granted within the busy timeout) leaves the
        // statement's own write to report it.
        if let Ok(mut stmt) = self.conn.prepare_cached(&sql) {
            let _ = stmt.raw_execute();
        }
    }

    /// The secondary indexes of a table with a kept definition, under their MySQL names, in
    /// database `schema` (else the current one).
    pub(crate) fn kept_indexes(
        &mut self,
        schema: Option<&str>,
        table: &str,
    ) -> Option<Vec<xrpc_engine::shape::IndexShape>> {
        let db = schema.unwrap_or(&self.schema).to_ascii_lowercase();
        let kept = self.kept_catalog.database(&self.conn, &db).ok()?;
        let definition = kept.tables.get(&table.to_ascii_lowercase())?;
        Some(
            definition
                .indexes
                .iter()
                .map(|index| xrpc_engine::shape::IndexShape {
                    name: index.name.clone(),
                    columns: index.columns.clone(),
                })
                .collect(),
        )
    }

    /// The translation of `statement` (text `sql`) in the current database for arguments
    /// `args`, kept or new.
    fn translation(
        &mut self,
        sql: &str,
        parsed: &xrpc_sql::Parsed,
        args: &[Value],
    ) -> Result<Arc<Translated>, SqlError> {
        let current: Arc<str> = Arc::clone(&self.schema);
        // Read before any definition is: a translation is never newer than its generation.
        let generation = (!self.in_transaction()).then(|| self.databases.definitions_generation());
        if let Some(kept) = self
            .kept_catalog
            .translations
            .get(sql)
            .and_then(|variants| variants.iter().find(|k| k.serves(&current, args)))
        {
            let fresh = match (kept.generation, generation) {
                (Some(then), Some(now)) => then == now,
                // Inside a transaction, or made in one: as of the snapshot's schema versions.
                _ => {
                    let mut fresh = true;
                    for (db, version) in &kept.versions {
                        let now =
                            schema_version(&self.conn, db).map_err(|err| map_error(err, false))?;
                        fresh &= now == *version;
                    }
                    fresh
                }
            };
            if fresh {
                return Ok(Arc::clone(&kept.translation));
            }
        }
        let view = CatalogView {
            conn: &self.conn,
            kept: RefCell::new(&mut self.kept_catalog),
            current: &current,
            has_temp: self.has_temp,
            foreign_key_checks: !self.foreign_key_checks_off,
            sql_mode: self.sql_mode.as_deref().unwrap_or(super::sql_mode::DEFAULT),
            time_zone: self.time_zone.as_deref().unwrap_or("SYSTEM"),
            isolation: self.isolation.unwrap_or("REPEATABLE-READ"),
            read_only: self.session_read_only,
            select_limit: self.select_limit,
            max_join_size: self.max_join_size,
            safe_updates: self.safe_updates,
            unique_checks: !self.unique_checks_off,
            consulted: RefCell::new(Vec::new()),
            problem: RefCell::new(None),
        };
        let classes: Vec<ArgClass> = args.iter().map(arg_class).collect();
        let result = translate_parsed(parsed, &view, &classes);
        if let Some(problem) = view.problem.into_inner() {
            return Err(problem);
        }
        let (translation, typed_args) = result.map_err(|err| refusal(&err))?;
        let translation = Arc::new(Translated {
            translation,
            shape: OnceLock::new(),
        });
        let versions = view.consulted.into_inner();
        if sql.len() > super::CACHED_STATEMENT_MAX_LEN {
            // Kept only as long as the statements it runs would be.
            return Ok(translation);
        }
        let translations = &mut self.kept_catalog.translations;
        if translations.len() >= MAX_TRANSLATIONS && !translations.contains_key(sql) {
            translations.clear();
        }
        let variants = translations.entry(sql.to_owned()).or_default();
        // A stale one (older versions) goes; the oldest goes to make room.
        variants.retain(|k| !k.serves(&current, args));
        if variants.len() >= MAX_VARIANTS {
            variants.remove(0);
        }
        variants.push(KeptTranslation {
            schema: current,
            args: typed_args.then(|| classes.into_boxed_slice()),
            versions,
            generation,
            translation: Arc::clone(&translation),
        });
        Ok(translation)
    }

    /// `SET @a = expr, …` on a translating connection: each value as `SELECT expr` gives it.
    pub(crate) fn set_user_variables(
        &mut self,
        assignments: &[xrpc_sql::Assignment],
    ) -> Result<(), SqlError> {
        for assignment in assignments {
            let xrpc_sql::Assignment::User { name, value } = assignment else {
                continue;
            };
            let value = self.evaluate(&value.to_string(), &format!("SET @{name} = {value}"))?;
            self.session.set(name, value);
        }
        Ok(())
    }

    /// The value of expression `value` as `SELECT value` gives it, kept as a user variable
    /// keeps it; `what` names the statement in a refusal.
    pub(crate) fn evaluate(
        &mut self,
        value: &str,
        what: &str,
    ) -> Result<rusqlite::types::Value, SqlError> {
        let text = format!("SELECT {value}");
        let script = xrpc_sql::parse_cached(&text, &super::front::OPTIONS);
        let parsed = super::front::single(&script)?;
        let not_one_value = || unsupported(what);
        if parsed.statement().is_none() {
            return Err(not_one_value());
        }
        let translation = self.translation(&text, parsed, &[])?;
        let [query] = translation.sql.as_slice() else {
            return Err(not_one_value());
        };
        let info = super::front::request(parsed)
            .ok()
            .and_then(|r| match r {
                super::front::Request::Sql(info) => Some(info),
                _ => None,
            })
            .ok_or_else(not_one_value)?;
        let ty = translation.columns[0].ty;
        let client = ClientSql::enter(&self.guard);
        let value = self
            .conn
            .query_row(query, [], |row| Ok(variable_value(row.get_ref(0)?, &ty)));
        drop(client);
        value.map_err(|err| self.translated_error(err, info))
    }

    /// Runs a statement by its translation. The warnings the function library raised go to
    /// the sink after the rows and are kept for SHOW WARNINGS; a statement that fails leaves
    /// them before its error.
    pub(crate) fn run_translated(
        &mut self,
        sql: &str,
        parsed: &xrpc_sql::Parsed,
        args: &[Value],
        info: SqlInfo,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        drop(xrpc_sql_sqlite::take_warnings());
        self.statement_notes.clear();
        let result = self.run_translated_statement(sql, parsed, args, info, sink);
        let notes = std::mem::take(&mut self.statement_notes);
        let warnings: Vec<SqlWarning> = notes
            .into_iter()
            .filter(|_| result.is_ok())
            .chain(
                xrpc_sql_sqlite::take_warnings()
                    .into_iter()
                    .map(|w| SqlWarning {
                        level: match w.level {
                            xrpc_sql_sqlite::Level::Note => WarningLevel::Note,
                            xrpc_sql_sqlite::Level::Warning => WarningLevel::Warning,
                        },
                        code: u32::from(w.code),
                        message: w.message,
                    }),
            )
            .collect();
        if result.is_err() {
            self.failed_warnings = warnings;
            return result;
        }
        for warning in &warnings {
            sink.warning(warning).map_err(SqlError::from)?;
        }
        self.last_warnings = warnings;
        result
    }

    fn run_translated_statement(
        &mut self,
        sql: &str,
        parsed: &xrpc_sql::Parsed,
        args: &[Value],
        info: SqlInfo,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let statement = parsed
            .statement()
            .expect("a translated statement is sqlparser's");
        if self.in_transaction()
            && matches!(
                statement,
                Tree::Insert(_) | Tree::Update(_) | Tree::Delete(_)
            )
        {
            self.take_write_lock();
        }
        let translation = self.translation(sql, parsed, args)?;
        self.statement_notes = translation
            .notes
            .iter()
            .map(|(code, message)| SqlWarning {
                level: WarningLevel::Note,
                code: u32::from(*code),
                message: message.clone(),
            })
            .collect();
        let args: Vec<Arg<'_>> = args.iter().map(types::to_arg).collect();
        if !translation.into.is_empty() {
            return self.select_into(&translation, &args, info);
        }
        if translation.change.is_some() {
            if translation.suspends_foreign_keys {
                return self.without_foreign_keys(|conn| {
                    conn.run_translated_ddl(&translation, &args, info, sink)
                });
            }
            return self.run_translated_ddl(&translation, &args, info, sink);
        }
        self.run_translation(&translation, &args, info, sink)
    }

    /// Runs `run` with SQLite's foreign key enforcement off, for a translation that builds
    /// again a table other tables' foreign keys reference ([`Translated::suspends_foreign_keys`]):
    /// SQLite ignores the pragma inside a transaction, and a DDL statement runs outside one
    /// (MySQL commits before it), so anything else is refused. Enforcement is back on when
    /// `run` returns, whatever it returned.
    fn without_foreign_keys(
        &mut self,
        run: impl FnOnce(&mut Self) -> Result<ExecSummary, SqlError>,
    ) -> Result<ExecSummary, SqlError> {
        if self.foreign_key_checks_off || !self.options.foreign_keys {
            return run(self);
        }
        if self.in_transaction() {
            return Err(SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                "This version of MySQL doesn't yet support 'rebuilding a table other tables' \
                 foreign keys reference inside a transaction' on the SQLite engine",
            ));
        }
        self.exec("PRAGMA foreign_keys = OFF")?;
        let result = run(self);
        let restored = self.exec("PRAGMA foreign_keys = ON");
        let summary = result?;
        restored?;
        Ok(summary)
    }

    /// Runs a DDL translation in a savepoint with its catalog change, all or nothing.
    fn run_translated_ddl(
        &mut self,
        translation: &Translated,
        args: &[Arg<'_>],
        info: SqlInfo,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        self.exec("SAVEPOINT xrpc_translated_ddl")?;
        // Other connections' kept translations go stale when this commits (the RELEASE
        // below, or the transaction's COMMIT); this one's at once.
        self.definitions_pending.set(true);
        self.kept_catalog.forget();
        let result = self
            .run_translation(translation, args, info, sink)
            .and_then(|summary| {
                let change = translation
                    .change
                    .as_ref()
                    .expect("a DDL translation changes the catalog");
                persist(&self.conn, change).map_err(|err| map_error(err, false))?;
                Ok(summary)
            });
        if result.is_err() {
            let _ = self.exec("ROLLBACK TO xrpc_translated_ddl");
        }
        self.exec("RELEASE xrpc_translated_ddl")?;
        result
    }

    /// Runs a translation's statements; the last one answers.
    fn run_translation(
        &mut self,
        translation: &Translated,
        args: &[Arg<'_>],
        info: SqlInfo,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        if let Some(limit) = self.max_join_size
            && !translation.columns.is_empty()
        {
            self.bound_join_size(&translation.reads, limit)?;
        }
        let before = match &translation.reserves {
            Some(r) => Some(
                self.conn
                    .query_row(&r.before_sql(), [], |row| row.get::<_, i64>(0))
                    .map_err(|err| map_error(err, false))?,
            ),
            None => None,
        };
        let out_of_range = |column: &str, row: u64| {
            SqlError::new(
                &codes::AUTO_INCREMENT_OUT_OF_RANGE,
                format!("Out of range value for column '{column}' at row {row}"),
            )
        };
        // Generated values past the AUTO_INCREMENT column's type: refused before the insert
        // when its row count is known; an INSERT … SELECT runs in a savepoint and is undone.
        let mut limit_savepoint = false;
        if let (Some(r), Some(before)) = (&translation.reserves, before) {
            if r.rows > 0
                && let Some((column, row)) = r.out_of_range(before, r.rows)
            {
                if r.renumber_column.is_some() && row > 1 {
                    // Which rows an upsert or INSERT IGNORE numbers is known only after it.
                    return Err(unsupported(
                        "INSERT IGNORE or ON DUPLICATE KEY UPDATE that may number rows past \
                         the AUTO_INCREMENT column's type",
                    ));
                }
                // InnoDB used up the values up to the largest the type holds.
                let (_, max) = r.limit.as_ref().expect("out of range");
                let used = xrpc_sql_sqlite::Reservation {
                    rows: 0,
                    ..r.clone()
                };
                self.conn
                    .execute_batch(&used.sql((*max).min(before.saturating_add(r.rows as i64))))
                    .map_err(|err| map_error(err, false))?;
                return Err(out_of_range(column, row));
            }
            if r.rows == 0 && r.limit.is_some() {
                self.exec("SAVEPOINT xrpc_auto_increment_limit")?;
                limit_savepoint = true;
            }
        }
        let result = self.run_translation_statements(translation, args, info, sink, before);
        if limit_savepoint {
            let past = result.is_ok()
                && translation
                    .reserves
                    .as_ref()
                    .is_some_and(|r| r.past_limit(self.conn.last_insert_rowid()));
            if past || result.is_err() {
                self.exec("ROLLBACK TO xrpc_auto_increment_limit")?;
            }
            self.exec("RELEASE xrpc_auto_increment_limit")?;
            if past {
                let r = translation.reserves.as_ref().expect("checked");
                let before = before.unwrap_or(0);
                let (column, _) = r.limit.as_ref().expect("checked");
                return Err(out_of_range(column, r.first_row_past_limit(before)));
            }
        }
        result
    }

    /// The statements of a translation, after the sequence was read (`before`).
    fn run_translation_statements(
        &mut self,
        translation: &Translated,
        args: &[Arg<'_>],
        info: SqlInfo,
        sink: &mut dyn ResultSink,
        before: Option<i64>,
    ) -> Result<ExecSummary, SqlError> {
        let mut summary = ExecSummary::default();
        let last = translation.sql.len().saturating_sub(1);
        for (index, sql) in translation.sql.iter().enumerate() {
            let answers = index == last;
            let result = self.run_one(sql, args, answers.then_some(translation), sink);
            match result {
                Ok(s) => summary = s,
                Err(err) => {
                    let err = parent_row_error(
                        self.translated_error(err, info),
                        translation.foreign_key_failure_is_parents,
                    );
                    // InnoDB takes the values when the row reaches the storage engine, so a
                    // duplicate key or a missing parent uses them up; a conversion or CHECK
                    // failure comes before and does not.
                    if let (Some(r), Some(before)) = (&translation.reserves, before)
                        && (err.code == codes::DUP_ENTRY.code
                            || err.code == codes::NO_REFERENCED_ROW.code)
                    {
                        self.conn
                            .execute_batch(&r.sql(before))
                            .map_err(|err| map_error(err, false))?;
                    }
                    return Err(err);
                }
            }
        }
        let mut upserts = 0;
        if !summary.has_result_set {
            upserts = self.session.take_upsert_updates();
            summary.rows_affected = match translation.affected {
                Affected::Zero | Affected::None => 0,
                Affected::Changes => summary.rows_affected,
                Affected::ChangesPlusUpserts => summary.rows_affected + upserts,
            };
        }
        // A statement that called LAST_INSERT_ID(expr) reports its value as its insert id, unless
        // it also generated a value (below), which MySQL reports instead.
        if let Some(id) = self.session.take_last_insert_id_argument() {
            summary.last_insert_id = Some(id);
        }
        // An insert of explicit AUTO_INCREMENT values reports the last row's value, when it
        // inserted (or updated) rows, and leaves LAST_INSERT_ID() as it is.
        let explicit = self.session.take_explicit_auto_value();
        if translation.explicit_auto_increment
            && summary.rows_affected > 0
            && let Some(id) = explicit.and_then(|id| u64::try_from(id).ok())
        {
            summary.last_insert_id = Some(id);
        }
        if let (Some(r), Some(before)) = (&translation.reserves, before) {
            // The first value the insert generated (SQLite knows the last). An upsert that updated
            // rows, or an INSERT IGNORE that left rows out, has its inserted rows numbered as
            // InnoDB's are (see `Reservation::renumber_column`), from the first reserved value.
            let n = summary.rows_affected;
            let all_inserted = translation.affected == Affected::Changes
                || translation.affected == Affected::ChangesPlusUpserts && upserts == 0;
            let first = match r.inserted_sql(before) {
                Some(sql) if upserts > 0 || n < r.rows => {
                    let (inserted, largest) = self
                        .conn
                        .query_row(&sql, [], |row| {
                            Ok((row.get::<_, i64>(0)?, row.get::<_, Option<i64>>(1)?))
                        })
                        .map_err(|err| map_error(err, false))?;
                    if largest.is_some_and(|largest| largest - before != inserted)
                        && let Some(renumber) = r.renumber_sql(before)
                    {
                        // The rows were only inserted: their ON UPDATE CURRENT_TIMESTAMP
                        // columns stay as inserted.
                        self.session.set_renumbering(true);
                        let renumbered = self.conn.execute_batch(&renumber);
                        self.session.set_renumbering(false);
                        renumbered.map_err(|err| map_error(err, false))?;
                    }
                    (inserted > 0).then_some(before + 1)
                }
                _ if n >= 1 && all_inserted => {
                    let last = self.conn.last_insert_rowid();
                    Some(last - i64::try_from(n).unwrap_or(i64::MAX) + 1)
                }
                _ => None,
            };
            if let Some(first) = first.and_then(|first| u64::try_from(first).ok()) {
                self.session.set_last_insert_id(first);
                summary.last_insert_id = Some(first);
            }
            self.conn
                .execute_batch(&r.sql(before))
                .map_err(|err| map_error(err, false))?;
        }
        if let Some(count) = &translation.found_rows {
            let found: i64 = self
                .conn
                .query_row(count, [], |row| row.get(0))
                .map_err(|err| self.translated_error(err, info))?;
            self.session
                .set_found_rows(u64::try_from(found).unwrap_or(0));
            self.counted = true;
        }
        if info.state_change {
            self.refresh_state();
            if self.in_transaction() {
                self.temp_ddl_in_transaction = true;
            }
        }
        Ok(summary)
    }

    /// Refuses a query that MySQL might refuse under `max_join_size = limit` (1104, "The SELECT
    /// would examine more than MAX_JOIN_SIZE rows"): MySQL compares its optimizer's estimate,
    /// which the node does not have, so the node answers only where that estimate is surely
    /// below the limit. The estimate of a plan is at most the product of its tables' rows
    /// (with a margin for the optimizer's cost of reading them: twice that, plus 1000); above
    /// that bound the query is 1235.
    fn bound_join_size(&self, tables: &[String], limit: u64) -> Result<(), SqlError> {
        let mut bound: u64 = 1;
        for table in tables {
            let rows: i64 = self
                .conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
                    row.get(0)
                })
                .map_err(|err| map_error(err, false))?;
            bound = bound.saturating_mul(u64::try_from(rows).unwrap_or(0).max(1));
        }
        if bound.saturating_mul(2).saturating_add(1000) > limit {
            return Err(unsupported(format!(
                "a query that may examine more rows than max_join_size = {limit} allows"
            )));
        }
        Ok(())
    }

    /// Prepares, binds and runs one statement of a translation; `answer`: the translation, when
    /// this statement's rows are the result.
    fn run_one(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
        answer: Option<&Translated>,
        sink: &mut dyn ResultSink,
    ) -> rusqlite::Result<ExecSummary> {
        // The declarations of the table columns in the result, read before the client's
        // statement runs (the node's catalog table is not the client's to read), unless the
        // result's shape is kept.
        let declared: Vec<Option<ColumnType>> = answer
            .filter(|t| t.shape.get().is_none())
            .map(|t| {
                t.columns
                    .iter()
                    .map(|c| {
                        let origin = c.origin.as_ref()?;
                        let db = origin.database.to_ascii_lowercase();
                        if db == INFORMATION_SCHEMA {
                            let table = super::information::table(&origin.original_table)?;
                            return Some(table.column(&origin.column)?.ty.clone());
                        }
                        let kept = self.kept_catalog.database(&self.conn, &db).ok()?;
                        let table = kept
                            .tables
                            .get(&origin.original_table.to_ascii_lowercase())?;
                        Some(table.column(&origin.column)?.ty.clone())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let guard = Arc::clone(&self.guard);
        let _client = ClientSql::enter(&guard);
        // SAFETY: every statement prepared from `conn` here is dropped before the connection:
        // in this function, or kept in `self.kept`, which `SqliteConn` drops before `conn`.
        let conn = unsafe { self.conn.for_kept_statement() };
        // The last client statement kept for the next one (see `kept`), else the cache's.
        // A statement longer than the cache's bound is compiled for this run only.
        let mut kept: Option<(String, rusqlite::CachedStatement<'static>)> = None;
        let mut cached: Option<rusqlite::CachedStatement<'static>> = None;
        let mut uncached: Option<rusqlite::Statement<'static>> = None;
        let stmt: &mut rusqlite::Statement<'static> = if sql.len() > super::CACHED_STATEMENT_MAX_LEN
        {
            uncached.insert(conn.prepare(sql)?)
        } else if self.options.statement_cache_capacity == 0 {
            cached.insert(conn.prepare_cached(sql)?)
        } else {
            &mut kept
                .insert(super::kept::LastStatement::take(&mut self.kept, conn, sql)?)
                .1
        };
        let count = stmt.parameter_count();
        if count > 0 {
            if count != args.len() {
                return Err(rusqlite::Error::InvalidParameterCount(args.len(), count));
            }
            for (index, arg) in args.iter().enumerate() {
                stmt.raw_bind_parameter(index + 1, arg)?;
            }
        }
        self.stepped.add(0, 1);
        let query = answer.filter(|t| !t.columns.is_empty() && stmt.column_count() > 0);
        let summary = if let Some(translation) = query {
            stream_rows(stmt, translation, &declared, sink)?;
            ExecSummary {
                has_result_set: true,
                ..ExecSummary::default()
            }
        } else {
            stmt.raw_execute()?;
            // SQLite's count of the last statement that changed rows: DDL leaves it as it is,
            // so a translation that ends with DDL after a copy counts the rows copied (see
            // `Affected`).
            ExecSummary {
                rows_affected: self.conn.changes(),
                ..ExecSummary::default()
            }
        };
        if let Some((text, stmt)) = kept {
            super::kept::LastStatement::keep(&mut self.kept, text, stmt);
        }
        drop(cached);
        drop(uncached);
        Ok(summary)
    }

    /// `SELECT … INTO @a, …`: the query's one row to the variables.
    fn select_into(
        &mut self,
        translation: &Translation,
        args: &[Arg<'_>],
        info: SqlInfo,
    ) -> Result<ExecSummary, SqlError> {
        let result = (|| {
            let guard = Arc::clone(&self.guard);
            let _client = ClientSql::enter(&guard);
            let mut stmt = self.conn.prepare_cached(&translation.sql[0])?;
            for (index, arg) in args.iter().enumerate().take(stmt.parameter_count()) {
                stmt.raw_bind_parameter(index + 1, arg)?;
            }
            let mut rows = stmt.raw_query();
            let mut values = Vec::new();
            let mut count = 0u64;
            while let Some(row) = rows.next()? {
                count += 1;
                if count > 1 {
                    return Ok(None);
                }
                for (index, column) in translation.columns.iter().enumerate() {
                    values.push(variable_value(row.get_ref(index)?, &column.ty));
                }
            }
            Ok(Some((count, values)))
        })();
        match result.map_err(|err| self.translated_error(err, info))? {
            None => Err(SqlError {
                code: 1172,
                sql_state: "42000".to_owned(),
                message: "Result consisted of more than one row".to_owned(),
            }),
            Some((count, values)) => {
                for (name, value) in translation.into.iter().zip(values) {
                    self.session.set(name, value);
                }
                Ok(ExecSummary {
                    rows_affected: count,
                    ..ExecSummary::default()
                })
            }
        }
    }

    /// Reports a statement's counts to the session state (ROW_COUNT(), FOUND_ROWS()).
    /// `cut`: `sql_select_limit` dropped rows of the query, which MariaDB's FOUND_ROWS() counts.
    pub(crate) fn report_counts(
        &mut self,
        result: &Result<ExecSummary, SqlError>,
        rows: u64,
        cut: bool,
    ) {
        match result {
            Ok(summary) if summary.has_result_set => {
                self.session.set_row_count(-1);
                if cut && !self.counted {
                    self.session.forget_found_rows();
                } else if !self.counted {
                    self.session.set_found_rows(rows);
                }
            }
            Ok(summary) => self
                .session
                .set_row_count(i64::try_from(summary.rows_affected).unwrap_or(i64::MAX)),
            Err(_) => self.session.set_row_count(-1),
        }
        // A failed statement's LAST_INSERT_ID(expr) still counts for LAST_INSERT_ID(), but its
        // insert id is not reported to a later statement.
        self.session.take_last_insert_id_argument();
        self.session.take_explicit_auto_value();
        self.counted = false;
    }
}

/// Streams a translated query's rows: reads ahead to settle the fraction digits of DATETIME and
/// TIME columns, sends the metadata, then every row.
fn stream_rows(
    stmt: &mut rusqlite::Statement<'_>,
    translated: &Translated,
    declared: &[Option<ColumnType>],
    sink: &mut dyn ResultSink,
) -> rusqlite::Result<()> {
    let columns = &translated.columns;
    let width = columns.len();
    let mut rows = stmt.raw_query();
    // Read ahead: the fraction digits of DATETIME and TIME columns, and the type of a column
    // whose type is its values' (an argument or a user variable).
    let read_ahead = columns
        .iter()
        .any(|c| matches!(c.ty, Ty::DateTime | Ty::Time | Ty::Dyn));
    let mut window: Vec<SqlValue> = Vec::new();
    let mut ended = false;
    if read_ahead {
        while window.len() < LOOKAHEAD_ROWS * width {
            match rows.next()? {
                Some(row) => {
                    for index in 0..width {
                        window.push(SqlValue::from(row.get_ref(index)?));
                    }
                }
                None => {
                    ended = true;
                    break;
                }
            }
        }
    }
    let plan_all = || -> Vec<(ColumnInfo, Sending)> {
        columns
            .iter()
            .enumerate()
            .map(|(index, column)| {
                let fsp = window
                    .chunks_exact(width.max(1))
                    .filter_map(|row| text_of(ValueRef::from(&row[index]), &column.ty))
                    .map(|text| fraction_digits(&text))
                    .max()
                    .unwrap_or(0)
                    .min(6);
                if column.ty == Ty::Dyn {
                    // As MySQL types the value the argument or variable holds: an integer is
                    // BIGINT, a double DOUBLE, anything else text.
                    let first = window
                        .chunks_exact(width.max(1))
                        .map(|row| &row[index])
                        .find(|v| !matches!(v, SqlValue::Null));
                    let ty = match first {
                        Some(SqlValue::Integer(_)) => Ty::Int,
                        Some(SqlValue::Real(_)) => Ty::Double,
                        _ => Ty::Dyn,
                    };
                    let typed = OutColumn {
                        ty,
                        ..column.clone()
                    };
                    return plan_column(&typed, declared[index].as_ref(), fsp);
                }
                plan_column(column, declared[index].as_ref(), fsp)
            })
            .collect()
    };
    // Columns planned from the rows read ahead (the fraction digits of a temporal one, the
    // type of one typed by its values) are planned for each result.
    let made;
    let plans: &[(ColumnInfo, Sending)] = if read_ahead {
        made = plan_all();
        let infos: Vec<ColumnInfo> = made.iter().map(|(info, _)| info.clone()).collect();
        sink.metadata(&infos).map_err(sink_error)?;
        &made
    } else {
        let shape = translated.shape.get_or_init(|| {
            let plans = plan_all();
            ResultShape {
                infos: plans.iter().map(|(info, _)| info.clone()).collect(),
                plans,
                encoded: KeptMetadata::default(),
            }
        });
        sink.metadata_kept(&shape.infos, &shape.encoded)
            .map_err(sink_error)?;
        &shape.plans
    };
    let mut out = Vec::with_capacity(width);
    let mut row_number = 0u64;
    let mut values: Vec<ValueRef<'_>> = Vec::with_capacity(width);
    for row in window.chunks_exact(width.max(1)) {
        row_number += 1;
        values.clear();
        values.extend(row.iter().map(ValueRef::from));
        send_row(plans, columns, row_number, &values, &mut out)?;
        sink.row(&out).map_err(sink_error)?;
    }
    if !ended {
        while let Some(row) = rows.next()? {
            row_number += 1;
            let mut values = Vec::with_capacity(width);
            for index in 0..width {
                values.push(row.get_ref(index)?);
            }
            send_row(plans, columns, row_number, &values, &mut out)?;
            sink.row(&out).map_err(sink_error)?;
        }
    }
    Ok(())
}

/// Converts one row's values into `out`.
fn send_row(
    plans: &[(ColumnInfo, Sending)],
    columns: &[OutColumn],
    row_number: u64,
    values: &[ValueRef<'_>],
    out: &mut Vec<Value>,
) -> rusqlite::Result<()> {
    out.clear();
    for (index, value) in values.iter().enumerate() {
        let (info, send) = &plans[index];
        out.push(
            send_value(*send, &columns[index].ty, *value)
                .map_err(|text| does_not_fit(info, row_number, &text))?,
        );
    }
    Ok(())
}

/// A value a column's metadata cannot carry: the result ends with MySQL's 1366.
fn does_not_fit(info: &ColumnInfo, row: u64, text: &str) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(Box::new(SinkOrValue(SqlError::new(
        &codes::INCORRECT_VALUE,
        format!(
            "Incorrect value: '{text}' of column '{}' at row {row} does not fit the type the \
             result was sent with ({}), so the result ends here",
            info.name, info.x_type
        ),
    ))))
}

fn sink_error(err: xrpc_engine::result::SinkError) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(Box::new(SinkOrValue(SqlError::from(err))))
}

/// An engine error carried through rusqlite's error type while rows stream.
#[derive(Debug)]
pub(crate) struct SinkOrValue(pub(crate) SqlError);

impl std::fmt::Display for SinkOrValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.message)
    }
}

impl std::error::Error for SinkOrValue {}
