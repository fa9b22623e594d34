//! MySQL's function library as SQLite functions, written once in Rust with MySQL's edge cases,
//! and the collations. [`register`] installs them on a connection; the translation calls them
//! by their `my_` names with the arguments its types decided (a collation flag, a scale, a
//! strict-mode flag), so each function does one thing whatever SQLite's storage class is.
//!
//! A failure MySQL reports as an error (a BIGINT overflow, a value a strict-mode write
//! refuses) is a function error whose message starts `MySQL error NNNN: `; [`error_of`] reads it
//! back from a SQLite error.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use bigdecimal::{BigDecimal, RoundingMode, Signed, Zero};
use chrono::{Datelike, Local, NaiveDate, TimeZone, Timelike};
use rusqlite::functions::{Aggregate, Context, FunctionFlags, WindowAggregate};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Error};

use crate::collation::{self, fold};
use crate::dates::{self, Clock, TimeRead, Unit};
use crate::json;
use crate::types::{
    BIN_COLLATION, CI_COLLATION, Collation, DECIMAL_COLLATION, NAME_COLLATION, TIME_COLLATION,
};
use crate::value::Level;
use crate::value::{
    decimal_text, double_text, float_text, number_prefix, to_decimal, to_f64, to_i64, to_text,
};

/// An error a function reports as MySQL would.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MySQL error {code}: {message}")]
pub struct FnError {
    /// MySQL's error number.
    pub code: u16,
    /// MySQL's message.
    pub message: String,
}

/// A message naming a column that carries its row (`b` + [`crate::ROW_MARK`] + `3`, from a
/// VALUES list): the column's name alone, and that row where the message says `at row 1`.
fn with_row(message: String) -> String {
    let Some(mark) = message.find(crate::ROW_MARK) else {
        return message;
    };
    let after = &message[mark + crate::ROW_MARK.len_utf8()..];
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let row = &after[..digits];
    let rest = &after[digits..];
    let rest = match rest.find("at row 1") {
        Some(at) if !row.is_empty() => format!("{}at row {row}{}", &rest[..at], &rest[at + 8..]),
        _ => rest.to_owned(),
    };
    format!("{}{rest}", &message[..mark])
}

fn fail(code: u16, message: impl Into<String>) -> FnError {
    let message: String = with_row(message.into());
    FnError {
        code,
        // SQLite carries the message as a C string, which a NUL would cut; MySQL shows one
        // in a value as `\x00`.
        message: if message.contains('\0') {
            message.replace('\0', "\\x00")
        } else {
            message
        },
    }
}

/// Whether a condition's value fails a CHECK constraint: false, not NULL (a row passes unless
/// its condition is false, as in MySQL).
fn is_false(value: ValueRef<'_>) -> bool {
    match value {
        ValueRef::Integer(i) => i == 0,
        ValueRef::Real(r) => r == 0.0,
        _ => false,
    }
}

/// The MySQL error a function raised, from the SQLite error of the statement that called it.
pub fn error_of(err: &Error) -> Option<FnError> {
    let text = match err {
        Error::SqliteFailure(_, Some(message)) => message.as_str(),
        Error::UserFunctionError(inner) => return inner.downcast_ref::<FnError>().cloned(),
        _ => return None,
    };
    let rest = &text[text.find("MySQL error ")? + "MySQL error ".len()..];
    let (code, message) = rest.split_once(": ")?;
    Some(fail(code.parse().ok()?, message))
}

/// The arguments of one call.
struct Args<'a, 'b>(&'a Context<'b>);

impl Args<'_, '_> {
    fn v(&self, i: usize) -> ValueRef<'_> {
        if i < self.0.len() {
            self.0.get_raw(i)
        } else {
            ValueRef::Null
        }
    }
    fn text(&self, i: usize) -> Option<Cow<'_, str>> {
        to_text(self.v(i))
    }
    fn f64(&self, i: usize) -> Option<f64> {
        to_f64(self.v(i))
    }
    fn i64(&self, i: usize) -> Option<i64> {
        to_i64(self.v(i))
    }
    fn dec(&self, i: usize) -> Option<BigDecimal> {
        to_decimal(self.v(i))
    }
    fn moment(&self, i: usize) -> Option<dates::Moment> {
        dates::read(self.v(i))
    }
    /// A date that may have zero parts (`0000-00-00`).
    fn date_parts(&self, i: usize) -> Option<dates::DateParts> {
        dates::read_parts(self.v(i))
    }
    fn collation(&self, i: usize) -> Collation {
        if self.i64(i) == Some(1) {
            Collation::Ci
        } else {
            Collation::Bin
        }
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// `Some(x)` or return NULL from the function.
macro_rules! some {
    ($e:expr) => {
        match $e {
            Some(v) => v,
            None => return Ok(Value::Null),
        }
    };
}

/// Registers a scalar function: `n` arguments (-1 any), deterministic or not.
fn scalar(
    conn: &Connection,
    name: &str,
    n: i32,
    deterministic: bool,
    body: impl Fn(&Args<'_, '_>) -> Result<Value, FnError> + Send + 'static,
) -> rusqlite::Result<()> {
    let mut flags = FunctionFlags::SQLITE_UTF8;
    if deterministic {
        flags |= FunctionFlags::SQLITE_DETERMINISTIC;
    }
    conn.create_scalar_function(name, n, flags, move |ctx| {
        body(&Args(ctx)).map_err(|err| Error::UserFunctionError(Box::new(err)))
    })
}

/// The integer MySQL's CAST AS SIGNED/UNSIGNED reads from a value of kind `s` (text: its
/// integer prefix), `f` (DOUBLE: rounded half to even) or `n` (exact: rounded half up).
fn integer_of(v: ValueRef<'_>, kind: &str) -> Option<BigDecimal> {
    match (v, kind) {
        (ValueRef::Null, _) => None,
        (ValueRef::Integer(i), _) => Some(BigDecimal::from(i)),
        (_, "f") => BigDecimal::try_from(to_f64(v)?.round_ties_even()).ok(),
        (_, "s") => {
            let text = to_text(v)?.into_owned();
            let prefix = number_prefix(&text);
            let int_part: String = prefix
                .chars()
                .enumerate()
                .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
                .map(|(_, c)| c)
                .collect();
            Some(BigDecimal::from_str(&int_part).unwrap_or_default())
        }
        _ => Some(to_decimal(v)?.with_scale_round(0, RoundingMode::HalfUp)),
    }
}

/// A number rounded half up to an integer, as MySQL stores an exact or DOUBLE value into an
/// integer column; `None` for NULL, a non-number or one past BIGINT.
fn rounded_integer(v: ValueRef<'_>) -> Option<i64> {
    let rounded = integer_of(v, "n")?;
    i64::try_from(rounded.into_bigint_and_exponent().0).ok()
}

/// The 64 bits MySQL's HEX shows for an integral number: a negative BIGINT as its two's
/// complement, anything past BIGINT UNSIGNED or below BIGINT as all ones.
fn hex_integer(d: &BigDecimal) -> u64 {
    let (digits, _) = d.with_scale(0).into_bigint_and_exponent();
    if let Ok(u) = u64::try_from(&digits) {
        return u;
    }
    match i64::try_from(&digits) {
        Ok(i) => i as u64,
        Err(_) => u64::MAX,
    }
}

/// Whether a DATE_FORMAT pattern holds `%a`, `%b`, `%j`, `%M`, `%W` or `%w` (not `%%a`).
fn names_a_calendar_day(pattern: &str) -> bool {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '%' && matches!(chars.next(), Some('a' | 'b' | 'j' | 'M' | 'W' | 'w')) {
            return true;
        }
    }
    false
}

