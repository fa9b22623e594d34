//! Mapping between SQLite's dynamic types and the X protocol's column types, both ways.
//!
//! See the parent module's docs for the rules; this module implements them:
//! [`classify_decl`] reads a declared type, [`plan_columns`] fixes each column's X type from its
//! declaration and the first rows, [`convert`] turns one SQLite value into a [`Value`] of the
//! column's type, and [`to_arg`] turns a statement argument into something SQLite can bind.

use std::borrow::Cow;

use bytes::Bytes;
use rusqlite::ToSql;
use rusqlite::types::{ToSqlOutput, Value as SqlValue, ValueRef};
use xrpc_proto::codes;
use xrpc_proto::value::{ColumnType, Value, XDateTime, XDecimal, XTime};

use crate::result::{COLLATION_BINARY, ColumnInfo, SqlError, mysql_type};

/// Rows read ahead, at most, to type columns whose declaration does not settle their type.
pub(crate) const LOOKAHEAD_ROWS: usize = 64;
/// Bytes read ahead, at most (a row that crosses it still counts).
pub(crate) const LOOKAHEAD_BYTES: usize = 256 * 1024;

/// MySQL's "not fixed" decimals for DOUBLE columns without a declared scale.
const NOT_FIXED_DEC: u32 = 31;

/// What a declared type says about a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeclKind {
    /// Integer types (SQLite INTEGER affinity, or BOOL): SINT with this MySQL type and length.
    Int { mysql: u32, length: u32 },
    /// REAL, DOUBLE, FLOAT: DOUBLE.
    Double,
    /// DECIMAL(p, s), NUMERIC: DECIMAL.
    Decimal {
        precision: Option<u32>,
        scale: Option<u8>,
    },
    /// DATE: DATETIME without a time, if the values parse.
    Date,
    /// DATETIME or TIMESTAMP (`mysql` tells which), if the values parse.
    DateTime { mysql: u32, fsp: Option<u32> },
    /// TIME, if the values parse.
    Time { fsp: Option<u32> },
    /// CHAR, VARCHAR, TEXT, CLOB, JSON, ENUM…: text.
    Text { length: Option<u32> },
    /// BLOB, BINARY, VARBINARY: binary bytes.
    Binary { mysql: u32, length: Option<u32> },
    /// No declaration, or one that names no type we know: typed from the values.
    Runtime,
}

impl DeclKind {
    /// Whether the column's type depends on the values read ahead.
    pub(crate) fn needs_values(self) -> bool {
        matches!(
            self,
            DeclKind::Runtime
                | DeclKind::Date
                | DeclKind::DateTime { .. }
                | DeclKind::Time { .. }
                | DeclKind::Decimal { scale: None, .. }
        )
    }
}

/// How values of a column are converted; fixed once the metadata is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Conv {
    /// SINT.
    Sint,
    /// DOUBLE.
    Double,
    /// BYTES (text or binary: the conversion is the same, only the collation differs).
    Bytes,
    /// DECIMAL, rescaled to the declared scale when there is one.
    Decimal(Option<u8>),
    /// DATETIME without a time part.
    Date,
    /// DATETIME.
    DateTime,
    /// TIME.
    Time,
}

/// A column's metadata and conversion.
#[derive(Debug, Clone)]
pub(crate) struct ColumnPlan {
    pub(crate) info: ColumnInfo,
    pub(crate) conv: Conv,
}

