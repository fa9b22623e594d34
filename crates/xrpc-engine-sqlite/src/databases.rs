//! MySQL databases on SQLite: one file per database, attached by the node.
//!
//! # Files
//!
//! The default database is the engine's own file (`data_dir/xrpc.db`); MySQL sees it as `main`,
//! SQLite's name for it. `CREATE DATABASE app` creates `data_dir/databases/app.db` (in WAL mode,
//! like the main file); `DROP DATABASE app` deletes it with its `-wal` and `-shm` files. At
//! start-up every `databases/<name>.db` with a valid name is a database again.
//!
//! A name is checked before it comes near a path ([`validate`]): 1 to 64 ASCII letters, digits,
//! `_` or `$`, so no `.`, `/`, `\`, NUL or anything else can reach the file system; anything else
//! is 1102. Names are case-insensitive and kept in lower case (MySQL's `lower_case_table_names =
//! 1`), because SQLite's schema names are case-insensitive too. `main`, `temp`,
//! `information_schema`, `performance_schema`, `mysql` and `sys` are reserved.
//!
//! # Attaching
//!
//! [`Databases`] is the engine-wide list, with a generation number bumped by every CREATE and
//! DROP. Each connection keeps the generation it last saw and, before each statement run outside
//! a transaction, attaches the databases it lacks and detaches the dropped ones (`ATTACH ?1 AS
//! ?2`, bound, never formatted into SQL). Inside a transaction SQLite cannot attach or detach, so a
//! connection there sees the databases of when its transaction began until it ends. Each
//! database has an incarnation number, so a database dropped and created again under the same
//! name is reattached rather than left pointing at the deleted file.
//!
//! Clients cannot attach anything themselves: the authorizer refuses ATTACH in client statements
//! (see `authorizer`); these attachments run as the node's own statements.
//!
//! # The limit
//!
//! SQLite attaches at most `SQLITE_MAX_ATTACHED` databases to one connection (10 in the bundled
//! build); one is the node's in-memory `information_schema`, so at most 9 databases besides
//! `main` exist. CREATE DATABASE past that is refused with 1235 and says so; nothing is created.
//!
//! # The current database
//!
//! `USE app`, or a request with `schema_name = 'app'`, makes `app` the session's current
//! database; the session layer keeps it and hands it to whichever pooled connection runs the
//! session's next statement ([`xrpc_engine::EngineConn::set_session_schema`]), so it follows
//! the session and never stays behind on a connection.
//! SQLite has no current database: the translation names every table with its database
//! (see `translated`).
//!
//! # Dropping a database others use
//!
//! DROP DATABASE commits the dropping session's open transaction first (MySQL commits
//! implicitly too), detaches the file from its own connection and deletes it. Other connections
//! detach it before their next statement outside a transaction; a transaction that is writing to
//! it at that moment writes to the deleted file, and its writes are lost with it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use rusqlite::{Connection, OpenFlags};
use xrpc_proto::codes;

use xrpc_engine::result::SqlError;

/// The schema name of the node's catalog database (see `catalog`).
pub(crate) const INFORMATION_SCHEMA: &str = "information_schema";

/// MySQL's longest database name.
pub(crate) const MAX_NAME_LEN: usize = 64;

/// The subdirectory of the data directory that holds the database files.
pub(crate) const DIR: &str = "databases";

/// Names no client database may take: SQLite's schema names and MySQL's system databases.
const RESERVED: &[&str] = &[
    "main",
    "temp",
    "information_schema",
    "performance_schema",
    "mysql",
    "sys",
];

/// The engine-wide list of databases besides `main`.
#[derive(Debug)]
pub(crate) struct Databases {
    dir: PathBuf,
    /// Databases besides `main` one connection can attach.
    max: usize,
    state: Mutex<State>,
    /// A copy of `state.generation`, read before every statement without taking the lock.
    generation: AtomicU64,
    /// Bumped around every commit of a change to the tables' kept MySQL definitions (see
    /// `translated`, "Translations").
    definitions: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    generation: u64,
    next_incarnation: u64,
    /// Name → incarnation.
    names: BTreeMap<String, u64>,
}

/// What a connection has attached: the generation it synced to and (name, incarnation) pairs.
#[derive(Debug, Default)]
pub(crate) struct Attached {
    pub(crate) generation: u64,
    pub(crate) names: Vec<(String, u64)>,
}