fn text_value(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

/// The per-session state the functions keep: user variables (`@a`) and the count of rows an
/// `INSERT … ON DUPLICATE KEY UPDATE` updated (MySQL counts each twice in the affected rows).
#[derive(Debug, Default, Clone)]
pub struct SessionState {
    variables: Arc<Mutex<HashMap<String, Value>>>,
    /// Whether `variables` may hold any: asked before every statement (whether the
    /// connection holds session state, and when it changes session) without the lock.
    any_variables: Arc<std::sync::atomic::AtomicBool>,
    upsert_updates: Arc<std::sync::atomic::AtomicU64>,
    /// What ROW_COUNT() and FOUND_ROWS() return, as the engine reports them after each
    /// statement; `None` until it has.
    counts: Arc<Mutex<StatementCounts>>,
    /// The row count of the table a REPLACE writes, before it (see `my_replace_count`).
    replace_before: Arc<std::sync::atomic::AtomicI64>,
    /// The session's connection id (CONNECTION_ID()), as the engine sets it.
    connection_id: Arc<std::sync::atomic::AtomicU64>,
    /// The server's version (VERSION()), as the engine sets it.
    version: Arc<Mutex<String>>,
    /// `SET autocommit = 0` is in force (`@@autocommit`, read by `my_autocommit()` when a
    /// statement runs), as the engine sets it.
    autocommit_off: Arc<std::sync::atomic::AtomicBool>,
    /// `@@in_transaction` as the engine sets it before each statement: 0, 1, or
    /// [`IN_TRANSACTION_UNKNOWN`].
    in_transaction: Arc<std::sync::atomic::AtomicU8>,
    /// The engine is numbering an insert's rows again (`Reservation::renumber_sql`), an UPDATE
    /// of rows MySQL only inserted: `my_renumbering()`, which keeps the ON UPDATE
    /// CURRENT_TIMESTAMP triggers from firing on them.
    renumbering: Arc<std::sync::atomic::AtomicBool>,
}

/// `@@in_transaction` while a transaction `autocommit = 0` opened is open: MariaDB shows 1 only
/// once a statement of it has read a table, which the engine does not follow.
const IN_TRANSACTION_UNKNOWN: u8 = 2;

/// One of the previous statement's counts, if the engine reported it.
type CountOf = fn(StatementCounts) -> Option<i64>;

fn saturating_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The previous statement's counts.
#[derive(Debug, Default, Clone, Copy)]
struct StatementCounts {
    row_count: Option<i64>,
    found_rows: Option<u64>,
    last_insert_id: Option<u64>,
    /// The value the statement running now gave LAST_INSERT_ID(expr), if it called it: the
    /// statement's OK packet reports it as its insert id, as MySQL's does.
    last_insert_id_argument: Option<u64>,
    /// The AUTO_INCREMENT value of the last row the INSERT running now processed, when it
    /// gives that column explicit values (`my_explicit_auto`, and the row an upsert updated):
    /// MySQL reports it as the statement's insert id.
    explicit_auto_value: Option<i64>,
}

impl SessionState {
    /// The connection id of the session the connection now serves (CONNECTION_ID()).
    pub fn set_connection_id(&self, id: u64) {
        self.connection_id
            .store(id, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the statements that run next number an insert's rows again
    /// ([`crate::Reservation::renumber_sql`]): set around them.
    pub fn set_renumbering(&self, on: bool) {
        self.renumbering
            .store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// The session's autocommit mode (`@@autocommit`).
    pub fn set_autocommit(&self, on: bool) {
        self.autocommit_off
            .store(!on, std::sync::atomic::Ordering::Relaxed);
    }

    /// `@@in_transaction` for the statements that run next: whether a transaction is open, or
    /// `None` while one that `autocommit = 0` opened is (refused then: MariaDB shows 1 there
    /// only once a statement of it has read a table).
    pub fn set_in_transaction(&self, open: Option<bool>) {
        self.in_transaction.store(
            open.map_or(IN_TRANSACTION_UNKNOWN, u8::from),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// The version the server reports (VERSION()).
    pub fn set_version(&self, version: &str) {
        version.clone_into(&mut self.version.lock().unwrap_or_else(|p| p.into_inner()));
    }

    /// After each statement: the affected rows of a write, 0 for DDL and session statements,
    /// -1 for a query or a statement that failed (MySQL's ROW_COUNT()).
    pub fn set_row_count(&self, rows: i64) {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .row_count = Some(rows);
    }

    /// After each query: the rows it returned, or for `SQL_CALC_FOUND_ROWS` the count of
    /// [`crate::Translation::found_rows`] (MySQL's FOUND_ROWS()).
    pub fn set_found_rows(&self, rows: u64) {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .found_rows = Some(rows);
    }

    /// After a statement that generated AUTO_INCREMENT values: the first of them (MySQL's
    /// LAST_INSERT_ID(), which a statement generating none leaves as it is).
    pub fn set_last_insert_id(&self, id: u64) {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .last_insert_id = Some(id);
    }

    /// Takes the value the statement that just ran gave LAST_INSERT_ID(expr), if it called it.
    pub fn take_last_insert_id_argument(&self) -> Option<u64> {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .last_insert_id_argument
            .take()
    }

    /// Takes the AUTO_INCREMENT value of the last row the statement that just ran processed,
    /// when it gave that column explicit values
    /// ([`Translation::explicit_auto_increment`](crate::Translation::explicit_auto_increment)).
    pub fn take_explicit_auto_value(&self) -> Option<i64> {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .explicit_auto_value
            .take()
    }

    /// After a query whose rows FOUND_ROWS() cannot count (`sql_select_limit` cut it): refused
    /// until the next query.
    pub fn forget_found_rows(&self) {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .found_rows = None;
    }

    fn counts(&self) -> StatementCounts {
        *self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes the count of rows upserts updated since the last call.
    pub fn take_upsert_updates(&self) -> u64 {
        self.upsert_updates
            .swap(0, std::sync::atomic::Ordering::Relaxed)
    }

    /// The value of `@name` (NULL when never set).
    pub fn get(&self, name: &str) -> Value {
        self.variables
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&name.to_lowercase())
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Sets `@name`.
    pub fn set(&self, name: &str, value: Value) {
        self.variables
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_lowercase(), value);
        self.any_variables
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether any user variable is set (session state a pooled connection must keep).
    pub fn has_variables(&self) -> bool {
        self.any_variables
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Forgets the user variables and the previous statement's counts, as for a new session:
    /// until the engine reports counts again, ROW_COUNT(), FOUND_ROWS() and LAST_INSERT_ID()
    /// are refused rather than answered with another session's.
    pub fn forget(&self) {
        if self
            .any_variables
            .swap(false, std::sync::atomic::Ordering::AcqRel)
        {
            self.variables
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clear();
        }
        *self.counts.lock().unwrap_or_else(|p| p.into_inner()) = StatementCounts::default();
        self.upsert_updates
            .store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Installs the collations, the function library and the aggregates on a connection; user
/// variables live in `variables` (one per client session).
pub fn register(conn: &Connection, variables: &SessionState) -> rusqlite::Result<()> {
    conn.create_collation(CI_COLLATION, |a, b| collation::compare(Collation::Ci, a, b))?;
    conn.create_collation(BIN_COLLATION, |a, b| {
        collation::compare(Collation::Bin, a, b)
    })?;
    conn.create_collation(NAME_COLLATION, collation::compare_names)?;
    conn.create_collation(TIME_COLLATION, dates::compare_times)?;
    conn.create_collation(DECIMAL_COLLATION, |a, b| {
        let a = BigDecimal::from_str(number_prefix(a)).unwrap_or_default();
        let b = BigDecimal::from_str(number_prefix(b)).unwrap_or_default();
        a.cmp(&b)
    })?;
    register_values(conn, variables)?;
    register_arithmetic(conn)?;
    register_strings(conn)?;
    register_json(conn)?;
    register_dates(conn)?;
    register_codes(conn)?;
    register_stores(conn)?;
    register_aggregates(conn)
}

fn register_values(conn: &Connection, variables: &SessionState) -> rusqlite::Result<()> {
    // The MySQL text of a typed value: code 'i', 'f' (DOUBLE), 'g' (FLOAT), 'dN' (DECIMAL).
    scalar(conn, "my_text", 2, true, |a| {
        let code = a.text(1).unwrap_or_default().into_owned();
        let v = a.v(0);
        if matches!(v, ValueRef::Null) {
            return Ok(Value::Null);
        }
        Ok(text_value(match code.as_str() {
            "f" => double_text(some!(to_f64(v))),
            "g" => float_text(some!(to_f64(v))),
            "i" => some!(to_i64(v)).to_string(),
            d if d.starts_with('d') => {
                decimal_text(&some!(to_decimal(v)), d[1..].parse().unwrap_or(0))
            }
            _ => some!(to_text(v)).into_owned(),
        }))
    })?;
    let state = variables.clone();
    scalar(conn, "my_renumbering", 0, false, move |_| {
        let on = state.renumbering.load(std::sync::atomic::Ordering::Relaxed);
        Ok(Value::Integer(i64::from(on)))
    })?;
    let state = variables.clone();
    scalar(conn, "my_autocommit", 0, false, move |_| {
        let off = state
            .autocommit_off
            .load(std::sync::atomic::Ordering::Relaxed);
        Ok(Value::Integer(i64::from(!off)))
    })?;
    let state = variables.clone();
    scalar(conn, "my_in_transaction", 0, false, move |_| {
        match state
            .in_transaction
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            IN_TRANSACTION_UNKNOWN => Err(fail(
                1235,
                "This version of MySQL doesn't yet support '@@in_transaction in a transaction \
                 autocommit = 0 opened'",
            )),
            open => Ok(Value::Integer(i64::from(open))),
        }
    })?;
    let vars = variables.clone();
    scalar(conn, "my_getvar", 1, false, move |a| {
        Ok(vars.get(&a.text(0).unwrap_or_default()))
    })?;
    let vars = variables.clone();
    scalar(conn, "my_setvar", 2, false, move |a| {
        let value = Value::from(a.v(1));
        vars.set(&a.text(0).unwrap_or_default(), value.clone());
        Ok(value)
    })?;
    let state = variables.clone();
    scalar(conn, "my_upsert_updated", 0, false, move |_| {
        state
            .upsert_updates
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Value::Integer(1))
    })?;
    // REPLACE counts a row for each row it inserts and each it deletes: the table's row count
    // is noted before the statement, and after it the difference is added to the upserts'
    // count (inserted + deleted = before + 2 * inserted - after).
    let state = variables.clone();
    scalar(conn, "my_replace_before", 1, false, move |a| {
        state
            .replace_before
            .store(a.i64(0).unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
        Ok(Value::Integer(1))
    })?;
    let state = variables.clone();
    scalar(conn, "my_replace_count", 2, false, move |a| {
        let before = state
            .replace_before
            .load(std::sync::atomic::Ordering::Relaxed);
        let (after, inserted) = (a.i64(0).unwrap_or(0), a.i64(1).unwrap_or(0));
        let counted = (before + 2 * inserted - after).max(0) as u64;
        state
            .upsert_updates
            .fetch_add(counted, std::sync::atomic::Ordering::Relaxed);
        Ok(Value::Null)
    })?;
    // ROW_COUNT() and FOUND_ROWS(): refused where the engine does not report the counts.
    let unreported = |f: &str| {
        fail(
            1235,
            format!("This version of MySQL doesn't yet support '{f} without the engine's count'"),
        )
    };
    let counts: [(&str, CountOf); 3] = [
        ("ROW_COUNT()", |c| c.row_count),
        ("FOUND_ROWS()", |c| c.found_rows.map(saturating_i64)),
        // Zero until a statement generates a value.
        ("LAST_INSERT_ID()", |c| {
            c.last_insert_id
                .map(saturating_i64)
                .or(c.row_count.map(|_| 0))
        }),
    ];
    for (f, count) in counts {
        let state = variables.clone();
        let name = format!("my_{}", f.trim_end_matches("()").to_ascii_lowercase());
        scalar(conn, &name, 0, false, move |_| {
            count(state.counts())
                .map(Value::Integer)
                .ok_or_else(|| unreported(f))
        })?;
    }
    // LAST_INSERT_ID(expr), its argument already an integer (`my_cast_signed`): returns it and
    // makes it what LAST_INSERT_ID() returns from now on, in this statement too (NULL sets 0), as
    // MySQL's does. MySQL shows a negative value as BIGINT UNSIGNED, past SQLite's INTEGER.
    let state = variables.clone();
    scalar(conn, "my_last_insert_id", 1, false, move |a| {
        let value = match a.v(0) {
            ValueRef::Integer(i) => Some(i),
            _ => None,
        };
        let id = u64::try_from(value.unwrap_or(0)).map_err(|_| {
            fail(
                1235,
                "This version of MySQL doesn't yet support 'LAST_INSERT_ID of a negative value'",
            )
        })?;
        let mut counts = state.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.last_insert_id = Some(id);
        counts.last_insert_id_argument = Some(id);
        Ok(value.map_or(Value::Null, Value::Integer))
    })?;
    let state = variables.clone();
    scalar(conn, "my_connection_id", 0, false, move |_| {
        Ok(Value::Integer(saturating_i64(
            state
                .connection_id
                .load(std::sync::atomic::Ordering::Relaxed),
        )))
    })?;
    let state = variables.clone();
    scalar(conn, "my_version", 0, false, move |_| {
        Ok(text_value(
            state
                .version
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        ))
    })?;
    // NULL into a NOT NULL column: MySQL's 1048 (where SQLite's REPLACE would take the default).
    scalar(conn, "my_not_null", 2, true, |a| {
        if matches!(a.v(0), ValueRef::Null) {
            return Err(fail(
                1048,
                format!("Column '{}' cannot be null", a.text(1).unwrap_or_default()),
            ));
        }
        Ok(Value::from(a.v(0)))
    })?;
    // my_store_enum(v, members, ci, strict, column): a member by its text (under the
    // column's collation, trailing spaces ignored) or by its index from 1, stored as the
    // member's declared text; anything else is 1265 in strict mode, else ''.
    scalar(conn, "my_store_enum", 5, true, |a| {
        let v = a.v(0);
        if matches!(v, ValueRef::Null) {
            return Ok(Value::Null);
        }
        let members = a.text(1).unwrap_or_default().into_owned();
        let members: Vec<&str> = members.split('\u{1f}').collect();
        let collation = if a.i64(2) == Some(1) {
            crate::types::Collation::Ci
        } else {
            crate::types::Collation::Bin
        };
        let by_index = |n: i64| {
            usize::try_from(n)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| members.get(i))
                .map(|m| m.to_string())
        };
        let found = match v {
            ValueRef::Integer(n) => by_index(n),
            ValueRef::Real(r) if r.fract() == 0.0 => by_index(r as i64),
            _ => {
                let text = some!(to_text(v)).into_owned();
                let kept = text.trim_end_matches(' ');
                members
                    .iter()
                    .find(|m| crate::collation::compare(collation, m, kept).is_eq())
                    .map(|m| m.to_string())
                    .or_else(|| {
                        kept.bytes()
                            .all(|b| b.is_ascii_digit())
                            .then(|| kept.parse::<i64>().ok())
                            .flatten()
                            .and_then(by_index)
                    })
            }
        };
        match found {
            Some(member) => Ok(text_value(member)),
            None if a.i64(3) == Some(1) => Err(fail(
                1265,
                format!(
                    "Data truncated for column '{}' at row 1",
                    a.text(4).unwrap_or_default()
                ),
            )),
            None => Ok(text_value(String::new())),
        }
    })?;
    // my_store_time(v, fsp, strict, column): a TIME value from `[-][D ]HH:MM:SS[.f]`, `HH:MM`,
    // `HHMMSS` (text or number) or a datetime's time of day, rounded to the column's `fsp`
    // fraction digits as MySQL rounds (MariaDB truncates); a value that is none, or outside
    // ±838:59:59, is 1292 in strict mode, else 00:00:00 or the nearest end of the range. It is
    // held as its text with `fsp` digits, which the TIME collation orders as durations.
    scalar(conn, "my_store_time", 4, true, |a| {
        let v = a.v(0);
        let fsp = a.i64(1).unwrap_or(0).clamp(0, 6) as u8;
        let strict = a.i64(2) == Some(1);
        let incorrect = || {
            Err(fail(
                1292,
                format!(
                    "Incorrect time value: '{}' for column '{}' at row 1",
                    to_text(v).unwrap_or_default(),
                    a.text(3).unwrap_or_default()
                ),
            ))
        };
        match dates::read_time(v) {
            TimeRead::Value(clock) => match clock.rounded(fsp) {
                Some(clock) => Ok(text_value(clock.text(fsp))),
                None if strict => incorrect(),
                None => Ok(text_value(dates::Clock::limit(clock.negative).text(fsp))),
            },
            TimeRead::Null if matches!(v, ValueRef::Null) => Ok(Value::Null),
            TimeRead::OutOfRange(_) if strict => incorrect(),
            TimeRead::OutOfRange(negative) => {
                Ok(text_value(dates::Clock::limit(negative).text(fsp)))
            }
            TimeRead::Unsupported(what) => Err(fail(
                1235,
                format!("This version of MySQL doesn't yet support '{what}'"),
            )),
            TimeRead::Null if strict => incorrect(),
            TimeRead::Null => Ok(text_value(dates::Clock::default().text(fsp))),
        }
    })?;
    // my_store_set(v, members, ci, strict, column): members named by a comma-separated text
    // (under the column's collation, each once) or by a bit mask, stored in declaration order;
    // an unknown member is 1265 in strict mode, else left out.
    scalar(conn, "my_store_set", 5, true, |a| {
        let v = a.v(0);
        if matches!(v, ValueRef::Null) {
            return Ok(Value::Null);
        }
        let members = a.text(1).unwrap_or_default().into_owned();
        let members: Vec<String> = members.split('\u{1f}').map(str::to_string).collect();
        let collation = if a.i64(2) == Some(1) {
            crate::types::Collation::Ci
        } else {
            crate::types::Collation::Bin
        };
        let strict = a.i64(3) == Some(1);
        let truncated = || {
            fail(
                1265,
                format!(
                    "Data truncated for column '{}' at row 1",
                    a.text(4).unwrap_or_default()
                ),
            )
        };
        let bits = match v {
            ValueRef::Integer(n) => Some(n),
            ValueRef::Real(r) if r.fract() == 0.0 => Some(r as i64),
            _ => None,
        };
        if let Some(n) = bits {
            let all = (1i64 << members.len().min(62)) - 1;
            if (n < 0 || n & !all != 0) && strict {
                return Err(truncated());
            }
            let chosen: Vec<&str> = members
                .iter()
                .enumerate()
                .filter(|(i, _)| n >> i & 1 == 1)
                .map(|(_, m)| m.as_str())
                .collect();
            return Ok(text_value(chosen.join(",")));
        }
        let text = some!(to_text(v)).into_owned();
        match crate::value::set_text(&text, &members, collation) {
            Ok(value) => Ok(text_value(value)),
            Err(kept) if !strict => Ok(text_value(kept)),
            Err(_) => Err(truncated()),
        }
    })?;
    // my_set_bits(v, members): a stored SET value's bit mask, the number MySQL sorts it by.
    scalar(conn, "my_set_bits", 2, true, |a| {
        let v = a.v(0);
        if matches!(v, ValueRef::Null) {
            return Ok(Value::Null);
        }
        let members = a.text(1).unwrap_or_default().into_owned();
        let text = some!(to_text(v)).into_owned();
        let bits = members
            .split('\u{1f}')
            .enumerate()
            .filter(|(_, m)| text.split(',').any(|t| t == *m))
            .fold(0i64, |b, (i, _)| b | 1 << i);
        Ok(Value::Integer(bits))
    })?;
    // my_alter_not_null(v, column, row): a NULL that an ALTER TABLE makes NOT NULL is MySQL's
    // truncation at the row it is in.
    scalar(conn, "my_alter_not_null", 3, true, |a| {
        if matches!(a.v(0), ValueRef::Null) {
            return Err(fail(
                1265,
                format!(
                    "Data truncated for column '{}' at row {}",
                    a.text(1).unwrap_or_default(),
                    a.i64(2).unwrap_or(1)
                ),
            ));
        }
        Ok(Value::from(a.v(0)))
    })?;
    // A view's SQLite stand-in (see `Translator::view_marker_sql`): a statement that reads it
    // instead of the view's translated SELECT (one run as SQLite text) is refused.
    scalar(conn, "my_view_stand_in", 1, false, |a| {
        Err::<Value, _>(fail(
            1235,
            format!(
                "This version of MySQL doesn't yet support 'the view {} in a statement that is \
                 not translated'",
                a.text(0).unwrap_or_default()
            ),
        ))
    })?;
    // A value the node does not know as MySQL would give it (a catalog column's): reading it
    // is 1235 naming it.
    scalar(conn, "my_unsupported", 1, false, |a| {
        Err::<Value, _>(fail(
            1235,
            format!(
                "This version of MySQL doesn't yet support '{}'",
                a.text(0).unwrap_or_default()
            ),
        ))
    })?;
    // A CHECK constraint with MySQL 8's name (`t_chk_n`) and error, as tables whose
    // declarations were written before their checks took MariaDB's names hold it.
    scalar(conn, "my_check", 2, true, |a| {
        if is_false(a.v(0)) {
            return Err(fail(
                3819,
                format!(
                    "Check constraint '{}' is violated.",
                    a.text(1).unwrap_or_default()
                ),
            ));
        }
        Ok(Value::Integer(1))
    })?;
    // A CHECK constraint: (condition, the name the error shows, database, table), failing with
    // MariaDB's 4025 when the condition is false (NULL passes).
    scalar(conn, "my_check_constraint", 4, true, |a| {
        if is_false(a.v(0)) {
            let name = |i| a.text(i).unwrap_or_default();
            return Err(fail(
                4025,
                format!(
                    "CONSTRAINT `{}` failed for `{}`.`{}`",
                    name(1),
                    name(2),
                    name(3)
                ),
            ));
        }
        Ok(Value::Integer(1))
    })?;
    // A value an INSERT giving explicit AUTO_INCREMENT values stores there: one that would
    // generate a value is refused (see `Translation::explicit_auto_increment`).
    let state = variables.clone();
    scalar(conn, "my_explicit_auto", 1, false, move |a| match a.v(0) {
        ValueRef::Null => Err(fail(
            1235,
            "This version of MySQL doesn't yet support 'an INSERT giving the AUTO_INCREMENT \
             column generated and explicit values'",
        )),
        v => {
            if let ValueRef::Integer(i) = v {
                state
                    .counts
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .explicit_auto_value = Some(i);
            }
            Ok(Value::from(v))
        }
    })?;
    // The row an upsert giving explicit AUTO_INCREMENT values updates: its value is the one
    // MySQL reports (in its ON CONFLICT … WHERE, true).
    let state = variables.clone();
    scalar(conn, "my_explicit_auto_updated", 1, false, move |a| {
        if let ValueRef::Integer(i) = a.v(0) {
            state
                .counts
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .explicit_auto_value = Some(i);
        }
        Ok(Value::Integer(1))
    })?;
    // Exact identity of two stored values (an UPDATE changes a row only when a value differs).
    scalar(conn, "my_same", 2, true, |a| {
        let same = match (a.v(0), a.v(1)) {
            (ValueRef::Null, ValueRef::Null) => true,
            (ValueRef::Integer(x), ValueRef::Integer(y)) => x == y,
            (ValueRef::Real(x), ValueRef::Real(y)) => x == y,
            (ValueRef::Integer(x), ValueRef::Real(y))
            | (ValueRef::Real(y), ValueRef::Integer(x)) => x as f64 == y,
            (ValueRef::Text(x), ValueRef::Text(y)) | (ValueRef::Blob(x), ValueRef::Blob(y)) => {
                x == y
            }
            _ => false,
        };
        Ok(Value::Integer(i64::from(same)))
    })?;
    // Comparisons whose operands need MySQL's conversion: -1, 0, 1 or NULL.
    scalar(conn, "my_dec_cmp", 2, true, |a| {
        Ok(ordering(some!(a.dec(0)).cmp(&some!(a.dec(1)))))
    })?;
    scalar(conn, "my_extreme", -1, true, extreme)?;
    scalar(conn, "my_rollup_varies", 0, false, |_| {
        Err(unsupported_fn(
            "GROUP BY … WITH ROLLUP showing a value that differs within a super-aggregate row",
        ))
    })?;
    // A string that is no datetime compares as the zero date, with MySQL's 1292.
    scalar(conn, "my_dt_cmp", 2, true, |a| {
        let side = |i: usize| -> Option<dates::DateParts> {
            match a.v(i) {
                ValueRef::Null => None,
                v => dates::read_parts(v).or_else(|| {
                    warn(
                        1292,
                        &format!(
                            "Truncated incorrect datetime value: '{}'",
                            to_text(v).unwrap_or_default()
                        ),
                    );
                    Some(dates::DateParts::ZERO)
                }),
            }
        };
        Ok(ordering(some!(side(0)).key().cmp(&some!(side(1)).key())))
    })?;
    scalar(conn, "my_dyn_cmp", 2, true, |a| {
        let (x, y) = (a.v(0), a.v(1));
        Ok(match (x, y) {
            (ValueRef::Null, _) | (_, ValueRef::Null) => Value::Null,
            (ValueRef::Text(s), ValueRef::Text(t)) => ordering(collation::compare(
                Collation::Ci,
                &String::from_utf8_lossy(s),
                &String::from_utf8_lossy(t),
            )),
            (ValueRef::Integer(i), ValueRef::Integer(j)) => ordering(i.cmp(&j)),
            _ => ordering(
                some!(to_f64(x))
                    .partial_cmp(&some!(to_f64(y)))
                    .unwrap_or(Ordering::Equal),
            ),
        })
    })?;
    // String comparison under a collation (1 ci, 0 bin), for operands built at run time.
    scalar(conn, "my_str_cmp", 3, true, |a| {
        Ok(ordering(collation::compare(
            a.collation(2),
            &some!(a.text(0)),
            &some!(a.text(1)),
        )))
    })?;
    scalar(conn, "my_like", 4, true, |a| {
        let escape = a.text(2).and_then(|e| e.chars().next());
        Ok(Value::Integer(i64::from(collation::like(
            a.collation(3),
            &some!(a.text(0)),
            &some!(a.text(1)),
            escape,
        ))))
    })?;
    scalar(conn, "my_regexp", 3, true, |a| {
        let ci = a.collation(2) == Collation::Ci;
        let text = some!(a.text(0)).into_owned();
        some!(a.text(1));
        let re =
            a.0.get_or_create_aux(1, |pattern| -> Result<regex::Regex, FnError> {
                let pattern = to_text(pattern).unwrap_or_default();
                regex::RegexBuilder::new(&pattern)
                    .case_insensitive(ci)
                    .build()
                    .map_err(|err| fail(1139, format!("Got error '{err}' from regexp")))
            })
            .map_err(|err| error_of(&err).unwrap_or_else(|| fail(1139, err.to_string())))?;
        Ok(Value::Integer(i64::from(re.is_match(&text))))
    })?;
    // CAST(x AS SIGNED): 's' reads a string's integer prefix, 'n' rounds a number; both clamp
    // to BIGINT as MySQL does.
    scalar(conn, "my_cast_signed", 2, true, |a| {
        if let ValueRef::Integer(i) = a.v(0) {
            return Ok(Value::Integer(i));
        }
        let kind = a.text(1).unwrap_or_default();
        let d = some!(integer_of(a.v(0), &kind.to_ascii_lowercase()));
        if kind.eq_ignore_ascii_case("s") {
            // A string's integer past BIGINT: MySQL reads up to BIGINT UNSIGNED's largest and
            // takes the 64 bits as signed (with a Note); past that, or below BIGINT, it is cut
            // to the nearest it holds (a truncation warning).
            let text = to_text(a.v(0)).unwrap_or_default().into_owned();
            let held = BigDecimal::from(i64::MIN)..=BigDecimal::from(u64::MAX);
            let too_big = !held.contains(&d);
            if too_big {
                let message = format!("Truncated incorrect INTEGER value: '{text}'");
                if kind == "S" {
                    return Err(fail(1292, message));
                }
                warn(1292, &message);
                return Ok(Value::Integer(if d.is_negative() { i64::MIN } else { -1 }));
            }
            warn_if_truncated(a.v(0), "INTEGER", true, kind == "S")?;
            if d > i64::MAX {
                raise(
                    Level::Note,
                    1105,
                    "Cast to signed converted positive out-of-range integer to it's negative \
                     complement",
                );
                let bits =
                    u64::try_from(d.with_scale(0).into_bigint_and_exponent().0).unwrap_or(u64::MAX);
                return Ok(Value::Integer(bits as i64));
            }
        }
        let clamped = d
            .clone()
            .clamp(BigDecimal::from(i64::MIN), BigDecimal::from(i64::MAX));
        if clamped != d
            && let ValueRef::Real(r) = a.v(0)
        {
            raise(
                Level::Note,
                1916,
                &format!(
                    "Got overflow when converting '{}' to SIGNED BIGINT. Value truncated",
                    crate::value::double_text(r)
                ),
            );
        }
        Ok(Value::Integer(
            i64::try_from(clamped.with_scale(0).into_bigint_and_exponent().0).unwrap_or(0),
        ))
    })?;
    // CAST(x AS UNSIGNED): a value SQLite's INTEGER holds, or refused (a negative one wraps
    // past BIGINT in MySQL).
    scalar(conn, "my_cast_unsigned", 2, true, |a| {
        let kind = a.text(1).unwrap_or_default();
        let d = some!(integer_of(a.v(0), &kind.to_ascii_lowercase()));
        if kind.eq_ignore_ascii_case("s") {
            warn_if_truncated(a.v(0), "INTEGER", true, kind == "S")?;
        }
        let strict = kind.chars().all(|c| c.is_ascii_uppercase());
        match i64::try_from(d.with_scale(0).into_bigint_and_exponent().0) {
            Ok(i) if i >= 0 => Ok(Value::Integer(i)),
            // A negative DECIMAL or DOUBLE is 0 with MySQL's 1916 (a DOUBLE's at the level
            // Note); a negative integer or string wraps past BIGINT.
            Ok(_)
                if matches!(a.v(0), ValueRef::Text(_) | ValueRef::Real(_))
                    && !kind.eq_ignore_ascii_case("s") =>
            {
                let (shown, target, level) = match a.v(0) {
                    ValueRef::Real(r) => {
                        (crate::value::double_text(r), "UNSIGNED BIGINT", Level::Note)
                    }
                    v => (
                        to_text(v).unwrap_or_default().into_owned(),
                        "UNSIGNED INT",
                        Level::Warning,
                    ),
                };
                let message =
                    format!("Got overflow when converting '{shown}' to {target}. Value truncated");
                if strict && level == Level::Warning {
                    return Err(fail(1916, message));
                }
                raise(level, 1916, &message);
                Ok(Value::Integer(0))
            }
            _ => Err(fail(
                1235,
                "This version of MySQL doesn't yet support 'CAST AS UNSIGNED beyond BIGINT'",
            )),
        }
    })?;
    // Arithmetic on values typed at run time (user variables, arguments): integers stay exact,
    // anything else is DOUBLE; a string that is not a number is MySQL's 0.
    scalar(conn, "my_dyn_arith", 4, true, |a| {
        let op = some!(a.text(0)).into_owned();
        let (x, y) = (a.v(1), a.v(2));
        if matches!(x, ValueRef::Null) || matches!(y, ValueRef::Null) {
            return Ok(Value::Null);
        }
        if let (ValueRef::Integer(i), ValueRef::Integer(j)) = (x, y) {
            let r = match op.as_str() {
                "+" => i.checked_add(j),
                "-" => i.checked_sub(j),
                "*" => i.checked_mul(j),
                "%" if j == 0 => return zero_divisor(a.i64(3)),
                "%" => i.checked_rem(j),
                _ => {
                    return Err(fail(
                        1235,
                        "This version of MySQL doesn't yet support 'division of a user variable'",
                    ));
                }
            };
            return r.map(Value::Integer).ok_or_else(|| {
                fail(
                    1690,
                    format!("BIGINT value is out of range in '({i} {op} {j})'"),
                )
            });
        }
        if matches!(x, ValueRef::Text(_)) || matches!(y, ValueRef::Text(_)) {
            return Err(fail(
                1235,
                "This version of MySQL doesn't yet support 'arithmetic on a string user variable'",
            ));
        }
        let (i, j) = (some!(to_f64(x)), some!(to_f64(y)));
        Ok(Value::Real(match op.as_str() {
            "+" => i + j,
            "-" => i - j,
            "*" => i * j,
            "/" if j == 0.0 => return zero_divisor(a.i64(3)),
            "/" => i / j,
            "%" if j == 0.0 => return zero_divisor(a.i64(3)),
            _ => i % j,
        }))
    })?;
    // my_cast_decimal(x, precision, scale, strict, shown): a value past the type is MySQL's
    // largest of it, with 1264 naming the cast (the statement's error in a strict write).
    scalar(conn, "my_cast_decimal", 5, true, |a| {
        let d = some!(a.dec(0));
        let strict = a.i64(3) == Some(1);
        warn_if_truncated(a.v(0), "DECIMAL", false, strict)?;
        let (p, s) = (some!(a.i64(1)), some!(a.i64(2)));
        let limit = BigDecimal::from(10).powi(p - s) - BigDecimal::new(1.into(), s);
        let rounded = d.with_scale_round(s, RoundingMode::HalfUp);
        let clamped = if rounded.abs() > limit {
            let message = format!(
                "Out of range value for column '{}' at row 1",
                a.text(4).unwrap_or_default()
            );
            if strict {
                return Err(fail(1264, message));
            }
            warn(1264, &message);
            if rounded.is_negative() { -limit } else { limit }
        } else {
            rounded
        };
        Ok(text_value(decimal_text(&clamped, s)))
    })?;
    // my_store_bytes(v, length, fixed, strict, column): a value stored into a BINARY(n),
    // VARBINARY(n) or BLOB column: one longer than the column is 1406 in strict mode (cut
    // with 1265 otherwise); a BINARY(n) one is padded with zero bytes.
    scalar(conn, "my_store_bytes", 5, true, |a| {
        let mut bytes = match a.v(0) {
            ValueRef::Null => return Ok(Value::Null),
            ValueRef::Blob(b) | ValueRef::Text(b) => b.to_vec(),
            other => to_text(other).unwrap_or_default().into_owned().into_bytes(),
        };
        let length = usize::try_from(some!(a.i64(1))).unwrap_or(usize::MAX);
        if bytes.len() > length {
            let column = a.text(4).unwrap_or_default().into_owned();
            if a.i64(3) == Some(1) {
                return Err(fail(
                    1406,
                    format!("Data too long for column '{column}' at row 1"),
                ));
            }
            warn(
                1265,
                &format!("Data truncated for column '{column}' at row 1"),
            );
            bytes.truncate(length);
        }
        if a.i64(2) == Some(1) {
            bytes.resize(length, 0);
        }
        Ok(Value::Blob(bytes))
    })?;
    // CAST(x AS BINARY(n)): x's bytes cut to n (with MySQL's warning) or padded with zeros.
    scalar(conn, "my_cast_binary", 2, true, |a| {
        // MySQL cuts a text of characters of several bytes at a count of characters.
        if let ValueRef::Text(t) = a.v(0)
            && !t.is_ascii()
        {
            return Err(unsupported_fn(
                "CAST AS BINARY(n) of text with characters of several bytes",
            ));
        }
        let mut bytes = match a.v(0) {
            ValueRef::Null => return Ok(Value::Null),
            ValueRef::Blob(b) | ValueRef::Text(b) => b.to_vec(),
            other => to_text(other).unwrap_or_default().into_owned().into_bytes(),
        };
        let n = usize::try_from(some!(a.i64(1))).unwrap_or(0);
        if bytes.len() > n {
            warn(
                1292,
                &format!(
                    "Truncated incorrect BINARY({n}) value: '{}'",
                    String::from_utf8_lossy(&bytes)
                ),
            );
            bytes.truncate(n);
        }
        bytes.resize(n, 0);
        Ok(Value::Blob(bytes))
    })?;
    // CAST(x AS CHAR(n)): x's text cut to n characters, with MySQL's warning when cut.
    // my_cast_char(x, n, strict): in a strict write the cut is the statement's error.
    scalar(conn, "my_cast_char", 3, true, |a| {
        let text = some!(to_text(a.v(0))).into_owned();
        let n = usize::try_from(some!(a.i64(1))).unwrap_or(0);
        match text.char_indices().nth(n) {
            None => Ok(text_value(text)),
            Some((cut, _)) => {
                let message = format!("Truncated incorrect CHAR({n}) value: '{text}'");
                if a.i64(2) == Some(1) {
                    return Err(fail(1292, message));
                }
                warn(1292, &message);
                Ok(text_value(text[..cut].to_owned()))
            }
        }
    })?;
    // A DOUBLE literal, as the bits of the double MySQL reads it as (see `expr::literal`).
    scalar(conn, "my_double_of_bits", 1, true, |a| {
        Ok(Value::Real(f64::from_bits(some!(a.i64(0)) as u64)))
    })?;
    scalar(conn, "my_cast_double", 1, true, |a| {
        let value = some!(a.f64(0));
        warn_if_truncated(a.v(0), "DOUBLE", false, false)?;
        Ok(Value::Real(value))
    })?;
    scalar(conn, "my_cast_double_strict", 1, true, |a| {
        if let ValueRef::Text(_) | ValueRef::Blob(_) = a.v(0) {
            let text = some!(a.text(0)).into_owned();
            let trimmed = text.trim_matches(' ');
            let prefix = number_prefix(trimmed);
            if prefix.is_empty() || prefix.len() != trimmed.len() {
                return Err(fail(
                    1292,
                    format!("Truncated incorrect DOUBLE value: '{text}'"),
                ));
            }
        }
        Ok(Value::Real(some!(a.f64(0))))
    })?;
    Ok(())
}

/// A value read as a date; one that is none (not NULL) is MySQL's 1292 "Incorrect datetime
/// value", a warning (and `None`), or the error in a strict write.
/// `flags`: 1 in a strict write, and NO_ZERO_DATE's and NO_ZERO_IN_DATE's flags (their dates
/// are none).
fn date_or_warning(v: ValueRef<'_>, flags: i64) -> Result<Option<dates::DateParts>, FnError> {
    let strict = flags & 1 == 1;
    if matches!(v, ValueRef::Null) {
        return Ok(None);
    }
    // A number with a fraction (a DOUBLE, or a DECIMAL's text): its whole number read as a
    // date, the fraction the time's microseconds, or dropped with MySQL's Note where the number
    // has no time. (A DOUBLE's fraction has no exact digits to read as microseconds.)
    let with_fraction = match v {
        ValueRef::Real(r) if r.fract() != 0.0 => {
            if r.abs() >= 1e8 {
                return Err(unsupported_fn(
                    "a DOUBLE with a fraction read as a datetime",
                ));
            }
            // Below 10^8 a number has no time, so only whether it has a fraction matters:
            // any non-zero digit stands for it.
            Some((r.trunc() as i64, "5".to_owned()))
        }
        ValueRef::Text(t) if flags & i64::from(dates::NUMBER_TEXT) != 0 => {
            let text = String::from_utf8_lossy(t);
            let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
            let Ok(whole) = whole.parse::<i64>() else {
                return Err(unsupported_fn("a DECIMAL past BIGINT read as a date"));
            };
            Some((whole, fraction.trim_end_matches('0').to_owned()))
        }
        _ => None,
    };
    let shown_value = v;
    let v = match &with_fraction {
        Some((whole, _)) => ValueRef::Integer(*whole),
        None => v,
    };
    if let Some((whole, fraction)) = &with_fraction
        && !fraction.is_empty()
        && let Some(mut parts) = dates::read_parts(v).filter(|d| !d.refused_by(flags))
    {
        if !parts.has_time {
            if *whole != 0 {
                raise(
                    Level::Note,
                    1292,
                    &format!("Truncated incorrect date value: '{}'", shown(shown_value)),
                );
            }
            return Ok(Some(parts));
        }
        // Digits past the sixth are dropped, without a note.
        let fraction = &fraction[..fraction.len().min(6)];
        parts.micros = format!("{fraction:0<6}").parse().unwrap_or(0);
        parts.fsp = fraction.len() as u8;
        return Ok(Some(parts));
    }
    let read = dates::read_parts(v).filter(|d| !d.refused_by(flags));
    if let Some(parts) = read {
        return Ok(Some(parts));
    }
    // A date followed by other text (`1000-1-1x`): MySQL reads the date with a truncation
    // warning, which the node does not reproduce; nor its reading of digits of other lengths
    // than 6, 8, 12 and 14 (`'43011'` is 2043-01-01).
    if let ValueRef::Text(t) | ValueRef::Blob(t) = v {
        let text = String::from_utf8_lossy(t);
        let trimmed = text.trim();
        if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit()) {
            return Err(unsupported_fn("a date written as digits of this length"));
        }
        // (A prefix ending inside a number is no date: `2024-02-3` of `2024-02-30`.)
        let read_prefix = (1..trimmed.len()).rev().any(|end| {
            trimmed.is_char_boundary(end)
                && !trimmed.as_bytes()[end].is_ascii_digit()
                && dates::read_parts(ValueRef::Text(&trimmed.as_bytes()[..end])).is_some()
        });
        if read_prefix {
            return Err(unsupported_fn("a date with other text after it"));
        }
    }
    let message = format!("Incorrect datetime value: '{}'", shown(shown_value));
    if strict {
        return Err(fail(1292, message));
    }
    warn(1292, &message);
    Ok(None)
}

/// A value as MySQL's date warnings show it.
fn shown(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => crate::value::double_text(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Null => String::new(),
    }
}

/// Argument `i` read as a TIME: `None` for NULL or an invalid time (MySQL's NULL), or the
/// refusal of a form this does not read as MySQL does.
fn time_arg(a: &Args<'_, '_>, i: usize) -> Result<Option<Clock>, FnError> {
    match dates::read_time(a.v(i)) {
        TimeRead::Value(clock) => Ok(Some(clock)),
        TimeRead::Null => Ok(None),
        TimeRead::OutOfRange(_) => Err(unsupported_fn("a TIME value beyond 838:59:59")),
        TimeRead::Unsupported(what) => Err(unsupported_fn(what)),
    }
}

/// A PERIOD_ADD or PERIOD_DIFF period (`YYMM` or `YYYYMM`) as a count of months, as MySQL
/// reads it: a two-digit year before 70 is 20YY, after it 19YY; 0 is no period (0 months). A
/// negative or longer period, or a month part outside 1 to 12 (MySQL 8 refuses it, MariaDB
/// reads on), is 1235.
fn period_months(period: i64) -> Result<i64, FnError> {
    if period == 0 {
        return Ok(0);
    }
    if !(1..=999_999).contains(&period) || !(1..=12).contains(&(period % 100)) {
        return Err(unsupported_fn(
            "a period other than YYMM or YYYYMM with a month from 1 to 12",
        ));
    }
    let year = match period / 100 {
        y if y < 70 => y + 2000,
        y if y < 100 => y + 1900,
        y => y,
    };
    Ok(year * 12 + period % 100 - 1)
}

/// A count of months as a period `YYYYMM` (0 stays 0; a year before 100 reads as two digits).
fn months_period(months: i64) -> i64 {
    if months == 0 {
        return 0;
    }
    let year = match months / 12 {
        y if y < 70 => y + 2000,
        y if y < 100 => y + 1900,
        y => y,
    };
    year * 100 + months % 12 + 1
}

/// A TIME result: its text, which must sort and compare as the time does wherever the
/// translation compares TIME values natively (as a TIME column's does), so a negative one or
/// one past 99:59:59 is refused.
fn time_value(clock: Clock, fsp: u8) -> Result<Value, FnError> {
    if clock.negative && (clock.seconds > 0 || clock.micros > 0) {
        return Err(unsupported_fn("negative TIME values"));
    }
    if clock.seconds >= 100 * 3600 {
        return Err(unsupported_fn("TIME values past 99:59:59"));
    }
    Ok(text_value(clock.text(fsp)))
}

/// MySQL's unsupported-feature error (1235) naming `what`.
fn unsupported_fn(what: &str) -> FnError {
    fail(
        1235,
        format!("This version of MySQL doesn't yet support '{what}'"),
    )
}

fn ordering(o: Ordering) -> Value {
    Value::Integer(match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}

/// `my_extreme(kind, greatest, value, …)`: GREATEST (`greatest` 1) or LEAST of values of
/// mixed types, compared as `kind` says: `d` exact decimals, `f` DOUBLEs (a string read as
/// MySQL reads a number), `b` bytes, `D` dates and `T` datetimes (a string that is no date is
/// the zero date, the least, as MySQL reads it). NULL when any value is NULL. A number or bytes
/// comes back as it is; a date or datetime in its format (a datetime with the most fraction
/// digits of the values).
fn extreme(a: &Args<'_, '_>) -> Result<Value, FnError> {
    let kind = some!(a.text(0)).into_owned();
    let greatest = a.i64(1) == Some(1);
    let values: Vec<ValueRef<'_>> = (2..a.len()).map(|i| a.v(i)).collect();
    if values.iter().any(|v| matches!(v, ValueRef::Null)) {
        return Ok(Value::Null);
    }
    let pick = |order: &dyn Fn(usize, usize) -> Ordering| {
        (1..values.len()).fold(0, |best, i| {
            let o = order(i, best);
            if (greatest && o == Ordering::Greater) || (!greatest && o == Ordering::Less) {
                i
            } else {
                best
            }
        })
    };
    Ok(match kind.as_str() {
        "d" => {
            let ds: Vec<BigDecimal> = values
                .iter()
                .map(|v| to_decimal(*v))
                .collect::<Option<_>>()
                .unwrap_or_default();
            Value::from(values[pick(&|i, j| ds[i].cmp(&ds[j]))])
        }
        "f" => {
            let fs: Vec<f64> = values.iter().map(|v| to_f64(*v).unwrap_or(0.0)).collect();
            Value::Real(fs[pick(&|i, j| fs[i].total_cmp(&fs[j]))])
        }
        "b" => {
            let bytes = |v: &ValueRef<'_>| match v {
                ValueRef::Text(t) | ValueRef::Blob(t) => t.to_vec(),
                other => to_text(*other)
                    .unwrap_or_default()
                    .into_owned()
                    .into_bytes(),
            };
            let bs: Vec<Vec<u8>> = values.iter().map(bytes).collect();
            Value::from(values[pick(&|i, j| bs[i].cmp(&bs[j]))])
        }
        _ => {
            let dates: Vec<Option<dates::DateParts>> =
                values.iter().map(|v| dates::read_parts(*v)).collect();
            let best = pick(&|i, j| match (&dates[i], &dates[j]) {
                (Some(x), Some(y)) => x.key().cmp(&y.key()),
                (x, y) => x.is_some().cmp(&y.is_some()),
            });
            let fsp = dates.iter().flatten().map(|d| d.fsp).max().unwrap_or(0);
            text_value(match (&dates[best], kind.as_str()) {
                (None, "D") => "0000-00-00".to_string(),
                (None, _) => "0000-00-00 00:00:00".to_string(),
                (Some(d), "D") => d.date_text(),
                (Some(d), _) => d.datetime_text(fsp),
            })
        }
    })
}

fn register_arithmetic(conn: &Connection) -> rusqlite::Result<()> {
    let int_op = |name: &'static str, op: fn(i64, i64) -> Option<i64>, sign: &'static str| {
        scalar(conn, name, 2, true, move |a| {
            let (x, y) = (some!(a.i64(0)), some!(a.i64(1)));
            op(x, y).map(Value::Integer).ok_or_else(|| {
                fail(
                    1690,
                    format!("BIGINT value is out of range in '({x} {sign} {y})'"),
                )
            })
        })
    };
    int_op("my_iadd", i64::checked_add, "+")?;
    int_op("my_isub", i64::checked_sub, "-")?;
    int_op("my_imul", i64::checked_mul, "*")?;
    // With an UNSIGNED operand the result is BIGINT UNSIGNED: negative is out of range.
    let unsigned_op = |name: &'static str, op: fn(i64, i64) -> Option<i64>, sign: &'static str| {
        scalar(conn, name, 2, true, move |a| {
            let (x, y) = (some!(a.i64(0)), some!(a.i64(1)));
            op(x, y)
                .filter(|r| *r >= 0)
                .map(Value::Integer)
                .ok_or_else(|| {
                    fail(
                        1690,
                        format!("BIGINT UNSIGNED value is out of range in '({x} {sign} {y})'"),
                    )
                })
        })
    };
    unsigned_op("my_uadd", i64::checked_add, "+")?;
    unsigned_op("my_usub", i64::checked_sub, "-")?;
    unsigned_op("my_umul", i64::checked_mul, "*")?;
    // Exact DECIMAL arithmetic. The result keeps every digit (a quotient's as MySQL computes
    // it); the client's text rounds it to the expression's scale (the last argument, kept for
    // the call's signature).
    let dec_op = |name: &'static str, op: fn(BigDecimal, BigDecimal) -> BigDecimal| {
        scalar(conn, name, 3, true, move |a| {
            let r = op(some!(a.dec(0)), some!(a.dec(1)));
            Ok(text_value(r.to_plain_string()))
        })
    };
    dec_op("my_dec_add", |x, y| x + y)?;
    dec_op("my_dec_sub", |x, y| x - y)?;
    dec_op("my_dec_mul", |x, y| x * y)?;
    // Division: scale, then the strict flag (1 in a write: division by zero is error 1365).
    scalar(conn, "my_dec_div", 4, true, |a| {
        let (x, y) = (some!(a.dec(0)), some!(a.dec(1)));
        if y.is_zero() {
            return zero_divisor(a.i64(3));
        }
        // MySQL divides to the dividend's fraction digits plus four, rounded up to whole
        // 9-digit words, truncated; the expression's scale rounds it only when shown.
        let internal = (x.fractional_digit_count().max(0) + 4 + 8) / 9 * 9;
        let q = (x / y).with_scale_round(internal, RoundingMode::Down);
        Ok(text_value(q.to_plain_string()))
    })?;
    scalar(conn, "my_dec_mod", 4, true, |a| {
        let (x, y) = (some!(a.dec(0)), some!(a.dec(1)));
        if y.is_zero() {
            return zero_divisor(a.i64(3));
        }
        Ok(decimal_value(&(x % y), some!(a.i64(2))))
    })?;
    scalar(conn, "my_dbl_div", 3, true, |a| {
        let (x, y) = (some!(a.f64(0)), some!(a.f64(1)));
        if y == 0.0 {
            return zero_divisor(a.i64(2));
        }
        Ok(Value::Real(x / y))
    })?;
    scalar(conn, "my_dbl_mod", 3, true, |a| {
        let (x, y) = (some!(a.f64(0)), some!(a.f64(1)));
        if y == 0.0 {
            return zero_divisor(a.i64(2));
        }
        Ok(Value::Real(x % y))
    })?;
    scalar(conn, "my_intdiv", 3, true, |a| {
        let (x, y) = (some!(a.dec(0)), some!(a.dec(1)));
        if y.is_zero() {
            return zero_divisor(a.i64(2));
        }
        let q = (x / y).with_scale_round(0, RoundingMode::Down);
        i64::try_from(q.into_bigint_and_exponent().0)
            .map(Value::Integer)
            .map_err(|_| fail(1690, "BIGINT value is out of range in DIV"))
    })?;
    // The key SUM(DISTINCT …) and AVG(DISTINCT …) of exact values compare: the value rounded to
    // the argument's scale, as text with exactly that many digits.
    scalar(conn, "my_dec_key", 2, true, |a| {
        Ok(text_value(decimal_text(&some!(a.dec(0)), some!(a.i64(1)))))
    })?;
    scalar(conn, "my_dec_neg", 2, true, |a| {
        Ok(text_value((-some!(a.dec(0))).to_plain_string()))
    })?;
    scalar(conn, "my_dec_abs", 2, true, |a| {
        Ok(text_value(some!(a.dec(0)).abs().to_plain_string()))
    })?;
    // ROUND, TRUNCATE, CEIL, FLOOR by kind: 'i' integer, 'd' decimal, 'f' double.
    // MySQL rounds a DOUBLE half to even at the digit (rint), a DECIMAL half away from zero.
    type OnDouble = fn(f64) -> f64;
    let to_digits: [(&str, RoundingMode, OnDouble); 2] = [
        ("my_round", RoundingMode::HalfUp, f64::round_ties_even),
        ("my_truncate", RoundingMode::Down, f64::trunc),
    ];
    for (name, mode, on_double) in to_digits {
        scalar(conn, name, 3, true, move |a| {
            let digits = some!(a.i64(1)).clamp(-80, 30);
            match a.text(2).as_deref() {
                Some("f") => {
                    let x = some!(a.f64(0));
                    let m = 10f64.powi(digits.clamp(-308, 308) as i32);
                    Ok(Value::Real(on_double(x * m) / m))
                }
                _ => {
                    let r = some!(a.dec(0)).with_scale_round(digits, mode);
                    Ok(decimal_value(&r, digits.max(0)))
                }
            }
        })?;
    }
    scalar(conn, "my_ceil", 2, true, |a| match a.text(1).as_deref() {
        Some("f") => Ok(Value::Real(some!(a.f64(0)).ceil())),
        _ => Ok(decimal_value(
            &some!(a.dec(0)).with_scale_round(0, RoundingMode::Ceiling),
            0,
        )),
    })?;
    scalar(conn, "my_floor", 2, true, |a| match a.text(1).as_deref() {
        Some("f") => Ok(Value::Real(some!(a.f64(0)).floor())),
        _ => Ok(decimal_value(
            &some!(a.dec(0)).with_scale_round(0, RoundingMode::Floor),
            0,
        )),
    })?;
    let real_fn = |name: &'static str, f: fn(f64) -> Option<f64>| {
        scalar(conn, name, 1, true, move |a| {
            Ok(f(some!(a.f64(0))).map_or(Value::Null, Value::Real))
        })
    };
    real_fn("my_sqrt", |x| (x >= 0.0).then(|| x.sqrt()))?;
    real_fn("my_ln", |x| (x > 0.0).then(|| x.ln()))?;
    real_fn("my_log10", |x| (x > 0.0).then(|| x.log10()))?;
    real_fn("my_log2", |x| (x > 0.0).then(|| x.log2()))?;
    real_fn("my_exp", |x| Some(x.exp()))?;
    real_fn("my_sin", |x| Some(x.sin()))?;
    real_fn("my_cos", |x| Some(x.cos()))?;
    real_fn("my_tan", |x| Some(x.tan()))?;
    real_fn("my_asin", |x| (-1.0..=1.0).contains(&x).then(|| x.asin()))?;
    real_fn("my_acos", |x| (-1.0..=1.0).contains(&x).then(|| x.acos()))?;
    real_fn("my_atan", |x| Some(x.atan()))?;
    real_fn("my_degrees", |x| Some(x.to_degrees()))?;
    real_fn("my_radians", |x| Some(x.to_radians()))?;
    scalar(conn, "my_atan2", 2, true, |a| {
        Ok(Value::Real(some!(a.f64(0)).atan2(some!(a.f64(1)))))
    })?;
    scalar(conn, "my_cot", 1, true, |a| {
        let x = some!(a.f64(0));
        let r = 1.0 / x.tan();
        if r.is_finite() {
            Ok(Value::Real(r))
        } else {
            Err(fail(
                1690,
                format!("DOUBLE value is out of range in 'cot({})'", double_text(x)),
            ))
        }
    })?;
    scalar(conn, "my_log", 2, true, |a| {
        let (b, x) = (some!(a.f64(0)), some!(a.f64(1)));
        Ok(if b > 0.0 && b != 1.0 && x > 0.0 {
            Value::Real(x.ln() / b.ln())
        } else {
            Value::Null
        })
    })?;
    scalar(conn, "my_pow", 2, true, |a| {
        let r = some!(a.f64(0)).powf(some!(a.f64(1)));
        if r.is_finite() {
            Ok(Value::Real(r))
        } else {
            Err(fail(1690, "DOUBLE value is out of range in 'pow'"))
        }
    })?;
    scalar(conn, "my_sign", 1, true, |a| {
        Ok(Value::Integer(match some!(a.dec(0)).sign() {
            bigdecimal::num_bigint::Sign::Minus => -1,
            bigdecimal::num_bigint::Sign::NoSign => 0,
            bigdecimal::num_bigint::Sign::Plus => 1,
        }))
    })?;
    // MySQL reads the number unsigned (a minus sign wraps it, too many digits are all ones) or,
    // for a negative source base, signed (clamped to BIGINT); a negative target base shows it
    // signed. An empty string is NULL.
    scalar(conn, "my_conv", 3, true, |a| {
        let text = some!(a.text(0)).to_string();
        let (from, to) = (some!(a.i64(1)), some!(a.i64(2)));
        if !(2..=36).contains(&from.abs()) || !(2..=36).contains(&to.abs()) || text.is_empty() {
            return Ok(Value::Null);
        }
        let body = text.trim_start();
        let (negative, body) = match body.as_bytes().first() {
            Some(b'-') => (true, &body[1..]),
            Some(b'+') => (false, &body[1..]),
            _ => (false, body),
        };
        let base = from.unsigned_abs() as u32;
        let mut magnitude: u128 = 0;
        for c in body.chars() {
            let Some(d) = c.to_digit(base) else { break };
            magnitude =
                (magnitude * u128::from(base) + u128::from(d)).min(u128::from(u64::MAX) + 1);
        }
        let bits: u64 = if from < 0 {
            let m = i128::try_from(magnitude).unwrap_or(i128::MAX);
            let v = if negative { -m } else { m };
            v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64 as u64
        } else if magnitude > u128::from(u64::MAX) {
            u64::MAX
        } else if negative {
            (magnitude as u64).wrapping_neg()
        } else {
            magnitude as u64
        };
        let base = to.unsigned_abs() as u32;
        Ok(text_value(if to < 0 && (bits as i64) < 0 {
            format!("-{}", radix((bits as i64).unsigned_abs(), base))
        } else {
            radix(bits, base)
        }))
    })?;

    Ok(())
}

/// A DECIMAL result: an integer when it has no fraction and fits, else its text.
fn decimal_value(d: &BigDecimal, scale: i64) -> Value {
    if scale == 0
        && let Ok(i) = i64::try_from(d.with_scale(0).into_bigint_and_exponent().0)
    {
        return Value::Integer(i);
    }
    text_value(decimal_text(d, scale))
}

fn zero_divisor(strict: Option<i64>) -> Result<Value, FnError> {
    if strict == Some(1) {
        Err(fail(1365, "Division by 0"))
    } else {
        warn(1365, "Division by 0");
        Ok(Value::Null)
    }
}

/// A warning the function library raised while a statement ran (MySQL's `SHOW WARNINGS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FnWarning {
    /// `Note` or `Warning`.
    pub level: Level,
    /// MySQL's code.
    pub code: u16,
    /// MySQL's message.
    pub message: String,
}

/// Warnings kept per thread at most: MySQL keeps `max_error_count` (64) of a statement's.
const MAX_FN_WARNINGS: usize = 64;

thread_local! {
    /// The warnings of the statement running on this thread. SQLite calls a function on the
    /// thread that steps the statement, so the engine takes them after stepping it there.
    static WARNINGS: std::cell::RefCell<Vec<FnWarning>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn warn(code: u16, message: &str) {
    raise(Level::Warning, code, message);
}

fn raise(level: Level, code: u16, message: &str) {
    WARNINGS.with(|w| {
        let mut w = w.borrow_mut();
        if w.len() < MAX_FN_WARNINGS {
            w.push(FnWarning {
                level,
                code,
                message: with_row(message.to_owned()),
            });
        }
    });
}

/// MySQL's 1292 for a string read as a number of type `what` (`INTEGER`, `DOUBLE`,
/// `DECIMAL`) that is not entirely one (`number` is the prefix read).
fn warn_truncated(text: &str, number: &str, what: &str) {
    if let Some(level) = crate::value::truncation(text, number) {
        raise(
            level,
            1292,
            &format!("Truncated incorrect {what} value: '{text}'"),
        );
    }
}

/// [`warn_truncated`] of a value that is a string (a number reads exactly). In a strict write
/// (`strict`) the Warning is the statement's error instead, as MySQL makes it.
fn warn_if_truncated(
    v: ValueRef<'_>,
    what: &str,
    integer: bool,
    strict: bool,
) -> Result<(), FnError> {
    if let ValueRef::Text(t) | ValueRef::Blob(t) = v {
        let text = String::from_utf8_lossy(t);
        let number = crate::value::number_prefix(&text);
        let number = if integer {
            crate::value::integer_prefix(number)
        } else {
            number
        };
        if strict && crate::value::truncation(&text, number) == Some(Level::Warning) {
            return Err(fail(
                1292,
                format!("Truncated incorrect {what} value: '{text}'"),
            ));
        }
        warn_truncated(&text, number, what);
    }
    Ok(())
}

/// Raises a warning of the statement running on this thread, as the library's own functions
/// do: for the engine's functions (named locks), whose warnings the engine takes with the
/// library's.
pub fn raise_warning(code: u16, message: &str) {
    warn(code, message);
}

/// Takes the warnings the function library raised on this thread since the last call: the
/// engine calls it before a statement (to drop another's) and after it.
pub fn take_warnings() -> Vec<FnWarning> {
    WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()))
}

fn radix(mut n: u64, base: u32) -> String {
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(std::char::from_digit((n % u64::from(base)) as u32, base).expect("digit < base"));
        n /= u64::from(base);
    }
    out.iter().rev().collect::<String>().to_uppercase()
}

fn chars_of(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// The JSON functions on text documents ([`crate::json`]); a value placed in a document is
/// first made JSON by `my_json_value` with its kind: `s` a string, `n` a number's text, `b` a
/// truth value, `r` a JSON document already.
fn register_json(conn: &Connection) -> rusqlite::Result<()> {
    fn path_error(err: json::UnsupportedPath) -> FnError {
        fail(
            1235,
            format!("This version of MySQL doesn't yet support '{}'", err.0),
        )
    }
    scalar(conn, "my_json_extract", -1, true, |a| {
        let doc = some!(a.text(0));
        let mut paths = Vec::new();
        for i in 1..a.len() {
            paths.push(some!(a.text(i)));
        }
        let paths: Vec<&str> = paths.iter().map(|p| p.as_ref()).collect();
        let found = json::extract(&doc, &paths).map_err(path_error)?;
        Ok(found.map_or(Value::Null, text_value))
    })?;
    scalar(conn, "my_json_length", -1, true, |a| {
        let doc = some!(a.text(0));
        let path = if a.len() > 1 {
            Some(some!(a.text(1)))
        } else {
            None
        };
        let n = json::length(&doc, path.as_deref()).map_err(path_error)?;
        Ok(n.map_or(Value::Null, Value::Integer))
    })?;
    // The number a JSON value holds where MySQL wants one: a string's numeric prefix, `true`
    // 1, anything else that is not a number 0.
    scalar(conn, "my_json_number", 1, true, |a| {
        let doc = some!(a.text(0));
        Ok(Value::Real(match json::parse(&doc) {
            Some(json::Json::Scalar(s)) if s.starts_with('"') => {
                some!(to_f64(ValueRef::Text(json::unquote(&s).as_bytes())))
            }
            Some(json::Json::Scalar(s)) if s == "true" => 1.0,
            Some(json::Json::Scalar(s)) => s.parse().unwrap_or(0.0),
            _ => 0.0,
        }))
    })?;
    // A JSON value compared with a number: a JSON number as its value (an integer exactly),
    // NULL for SQL NULL; anything else (a string, true, an object) compares differently in
    // MySQL and MariaDB, so it is refused.
    scalar(conn, "my_json_compared_number", 1, true, |a| {
        let doc = some!(a.text(0));
        match json::parse(&doc) {
            Some(json::Json::Scalar(s))
                if s.starts_with(|c: char| c == '-' || c.is_ascii_digit()) =>
            {
                Ok(match s.parse::<i64>() {
                    Ok(i) => Value::Integer(i),
                    Err(_) => Value::Real(some!(s.parse::<f64>().ok())),
                })
            }
            _ => Err(unsupported_fn(
                "comparison of a JSON value other than a number with a number",
            )),
        }
    })?;
    scalar(conn, "my_json_type", 1, true, |a| {
        Ok(json::type_name(&some!(a.text(0))).map_or(Value::Null, text_value))
    })?;
    scalar(conn, "my_json_keys", -1, true, |a| {
        let doc = some!(a.text(0));
        let path = if a.len() > 1 {
            Some(some!(a.text(1)))
        } else {
            None
        };
        let keys = json::keys(&doc, path.as_deref()).map_err(path_error)?;
        Ok(keys.map_or(Value::Null, text_value))
    })?;
    scalar(conn, "my_json_contains", -1, true, |a| {
        let (doc, candidate) = (some!(a.text(0)), some!(a.text(1)));
        let path = if a.len() > 2 {
            Some(some!(a.text(2)))
        } else {
            None
        };
        let found = json::contains(&doc, &candidate, path.as_deref()).map_err(path_error)?;
        Ok(found.map_or(Value::Null, |f| Value::Integer(i64::from(f))))
    })?;
    scalar(conn, "my_json_contains_path", -1, true, |a| {
        let (doc, mode) = (some!(a.text(0)), some!(a.text(1)));
        let texts = some!(texts_from(a, 2));
        let paths: Vec<&str> = texts.iter().map(|p| p.as_ref()).collect();
        let found = json::contains_path(&doc, &mode, &paths).map_err(path_error)?;
        Ok(found.map_or(Value::Null, |f| Value::Integer(i64::from(f))))
    })?;
    // JSON_SET, JSON_INSERT, JSON_REPLACE: `my_json_modify(change, doc, path, value, …)` with
    // the values JSON already (`my_json_value`).
    scalar(conn, "my_json_modify", -1, true, |a| {
        let change = match some!(a.text(0)).as_ref() {
            "set" => json::Change::Set,
            "insert" => json::Change::Insert,
            _ => json::Change::Replace,
        };
        let doc = some!(a.text(1));
        let texts = some!(texts_from(a, 2));
        let pairs: Vec<(&str, &str)> = texts
            .chunks(2)
            .map(|pair| (pair[0].as_ref(), pair.get(1).map_or("null", |v| v.as_ref())))
            .collect();
        let changed = json::modify(&doc, change, &pairs).map_err(path_error)?;
        Ok(changed.map_or(Value::Null, text_value))
    })?;
    scalar(conn, "my_json_remove", -1, true, |a| {
        let doc = some!(a.text(0));
        let texts = some!(texts_from(a, 1));
        let paths: Vec<&str> = texts.iter().map(|p| p.as_ref()).collect();
        let removed = json::remove(&doc, &paths).map_err(path_error)?;
        Ok(removed.map_or(Value::Null, text_value))
    })?;
    scalar(conn, "my_json_merge_patch", -1, true, |a| {
        let docs: Vec<Option<Cow<'_, str>>> = (0..a.len()).map(|i| a.text(i)).collect();
        let docs: Vec<Option<&str>> = docs.iter().map(|d| d.as_deref()).collect();
        Ok(json::merge_patch(&docs).map_or(Value::Null, text_value))
    })?;
    scalar(conn, "my_json_quote", 1, true, |a| {
        Ok(text_value(json::quote(&some!(a.text(0)))))
    })?;
    // `my_json_search(doc, mode, pattern, escape, collation, path, …)`: the escape is one
    // character, `\` when NULL or empty.
    scalar(conn, "my_json_search", -1, true, |a| {
        let (doc, mode, pattern) = (some!(a.text(0)), some!(a.text(1)), some!(a.text(2)));
        let escape = match a.text(3) {
            None => '\\',
            Some(e) => {
                let mut chars = e.chars();
                match (chars.next(), chars.next()) {
                    (None, _) => '\\',
                    (Some(c), None) => c,
                    _ => return Err(fail(1210, "Incorrect arguments to ESCAPE")),
                }
            }
        };
        let collation = a.collation(4);
        let Some(all) = json::one_or_all(&mode) else {
            return Ok(Value::Null);
        };
        let texts = some!(texts_from(a, 5));
        let paths: Vec<&str> = texts.iter().map(|p| p.as_ref()).collect();
        let matches = |text: &str| collation::like(collation, text, &pattern, Some(escape));
        let found = json::search(&doc, all, &matches, &paths).map_err(path_error)?;
        Ok(found.map_or(Value::Null, text_value))
    })?;
    scalar(conn, "my_json_unquote", 1, true, |a| {
        Ok(text_value(json::unquote(&some!(a.text(0)))))
    })?;
    scalar(conn, "my_json_valid", 1, true, |a| {
        Ok(Value::Integer(i64::from(
            json::parse(&some!(a.text(0))).is_some(),
        )))
    })?;
    scalar(conn, "my_json_value", 2, true, |a| {
        let kind = a.text(1).unwrap_or_default().into_owned();
        let Some(text) = a.text(0) else {
            return Ok(text_value("null"));
        };
        Ok(text_value(match kind.as_str() {
            // A `?` argument: a number as MySQL prints it, anything else a string.
            "d" => match a.v(0) {
                ValueRef::Integer(i) => i.to_string(),
                ValueRef::Real(r) => double_text(r),
                _ => json::quote(&text),
            },
            "s" => json::quote(&text),
            "b" => if a.f64(0).unwrap_or(0.0) != 0.0 {
                "true"
            } else {
                "false"
            }
            .to_string(),
            _ => text.into_owned(),
        }))
    })?;
    scalar(conn, "my_json_array", -1, true, |a| {
        let items: Vec<String> = (0..a.len())
            .map(|i| {
                a.text(i)
                    .map_or_else(|| "null".to_string(), Cow::into_owned)
            })
            .collect();
        Ok(text_value(format!("[{}]", items.join(", "))))
    })?;
    scalar(conn, "my_json_object", -1, true, |a| {
        let members: Vec<String> = (0..a.len() / 2)
            .map(|i| {
                let key = a.text(2 * i).unwrap_or_default();
                let value = a
                    .text(2 * i + 1)
                    .map_or_else(|| "null".to_string(), Cow::into_owned);
                format!("{}: {value}", json::quote(&key))
            })
            .collect();
        Ok(text_value(format!("{{{}}}", members.join(", "))))
    })
}

/// The text arguments from `from` on; `None` when one is NULL.
fn texts_from<'a>(a: &'a Args<'_, '_>, from: usize) -> Option<Vec<Cow<'a, str>>> {
    (from..a.len()).map(|i| a.text(i)).collect()
}

fn register_strings(conn: &Connection) -> rusqlite::Result<()> {
    // my_utf8_of_bytes(b): binary bytes read as utf8mb4 text (CONVERT(b USING utf8mb4)). Bytes
    // that are not UTF-8 are refused: MariaDB writes `?` for each and warns 1300.
    scalar(conn, "my_utf8_of_bytes", 1, true, |a| match a.v(0) {
        ValueRef::Null => Ok(Value::Null),
        ValueRef::Blob(b) | ValueRef::Text(b) => match std::str::from_utf8(b) {
            Ok(text) => Ok(text_value(text.to_owned())),
            Err(_) => Err(unsupported_fn(
                "CONVERT(… USING utf8mb4) of bytes that are not UTF-8",
            )),
        },
        other => Ok(text_value(some!(to_text(other)).into_owned())),
    })?;
    scalar(conn, "my_concat", -1, true, |a| {
        let mut out = String::new();
        for i in 0..a.len() {
            out.push_str(&some!(a.text(i)));
        }
        Ok(text_value(out))
    })?;
    scalar(conn, "my_concat_ws", -1, true, |a| {
        let sep = some!(a.text(0)).into_owned();
        let parts: Vec<String> = (1..a.len())
            .filter_map(|i| a.text(i).map(Cow::into_owned))
            .collect();
        Ok(text_value(parts.join(&sep)))
    })?;
    scalar(conn, "my_length", 1, true, |a| {
        Ok(Value::Integer(match a.v(0) {
            ValueRef::Blob(b) => b.len() as i64,
            _ => some!(a.text(0)).len() as i64,
        }))
    })?;
    scalar(conn, "my_char_length", 1, true, |a| {
        Ok(Value::Integer(some!(a.text(0)).chars().count() as i64))
    })?;
    // MySQL maps case one character to one character (`ß` stays `ß`).
    fn one_to_one(c: char, mut mapped: impl Iterator<Item = char>) -> char {
        match (mapped.next(), mapped.next()) {
            (Some(m), None) => m,
            _ => c,
        }
    }
    scalar(conn, "my_upper", 1, true, |a| {
        Ok(text_value(
            some!(a.text(0))
                .chars()
                .map(|c| one_to_one(c, c.to_uppercase()))
                .collect::<String>(),
        ))
    })?;
    scalar(conn, "my_lower", 1, true, |a| {
        Ok(text_value(
            some!(a.text(0))
                .chars()
                .map(|c| one_to_one(c, c.to_lowercase()))
                .collect::<String>(),
        ))
    })?;
    for (name, left) in [("my_lpad", true), ("my_rpad", false)] {
        scalar(conn, name, 3, true, move |a| {
            let s = chars_of(&some!(a.text(0)));
            let n = some!(a.i64(1));
            let pad = chars_of(&some!(a.text(2)));
            // Beyond max_allowed_packet MySQL answers NULL.
            if !(0..=16 * 1024 * 1024).contains(&n) {
                return Ok(Value::Null);
            }
            let n = n as usize;
            if s.len() >= n {
                return Ok(text_value(s[..n].iter().collect::<String>()));
            }
            if pad.is_empty() {
                return Ok(Value::Null);
            }
            let fill: String = pad.iter().cycle().take(n - s.len()).collect();
            let s: String = s.into_iter().collect();
            Ok(text_value(if left { fill + &s } else { s + &fill }))
        })?;
    }
    scalar(conn, "my_substr", -1, true, |a| {
        let s = chars_of(&some!(a.text(0)));
        let pos = some!(a.i64(1));
        let len = if a.len() > 2 {
            some!(a.i64(2))
        } else {
            i64::MAX
        };
        let n = s.len() as i64;
        let start = match pos {
            0 => return Ok(text_value("")),
            p if p > 0 => p - 1,
            p if -p <= n => n + p,
            _ => return Ok(text_value("")),
        };
        if start >= n || len <= 0 {
            return Ok(text_value(""));
        }
        let end = start.saturating_add(len).min(n);
        Ok(text_value(
            s[start as usize..end as usize].iter().collect::<String>(),
        ))
    })?;
    scalar(conn, "my_substring_index", 3, true, |a| {
        let s = some!(a.text(0)).into_owned();
        let delim = some!(a.text(1)).into_owned();
        let count = some!(a.i64(2));
        if delim.is_empty() || count == 0 {
            return Ok(text_value(""));
        }
        let positions: Vec<usize> = s.match_indices(&delim).map(|(i, _)| i).collect();
        Ok(text_value(if count > 0 {
            match positions.get(count as usize - 1) {
                Some(&at) => s[..at].to_string(),
                None => s,
            }
        } else {
            let back = count.unsigned_abs() as usize;
            if back > positions.len() {
                s
            } else {
                s[positions[positions.len() - back] + delim.len()..].to_string()
            }
        }))
    })?;
    // LOCATE(sub, s, pos, ci): 1-based position of sub in s from pos, 0 when absent. Under
    // the case-insensitive collation MySQL matches case-folded characters (accents count).
    scalar(conn, "my_locate", 4, true, |a| {
        let key = |c: char| {
            if a.collation(3) == Collation::Ci {
                let mut lower = c.to_lowercase();
                match (lower.next(), lower.next()) {
                    (Some(l), None) => l,
                    _ => c,
                }
            } else {
                c
            }
        };
        let sub: Vec<char> = some!(a.text(0)).chars().map(key).collect();
        let s: Vec<char> = some!(a.text(1)).chars().map(key).collect();
        let pos = some!(a.i64(2));
        if pos < 1 || pos as usize > s.len() + 1 {
            return Ok(Value::Integer(0));
        }
        let from = pos as usize - 1;
        if sub.is_empty() {
            return Ok(Value::Integer(pos));
        }
        let found = (from..=s.len().saturating_sub(sub.len()))
            .find(|&i| i + sub.len() <= s.len() && s[i..i + sub.len()] == sub[..]);
        Ok(Value::Integer(found.map_or(0, |i| i as i64 + 1)))
    })?;
    scalar(conn, "my_find_in_set", 3, true, |a| {
        let needle = some!(a.text(0)).into_owned();
        let list = some!(a.text(1)).into_owned();
        if needle.contains(',') || list.is_empty() {
            return Ok(Value::Integer(0));
        }
        let c = a.collation(2);
        let at = list.split(',').position(|item| {
            collation::compare(c, item, &needle) == Ordering::Equal && item.len() == needle.len()
                || (c == Collation::Ci && item.chars().map(fold).eq(needle.chars().map(fold)))
        });
        Ok(Value::Integer(at.map_or(0, |i| i as i64 + 1)))
    })?;
    // FIELD(ci, mode, s, a, b…): mode 'n' compares as numbers, 's' as strings.
    scalar(conn, "my_field", -1, true, |a| {
        let numeric = a.text(1).as_deref() == Some("n");
        let c = a.collation(0);
        if matches!(a.v(2), ValueRef::Null) {
            return Ok(Value::Integer(0));
        }
        for i in 3..a.len() {
            if matches!(a.v(i), ValueRef::Null) {
                continue;
            }
            let equal = if numeric {
                a.f64(2) == a.f64(i)
            } else {
                collation::compare(c, &some!(a.text(2)), &some!(a.text(i))) == Ordering::Equal
            };
            if equal {
                return Ok(Value::Integer(i as i64 - 2));
            }
        }
        Ok(Value::Integer(0))
    })?;
    scalar(conn, "my_elt", -1, true, |a| {
        let n = some!(a.i64(0));
        if n < 1 || n as usize >= a.len() {
            return Ok(Value::Null);
        }
        Ok(a.text(n as usize)
            .map_or(Value::Null, |t| text_value(t.into_owned())))
    })?;
    scalar(conn, "my_left", 2, true, |a| {
        let n = some!(a.i64(1)).max(0) as usize;
        Ok(text_value(
            some!(a.text(0)).chars().take(n).collect::<String>(),
        ))
    })?;
    scalar(conn, "my_right", 2, true, |a| {
        let s = chars_of(&some!(a.text(0)));
        let n = (some!(a.i64(1)).max(0) as usize).min(s.len());
        Ok(text_value(s[s.len() - n..].iter().collect::<String>()))
    })?;
    scalar(conn, "my_repeat", 2, true, |a| {
        let s = some!(a.text(0)).into_owned();
        let n = some!(a.i64(1)).max(0) as usize;
        if s.len().saturating_mul(n) > 16 * 1024 * 1024 {
            return Ok(Value::Null);
        }
        Ok(text_value(s.repeat(n)))
    })?;
    scalar(conn, "my_reverse", 1, true, |a| {
        Ok(text_value(
            some!(a.text(0)).chars().rev().collect::<String>(),
        ))
    })?;
    scalar(conn, "my_space", 1, true, |a| {
        let n = some!(a.i64(0)).clamp(0, 16 * 1024 * 1024) as usize;
        Ok(text_value(" ".repeat(n)))
    })?;
    scalar(conn, "my_hex", 1, true, |a| {
        Ok(text_value(match a.v(0) {
            ValueRef::Null => return Ok(Value::Null),
            ValueRef::Integer(i) => format!("{:X}", i as u64),
            ValueRef::Real(r) => format!(
                "{:X}",
                hex_integer(&some!(BigDecimal::try_from(r.round()).ok()))
            ),
            ValueRef::Text(b) | ValueRef::Blob(b) => b.iter().map(|x| format!("{x:02X}")).collect(),
        }))
    })?;
    // HEX of a DECIMAL (exact text): its integer, rounded half away from zero.
    scalar(conn, "my_hex_dec", 1, true, |a| {
        let d = some!(a.dec(0)).with_scale_round(0, RoundingMode::HalfUp);
        Ok(text_value(format!("{:X}", hex_integer(&d))))
    })?;
    scalar(conn, "my_unhex", 1, true, |a| {
        let s = some!(a.text(0)).into_owned();
        let s = if s.len() % 2 == 1 { format!("0{s}") } else { s };
        let bytes: Option<Vec<u8>> = (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
            .collect();
        Ok(bytes.map_or(Value::Null, Value::Blob))
    })?;
    scalar(conn, "my_ascii", 1, true, |a| {
        Ok(Value::Integer(match a.v(0) {
            ValueRef::Blob(b) => b.first().copied().unwrap_or(0).into(),
            _ => some!(a.text(0)).bytes().next().unwrap_or(0).into(),
        }))
    })?;
    scalar(conn, "my_strcmp", 3, true, |a| {
        Ok(ordering(collation::compare(
            a.collation(2),
            &some!(a.text(0)),
            &some!(a.text(1)),
        )))
    })?;
    // TRIM(mode, remove, s): mode 0 both, 1 leading, 2 trailing; removes whole repeats.
    scalar(conn, "my_trim", 3, true, |a| {
        let mode = some!(a.i64(0));
        let remove = some!(a.text(1)).into_owned();
        let text = some!(a.text(2));
        let mut s: &str = &text;
        if remove.is_empty() {
            return Ok(text_value(s));
        }
        if mode != 2 {
            while let Some(rest) = s.strip_prefix(remove.as_str()) {
                s = rest;
            }
        }
        if mode != 1 {
            while let Some(rest) = s.strip_suffix(remove.as_str()) {
                s = rest;
            }
        }
        Ok(text_value(s))
    })?;
    scalar(conn, "my_insert", 4, true, |a| {
        let s = chars_of(&some!(a.text(0)));
        let (pos, len) = (some!(a.i64(1)), some!(a.i64(2)));
        let new = some!(a.text(3)).into_owned();
        let n = s.len() as i64;
        if pos < 1 || pos > n {
            return Ok(text_value(s.into_iter().collect::<String>()));
        }
        let start = (pos - 1) as usize;
        let end = if len < 0 {
            n
        } else {
            (pos - 1).saturating_add(len).min(n)
        } as usize;
        let out: String =
            s[..start].iter().collect::<String>() + &new + &s[end..].iter().collect::<String>();
        Ok(text_value(out))
    })?;
    scalar(conn, "my_format", 2, true, |a| {
        let d = some!(a.dec(0));
        let digits = some!(a.i64(1)).clamp(0, 30);
        let text = decimal_text(&d, digits);
        let (sign, body) = text
            .strip_prefix('-')
            .map_or(("", text.as_str()), |b| ("-", b));
        let (int, frac) = body
            .split_once('.')
            .map_or((body, None), |(i, f)| (i, Some(f)));
        let mut grouped = String::new();
        for (i, c) in int.chars().enumerate() {
            if i > 0 && (int.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        Ok(text_value(match frac {
            Some(f) => format!("{sign}{grouped}.{f}"),
            None => format!("{sign}{grouped}"),
        }))
    })?;
    Ok(())
}

fn register_dates(conn: &Connection) -> rusqlite::Result<()> {
    scalar(conn, "my_now", 0, false, |_| {
        Ok(text_value(dates::datetime_text(
            Local::now().naive_local(),
            0,
        )))
    })?;
    // NOW(fsp): the current time with `fsp` fraction digits.
    scalar(conn, "my_now", 1, false, |a| {
        let fsp = u8::try_from(some!(a.i64(0)).clamp(0, 6)).unwrap_or(0);
        Ok(text_value(dates::datetime_text(
            Local::now().naive_local(),
            fsp,
        )))
    })?;
    // UTC_TIMESTAMP (1) or UTC_DATE (0).
    scalar(conn, "my_utc_now", 1, false, |a| {
        let now = chrono::Utc::now().naive_utc();
        Ok(text_value(if a.i64(0) == Some(1) {
            dates::datetime_text(now, 0)
        } else {
            dates::date_text(now)
        }))
    })?;
    scalar(conn, "my_curdate", 0, false, |_| {
        Ok(text_value(dates::date_text(Local::now().naive_local())))
    })?;
    scalar(conn, "my_curtime", 0, false, |_| {
        Ok(text_value(
            Local::now().naive_local().format("%H:%M:%S").to_string(),
        ))
    })?;
    // my_date(x, strict), my_datetime(x, fsp, strict): a value that is no date is NULL with
    // MySQL's 1292 (the statement's error in a strict write).
    scalar(conn, "my_date", 2, true, |a| {
        let parts = some!(date_or_warning(a.v(0), a.i64(1).unwrap_or(0))?);
        Ok(text_value(parts.date_text()))
    })?;
    scalar(conn, "my_datetime", 3, true, |a| {
        let fsp = some!(a.i64(1)).clamp(0, 6) as u8;
        let parts = some!(date_or_warning(a.v(0), a.i64(2).unwrap_or(0))?);
        Ok(text_value(parts.datetime_text(fsp)))
    })?;
    // my_temporal_number(x, zero_fraction): a DATE, DATETIME or TIME value (its text as the
    // node holds it) as MySQL's number, `YYYYMMDD[HHMMSS]` or `[-]HHMMSS` (see
    // `expr::temporal_number`).
    scalar(conn, "my_temporal_number", 2, true, |a| {
        let text = match a.v(0) {
            ValueRef::Null => return Ok(Value::Null),
            ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
            other => return Ok(other.into()),
        };
        let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
        if !fraction.is_empty() && (a.i64(1) != Some(1) || fraction.bytes().any(|b| b != b'0')) {
            return Err(unsupported_fn(
                "a date or time with a fraction of a second read as a number",
            ));
        }
        let (negative, body) = match whole.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, whole),
        };
        let digits: String = body.chars().filter(char::is_ascii_digit).collect();
        let number = match digits.parse::<i64>() {
            Ok(n)
                if body
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b"-: ".contains(&b)) =>
            {
                n
            }
            _ => return Err(unsupported_fn("this date or time value read as a number")),
        };
        Ok(Value::Integer(if negative { -number } else { number }))
    })?;
    // A value read as a TIME (TIME(x) keeps the fraction digits written; CAST AS TIME, fsp 0,
    // refuses a fraction, which MySQL rounds and MariaDB truncates).
    // my_time(x, fsp, strict): a value that is no TIME is NULL with MySQL's 1292, the
    // statement's error in a strict write.
    scalar(conn, "my_time", 3, true, |a| {
        if let ValueRef::Text(t) = a.v(0)
            && dates::is_date_alone(&String::from_utf8_lossy(t))
        {
            return Err(unsupported_fn("a date without a time read as a TIME"));
        }
        let clock = time_arg(a, 0)?;
        let Some(clock) = clock else {
            if !matches!(a.v(0), ValueRef::Null) {
                let shown = to_text(a.v(0)).unwrap_or_default().into_owned();
                if a.i64(2) == Some(1) {
                    return Err(fail(1292, format!("Incorrect time value: '{shown}'")));
                }
                warn(1292, &format!("Truncated incorrect time value: '{shown}'"));
            }
            return Ok(Value::Null);
        };
        match a.i64(1) {
            Some(fsp) if fsp >= 0 => {
                let fsp = fsp.min(6) as u8;
                if clock.micros % 10u32.pow(u32::from(6 - fsp)) != 0 {
                    return Err(unsupported_fn(
                        "CAST of a fraction of a second AS TIME with fewer digits",
                    ));
                }
                time_value(clock, fsp)
            }
            _ => time_value(clock, clock.fsp),
        }
    })?;
    // HOUR, MINUTE, SECOND, MICROSECOND of a value read as a TIME.
    scalar(conn, "my_time_part", 2, true, |a| {
        let clock = some!(time_arg(a, 0)?);
        let part = some!(a.text(1)).to_ascii_uppercase();
        Ok(Value::Integer(match part.as_str() {
            "HOUR" => clock.hours() as i64,
            "MINUTE" => clock.minutes() as i64,
            "SECOND" => clock.secs() as i64,
            "MICROSECOND" => i64::from(clock.micros),
            _ => return Ok(Value::Null),
        }))
    })?;
    scalar(conn, "my_period_add", 2, true, |a| {
        let (period, months) = (some!(a.i64(0)), some!(a.i64(1)));
        if period == 0 {
            return Ok(Value::Integer(0));
        }
        let total = period_months(period)? + months;
        if total < 0 {
            return Err(unsupported_fn("PERIOD_ADD before year 0"));
        }
        Ok(Value::Integer(months_period(total)))
    })?;
    scalar(conn, "my_period_diff", 2, true, |a| {
        let (from, to) = (some!(a.i64(0)), some!(a.i64(1)));
        Ok(Value::Integer(period_months(from)? - period_months(to)?))
    })?;
    scalar(conn, "my_time_format", 2, true, |a| {
        let clock = some!(time_arg(a, 0)?);
        let pattern = some!(a.text(1));
        Ok(dates::time_format(&clock, &pattern).map_or(Value::Null, text_value))
    })?;
    scalar(conn, "my_time_to_sec", 1, true, |a| {
        let clock = some!(time_arg(a, 0)?);
        if clock.micros > 0 {
            return Err(unsupported_fn("TIME_TO_SEC of a fraction of a second"));
        }
        Ok(Value::Integer(clock.signed_seconds()))
    })?;
    scalar(conn, "my_sec_to_time", 1, true, |a| {
        let v = a.v(0);
        let seconds = match v {
            ValueRef::Null => return Ok(Value::Null),
            ValueRef::Integer(i) => i,
            _ => return Err(unsupported_fn("SEC_TO_TIME of a non-integer")),
        };
        let clock = Clock::from_seconds(seconds)
            .ok_or_else(|| unsupported_fn("SEC_TO_TIME beyond 838:59:59"))?;
        time_value(clock, 0)
    })?;
    scalar(conn, "my_maketime", 3, true, |a| {
        // MySQL keeps a fraction of the seconds (`MAKETIME(0, 0, 1.5)` is 00:00:01.5).
        if a.f64(2).is_some_and(|s| s.fract() != 0.0) {
            return Err(unsupported_fn("MAKETIME with a fraction of a second"));
        }
        let (h, m, s) = (some!(a.i64(0)), some!(a.i64(1)), some!(a.i64(2)));
        if !(0..60).contains(&m) || !(0..60).contains(&s) {
            return Ok(Value::Null);
        }
        let seconds = h.unsigned_abs().saturating_mul(3600) + (m * 60 + s) as u64;
        let clock = i64::try_from(seconds)
            .ok()
            .and_then(|n| Clock::from_seconds(if h < 0 { -n } else { n }))
            .ok_or_else(|| unsupported_fn("MAKETIME beyond 838:59:59"))?;
        time_value(clock, 0)
    })?;
    // TIMEDIFF of two TIMEs or of two datetimes; NULL when one is a datetime and the other not.
    scalar(conn, "my_timediff", 2, true, |a| {
        let dated = |i: usize| {
            a.text(i).is_some_and(|t| {
                t.trim()
                    .find([' ', 'T'])
                    .is_some_and(|at| t.trim()[..at].contains(['-', '/']))
            })
        };
        let micros = |c: Clock| {
            let m = c.seconds as i64 * 1_000_000 + i64::from(c.micros);
            if c.negative { -m } else { m }
        };
        // A date without a time is no TIME: MySQL's NULL with a warning.
        let date_alone = |i: usize| a.text(i).is_some_and(|t| dates::is_date_alone(&t));
        if date_alone(0) || date_alone(1) {
            return Err(unsupported_fn("TIMEDIFF of a date without a time"));
        }
        let diff = match (dated(0), dated(1)) {
            (true, true) => {
                let (x, y) = (some!(a.moment(0)), some!(a.moment(1)));
                (x.at - y.at).num_microseconds().unwrap_or(i64::MAX)
            }
            (false, false) => {
                let (x, y) = (some!(time_arg(a, 0)?), some!(time_arg(a, 1)?));
                micros(x) - micros(y)
            }
            _ => return Ok(Value::Null),
        };
        if diff % 1_000_000 != 0 {
            return Err(unsupported_fn("TIMEDIFF with fractions of a second"));
        }
        let clock = Clock::from_seconds(diff / 1_000_000)
            .ok_or_else(|| unsupported_fn("TIMEDIFF beyond 838:59:59"))?;
        time_value(clock, 0)
    })?;
    // ADDTIME(x, t) (`sign` 1) and SUBTIME (-1) of a DATETIME (`kind` 'datetime') or a TIME
    // ('time'): whole seconds only (MySQL's fraction digits of the result depend on how each
    // argument was written); the result keeps the first argument's fraction digits.
    scalar(conn, "my_addtime", 4, true, |a| {
        let amount = some!(time_arg(a, 1)?);
        if amount.micros > 0 || a.text(1).is_some_and(|t| t.contains('.')) {
            return Err(unsupported_fn(
                "ADDTIME or SUBTIME of a fraction of a second",
            ));
        }
        let seconds =
            amount.seconds as i64 * if amount.negative { -1 } else { 1 } * some!(a.i64(2));
        if some!(a.text(3)) == "datetime" {
            let m = some!(a.moment(0));
            let Some(at) =
                m.at.checked_add_signed(chrono::Duration::seconds(seconds))
                    .filter(|at| (1..=9999).contains(&at.year()))
            else {
                return Ok(Value::Null);
            };
            return Ok(text_value(dates::datetime_text(at, m.fsp)));
        }
        let start = some!(time_arg(a, 0)?);
        if start.micros > 0 {
            return Err(unsupported_fn(
                "ADDTIME or SUBTIME of a fraction of a second",
            ));
        }
        let from = start.seconds as i64 * if start.negative { -1 } else { 1 };
        let clock = Clock::from_seconds(from + seconds)
            .ok_or_else(|| unsupported_fn("a TIME value beyond 838:59:59"))?;
        time_value(clock, start.fsp)
    })?;
    // WEEK(d, mode) and YEARWEEK(d, mode) (`yearweek` 1), as MySQL computes them.
    scalar(conn, "my_week", 3, true, |a| {
        let d = some!(a.moment(0)).at.date();
        let mode = some!(a.i64(1));
        if a.i64(2) == Some(1) {
            let (year, week) = dates::calc_week(d, dates::week_mode(mode) | dates::WEEK_YEAR);
            Ok(Value::Integer(i64::from(year) * 100 + i64::from(week)))
        } else {
            Ok(Value::Integer(
                dates::calc_week(d, dates::week_mode(mode)).1.into(),
            ))
        }
    })?;
    scalar(conn, "my_str_to_date", 3, true, |a| {
        let (input, format) = (some!(a.text(0)), some!(a.text(1)));
        match dates::str_to_date(&input, &format) {
            Ok(Some(read)) => match read.text(a.i64(2) == Some(1)) {
                Some(text) => Ok(text_value(text)),
                None => {
                    warn(
                        1411,
                        &format!("Incorrect datetime value: '{input}' for function str_to_date"),
                    );
                    Ok(Value::Null)
                }
            },
            Ok(None) => Ok(Value::Null),
            Err(()) => Err(fail(
                1235,
                "This version of MySQL doesn't yet support 'STR_TO_DATE of %Y with other than four digits'",
            )),
        }
    })?;
    scalar(conn, "my_time_of_day", 1, true, |a| {
        let m = some!(a.moment(0));
        let text = dates::datetime_text(m.at, m.fsp);
        Ok(text_value(text.get(11..).unwrap_or("00:00:00")))
    })?;
    // YEAR, MONTH, … by part name.
    // A part of a date; the year, month and day of one with zero parts are read too (the
    // calendar's parts of it are NULL, as in MySQL).
    scalar(conn, "my_part", 2, true, |a| {
        let part = some!(a.text(1)).to_ascii_uppercase();
        let d = some!(a.date_parts(0));
        let (year, month) = (i64::from(d.year), i64::from(d.month));
        match part.as_str() {
            "YEAR" => return Ok(Value::Integer(year)),
            "YEAR_MONTH" => return Ok(Value::Integer(year * 100 + month)),
            "MONTH" => return Ok(Value::Integer(month)),
            "DAY" => return Ok(Value::Integer(d.day.into())),
            "QUARTER" => return Ok(Value::Integer((month + 2) / 3)),
            _ => {}
        }
        let at = some!(d.valid());
        Ok(Value::Integer(match part.as_str() {
            "HOUR" => at.hour().into(),
            "MINUTE" => at.minute().into(),
            "SECOND" => at.second().into(),
            "MICROSECOND" => (at.nanosecond() / 1000).into(),
            "DAYOFWEEK" => at.weekday().num_days_from_sunday() as i64 + 1,
            "WEEKDAY" => at.weekday().num_days_from_monday().into(),
            "DAYOFYEAR" => at.ordinal().into(),
            "WEEK" => dates::week0(at).into(),
            "TO_DAYS" => i64::from(at.date().num_days_from_ce()) + 365,
            _ => return Ok(Value::Null),
        }))
    })?;
    scalar(conn, "my_dayname", 1, true, |a| {
        Ok(text_value(dates::day_name(some!(a.moment(0)).at)))
    })?;
    // MONTHNAME and LAST_DAY read the month of a date whose day is zero, as MySQL does.
    scalar(conn, "my_monthname", 1, true, |a| {
        let d = some!(a.date_parts(0));
        let first = some!(NaiveDate::from_ymd_opt(d.year as i32, d.month, 1));
        Ok(text_value(dates::month_name(
            first.and_time(chrono::NaiveTime::MIN),
        )))
    })?;
    scalar(conn, "my_last_day", 1, true, |a| {
        let d = some!(a.date_parts(0));
        if d.year == 0 {
            return Ok(Value::Null);
        }
        let first_next = some!(dates::add(
            some!(NaiveDate::from_ymd_opt(d.year as i32, d.month, 1))
                .and_hms_opt(0, 0, 0)
                .expect("midnight"),
            1,
            Unit::Month
        ));
        Ok(text_value(dates::date_text(
            first_next - chrono::Duration::days(1),
        )))
    })?;
    scalar(conn, "my_date_format", 2, true, |a| {
        let d = some!(a.date_parts(0));
        let pattern = some!(a.text(1)).into_owned();
        // The zero date by a weekday, month-name or day-of-year specifier is NULL in MariaDB
        // (other dates with zero parts give such specifiers values of no calendar: 1235 below).
        if (d.year, d.month, d.day) == (0, 0, 0) && names_a_calendar_day(&pattern) {
            return Ok(Value::Null);
        }
        dates::format(&d, &pattern).map(text_value).ok_or_else(|| {
            let what = if d.valid().is_none() {
                "DATE_FORMAT of a date with zero parts by a calendar specifier in"
            } else {
                "DATE_FORMAT specifier in"
            };
            unsupported_fn(&format!("{what} {pattern}"))
        })
    })?;
    // DATE_ADD(x, amount, unit, kind): kind 'date' or 'datetime' from the static type, 's' for a
    // string (a date stays a date when it had no time and the unit is a day or longer).
    scalar(conn, "my_date_add", 4, true, |a| {
        let m = some!(a.moment(0));
        let amount = some!(a.i64(1));
        let unit = some!(Unit::parse(&some!(a.text(2))));
        let out = some!(dates::add(m.at, amount, unit));
        let as_date = match a.text(3).as_deref() {
            Some("date") => unit.is_date_unit(),
            Some("datetime") => false,
            _ => !m.has_time && unit.is_date_unit(),
        };
        let fsp = if unit == Unit::Microsecond { 6 } else { m.fsp };
        Ok(text_value(if as_date {
            dates::date_text(out)
        } else {
            dates::datetime_text(out, fsp)
        }))
    })?;
    // `my_date_add_compound(at, amount text, unit, kind, sign)`: DATE_ADD with a compound
    // unit (`kind` as for my_date_add; `sign` -1 for DATE_SUB).
    scalar(conn, "my_date_add_compound", 5, true, |a| {
        let m = some!(a.moment(0));
        let unit = some!(a.text(2)).into_owned();
        let fields = some!(dates::compound_fields(&unit));
        let (months, micros) = some!(dates::compound_amount(&some!(a.text(1)), fields));
        let sign = some!(a.i64(4));
        let out = if months != 0 {
            some!(dates::add(m.at, months * sign, Unit::Month))
        } else {
            some!(dates::add(m.at, micros * sign, Unit::Microsecond))
        };
        let date_unit = unit == "YEAR_MONTH";
        let as_date = match a.text(3).as_deref() {
            Some("date") => date_unit,
            Some("datetime") => false,
            _ => !m.has_time && date_unit,
        };
        let fsp = if unit.ends_with("MICROSECOND") {
            6
        } else {
            m.fsp
        };
        Ok(text_value(if as_date {
            dates::date_text(out)
        } else {
            dates::datetime_text(out, fsp)
        }))
    })?;
    // EXTRACT of a unit of a day or shorter (simple or compound): `dated` 1 when the value is a
    // DATE or DATETIME, else read as a datetime or a TIME as MySQL reads it.
    scalar(conn, "my_extract_clock", 3, true, |a| {
        let unit = some!(a.text(1)).into_owned();
        let fields = if a.i64(2) == Some(1) {
            dates::ClockFields::of(some!(a.date_parts(0)))
        } else {
            some!(dates::clock_fields(a.v(0)).map_err(unsupported_fn)?)
        };
        Ok(dates::extract_clock(fields, &unit).map_or(Value::Null, Value::Integer))
    })?;
    scalar(conn, "my_datediff", 2, true, |a| {
        let (x, y) = (some!(a.moment(0)).at.date(), some!(a.moment(1)).at.date());
        Ok(Value::Integer((x - y).num_days()))
    })?;
    scalar(conn, "my_timestampdiff", 3, true, |a| {
        let unit = some!(Unit::parse(&some!(a.text(0))));
        Ok(Value::Integer(dates::diff(
            unit,
            some!(a.moment(1)).at,
            some!(a.moment(2)).at,
        )))
    })?;
    scalar(conn, "my_unix_timestamp", -1, false, |a| {
        if a.len() == 0 {
            return Ok(Value::Integer(Local::now().timestamp()));
        }
        let m = some!(a.moment(0));
        let local = some!(Local.from_local_datetime(&m.at).earliest());
        let seconds = local.timestamp();
        if seconds < 0 {
            return Ok(Value::Integer(0));
        }
        if m.fsp == 0 {
            return Ok(Value::Integer(seconds));
        }
        let micros = format!("{:06}", m.at.nanosecond() / 1000);
        Ok(text_value(format!(
            "{seconds}.{}",
            &micros[..usize::from(m.fsp)]
        )))
    })?;
    scalar(conn, "my_from_unixtime", 1, true, |a| {
        let secs = some!(a.i64(0));
        if secs < 0 {
            return Ok(Value::Null);
        }
        let at = some!(Local.timestamp_opt(secs, 0).single()).naive_local();
        Ok(text_value(dates::datetime_text(at, 0)))
    })?;
    scalar(conn, "my_from_days", 1, true, |a| {
        let n = some!(a.i64(0));
        let d = some!(NaiveDate::from_num_days_from_ce_opt(some!(
            i32::try_from(n - 365).ok()
        )));
        if n < 366 {
            return Ok(text_value("0000-00-00"));
        }
        Ok(text_value(dates::date_text(
            d.and_hms_opt(0, 0, 0).expect("midnight"),
        )))
    })?;
    scalar(conn, "my_makedate", 2, true, |a| {
        let (y, doy) = (some!(a.i64(0)), some!(a.i64(1)));
        if doy < 1 {
            return Ok(Value::Null);
        }
        let jan1 = some!(NaiveDate::from_ymd_opt(some!(i32::try_from(y).ok()), 1, 1));
        let d = some!(jan1.checked_add_days(chrono::Days::new(doy as u64 - 1)));
        Ok(text_value(dates::date_text(
            d.and_hms_opt(0, 0, 0).expect("midnight"),
        )))
    })?;
    Ok(())
}

/// Digests, encodings and identifiers: MD5, SHA1, SHA2, CRC32, TO_BASE64, FROM_BASE64, UUID,
/// INET_ATON, INET_NTOA, QUOTE, CHAR, ORD, BIT_COUNT, RAND.
fn register_codes(conn: &Connection) -> rusqlite::Result<()> {
    fn hex_lower(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
    fn bytes_of<'a>(a: &'a Args<'_, '_>, i: usize) -> Option<Cow<'a, [u8]>> {
        match a.v(i) {
            ValueRef::Null => None,
            ValueRef::Text(b) | ValueRef::Blob(b) => Some(Cow::Borrowed(b)),
            _ => Some(Cow::Owned(a.text(i)?.into_owned().into_bytes())),
        }
    }
    scalar(conn, "my_md5", 1, true, |a| {
        use md5::Digest;
        Ok(text_value(hex_lower(&md5::Md5::digest(some!(bytes_of(
            a, 0
        ))))))
    })?;
    scalar(conn, "my_sha1", 1, true, |a| {
        use sha1::Digest;
        Ok(text_value(hex_lower(&sha1::Sha1::digest(some!(bytes_of(
            a, 0
        ))))))
    })?;
    // SHA2(s, bits): 224, 256 (or 0), 384, 512; NULL for another length.
    scalar(conn, "my_sha2", 2, true, |a| {
        use sha2::Digest;
        let data = some!(bytes_of(a, 0));
        Ok(text_value(match some!(a.i64(1)) {
            224 => hex_lower(&sha2::Sha224::digest(&data)),
            0 | 256 => hex_lower(&sha2::Sha256::digest(&data)),
            384 => hex_lower(&sha2::Sha384::digest(&data)),
            512 => hex_lower(&sha2::Sha512::digest(&data)),
            _ => return Ok(Value::Null),
        }))
    })?;
    scalar(conn, "my_crc32", 1, true, |a| {
        Ok(Value::Integer(
            crc32fast::hash(&some!(bytes_of(a, 0))).into(),
        ))
    })?;
    // MySQL breaks the text into lines of 76 characters.
    scalar(conn, "my_to_base64", 1, true, |a| {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode(some!(bytes_of(a, 0)));
        let lines: Vec<&str> = encoded
            .as_bytes()
            .chunks(76)
            .map(|c| std::str::from_utf8(c).expect("base64 is ASCII"))
            .collect();
        Ok(text_value(lines.join("\n")))
    })?;
    // Whitespace is skipped; anything else that is not base64 gives NULL.
    scalar(conn, "my_from_base64", 1, true, |a| {
        use base64::Engine;
        let text: Vec<u8> = some!(bytes_of(a, 0))
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        Ok(base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_or(Value::Null, Value::Blob))
    })?;
    scalar(conn, "my_rand", 0, false, |_| {
        Ok(Value::Real(rand::random::<f64>()))
    })?;
    // A version 1 (time-based) UUID, as MySQL's; the node part is random per process.
    scalar(conn, "my_uuid", 0, false, |_| {
        static NODE: std::sync::OnceLock<[u8; 6]> = std::sync::OnceLock::new();
        let node = NODE.get_or_init(|| {
            let mut node = *uuid::Uuid::new_v4().as_bytes();
            // The multicast bit marks a node id that is not a MAC address (RFC 4122, 4.5).
            node[0] |= 1;
            [node[0], node[1], node[2], node[3], node[4], node[5]]
        });
        Ok(text_value(
            uuid::Uuid::now_v1(node).hyphenated().to_string(),
        ))
    })?;
    // MySQL's reading of a dotted address: up to four parts, a short form's last part is the
    // last byte (`127.1` is 127.0.0.1); NULL for anything else.
    scalar(conn, "my_inet_aton", 1, true, |a| {
        let text = some!(a.text(0)).into_owned();
        let (mut result, mut byte, mut dots): (u64, u64, u32) = (0, 0, 0);
        let mut last = None;
        for c in text.chars() {
            last = Some(c);
            match c {
                '0'..='9' => {
                    byte = byte * 10 + u64::from(c as u8 - b'0');
                    if byte > 255 {
                        return Ok(Value::Null);
                    }
                }
                '.' => {
                    dots += 1;
                    result = (result << 8).wrapping_add(byte);
                    byte = 0;
                }
                _ => return Ok(Value::Null),
            }
        }
        if last.is_none() || last == Some('.') {
            return Ok(Value::Null);
        }
        match dots {
            1 => result <<= 16,
            2 => result <<= 8,
            _ => {}
        }
        Ok(Value::Integer(((result << 8).wrapping_add(byte)) as i64))
    })?;
    scalar(conn, "my_inet_ntoa", 1, true, |a| {
        let n = some!(a.i64(0));
        let Ok(n) = u32::try_from(n) else {
            return Ok(Value::Null);
        };
        Ok(text_value(std::net::Ipv4Addr::from(n).to_string()))
    })?;
    // QUOTE: a string literal MySQL reads back as the same string; NULL is the word NULL.
    scalar(conn, "my_quote", 1, true, |a| {
        let Some(text) = a.text(0) else {
            return Ok(text_value("NULL"));
        };
        let mut out = String::with_capacity(text.len() + 2);
        out.push('\'');
        for c in text.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                '\0' => out.push_str("\\0"),
                '\x1a' => out.push_str("\\Z"),
                c => out.push(c),
            }
        }
        out.push('\'');
        Ok(text_value(out))
    })?;
    // CHAR(n, …): each integer's bytes, big-endian without leading zero bytes; NULLs skipped.
    scalar(conn, "my_char", -1, true, |a| {
        let mut out = Vec::new();
        for i in 0..a.len() {
            let Some(n) = a.i64(i) else { continue };
            let bytes = (n as u32).to_be_bytes();
            let first = bytes.iter().position(|b| *b != 0).unwrap_or(3);
            out.extend_from_slice(&bytes[first..]);
        }
        Ok(Value::Blob(out))
    })?;
    // ORD: the first character's bytes as a big-endian number.
    scalar(conn, "my_ord", 1, true, |a| {
        let text = some!(a.text(0));
        let Some(c) = text.chars().next() else {
            return Ok(Value::Integer(0));
        };
        let mut buf = [0u8; 4];
        let n = c
            .encode_utf8(&mut buf)
            .bytes()
            .fold(0i64, |n, b| n * 256 + i64::from(b));
        Ok(Value::Integer(n))
    })?;
    scalar(conn, "my_bit_count", 1, true, |a| {
        Ok(Value::Integer((some!(a.i64(0)) as u64).count_ones().into()))
    })?;
    Ok(())
}

