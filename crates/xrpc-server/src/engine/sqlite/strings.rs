//! MySQL's string functions where SQLite has a namesake that answers differently.
//!
//! # Design
//!
//! SQLite lets a connection replace a built-in function by registering one of the same name
//! and arity, so these are registered on every connection ([`register`]) and no statement is
//! rewritten for them:
//!
//! | function | SQLite's | MySQL's (here) |
//! | --- | --- | --- |
//! | `LENGTH(s)` | characters | bytes (`LENGTH('é')` is 2) |
//! | `CHAR_LENGTH(s)`, `CHARACTER_LENGTH(s)` | (none) | characters |
//! | `CONCAT(a, …)` | skips NULL arguments | NULL if any argument is NULL |
//! | `UPPER(s)`, `LOWER(s)` | ASCII letters only | every letter (`UPPER('é')` is `É`); a BLOB unchanged |
//!
//! A number argument is read as MySQL's text of it (a DOUBLE in MySQL's shortest form). SQL
//! SQLite stores (views, triggers) calls these names too; read outside the node, such SQL gets
//! SQLite's built-ins back.

use rusqlite::Connection;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SqlValue, ValueRef};

use super::cast::format_double;

/// The bytes MySQL would see for an argument, `None` for NULL.
fn bytes_of(value: ValueRef<'_>) -> Option<std::borrow::Cow<'_, [u8]>> {
    use std::borrow::Cow;
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(Cow::Owned(i.to_string().into_bytes())),
        ValueRef::Real(f) => Some(Cow::Owned(format_double(f).into_bytes())),
        ValueRef::Text(t) => Some(Cow::Borrowed(t)),
        ValueRef::Blob(b) => Some(Cow::Borrowed(b)),
    }
}

/// `CONCAT(args…)`: NULL if any is NULL; a BLOB if any is a BLOB or not UTF-8, else TEXT.
fn concat(ctx: &Context<'_>) -> SqlValue {
    let mut out = Vec::new();
    let mut binary = false;
    for i in 0..ctx.len() {
        let value = ctx.get_raw(i);
        binary |= matches!(value, ValueRef::Blob(_));
        match bytes_of(value) {
            None => return SqlValue::Null,
            Some(bytes) => out.extend_from_slice(&bytes),
        }
    }
    if binary {
        return SqlValue::Blob(out);
    }
    String::from_utf8(out).map_or_else(|e| SqlValue::Blob(e.into_bytes()), SqlValue::Text)
}

/// `UPPER`/`LOWER` of one argument with `convert` on text.
fn change_case(value: ValueRef<'_>, convert: fn(&str) -> String) -> SqlValue {
    match value {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Blob(b) => SqlValue::Blob(b.to_vec()),
        other => {
            let bytes = bytes_of(other).unwrap_or_default();
            SqlValue::Text(convert(&String::from_utf8_lossy(&bytes)))
        }
    }
}

/// Registers the functions of the module docs.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("length", 1, flags, |ctx| {
        Ok(bytes_of(ctx.get_raw(0)).map(|b| b.len() as i64))
    })?;
    for name in ["char_length", "character_length"] {
        conn.create_scalar_function(name, 1, flags, |ctx| {
            Ok(match ctx.get_raw(0) {
                ValueRef::Null => None,
                ValueRef::Blob(b) => Some(b.len() as i64),
                other => {
                    bytes_of(other).map(|b| String::from_utf8_lossy(&b).chars().count() as i64)
                }
            })
        })?;
    }
    conn.create_scalar_function("concat", -1, flags, |ctx| Ok(concat(ctx)))?;
    conn.create_scalar_function("upper", 1, flags, |ctx| {
        Ok(change_case(ctx.get_raw(0), str::to_uppercase))
    })?;
    conn.create_scalar_function("lower", 1, flags, |ctx| {
        Ok(change_case(ctx.get_raw(0), str::to_lowercase))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_functions_answer_as_mysql() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        let row: (
            i64,
            i64,
            Option<String>,
            String,
            String,
            i64,
            String,
            Vec<u8>,
        ) = conn
            .query_row(
                "select length('é'), char_length('é'), concat('a', NULL), concat('a', 1, 1.5), \
                 upper('é'), length(1.5), lower('ÀB'), upper(x'61')",
                [],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                    ))
                },
            )
            .unwrap();
        assert_eq!(
            row,
            (
                2,
                1,
                None,
                "a11.5".into(),
                "É".into(),
                3,
                "àb".into(),
                b"a".to_vec()
            )
        );
    }
}