/// Reads a declared type. Temporal and decimal names are checked first (SQLite gives them
/// NUMERIC affinity), then SQLite's own affinity rules in their order (`INT`; `CHAR`, `CLOB`,
/// `TEXT`; `BLOB`; `REAL`, `FLOA`, `DOUB`), with MySQL names for the MySQL type.
pub(crate) fn classify_decl(decl: Option<&str>) -> DeclKind {
    let Some(decl) = decl else {
        return DeclKind::Runtime;
    };
    let upper = decl.to_ascii_uppercase();
    let (base, args) = match upper.split_once('(') {
        Some((base, rest)) => (base.trim(), rest.split(')').next().unwrap_or("")),
        None => (upper.trim(), ""),
    };
    let mut nums = args.split(',').map(|n| n.trim().parse::<u32>().ok());
    let first = nums.next().flatten();
    let second = nums.next().flatten();
    let has = |word: &str| base.contains(word);
    if has("DATETIME") {
        DeclKind::DateTime {
            mysql: mysql_type::DATETIME,
            fsp: first,
        }
    } else if has("TIMESTAMP") {
        DeclKind::DateTime {
            mysql: mysql_type::TIMESTAMP,
            fsp: first,
        }
    } else if has("DATE") {
        DeclKind::Date
    } else if has("TIME") {
        DeclKind::Time { fsp: first }
    } else if has("INT") {
        let (mysql, length) = if has("TINYINT") {
            (mysql_type::TINY, 4)
        } else if has("SMALLINT") {
            (mysql_type::SHORT, 6)
        } else if has("MEDIUMINT") {
            (mysql_type::INT24, 9)
        } else {
            (mysql_type::LONGLONG, 20)
        };
        DeclKind::Int { mysql, length }
    } else if has("DECIMAL") || has("NUMERIC") || base == "DEC" || has("FIXED") {
        DeclKind::Decimal {
            precision: first,
            scale: first.map(|_| second.unwrap_or(0).min(255) as u8),
        }
    } else if has("CHAR") || has("CLOB") || has("TEXT") || has("JSON") || has("ENUM") {
        DeclKind::Text { length: first }
    } else if has("BLOB") {
        DeclKind::Binary {
            mysql: mysql_type::BLOB,
            length: first,
        }
    } else if has("BINARY") {
        let mysql = if has("VARBINARY") {
            mysql_type::VAR_STRING
        } else {
            mysql_type::STRING
        };
        DeclKind::Binary {
            mysql,
            length: first,
        }
    } else if has("REAL") || has("FLOA") || has("DOUB") {
        DeclKind::Double
    } else if has("BOOL") {
        DeclKind::Int {
            mysql: mysql_type::TINY,
            length: 1,
        }
    } else {
        DeclKind::Runtime
    }
}

/// SQLite storage classes seen in a column, as bits.
const SEEN_INT: u8 = 1;
const SEEN_REAL: u8 = 2;
const SEEN_TEXT: u8 = 4;
const SEEN_BLOB: u8 = 8;

/// Fixes every column's metadata and conversion from its name, declaration and the rows read
/// ahead. `ended` says whether those rows are the whole result.
pub(crate) fn plan_columns(
    names: &[String],
    kinds: &[DeclKind],
    window: &[Vec<SqlValue>],
    ended: bool,
    schema: &str,
) -> Vec<ColumnPlan> {
    names
        .iter()
        .zip(kinds)
        .enumerate()
        .map(|(index, (name, &kind))| {
            let values = || window.iter().map(move |row| ValueRef::from(&row[index]));
            let (mut info, conv) = plan_column(name, kind, values, ended);
            if !matches!(kind, DeclKind::Runtime) {
                // A declared type means a table column (or a view or subquery over one).
                info.schema = schema.to_owned();
            }
            ColumnPlan { info, conv }
        })
        .collect()
}

