//! The differential harness shared by the corpus and the property test: a statement's outcome
//! on MariaDB and on the node's SQL path (front end, translation, SQLite with the function
//! library); MariaDB's side and the comparison are `xrpc_testkit::differential`'s.
#![allow(dead_code)] // Each test binary uses part of it.

use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;
use xrpc_sql::{Options, Session, Transaction};
use xrpc_sql_sqlite::{
    Affected, ArgClass, MemoryCatalog, SessionState, TranslateError, error_of, register, text_of,
    translate, translate_parsed, translate_with_args, variable_value,
};
#[allow(unused_imports)] // Each test binary uses part of it.
pub(crate) use xrpc_testkit::differential::{Outcome, mariadb_database, mariadb_outcome, same};

/// The node side: the front end, the translation and SQLite.
pub(crate) struct Node {
    conn: Connection,
    catalog: MemoryCatalog,
    state: SessionState,
    /// The last query's FOUND_ROWS() came from its SQL_CALC_FOUND_ROWS count.
    counted: bool,
}

impl Node {
    pub(crate) fn new() -> Self {
        let conn = Connection::open_in_memory().unwrap();
        let state = SessionState::default();
        register(&conn, &state).unwrap();
        conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        Self {
            conn,
            catalog: MemoryCatalog::new(Some("corpus")),
            state,
            counted: false,
        }
    }

    /// Attaches an empty database `name` (held in memory), as an engine attaches a database's
    /// file under its name.
    pub(crate) fn attach(&mut self, name: &str) {
        self.conn
            .execute("ATTACH ':memory:' AS ?1", [name])
            .unwrap();
        self.catalog.add_database(name);
    }

    /// The catalog's definition of table `name` in the current database.
    pub(crate) fn definition(&self, name: &str) -> xrpc_sql_sqlite::Table {
        use xrpc_sql_sqlite::Catalog;
        self.catalog
            .table(None, name)
            .expect("a table of that name")
    }