/// Strict-mode writes: each value converted to the column's type as MySQL stores it, or MySQL's
/// error (strict flag 1) or the adjusted value (0, `INSERT IGNORE`).
fn register_stores(conn: &Connection) -> rusqlite::Result<()> {
    // my_store_int(v, min, max, strict, column)
    // MySQL's bit operators on two integers' 64 bits as unsigned; a result past BIGINT (which
    // SQLite's signed integers cannot hold) is refused when `checked`, else kept as its bits
    // for the bit operator it is an operand of.
    scalar(conn, "my_bitop", 4, true, |a| {
        let op = some!(a.text(0)).into_owned();
        let (x, y) = (some!(a.i64(1)) as u64, some!(a.i64(2)) as u64);
        let out = match op.as_str() {
            "&" => x & y,
            "|" => x | y,
            "^" => x ^ y,
            "<<" => x
                .checked_shl(u32::try_from(y).unwrap_or(u32::MAX))
                .unwrap_or(0),
            ">>" => x
                .checked_shr(u32::try_from(y).unwrap_or(u32::MAX))
                .unwrap_or(0),
            _ => !x,
        };
        if a.i64(3) == Some(0) {
            return Ok(Value::Integer(out as i64));
        }
        i64::try_from(out)
            .map(Value::Integer)
            .map_err(|_| unsupported_fn("a bit operator's result past 9223372036854775807"))
    })?;
    // A value stored into a YEAR column, as MySQL reads it (`value::year_of_number`, and a
    // string of one or two digits: `'0'` and `'00'` are 2000); the year 0000 is refused (1235).
    scalar(conn, "my_store_year", 4, true, |a| {
        let column = a.text(2).unwrap_or_default().into_owned();
        let strict = a.i64(1) == Some(1);
        let text_typed = a.text(3).is_some_and(|code| code == "s");
        let v = a.v(0);
        let year = match v {
            ValueRef::Null => return Ok(Value::Null),
            ValueRef::Integer(i) => crate::value::year_of_number(i),
            ValueRef::Text(_) | ValueRef::Blob(_) if text_typed => {
                let text = some!(to_text(v)).into_owned();
                let digits = text.trim_matches(' ');
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(if number_prefix(digits).is_empty() {
                        fail(
                            1366,
                            format!(
                                "Incorrect integer value: '{text}' for column '{column}' at row 1"
                            ),
                        )
                    } else {
                        unsupported_fn("a YEAR written as a number with other characters")
                    });
                }
                let n: i64 = digits.parse().unwrap_or(i64::MAX);
                if digits.len() <= 2 && n == 0 {
                    Some(2000)
                } else {
                    crate::value::year_of_number(n)
                }
            }
            _ => rounded_integer(v).and_then(crate::value::year_of_number),
        };
        match year {
            Some(0) => Err(unsupported_fn("the YEAR 0000")),
            Some(y) => Ok(Value::Integer(y)),
            None if strict => Err(fail(
                1264,
                format!("Out of range value for column '{column}' at row 1"),
            )),
            None => Err(unsupported_fn("a YEAR out of range outside strict mode")),
        }
    })?;
    // A value stored into a BIT(width) column: a number (rounded half up), or a string's
    // bytes read as a big-endian number, as MySQL reads them; one past the width, or negative,
    // is 1406 in strict mode.
    scalar(conn, "my_store_bit", 5, true, |a| {
        let column = a.text(3).unwrap_or_default().into_owned();
        let strict = a.i64(2) == Some(1);
        let width = some!(a.i64(1));
        let text_typed = a.text(4).is_some_and(|code| code == "s");
        let v = a.v(0);
        let value: Option<u64> = match v {
            ValueRef::Null => return Ok(Value::Null),
            ValueRef::Integer(i) => u64::try_from(i).ok(),
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) if text_typed => {
                (bytes.len() <= 8).then(|| bytes.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b)))
            }
            _ => rounded_integer(v).and_then(|i| u64::try_from(i).ok()),
        };
        match value.filter(|v| v >> width == 0) {
            Some(v) => Ok(Value::Integer(v as i64)),
            None if strict => Err(fail(
                1406,
                format!("Data too long for column '{column}' at row 1"),
            )),
            None => Err(unsupported_fn(
                "a value past a BIT column's width outside strict mode",
            )),
        }
    })?;
    scalar(conn, "my_store_int", 5, true, |a| {
        let column = a.text(4).unwrap_or_default().into_owned();
        let strict = a.i64(3) == Some(1);
        let (min, max) = (some!(a.i64(1)), some!(a.i64(2)));
        let v = a.v(0);
        let n = match v {
            ValueRef::Null => return Ok(Value::Null),
            ValueRef::Integer(i) => BigDecimal::from(i),
            ValueRef::Real(_) => some!(to_decimal(v)),
            ValueRef::Text(_) | ValueRef::Blob(_) => {
                let text = some!(to_text(v)).into_owned();
                let trimmed = text.trim_matches(' ');
                let prefix = number_prefix(trimmed);
                if strict && (prefix.is_empty() || prefix.len() != trimmed.len()) {
                    return Err(if prefix.is_empty() {
                        fail(
                            1366,
                            format!(
                                "Incorrect integer value: '{text}' for column '{column}' at row 1"
                            ),
                        )
                    } else {
                        fail(
                            1265,
                            format!("Data truncated for column '{column}' at row 1"),
                        )
                    });
                }
                BigDecimal::from_str(prefix).unwrap_or_default()
            }
        };
        let rounded = n.with_scale_round(0, RoundingMode::HalfUp);
        // BIGINT UNSIGNED is held in SQLite's signed 64 bits: MySQL's values past them (and
        // its clamp to 18446744073709551615) are refused rather than stored differently.
        if min == 0 && max == i64::MAX && rounded > max {
            let in_range = rounded <= u64::MAX;
            if in_range || !strict {
                return Err(fail(
                    1235,
                    "This version of MySQL doesn't yet support 'BIGINT UNSIGNED values past \
                     9223372036854775807'",
                ));
            }
        }
        let clamped = if rounded < min {
            (!strict).then_some(min)
        } else if rounded > max {
            (!strict).then_some(max)
        } else {
            i64::try_from(rounded.into_bigint_and_exponent().0).ok()
        };
        clamped.map(Value::Integer).ok_or_else(|| {
            fail(
                1264,
                format!("Out of range value for column '{column}' at row 1"),
            )
        })
    })?;
    // my_store_udec(v, strict, column): the value about to go to a DECIMAL UNSIGNED column
    // (before my_store_dec rounds it, as MySQL checks the sign first: -0.001 is out of range):
    // a negative one is 1264 in strict mode, else 0 with the warning.
    scalar(conn, "my_store_udec", 3, true, |a| {
        if !a.f64(0).is_some_and(|f| f < 0.0) {
            return Ok(Value::from(a.v(0)));
        }
        let column = a.text(2).unwrap_or_default().into_owned();
        let message = format!("Out of range value for column '{column}' at row 1");
        if a.i64(1) == Some(1) {
            return Err(fail(1264, message));
        }
        warn(1264, &message);
        Ok(Value::Integer(0))
    })?;
    // my_store_dec(v, precision, scale, strict, column)
    scalar(conn, "my_store_dec", 5, true, |a| {
        let column = a.text(4).unwrap_or_default().into_owned();
        let strict = a.i64(3) == Some(1);
        let (p, s) = (some!(a.i64(1)), some!(a.i64(2)));
        let v = a.v(0);
        if let ValueRef::Text(_) | ValueRef::Blob(_) = v {
            let text = some!(to_text(v)).into_owned();
            let trimmed = text.trim_matches(' ');
            let prefix = number_prefix(trimmed);
            if strict && (prefix.is_empty() || prefix.len() != trimmed.len()) {
                return Err(if prefix.is_empty() {
                    fail(
                        1366,
                        format!("Incorrect decimal value: '{text}' for column '{column}' at row 1"),
                    )
                } else {
                    fail(
                        1265,
                        format!("Data truncated for column '{column}' at row 1"),
                    )
                });
            }
        }
        let d = some!(to_decimal(v)).with_scale_round(s, RoundingMode::HalfUp);
        let limit = BigDecimal::from(10).powi(p - s) - BigDecimal::new(1.into(), s);
        if d.abs() > limit {
            if strict {
                return Err(fail(
                    1264,
                    format!("Out of range value for column '{column}' at row 1"),
                ));
            }
            let clamped = if d.is_negative() { -limit } else { limit };
            return Ok(text_value(decimal_text(&clamped, s)));
        }
        Ok(text_value(decimal_text(&d, s)))
    })?;
    // my_store_double(v, strict, column, single): FLOAT (single 1) keeps a float's precision.
    scalar(conn, "my_store_double", 4, true, |a| {
        let v = a.v(0);
        if let ValueRef::Text(_) | ValueRef::Blob(_) = v {
            let text = some!(to_text(v)).into_owned();
            let trimmed = text.trim_matches(' ');
            let prefix = number_prefix(trimmed);
            if a.i64(1) == Some(1) && (prefix.is_empty() || prefix.len() != trimmed.len()) {
                let column = a.text(2).unwrap_or_default().into_owned();
                return Err(if prefix.is_empty() {
                    fail(
                        1366,
                        format!("Incorrect double value: '{text}' for column '{column}' at row 1"),
                    )
                } else {
                    fail(
                        1265,
                        format!("Data truncated for column '{column}' at row 1"),
                    )
                });
            }
        }
        let x = some!(to_f64(v));
        if x.is_infinite() {
            // A text past DOUBLE's range ('1e400'): MySQL's 1264.
            let column = a.text(2).unwrap_or_default().into_owned();
            let message = format!("Out of range value for column '{column}' at row 1");
            if a.i64(1) == Some(1) {
                return Err(fail(1264, message));
            }
            warn(1264, &message);
            return Ok(Value::Real(f64::MAX.copysign(x)));
        }
        if a.i64(3) == Some(1) && x.is_finite() && (x as f32).is_infinite() {
            // Past FLOAT's range: MySQL's 1264 in strict mode, its largest FLOAT otherwise.
            let column = a.text(2).unwrap_or_default().into_owned();
            let message = format!("Out of range value for column '{column}' at row 1");
            if a.i64(1) == Some(1) {
                return Err(fail(1264, message));
            }
            warn(1264, &message);
            return Ok(Value::Real(f64::from(f32::MAX.copysign(x as f32))));
        }
        Ok(Value::Real(if a.i64(3) == Some(1) {
            f64::from(x as f32)
        } else {
            x
        }))
    })?;
    // my_store_str(v, length, is_char, strict, column, code): code is the value's type code.
    scalar(conn, "my_store_str", 6, true, |a| {
        // Bytes that are no UTF-8 (`x'ff'`) are no utf8mb4 string: MySQL's 1366.
        if let ValueRef::Blob(b) | ValueRef::Text(b) = a.v(0)
            && let Err(bad) = std::str::from_utf8(b)
        {
            let shown: String = b[bad.valid_up_to()..]
                .iter()
                .take(6)
                .map(|byte| format!("\\x{byte:02X}"))
                .collect();
            let column = a.text(4).unwrap_or_default().into_owned();
            let message =
                format!("Incorrect string value: '{shown}' for column '{column}' at row 1");
            if a.i64(3) == Some(1) {
                return Err(fail(1366, message));
            }
            return Err(unsupported_fn(
                "bytes that are no UTF-8 stored outside strict mode",
            ));
        }
        let code = a.text(5).unwrap_or_default().into_owned();
        let text = match code.as_str() {
            "f" => double_text(some!(a.f64(0))),
            "g" => float_text(some!(a.f64(0))),
            d if d.starts_with('d') => decimal_text(&some!(a.dec(0)), d[1..].parse().unwrap_or(0)),
            _ => some!(a.text(0)).into_owned(),
        };
        let length = some!(a.i64(1)) as usize;
        let is_char = a.i64(2) == Some(1);
        let chars = text.chars().count();
        let mut text = if chars > length {
            let kept: String = text.chars().take(length).collect();
            // Trailing spaces cut off are no error (MySQL notes them).
            if a.i64(3) == Some(1) && !text.chars().skip(length).all(|c| c == ' ') {
                let column = a.text(4).unwrap_or_default().into_owned();
                return Err(fail(
                    1406,
                    format!("Data too long for column '{column}' at row 1"),
                ));
            }
            kept
        } else {
            text
        };
        if is_char {
            text.truncate(text.trim_end_matches(' ').len());
        }
        Ok(text_value(text))
    })?;
    // my_store_date(v, fsp, strict, column, kind): kind 'date' or 'datetime'.
    scalar(conn, "my_store_date", 5, true, |a| {
        let v = a.v(0);
        if matches!(v, ValueRef::Null) {
            return Ok(Value::Null);
        }
        let column_type = a.text(4).unwrap_or_default().into_owned();
        // A TIMESTAMP's messages call it a datetime.
        let kind = if column_type == "timestamp" {
            "datetime".to_owned()
        } else {
            column_type.clone()
        };
        let fsp = some!(a.i64(1)).clamp(0, 6) as u8;
        // A date with zero parts is kept as MySQL's default SQL mode keeps it; NO_ZERO_DATE
        // and NO_ZERO_IN_DATE (flags 2 and 4 of the strictness) refuse it in a strict write.
        let strictness = a.i64(2).unwrap_or(0);
        if dates::read(v).is_none()
            && let Some(d) = dates::read_parts(v)
        {
            if strictness & 1 == 1 && d.refused_by(strictness) {
                let column = a.text(3).unwrap_or_default().into_owned();
                let shown = to_text(v).unwrap_or_default().into_owned();
                return Err(fail(
                    1292,
                    format!("Incorrect {kind} value: '{shown}' for column '{column}' at row 1"),
                ));
            }
            if kind == "date" {
                return Ok(text_value(d.date_text()));
            }
            if d.fsp > fsp && d.micros % 10u32.pow(6 - u32::from(fsp)) != 0 {
                return Err(unsupported_fn(
                    "a zero date with more fraction digits than its column",
                ));
            }
            return Ok(text_value(d.datetime_text(fsp)));
        }
        let Some(m) = dates::read(v) else {
            let column = a.text(3).unwrap_or_default().into_owned();
            let shown = to_text(v).unwrap_or_default().into_owned();
            if strictness & 1 == 1 {
                return Err(fail(
                    1292,
                    format!("Incorrect {kind} value: '{shown}' for column '{column}' at row 1"),
                ));
            }
            return Ok(text_value(if kind == "date" {
                "0000-00-00"
            } else {
                "0000-00-00 00:00:00"
            }));
        };
        if column_type == "timestamp" && !dates::in_timestamp_range(m.at) {
            let column = a.text(3).unwrap_or_default().into_owned();
            let shown = to_text(v).unwrap_or_default().into_owned();
            if strictness & 1 == 1 {
                return Err(fail(
                    1292,
                    format!("Incorrect datetime value: '{shown}' for column '{column}' at row 1"),
                ));
            }
            return Err(unsupported_fn(
                "a TIMESTAMP out of its range outside strict mode",
            ));
        }
        Ok(text_value(if kind == "date" {
            dates::date_text(m.at)
        } else {
            let micros = m.at.nanosecond() / 1000;
            let unit = 10u32.pow(6 - u32::from(fsp));
            let rounded = (micros + unit / 2) / unit * unit;
            let at = m.at.with_nanosecond(0).expect("zero nanoseconds")
                + chrono::Duration::microseconds(i64::from(rounded));
            dates::datetime_text(at, fsp)
        }))
    })?;
    Ok(())
}