impl Databases {
    /// The databases found under `main_file`'s directory; `max` is how many one connection can
    /// attach besides `main` and `information_schema`.
    pub(crate) fn open(main_file: &Path, max: usize) -> Result<Self, SqlError> {
        let dir = main_file
            .parent()
            .map_or_else(|| PathBuf::from(DIR), |parent| parent.join(DIR));
        let mut state = State {
            generation: 1,
            ..State::default()
        };
        match std::fs::read_dir(&dir) {
            Ok(entries) => {
                for entry in entries.flatten() {
                    let file = entry.file_name();
                    let Some(stem) = file.to_str().and_then(|f| f.strip_suffix(".db")) else {
                        continue;
                    };
                    if let Ok(name) = validate(stem)
                        && name == stem
                        && !RESERVED.contains(&stem)
                    {
                        state.next_incarnation += 1;
                        state.names.insert(name, state.next_incarnation);
                    }
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => {
                return Err(SqlError::new(
                    &codes::ENGINE_ERROR,
                    format!("cannot list {}: {err}", dir.display()),
                ));
            }
        }
        Ok(Self {
            dir,
            max,
            generation: AtomicU64::new(state.generation),
            definitions: AtomicU64::new(0),
            state: Mutex::new(state),
        })
    }

    /// Most databases besides `main`.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// The file of database `name` (already validated).
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.db"))
    }

    /// The current generation, cheap enough to read before every statement.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The generation of the kept definitions and of the databases, read before a statement
    /// looks up its translation.
    pub(crate) fn definitions_generation(&self) -> (u64, u64) {
        (self.definitions.load(Ordering::Acquire), self.generation())
    }

    /// Marks the kept definitions changed: before and after a change of them commits.
    pub(crate) fn definitions_changed(&self) {
        self.definitions.fetch_add(1, Ordering::AcqRel);
    }

    /// The generation and every database with its incarnation, by name.
    pub(crate) fn snapshot(&self) -> (u64, Vec<(String, u64)>) {
        let state = self.state.lock();
        let names = state.names.iter().map(|(n, i)| (n.clone(), *i)).collect();
        (state.generation, names)
    }

    /// `CREATE DATABASE`: creates the file; `Ok(false)` when it existed and `if_not_exists`.
    pub(crate) fn create(&self, name: &str, if_not_exists: bool) -> Result<bool, SqlError> {
        let name = validate(name)?;
        let mut state = self.state.lock();
        if state.names.contains_key(&name) || name == "main" || name == "information_schema" {
            if if_not_exists {
                return Ok(false);
            }
            return Err(SqlError::new(
                &codes::DB_CREATE_EXISTS,
                format!("Can't create database '{name}'; database exists"),
            ));
        }
        if RESERVED.contains(&name.as_str()) {
            return Err(reserved(&name));
        }
        if state.names.len() >= self.max {
            return Err(SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                format!(
                    "This version doesn't yet support more than {} databases besides main: SQLite \
                     attaches at most {} database files to a connection (SQLITE_MAX_ATTACHED), one \
                     of them the node's information_schema; drop one first",
                    self.max,
                    self.max + 1
                ),
            ));
        }
        std::fs::create_dir_all(&self.dir).map_err(|err| {
            SqlError::new(
                &codes::ENGINE_ERROR,
                format!("cannot create {}: {err}", self.dir.display()),
            )
        })?;
        let path = self.path(&name);
        let created = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .and_then(|conn| {
            conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
                row.get::<_, String>(0)
            })
        });
        if let Err(err) = created {
            let _ = std::fs::remove_file(&path);
            return Err(SqlError::new(
                &codes::ENGINE_ERROR,
                format!("cannot create database '{name}': {err}"),
            ));
        }
        state.next_incarnation += 1;
        let incarnation = state.next_incarnation;
        state.names.insert(name, incarnation);
        state.generation += 1;
        self.generation.store(state.generation, Ordering::Release);
        Ok(true)
    }

    /// `DROP DATABASE`, after the caller detached it: forgets it and deletes its files;
    /// `Ok(false)` when it did not exist and `if_exists`.
    pub(crate) fn drop_database(&self, name: &str, if_exists: bool) -> Result<bool, SqlError> {
        let name = validate(name)?;
        if RESERVED.contains(&name.as_str()) {
            return Err(reserved(&name));
        }
        let mut state = self.state.lock();
        if state.names.remove(&name).is_none() {
            if if_exists {
                return Ok(false);
            }
            return Err(SqlError::new(
                &codes::DB_DROP_EXISTS,
                format!("Can't drop database '{name}'; database doesn't exist"),
            ));
        }
        state.generation += 1;
        self.generation.store(state.generation, Ordering::Release);
        let path = self.path(&name);
        for suffix in ["", "-wal", "-shm"] {
            let mut file = path.clone().into_os_string();
            file.push(suffix);
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => {
                    tracing::warn!(%err, file = ?file, "cannot delete a dropped database's file")
                }
            }
        }
        Ok(true)
    }
}

fn reserved(name: &str) -> SqlError {
    SqlError::new(
        &codes::DB_ACCESS_DENIED,
        format!("Access denied for user to database '{name}': the name is reserved"),
    )
}

/// Checks a database name and returns it in lower case: 1 to [`MAX_NAME_LEN`] ASCII letters,
/// digits, `_` or `$`; anything else is 1102.
pub(crate) fn validate(name: &str) -> Result<String, SqlError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$');
    if !ok {
        let shown: String = name.chars().take(80).collect();
        return Err(SqlError::new(
            &codes::WRONG_DB_NAME,
            format!(
                "Incorrect database name '{}': a database name is 1 to {MAX_NAME_LEN} ASCII \
                 letters, digits, '_' or '$'",
                shown.escape_debug()
            ),
        ));
    }
    Ok(name.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_before_they_reach_a_path() {
        for bad in [
            "",
            "..",
            "../x",
            "a/b",
            "a\\b",
            "a\0b",
            "a.b",
            "a b",
            "é",
            "x'",
            &"a".repeat(65),
        ] {
            let err = validate(bad).unwrap_err();
            assert_eq!(
                (err.code, err.sql_state.as_str()),
                (1102, "42000"),
                "{bad:?}"
            );
        }
        assert_eq!(validate("App_1$").unwrap(), "app_1$");
        assert_eq!(validate(&"a".repeat(64)).unwrap().len(), 64);
    }
}