fn plan_column<'a, I>(
    name: &str,
    kind: DeclKind,
    values: impl Fn() -> I,
    ended: bool,
) -> (ColumnInfo, Conv)
where
    I: Iterator<Item = ValueRef<'a>>,
{
    let text_column = |length: u32| {
        let mut info = ColumnInfo::text(name);
        info.length = length;
        (info, Conv::Bytes)
    };
    match kind {
        DeclKind::Int { mysql, length } => {
            let mut info = ColumnInfo::new(name, ColumnType::Sint, mysql);
            info.length = length;
            (info, Conv::Sint)
        }
        DeclKind::Double => {
            let mut info = ColumnInfo::double(name);
            info.length = 22;
            info.fractional_digits = NOT_FIXED_DEC;
            (info, Conv::Double)
        }
        DeclKind::Decimal { precision, scale } => {
            let mut info = ColumnInfo::new(name, ColumnType::Decimal, mysql_type::NEWDECIMAL);
            info.collation = COLLATION_BINARY;
            let fractional = match scale {
                Some(scale) => u32::from(scale),
                None => values()
                    .filter_map(|v| to_decimal(v, None).ok())
                    .map(|d| u32::from(d.scale()))
                    .max()
                    .unwrap_or(0),
            };
            info.fractional_digits = fractional;
            info.length = precision.map_or(65, |p| p + 2);
            (info, Conv::Decimal(scale))
        }
        DeclKind::Date => {
            if !all_text_parse(values(), |s| parse_datetime(s).is_some()) {
                return text_column(0);
            }
            let mut info = ColumnInfo::new(name, ColumnType::DateTime, mysql_type::DATE);
            info.length = 10;
            (info, Conv::Date)
        }
        DeclKind::DateTime { mysql, fsp } => {
            if !all_text_parse(values(), |s| parse_datetime(s).is_some()) {
                return text_column(0);
            }
            let fsp = fsp.unwrap_or_else(|| max_fraction(values())).min(6);
            let mut info = ColumnInfo::new(name, ColumnType::DateTime, mysql);
            info.fractional_digits = fsp;
            info.length = 19 + if fsp > 0 { fsp + 1 } else { 0 };
            (info, Conv::DateTime)
        }
        DeclKind::Time { fsp } => {
            if !all_text_parse(values(), |s| parse_time(s).is_some()) {
                return text_column(0);
            }
            let fsp = fsp.unwrap_or_else(|| max_fraction(values())).min(6);
            let mut info = ColumnInfo::new(name, ColumnType::Time, mysql_type::TIME);
            info.fractional_digits = fsp;
            info.length = 10 + if fsp > 0 { fsp + 1 } else { 0 };
            (info, Conv::Time)
        }
        DeclKind::Text { length } => text_column(length.map_or(262_140, |n| n.saturating_mul(4))),
        DeclKind::Binary { mysql, length } => {
            let mut info = ColumnInfo::binary(name);
            info.mysql_type = mysql;
            info.length = length.unwrap_or(65_535);
            (info, Conv::Bytes)
        }
        DeclKind::Runtime => {
            let seen = values().fold(0u8, |seen, v| {
                seen | match v {
                    ValueRef::Null => 0,
                    ValueRef::Integer(_) => SEEN_INT,
                    ValueRef::Real(_) => SEEN_REAL,
                    ValueRef::Text(_) => SEEN_TEXT,
                    ValueRef::Blob(_) => SEEN_BLOB,
                }
            });
            if seen == 0 {
                if ended {
                    // Every value is NULL: MySQL's NULL-typed column (`select null`).
                    let mut info = ColumnInfo::binary(name);
                    info.mysql_type = mysql_type::NULL;
                    info.length = 0;
                    (info, Conv::Bytes)
                } else {
                    text_column(0)
                }
            } else if seen == SEEN_INT {
                let mut info = ColumnInfo::bigint(name);
                info.length = 21;
                (info, Conv::Sint)
            } else if seen & (SEEN_TEXT | SEEN_BLOB) == 0 {
                let mut info = ColumnInfo::double(name);
                info.length = 22;
                info.fractional_digits = NOT_FIXED_DEC;
                (info, Conv::Double)
            } else if seen & SEEN_BLOB != 0 {
                let mut info = ColumnInfo::binary(name);
                info.length = 65_535;
                (info, Conv::Bytes)
            } else {
                text_column(262_140)
            }
        }
    }
}

/// Whether every non-NULL value is text that `parses`.
fn all_text_parse<'a>(
    mut values: impl Iterator<Item = ValueRef<'a>>,
    parses: impl Fn(&str) -> bool,
) -> bool {
    values.all(|v| match v {
        ValueRef::Null => true,
        ValueRef::Text(t) => std::str::from_utf8(t).is_ok_and(&parses),
        _ => false,
    })
}