/// SUM and AVG of exact values (DECIMAL, integers as AVG's input): the scale comes from the
/// translation (AVG's is the input's plus four).
#[derive(Debug)]
struct DecimalSum {
    average: bool,
}

impl Aggregate<(BigDecimal, i64, i64), Value> for DecimalSum {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<(BigDecimal, i64, i64)> {
        Ok((BigDecimal::zero(), 0, 0))
    }

    fn step(
        &self,
        ctx: &mut Context<'_>,
        acc: &mut (BigDecimal, i64, i64),
    ) -> rusqlite::Result<()> {
        if let Some(d) = to_decimal(ctx.get_raw(0)) {
            acc.0 += d;
            acc.1 += 1;
        }
        acc.2 = if ctx.len() > 1 {
            to_i64(ctx.get_raw(1)).unwrap_or(0)
        } else {
            // One argument: a DISTINCT key of `my_dec_key`, whose digits give the scale.
            let digits = match ctx.get_raw(0) {
                ValueRef::Text(t) => t
                    .iter()
                    .skip_while(|&&b| b != b'.')
                    .count()
                    .saturating_sub(1),
                _ => 0,
            };
            let digits = i64::try_from(digits).unwrap_or(0);
            if self.average {
                (digits + 4).min(30)
            } else {
                digits
            }
        };
        Ok(())
    }