    /// The tables, indexes and triggers SQLite holds in database `schema`, by type and name.
    pub(crate) fn sqlite_objects(&self, schema: &str) -> Vec<(String, String)> {
        let sql = format!(
            "SELECT type, name FROM \"{schema}\".sqlite_master \
             WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        );
        let mut stmt = self.conn.prepare(&sql).unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    /// Runs a statement and reports its counts for ROW_COUNT() and FOUND_ROWS(), as an engine
    /// does.
    pub(crate) fn run(&mut self, text: &str) -> Outcome {
        self.run_with_args(text, &[])
    }

    /// [`Node::run`] of a statement with `?` arguments, translated for their classes as an
    /// engine translates it.
    pub(crate) fn run_with_args(&mut self, text: &str, args: &[SqlValue]) -> Outcome {
        let outcome = self.run_statement(text, args);
        match &outcome {
            Outcome::Affected(n) => self.state.set_row_count(*n as i64),
            Outcome::Rows { rows, .. } => {
                self.state.set_row_count(-1);
                if !self.counted {
                    self.state.set_found_rows(rows.len() as u64);
                }
            }
            Outcome::Error(..) => self.state.set_row_count(-1),
        }
        self.counted = false;
        outcome
    }

    /// The SQLite statements a statement with these arguments translates to, each with SQLite's
    /// query plan of it (`EXPLAIN QUERY PLAN`, its steps' details joined by "; ").
    pub(crate) fn plan(&self, text: &str, args: &[SqlValue]) -> Vec<(String, String)> {
        let parsed = xrpc_sql::parse_one_statement(text, &Options::default()).unwrap();
        let (translation, _) =
            translate_with_args(parsed.statement().unwrap(), &self.catalog, &classes(args))
                .unwrap_or_else(|err| panic!("{text}: {err}"));
        translation
            .sql
            .into_iter()
            .map(|sql| {
                let mut stmt = self
                    .conn
                    .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                    .unwrap_or_else(|err| panic!("{sql}: {err}"));
                if !args.is_empty() {
                    bind(&mut stmt, args);
                }
                let mut steps = Vec::new();
                let mut rows = stmt.raw_query();
                while let Some(row) = rows.next().unwrap() {
                    steps.push(row.get::<_, String>(3).unwrap());
                }
                (sql, steps.join("; "))
            })
            .collect()
    }

    fn run_statement(&mut self, text: &str, args: &[SqlValue]) -> Outcome {
        let mut parsed = xrpc_sql::parse(text, &Options::default());
        let parsed = match parsed.remove(0) {
            Ok(p) => p,
            Err(err) => return Outcome::Error(err.code(), err.to_string()),
        };
        let Some(statement) = parsed.statement() else {
            return Outcome::Error(1235, "XA".into());
        };
        if let Some(session) = Session::of(statement) {
            return self.session(session);
        }
        let translation = match translate_parsed(&parsed, &self.catalog, &classes(args)) {
            Ok((t, _)) => t,
            Err(err) => return refusal(&err),
        };
        let before = translation.reserves.as_ref().map(|r| {
            self.conn
                .query_row(&r.before_sql(), [], |row| row.get::<_, i64>(0))
                .unwrap()
        });
        if !translation.into.is_empty() {
            return self.select_into(&translation);
        }
        // As the engine does: a rebuild of a table other tables reference runs without
        // enforcement, so that SQLite's DROP TABLE leaves their rows alone.
        if translation.suspends_foreign_keys {
            self.conn
                .execute_batch("PRAGMA foreign_keys = OFF")
                .unwrap();
        }
        // As the engine does: a DDL translation runs all or nothing.
        let ddl = translation.change.is_some();
        if ddl {
            self.conn.execute_batch("SAVEPOINT ddl").unwrap();
        }
        let ran = self.execute_all(&translation, args, parsed.kind);
        if ddl {
            if ran.is_err() {
                self.conn.execute_batch("ROLLBACK TO ddl").unwrap();
            }
            self.conn.execute_batch("RELEASE ddl").unwrap();
        }
        if translation.suspends_foreign_keys {
            self.conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        }
        let outcome = match ran {
            Ok(outcome) => outcome,
            Err(outcome) => {
                if let (Some(r), Some(before), Outcome::Error(1062 | 1452, _)) =
                    (&translation.reserves, before, &outcome)
                {
                    self.conn.execute_batch(&r.sql(before)).unwrap();
                }
                return outcome;
            }
        };
        if let (Some(r), Some(before)) = (&translation.reserves, before) {
            // As the engine does: an upsert that updated rows, or an INSERT IGNORE that left
            // rows out, has its inserted rows numbered as InnoDB's are, without firing their ON
            // UPDATE CURRENT_TIMESTAMP triggers, from the first value reserved, which is the
            // statement's insert id; else the first value generated (SQLite knows the last).
            let n = match outcome {
                Outcome::Affected(n) => n,
                _ => 0,
            };
            let first = match r.inserted_sql(before) {
                Some(sql) if translation.affected == Affected::ChangesPlusUpserts || n < r.rows => {
                    let (inserted, largest): (i64, Option<i64>) = self
                        .conn
                        .query_row(&sql, [], |row| Ok((row.get(0)?, row.get(1)?)))
                        .unwrap();
                    if largest.is_some_and(|largest| largest - before != inserted)
                        && let Some(renumber) = r.renumber_sql(before)
                    {
                        self.state.set_renumbering(true);
                        self.conn.execute_batch(&renumber).unwrap();
                        self.state.set_renumbering(false);
                    }
                    (inserted > 0).then_some(before + 1)
                }
                _ if n >= 1 && translation.affected == Affected::Changes => {
                    Some(self.conn.last_insert_rowid() - n as i64 + 1)
                }
                _ => None,
            };
            if let Some(first) = first {
                self.state.set_last_insert_id(first as u64);
            }
            self.conn.execute_batch(&r.sql(before)).unwrap();
        }
        if let Some(change) = &translation.change {
            self.catalog.apply(change);
        }
        if let Some(count) = &translation.found_rows {
            let found: i64 = self.conn.query_row(count, [], |r| r.get(0)).unwrap();
            self.state.set_found_rows(found as u64);
            self.counted = true;
        }
        outcome
    }

    /// Runs a translation's statements in order: the last one's outcome, or the first error.
    fn execute_all(
        &mut self,
        translation: &xrpc_sql_sqlite::Translation,
        args: &[SqlValue],
        kind: xrpc_sql::Kind,
    ) -> Result<Outcome, Outcome> {
        let mut outcome = Outcome::Affected(0);
        for sql in &translation.sql {
            outcome = self
                .execute(sql, translation, args)
                .map_err(|err| sqlite_error(&err, kind))?;
        }
        Ok(outcome)
    }

    /// `SELECT … INTO @a`: one row to the variables.
    fn select_into(&mut self, translation: &xrpc_sql_sqlite::Translation) -> Outcome {
        let mut stmt = self.conn.prepare(&translation.sql[0]).unwrap();
        let mut cursor = stmt.query([]).unwrap();
        let mut row_values = Vec::new();
        let mut rows = 0;
        loop {
            match cursor.next() {
                Ok(Some(row)) => {
                    rows += 1;
                    if rows > 1 {
                        return Outcome::Error(
                            1172,
                            "Result consisted of more than one row".into(),
                        );
                    }
                    for (i, c) in translation.columns.iter().enumerate() {
                        row_values.push(variable_value(row.get_ref(i).unwrap(), &c.ty));
                    }
                }
                Ok(None) => break,
                Err(err) => return sqlite_error(&err, xrpc_sql::Kind::Select),
            }
        }
        for (name, value) in translation.into.iter().zip(row_values) {
            self.state.set(name, value);
        }
        Outcome::Affected(rows)
    }

    fn execute(
        &mut self,
        sql: &str,
        translation: &xrpc_sql_sqlite::Translation,
        args: &[SqlValue],
    ) -> rusqlite::Result<Outcome> {
        let mut stmt = self.conn.prepare(sql).map_err(|err| {
            // SQL the translation produced and SQLite rejects is a translation bug: say so loudly.
            eprintln!("SQLite rejected the translation: {sql}\n  {err}");
            err
        })?;
        bind(&mut stmt, args);
        if stmt.column_count() == 0 || translation.columns.is_empty() {
            let changes = stmt.raw_execute()? as u64;
            let upserts = self.state.take_upsert_updates();
            return Ok(Outcome::Affected(match translation.affected {
                Affected::Zero | Affected::None => 0,
                Affected::Changes => changes,
                Affected::ChangesPlusUpserts => changes + upserts,
            }));
        }
        let columns = translation.columns.clone();
        let mut rows = Vec::new();
        let mut cursor = stmt.raw_query();
        while let Some(row) = cursor.next()? {
            let mut cells = Vec::new();
            for (i, c) in columns.iter().enumerate() {
                cells.push(text_of(row.get_ref(i)?, &c.ty));
            }
            rows.push(cells);
        }
        Ok(Outcome::Rows {
            columns: columns.iter().map(|c| c.name.clone()).collect(),
            rows,
        })
    }

    fn session(&mut self, session: Session) -> Outcome {
        let run = |conn: &Connection, sql: &str| match conn.execute_batch(sql) {
            Ok(()) => Outcome::Affected(0),
            Err(err) => Outcome::Error(0, err.to_string()),
        };
        match session {
            Session::Names { .. } => Outcome::Affected(0),
            Session::Use(database) => {
                self.catalog.use_database(&database);
                Outcome::Affected(0)
            }
            Session::Transaction(Transaction::Begin { .. }) => run(&self.conn, "BEGIN"),
            Session::Transaction(Transaction::Commit) => run(&self.conn, "COMMIT"),
            Session::Transaction(Transaction::Rollback) => run(&self.conn, "ROLLBACK"),
            Session::Set(assignments) => {
                for a in assignments {
                    let xrpc_sql::Assignment::User { name, value } = a else {
                        return Outcome::Error(1235, "system variables".into());
                    };
                    let select = xrpc_sql::parse_one_statement(
                        &format!("SELECT {value}"),
                        &Options::default(),
                    )
                    .unwrap();
                    let t = match translate(select.statement().unwrap(), &self.catalog) {
                        Ok(t) => t,
                        Err(err) => return refusal(&err),
                    };
                    let value: rusqlite::types::Value =
                        match self.conn.query_row(&t.sql[0], [], |r| {
                            Ok(variable_value(r.get_ref(0)?, &t.columns[0].ty))
                        }) {
                            Ok(v) => v,
                            Err(err) => return sqlite_error(&err, xrpc_sql::Kind::Select),
                        };
                    self.state.set(&name, value);
                }
                Outcome::Affected(0)
            }
            other => Outcome::Error(1235, format!("{other:?}")),
        }
    }
}

/// The classes of arguments, as an engine gives them to the translation.
fn classes(args: &[SqlValue]) -> Vec<ArgClass> {
    args.iter()
        .map(|a| match a {
            SqlValue::Null => ArgClass::Null,
            SqlValue::Integer(_) => ArgClass::Int,
            SqlValue::Real(_) => ArgClass::Real,
            SqlValue::Text(_) => ArgClass::Text,
            SqlValue::Blob(_) => ArgClass::Bytes,
        })
        .collect()
}

/// Binds the arguments to a statement that has placeholders (every statement of a
/// translation that has them takes them all, in order).
fn bind(stmt: &mut rusqlite::Statement<'_>, args: &[SqlValue]) {
    if stmt.parameter_count() > 0 {
        assert_eq!(
            stmt.parameter_count(),
            args.len(),
            "placeholders and arguments"
        );
        for (index, arg) in args.iter().enumerate() {
            stmt.raw_bind_parameter(index + 1, arg).unwrap();
        }
    }
}

fn refusal(err: &TranslateError) -> Outcome {
    Outcome::Error(err.code(), err.to_string())
}

/// A SQLite error as MySQL's: a function's MySQL error, or the constraint MySQL names.
fn sqlite_error(err: &rusqlite::Error, kind: xrpc_sql::Kind) -> Outcome {
    if let Some(e) = error_of(err) {
        return Outcome::Error(e.code, e.message);
    }
    let text = err.to_string();
    let code = if text.contains("UNIQUE constraint failed") {
        1062
    } else if text.contains("NOT NULL constraint failed") {
        1048
    } else if text.contains("FOREIGN KEY constraint failed") {
        if kind == xrpc_sql::Kind::Insert {
            1452
        } else {
            1451
        }
    } else {
        0
    };
    Outcome::Error(code, text)
}