/// The most fractional-second digits among the text values (for DATETIME and TIME without a
/// declared precision).
fn max_fraction<'a>(values: impl Iterator<Item = ValueRef<'a>>) -> u32 {
    values
        .filter_map(|v| match v {
            ValueRef::Text(t) => std::str::from_utf8(t).ok(),
            _ => None,
        })
        .filter_map(|s| {
            let (_, frac) = s.trim().rsplit_once('.')?;
            Some(frac.bytes().take_while(u8::is_ascii_digit).count() as u32)
        })
        .max()
        .unwrap_or(0)
}

/// Converts one SQLite value to the column's type. Conversions follow SQLite's CAST rules (and
/// MySQL's non-strict mode): text that is not a number reads as its numeric prefix, or 0; a
/// real in an integer column is truncated; text that is not a date or time reads as the zero
/// value. The only failure is an infinite real in a DECIMAL column.
pub(crate) fn convert(conv: Conv, value: ValueRef<'_>) -> Result<Value, SqlError> {
    if let ValueRef::Null = value {
        return Ok(Value::Null);
    }
    Ok(match conv {
        Conv::Sint => Value::Sint(match value {
            ValueRef::Integer(i) => i,
            // `as` saturates and maps NaN to 0, which is SQLite's CAST.
            ValueRef::Real(f) => f as i64,
            ValueRef::Text(t) | ValueRef::Blob(t) => text_to_i64(t),
            ValueRef::Null => unreachable!("handled above"),
        }),
        Conv::Double => Value::Double(match value {
            ValueRef::Integer(i) => i as f64,
            ValueRef::Real(f) => f,
            ValueRef::Text(t) | ValueRef::Blob(t) => text_to_f64(t),
            ValueRef::Null => unreachable!("handled above"),
        }),
        Conv::Bytes => Value::Bytes(match value {
            ValueRef::Integer(i) => Bytes::from(i.to_string()),
            ValueRef::Real(f) => Bytes::from(format_real(f)),
            ValueRef::Text(t) | ValueRef::Blob(t) => Bytes::copy_from_slice(t),
            ValueRef::Null => unreachable!("handled above"),
        }),
        Conv::Decimal(scale) => Value::Decimal(to_decimal(value, scale)?),
        Conv::Date => Value::DateTime(
            text_of(value)
                .and_then(parse_datetime)
                .and_then(|dt| XDateTime::date(dt.year(), dt.month(), dt.day()).ok())
                .unwrap_or_default(),
        ),
        Conv::DateTime => Value::DateTime(
            text_of(value)
                .and_then(parse_datetime)
                .map(|dt| {
                    if dt.has_time() {
                        dt
                    } else {
                        XDateTime::new(dt.year(), dt.month(), dt.day(), 0, 0, 0, 0).unwrap_or(dt)
                    }
                })
                .unwrap_or_else(|| {
                    XDateTime::new(0, 0, 0, 0, 0, 0, 0).expect("the zero datetime is valid")
                }),
        ),
        Conv::Time => Value::Time(text_of(value).and_then(parse_time).unwrap_or_default()),
    })
}

fn text_of(value: ValueRef<'_>) -> Option<&str> {
    match value {
        ValueRef::Text(t) => std::str::from_utf8(t).ok(),
        _ => None,
    }
}

/// A real as text: the shortest form that reads back the same, with `.0` on whole numbers as
/// SQLite prints them.
pub(crate) fn format_real(f: f64) -> String {
    if f.is_infinite() {
        return if f > 0.0 { "Inf" } else { "-Inf" }.to_owned();
    }
    let mut s = f.to_string();
    if f.is_finite() && !s.contains(['.', 'e', 'N']) {
        s.push_str(".0");
    }
    s
}