    fn finalize(
        &self,
        _: &mut Context<'_>,
        acc: Option<(BigDecimal, i64, i64)>,
    ) -> rusqlite::Result<Value> {
        Ok(self.result(acc.as_ref()))
    }
}

impl DecimalSum {
    fn result(&self, acc: Option<&(BigDecimal, i64, i64)>) -> Value {
        let Some((sum, count, scale)) = acc.filter(|a| a.1 > 0) else {
            return Value::Null;
        };
        if self.average {
            // As MySQL divides (see `my_dec_div`): the sum's fraction digits plus four, rounded
            // up to whole 9-digit words, truncated; the scale rounds it only when shown.
            let internal = (scale + 8) / 9 * 9;
            let q = (sum / BigDecimal::from(*count)).with_scale_round(internal, RoundingMode::Down);
            return text_value(q.to_plain_string());
        }
        text_value(decimal_text(sum, *scale))
    }
}

/// Over a window: the sum so far; a row leaving the frame is subtracted, exactly.
impl WindowAggregate<(BigDecimal, i64, i64), Value> for DecimalSum {
    fn value(&self, acc: Option<&mut (BigDecimal, i64, i64)>) -> rusqlite::Result<Value> {
        Ok(self.result(acc.map(|a| &*a)))
    }

    fn inverse(
        &self,
        ctx: &mut Context<'_>,
        acc: &mut (BigDecimal, i64, i64),
    ) -> rusqlite::Result<()> {
        if let Some(d) = to_decimal(ctx.get_raw(0)) {
            acc.0 -= d;
            acc.1 -= 1;
        }
        Ok(())
    }
}

