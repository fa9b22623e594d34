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
//! | `SUBSTR(s, pos[, len])`, `SUBSTRING` | position 0 is 1; a negative length takes characters before `pos` | position 0 or a length below 1 is `''` |
//! | `HEX(n)` of a number | hex of its text (`HEX(255)` is `323535`) | hex of its 64-bit value (`FF`, `HEX(-1)` is `FFFFFFFFFFFFFFFF`) |
//!
//! A number argument is read as MySQL's text of it (a DOUBLE in MySQL's shortest form). SQL
//! SQLite stores (views, triggers) calls these names too; read outside the node, such SQL gets
//! SQLite's built-ins back.

use rusqlite::Connection;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SqlValue, ValueRef};

use crate::numbers::format_double;

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

/// An integer argument as MySQL reads it (a fraction rounded half away from zero); `None` for
/// NULL.
fn integer_arg(value: ValueRef<'_>) -> Option<i64> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) => Some(f.round() as i64),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let text = String::from_utf8_lossy(t);
            let (number, _) = crate::numbers::number_prefix(&text);
            Some(number.parse::<f64>().map_or(0, |f| f.round() as i64))
        }
    }
}

/// `SUBSTRING(s, pos[, len])` as MySQL: 1-based, a negative `pos` counts from the end,
/// position 0, a position beyond either end or a length below 1 give `''`. Characters of
/// text, bytes of a BLOB.
fn substring(ctx: &Context<'_>) -> SqlValue {
    let value = ctx.get_raw(0);
    let Some(pos) = integer_arg(ctx.get_raw(1)) else {
        return SqlValue::Null;
    };
    let len = if ctx.len() > 2 {
        match integer_arg(ctx.get_raw(2)) {
            Some(len) => len,
            None => return SqlValue::Null,
        }
    } else {
        i64::MAX
    };
    let range = |count: usize| -> Option<(usize, usize)> {
        let count = count as i64;
        let start = if pos > 0 { pos - 1 } else { count + pos };
        if pos == 0 || start < 0 || start >= count || len < 1 {
            return None;
        }
        Some((
            start as usize,
            (start.saturating_add(len)).min(count) as usize,
        ))
    };
    match value {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Blob(b) => {
            SqlValue::Blob(range(b.len()).map_or_else(Vec::new, |(a, z)| b[a..z].to_vec()))
        }
        other => {
            let bytes = bytes_of(other).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            let chars: Vec<char> = text.chars().collect();
            SqlValue::Text(
                range(chars.len()).map_or_else(String::new, |(a, z)| chars[a..z].iter().collect()),
            )
        }
    }
}

/// `HEX(x)`: a number's 64-bit value in hex, a string's bytes in hex (upper case, as both).
fn hex(value: ValueRef<'_>) -> SqlValue {
    let digits = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02X}")).collect::<String>();
    match value {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Integer(i) => SqlValue::Text(format!("{:X}", i as u64)),
        ValueRef::Real(f) => SqlValue::Text(format!("{:X}", f.round() as i64 as u64)),
        ValueRef::Text(b) | ValueRef::Blob(b) => SqlValue::Text(digits(b)),
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
    for name in ["substr", "substring"] {
        for arity in [2, 3] {
            conn.create_scalar_function(name, arity, flags, |ctx| Ok(substring(ctx)))?;
        }
    }
    conn.create_scalar_function("hex", 1, flags, |ctx| Ok(hex(ctx.get_raw(0))))?;
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
    fn substring_and_hex_answer_as_mysql() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        let text = |sql: &str| -> Option<String> {
            conn.query_row(&format!("select {sql}"), [], |r| r.get(0))
                .unwrap()
        };
        for (sql, want) in [
            ("substr('abc', 0)", Some("")),
            ("substring('abcdef', 2, 3)", Some("bcd")),
            ("substring('abc', 2, -1)", Some("")),
            ("substr('abcdef', -2)", Some("ef")),
            ("substr('abcdef', -2, 1)", Some("e")),
            ("substr('abc', 5)", Some("")),
            ("substr('abc', -5)", Some("")),
            ("substr('héllo', 2, 2)", Some("él")),
            ("substr(NULL, 1)", None),
            ("hex(255)", Some("FF")),
            ("hex(-1)", Some("FFFFFFFFFFFFFFFF")),
            ("hex(255.5)", Some("100")),
            ("hex('a')", Some("61")),
        ] {
            assert_eq!(text(sql).as_deref(), want, "{sql}");
        }
    }

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