/// The longest prefix of `text` (after leading whitespace) that reads as a number, SQLite's
/// rule for CAST; and whether it has a point or an exponent.
fn numeric_prefix(text: &[u8]) -> (&str, bool) {
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let s = &text[start..];
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |from: usize| s[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let int_digits = digits(i);
    i += int_digits;
    let mut real = false;
    let mut frac_digits = 0;
    if s.get(i) == Some(&b'.') {
        frac_digits = digits(i + 1);
        if int_digits + frac_digits > 0 {
            i += 1 + frac_digits;
            real = true;
        }
    }
    if int_digits + frac_digits == 0 {
        return ("", false);
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_digits = digits(j);
        if exp_digits > 0 {
            i = j + exp_digits;
            real = true;
        }
    }
    // Only ASCII was consumed, so this is valid UTF-8.
    (std::str::from_utf8(&s[..i]).unwrap_or(""), real)
}

/// Text as an integer, as SQLite's `CAST(x AS INTEGER)`: saturating, 0 when not a number.
pub(crate) fn text_to_i64(text: &[u8]) -> i64 {
    let (prefix, real) = numeric_prefix(text);
    if prefix.is_empty() {
        0
    } else if real {
        prefix.parse::<f64>().map_or(0, |f| f as i64)
    } else {
        prefix.parse::<i64>().unwrap_or_else(|_| {
            if prefix.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            }
        })
    }
}

/// Text as a real, as SQLite's `CAST(x AS REAL)`: 0 when not a number.
pub(crate) fn text_to_f64(text: &[u8]) -> f64 {
    let (prefix, _) = numeric_prefix(text);
    prefix.parse::<f64>().unwrap_or(0.0)
}

/// A value as an exact decimal, rescaled (rounding half away from zero) when `scale` is given.
pub(crate) fn to_decimal(value: ValueRef<'_>, scale: Option<u8>) -> Result<XDecimal, SqlError> {
    let decimal = match value {
        ValueRef::Null => zero_decimal(),
        ValueRef::Integer(i) => XDecimal::new(i < 0, &i.unsigned_abs().to_string(), 0)
            .map_err(|err| SqlError::new(&codes::ENGINE_ERROR, err.to_string()))?,
        ValueRef::Real(f) => real_to_decimal(f)?,
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let trimmed = std::str::from_utf8(t).map(str::trim).unwrap_or("");
            match XDecimal::parse(trimmed) {
                Ok(d) => d,
                Err(_) => match numeric_prefix(t) {
                    ("", _) => zero_decimal(),
                    (prefix, true) => real_to_decimal(prefix.parse::<f64>().unwrap_or(0.0))?,
                    (prefix, false) => XDecimal::parse(prefix).unwrap_or_else(|_| zero_decimal()),
                },
            }
        }
    };
    Ok(rescale(decimal, scale))
}

fn zero_decimal() -> XDecimal {
    XDecimal::new(false, "0", 0).expect("0 is a decimal")
}

fn real_to_decimal(f: f64) -> Result<XDecimal, SqlError> {
    if !f.is_finite() {
        return Err(SqlError::new(
            &codes::ENGINE_ERROR,
            format!("the value {f} cannot be represented as DECIMAL"),
        ));
    }
    // Rust prints finite floats without an exponent, in the shortest form that reads back.
    XDecimal::parse(&f.to_string())
        .map_err(|err| SqlError::new(&codes::ENGINE_ERROR, err.to_string()))
}

/// Rescales to `scale` digits after the point, and turns negative zero into zero.
fn rescale(decimal: XDecimal, scale: Option<u8>) -> XDecimal {
    let mut digits = decimal.digits().to_owned();
    let mut current = decimal.scale();
    if let Some(scale) = scale {
        if current < scale {
            digits.extend(std::iter::repeat_n('0', usize::from(scale - current)));
        } else if current > scale {
            let drop = usize::from(current - scale);
            if digits.len() <= drop {
                digits.insert_str(0, &"0".repeat(drop + 1 - digits.len()));
            }
            let keep = digits.len() - drop;
            let round_up = digits.as_bytes()[keep] >= b'5';
            digits.truncate(keep);
            if round_up {
                increment(&mut digits);
            }
        }
        current = scale;
    }
    let negative = decimal.is_negative() && digits.bytes().any(|b| b != b'0');
    XDecimal::new(negative, &digits, current).unwrap_or(decimal)
}