/// SUM and AVG of DOUBLEs, added in row order as MySQL does (SQLite's `sum` compensates).
#[derive(Debug)]
struct RealSum {
    average: bool,
}

impl Aggregate<(f64, i64), Option<f64>> for RealSum {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<(f64, i64)> {
        Ok((0.0, 0))
    }

    fn step(&self, ctx: &mut Context<'_>, acc: &mut (f64, i64)) -> rusqlite::Result<()> {
        if let Some(x) = to_f64(ctx.get_raw(0)) {
            acc.0 += x;
            acc.1 += 1;
        }
        Ok(())
    }

    fn finalize(
        &self,
        _: &mut Context<'_>,
        acc: Option<(f64, i64)>,
    ) -> rusqlite::Result<Option<f64>> {
        Ok(acc
            .filter(|a| a.1 > 0)
            .map(|(sum, n)| if self.average { sum / n as f64 } else { sum }))
    }
}

fn register_aggregates(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_window_function("my_dec_sum", 2, flags, DecimalSum { average: false })?;
    conn.create_window_function("my_dec_avg", 2, flags, DecimalSum { average: true })?;
    // SUM(DISTINCT …) and AVG(DISTINCT …) of exact values: SQLite's DISTINCT takes aggregates of
    // one argument, a `my_dec_key`.
    conn.create_aggregate_function("my_dec_sum", 1, flags, DecimalSum { average: false })?;
    conn.create_aggregate_function("my_dec_avg", 1, flags, DecimalSum { average: true })?;
    conn.create_aggregate_function("my_real_sum", 1, flags, RealSum { average: false })?;
    conn.create_aggregate_function("my_real_avg", 1, flags, RealSum { average: true })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_column_named_with_its_row_is_shown_at_that_row() {
        let mark = crate::ROW_MARK;
        assert_eq!(
            super::with_row(format!("Data too long for column 'b{mark}3' at row 1")),
            "Data too long for column 'b' at row 3"
        );
        assert_eq!(
            super::with_row(format!("Column 'b{mark}12' cannot be null")),
            "Column 'b' cannot be null"
        );
        assert_eq!(
            super::with_row("Out of range value for column 'a' at row 1".to_owned()),
            "Out of range value for column 'a' at row 1"
        );
    }

    use super::*;

    #[test]
    fn a_period_reads_two_digit_years_as_mysql_does() {
        assert_eq!(period_months(6912).unwrap(), 2069 * 12 + 11);
        assert_eq!(period_months(7001).unwrap(), 1970 * 12);
        assert_eq!(period_months(202403).unwrap(), 2024 * 12 + 2);
        assert_eq!(period_months(0).unwrap(), 0);
    }

    #[test]
    fn a_period_whose_month_mysql_8_refuses_is_1235() {
        for period in [202413, 202400, -202401, 1_000_001] {
            assert_eq!(period_months(period).unwrap_err().code, 1235, "{period}");
        }
    }

    #[test]
    fn a_year_of_two_digits_is_read_as_mysql_reads_it() {
        use crate::value::year_of_number;
        assert_eq!(year_of_number(69), Some(2069));
        assert_eq!(year_of_number(70), Some(1970));
        assert_eq!(year_of_number(2155), Some(2155));
        assert_eq!(year_of_number(1900), None);
        assert_eq!(year_of_number(100), None);
    }

    #[test]
    fn months_are_written_back_as_a_four_digit_year_period() {
        assert_eq!(months_period(2069 * 12 + 11 + 1), 207001);
        assert_eq!(months_period(13), 200102);
        assert_eq!(months_period(0), 0);
    }
}