/// Adds one to a string of decimal digits.
fn increment(digits: &mut String) {
    let mut bytes = std::mem::take(digits).into_bytes();
    let mut carry = true;
    for b in bytes.iter_mut().rev() {
        if *b == b'9' {
            *b = b'0';
        } else {
            *b += 1;
            carry = false;
            break;
        }
    }
    if carry {
        bytes.insert(0, b'1');
    }
    *digits = String::from_utf8(bytes).expect("ASCII digits");
}

/// `YYYY-MM-DD` with an optional time `HH:MM[:SS[.fraction]]` after a space or `T`.
pub(crate) fn parse_datetime(s: &str) -> Option<XDateTime> {
    let s = s.trim();
    let (date, time) = match s.find([' ', 'T']) {
        Some(at) => (&s[..at], Some(s[at + 1..].trim_start())),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let year = number(parts.next()?, 1, 4)?;
    let month = number(parts.next()?, 1, 2)?;
    let day = number(parts.next()?, 1, 2)?;
    if parts.next().is_some() {
        return None;
    }
    match time {
        None => XDateTime::date(year, month, day).ok(),
        Some(time) => {
            let (negative, hour, minute, second, micros) = parse_clock(time, 2)?;
            if negative {
                return None;
            }
            XDateTime::new(year, month, day, hour, minute, second, micros).ok()
        }
    }
}

/// `[-]H…H:MM[:SS[.fraction]]`, hours up to 838.
pub(crate) fn parse_time(s: &str) -> Option<XTime> {
    let (negative, hours, minutes, seconds, micros) = parse_clock(s.trim(), 3)?;
    XTime::new(negative, hours, minutes, seconds, micros).ok()
}

/// Sign, hours, minutes, seconds and microseconds of `[-]H:MM[:SS[.fraction]]`; the fraction is
/// truncated to microseconds.
fn parse_clock(s: &str, max_hour_digits: usize) -> Option<(bool, u32, u32, u32, u32)> {
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (clock, fraction) = match s.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (s, None),
    };
    let mut parts = clock.split(':');
    let hours = number(parts.next()?, 1, max_hour_digits)?;
    let minutes = number(parts.next()?, 2, 2)?;
    let seconds = match parts.next() {
        Some(p) => number(p, 2, 2)?,
        None if fraction.is_none() => 0,
        None => return None,
    };
    if parts.next().is_some() {
        return None;
    }
    let micros = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
            let six: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
            six.parse().ok()?
        }
        Some(_) => return None,
    };
    Some((negative, hours, minutes, seconds, micros))
}

/// A run of `min..=max` ASCII digits.
fn number(s: &str, min: usize, max: usize) -> Option<u32> {
    (s.len() >= min && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A statement argument, ready to bind.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Arg<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(Cow<'a, str>),
    Blob(&'a [u8]),
}

impl ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Arg::Null => ValueRef::Null,
            Arg::Int(i) => ValueRef::Integer(*i),
            Arg::Real(f) => ValueRef::Real(*f),
            Arg::Text(s) => ValueRef::Text(s.as_bytes()),
            Arg::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

/// Converts argument `index` (0-based) for binding; see the parent module for the rules.
pub(crate) fn to_arg(index: usize, value: &Value) -> Result<Arg<'_>, SqlError> {
    let out_of_range = |what: &str, v: u64| {
        SqlError::new(
            &codes::WRONG_ARGUMENTS,
            format!(
                "Incorrect arguments: argument {} is {what} {v}, beyond SQLite's 64-bit signed integers",
                index + 1
            ),
        )
    };
    fn text_or_blob(b: &Bytes) -> Arg<'_> {
        match std::str::from_utf8(b) {
            Ok(s) => Arg::Text(Cow::Borrowed(s)),
            Err(_) => Arg::Blob(b),
        }
    }
    Ok(match value {
        Value::Null => Arg::Null,
        Value::Sint(i) => Arg::Int(*i),
        Value::Uint(u) => {
            Arg::Int(i64::try_from(*u).map_err(|_| out_of_range("the unsigned", *u))?)
        }
        Value::Bit(u) => {
            Arg::Int(i64::try_from(*u).map_err(|_| out_of_range("the bit value", *u))?)
        }
        Value::Double(f) => Arg::Real(*f),
        // Through the float's shortest decimal form, so 0.1f32 binds as 0.1, not 0.10000000149.
        Value::Float(f) => Arg::Real(f.to_string().parse().unwrap_or(f64::from(*f))),
        Value::Bytes(b) | Value::Enum(b) => text_or_blob(b),
        Value::Set(items) => {
            let joined: Vec<Cow<'_, str>> =
                items.iter().map(|i| String::from_utf8_lossy(i)).collect();
            Arg::Text(Cow::Owned(joined.join(",")))
        }
        Value::Decimal(d) => Arg::Text(Cow::Owned(d.to_string())),
        Value::DateTime(dt) => Arg::Text(Cow::Owned(dt.to_string())),
        Value::Time(t) => Arg::Text(Cow::Owned(t.to_string())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types() {
        let k = |d: &str| classify_decl(Some(d));
        assert_eq!(
            k("INTEGER"),
            DeclKind::Int {
                mysql: mysql_type::LONGLONG,
                length: 20
            }
        );
        assert_eq!(
            k("tinyint(1)"),
            DeclKind::Int {
                mysql: mysql_type::TINY,
                length: 4
            }
        );
        assert_eq!(
            k("BOOLEAN"),
            DeclKind::Int {
                mysql: mysql_type::TINY,
                length: 1
            }
        );
        assert_eq!(
            k("decimal(10, 2)"),
            DeclKind::Decimal {
                precision: Some(10),
                scale: Some(2)
            }
        );
        assert_eq!(
            k("NUMERIC"),
            DeclKind::Decimal {
                precision: None,
                scale: None
            }
        );
        assert_eq!(k("varchar(20)"), DeclKind::Text { length: Some(20) });
        assert_eq!(k("CLOB"), DeclKind::Text { length: None });
        assert_eq!(
            k("varbinary(16)"),
            DeclKind::Binary {
                mysql: mysql_type::VAR_STRING,
                length: Some(16)
            }
        );
        assert_eq!(k("double precision"), DeclKind::Double);
        assert_eq!(k("FLOAT"), DeclKind::Double);
        assert_eq!(
            k("datetime(3)"),
            DeclKind::DateTime {
                mysql: mysql_type::DATETIME,
                fsp: Some(3)
            }
        );
        assert_eq!(
            k("TIMESTAMP"),
            DeclKind::DateTime {
                mysql: mysql_type::TIMESTAMP,
                fsp: None
            }
        );
        assert_eq!(k("date"), DeclKind::Date);
        assert_eq!(k("time"), DeclKind::Time { fsp: None });
        assert_eq!(k("whatever"), DeclKind::Runtime);
        assert_eq!(classify_decl(None), DeclKind::Runtime);
    }

    #[test]
    fn sqlite_cast_rules() {
        assert_eq!(text_to_i64(b" 42abc"), 42);
        assert_eq!(text_to_i64(b"-1.9"), -1);
        assert_eq!(text_to_i64(b"1e3"), 1000);
        assert_eq!(text_to_i64(b"abc"), 0);
        assert_eq!(text_to_i64(b"99999999999999999999"), i64::MAX);
        assert_eq!(text_to_i64(b"-99999999999999999999"), i64::MIN);
        assert_eq!(text_to_f64(b"2.5x"), 2.5);
        assert_eq!(text_to_f64(b".5"), 0.5);
        assert_eq!(text_to_f64(b"."), 0.0);
        assert_eq!(format_real(1.0), "1.0");
        assert_eq!(format_real(0.1), "0.1");
        assert_eq!(format_real(-2.5e-7), "-0.00000025");
        assert_eq!(format_real(f64::NEG_INFINITY), "-Inf");
    }

    #[test]
    fn decimals() {
        let d = |v: ValueRef<'_>, s| to_decimal(v, s).unwrap().to_string();
        assert_eq!(d(ValueRef::Integer(-3), None), "-3");
        assert_eq!(d(ValueRef::Integer(3), Some(2)), "3.00");
        assert_eq!(d(ValueRef::Real(1.005), Some(2)), "1.01");
        assert_eq!(d(ValueRef::Real(0.1), None), "0.1");
        assert_eq!(d(ValueRef::Text(b"12.345"), Some(2)), "12.35");
        assert_eq!(d(ValueRef::Text(b"-0.004"), Some(2)), "0.00");
        assert_eq!(d(ValueRef::Text(b"9.995"), Some(2)), "10.00");
        assert_eq!(d(ValueRef::Text(b"1.5e2"), None), "150");
        assert_eq!(d(ValueRef::Text(b"junk"), Some(1)), "0.0");
        assert!(to_decimal(ValueRef::Real(f64::INFINITY), None).is_err());
    }

    #[test]
    fn temporal_parsing() {
        assert_eq!(
            parse_datetime("2024-02-29 13:14:15.5"),
            Some(XDateTime::new(2024, 2, 29, 13, 14, 15, 500_000).unwrap())
        );
        assert_eq!(
            parse_datetime("2024-02-29T13:14"),
            Some(XDateTime::new(2024, 2, 29, 13, 14, 0, 0).unwrap())
        );
        assert_eq!(
            parse_datetime("2024-2-9"),
            Some(XDateTime::date(2024, 2, 9).unwrap())
        );
        for bad in [
            "2024-13-01",
            "2024-01-01 25:00:00",
            "20240101",
            "2024-01-01 1:2:3x",
            "",
        ] {
            assert_eq!(parse_datetime(bad), None, "{bad}");
        }
        assert_eq!(
            parse_time("-838:59:59.000001"),
            Some(XTime::new(true, 838, 59, 59, 1).unwrap())
        );
        assert_eq!(
            parse_time("10:30"),
            Some(XTime::new(false, 10, 30, 0, 0).unwrap())
        );
        assert_eq!(parse_time("839:00:00"), None);
        assert_eq!(parse_time("1:2:3"), None);
    }

    #[test]
    fn arguments() {
        assert_eq!(to_arg(0, &Value::Uint(5)).unwrap(), Arg::Int(5));
        let err = to_arg(2, &Value::Uint(u64::MAX)).unwrap_err();
        assert_eq!(err.code, 1210);
        assert!(err.message.contains("argument 3"), "{}", err.message);
        assert_eq!(to_arg(0, &Value::Float(0.1)).unwrap(), Arg::Real(0.1));
        assert_eq!(
            to_arg(0, &Value::Bytes(Bytes::from_static(b"hi"))).unwrap(),
            Arg::Text("hi".into())
        );
        assert_eq!(
            to_arg(0, &Value::Bytes(Bytes::from_static(b"\xff\x00"))).unwrap(),
            Arg::Blob(b"\xff\x00")
        );
        assert_eq!(
            to_arg(
                0,
                &Value::Set(vec![Bytes::from_static(b"a"), Bytes::from_static(b"b")])
            )
            .unwrap(),
            Arg::Text("a,b".into())
        );
        assert_eq!(
            to_arg(0, &Value::Decimal(XDecimal::parse("-1.50").unwrap())).unwrap(),
            Arg::Text("-1.50".into())
        );
    }
}
