//! Mapping between SQLite's dynamic types and the X protocol's column types, both ways.
//!
//! See the parent module's docs for the rules; this module implements them:
//! [`classify_decl`] reads a declared MySQL type, [`plan_columns`] fixes each column's X type
//! from its declaration (or, for expressions, from the first rows), [`convert`] turns one
//! SQLite value into a [`Value`] of the column's type or reports that it does not fit, and
//! [`to_arg`] turns a statement argument into something SQLite can bind.
//!
//! Its children: the reading of a stored value as its declared type's ([`stored`], for
//! [`convert`]) and the ENUM and SET declarations of tables without a kept definition
//! ([`enumset`], for [`classify_decl`]).

use std::borrow::Cow;

use bytes::Bytes;
use rusqlite::ToSql;
use rusqlite::types::{ToSqlOutput, Value as SqlValue, ValueRef};
use xrpc_proto::value::{ColumnType, Value, XDateTime, XDecimal, XTime};

use self::stored::Problem;
use xrpc_engine::result::{ColumnInfo, mysql_type};

pub(crate) mod enumset;
pub(crate) mod stored;

/// Rows read ahead, at most, to type expression columns (no declared type).
pub(crate) const LOOKAHEAD_ROWS: usize = 64;
/// Bytes read ahead, at most (a row that crosses it still counts).
pub(crate) const LOOKAHEAD_BYTES: usize = 256 * 1024;

/// MySQL's "not fixed" decimals for FLOAT and DOUBLE columns without a declared scale.
const NOT_FIXED_DEC: u32 = 31;

/// What a declared type says about a column: the MySQL type it names, with its limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeclKind {
    /// The integer family and BOOLEAN: SINT, or UINT when `UNSIGNED`; values in `min..=max`.
    Int {
        mysql: u32,
        length: u32,
        unsigned: bool,
        min: i64,
        max: u64,
    },
    /// YEAR: UINT, 0 or 1901–2155.
    Year,
    /// BIT(n): BIT, n ≤ 64.
    Bit { bits: u32 },
    /// FLOAT: FLOAT (single precision).
    Float,
    /// DOUBLE, REAL: DOUBLE.
    Double,
    /// DECIMAL(p, s), NUMERIC, DEC, FIXED: DECIMAL; `DECIMAL` alone is DECIMAL(10, 0).
    Decimal { precision: u32, scale: u8 },
    /// DATE: DATETIME without a time.
    Date,
    /// DATETIME(fsp) or TIMESTAMP(fsp) (`mysql` tells which): DATETIME.
    DateTime { mysql: u32, fsp: u32 },
    /// TIME(fsp): TIME.
    Time { fsp: u32 },
    /// CHAR(n), VARCHAR(n), the TEXT family, JSON, ENUM, SET: BYTES text. `max_chars` and
    /// `max_bytes` bound the length; `pad` (CHAR) drops trailing spaces on reads.
    Text {
        mysql: u32,
        max_chars: Option<u64>,
        max_bytes: u64,
        pad: bool,
        json: bool,
    },
    /// BINARY(n), VARBINARY(n), the BLOB family: BYTES binary. `fixed` (BINARY) pads reads
    /// with zero bytes to that length.
    Binary {
        mysql: u32,
        max_bytes: u64,
        fixed: Option<u32>,
    },
    /// ENUM or SET (`set`): a kept definition's, or declared as the `enumset` module reads it;
    /// X type ENUM or SET; `length` is MySQL's display length.
    Enum { set: bool, length: u32 },
    /// No declaration, or one that names no MySQL type: typed from the values.
    Runtime,
}

impl DeclKind {
    /// Whether the column's type depends on the values read ahead.
    pub(crate) fn needs_values(self) -> bool {
        matches!(self, DeclKind::Runtime)
    }

    /// The type as MySQL names it in "Incorrect … value" messages.
    pub(crate) fn value_noun(&self) -> &'static str {
        match self {
            DeclKind::Int { .. } | DeclKind::Year | DeclKind::Bit { .. } => "integer",
            DeclKind::Float | DeclKind::Double => "double",
            DeclKind::Decimal { .. } => "decimal",
            DeclKind::Date => "date",
            DeclKind::DateTime { mysql, .. } if *mysql == mysql_type::TIMESTAMP => "timestamp",
            DeclKind::DateTime { .. } => "datetime",
            DeclKind::Time { .. } => "time",
            DeclKind::Text { .. }
            | DeclKind::Binary { .. }
            | DeclKind::Enum { .. }
            | DeclKind::Runtime => "string",
        }
    }
}

/// How values of a column are converted; fixed once the metadata is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Conv {
    /// A declared column: the value must fit the declaration.
    Declared(DeclKind),
    /// An expression column typed SINT from the read-ahead: integers only.
    Sint,
    /// An expression column typed DOUBLE: reals, and integers that a double holds exactly.
    Double,
    /// An expression column typed BYTES: anything, numbers as their text.
    Bytes,
}

/// A column's metadata and conversion.
#[derive(Debug, Clone)]
pub(crate) struct ColumnPlan {
    pub(crate) info: ColumnInfo,
    pub(crate) conv: Conv,
}

/// The largest lengths of the TEXT and BLOB families: TINY, plain, MEDIUM, LONG.
const TINY_LEN: u64 = 255;
const PLAIN_LEN: u64 = 65_535;
const MEDIUM_LEN: u64 = 16_777_215;
const LONG_LEN: u64 = 4_294_967_295;

/// Reads a declared type as MySQL DDL means it (`BIGINT UNSIGNED`, `DECIMAL(30,10)`,
/// `VARCHAR(20)`, `DATETIME(6)`, …). `INTEGER` stays SQLite's 64-bit integer (the rowid idiom);
/// `INT` is MySQL's 32-bit INT. Names MySQL does not have fall back to SQLite's affinity rules
/// (`INT`; `CHAR`, `CLOB`, `TEXT`; `BLOB`; `REAL`, `FLOA`, `DOUB`), else [`DeclKind::Runtime`].
pub(crate) fn classify_decl(decl: Option<&str>) -> DeclKind {
    let Some(decl) = decl else {
        return DeclKind::Runtime;
    };
    let upper = decl.to_ascii_uppercase();
    let (base, args, after) = match upper.split_once('(') {
        Some((base, rest)) => {
            let (args, after) = rest.split_once(')').unwrap_or((rest, ""));
            (base.trim(), args, after)
        }
        None => (upper.trim(), "", ""),
    };
    let mut nums = args.split(',').map(|n| n.trim().parse::<u32>().ok());
    let first = nums.next().flatten();
    let second = nums.next().flatten();
    let words: Vec<&str> = base
        .split_ascii_whitespace()
        .chain(after.split_ascii_whitespace())
        .collect();
    let unsigned = words.iter().any(|w| *w == "UNSIGNED" || *w == "ZEROFILL");
    let head = words.first().copied().unwrap_or("");
    let int = |mysql: u32, bits: u32, signed_len: u32, unsigned_len: u32| {
        let (min, max) = match (unsigned, bits) {
            (true, 64) => (0, u64::MAX),
            (true, _) => (0, (1u64 << bits) - 1),
            (false, 64) => (i64::MIN, i64::MAX as u64),
            (false, _) => (-(1i64 << (bits - 1)), (1u64 << (bits - 1)) - 1),
        };
        DeclKind::Int {
            mysql,
            length: if unsigned { unsigned_len } else { signed_len },
            unsigned,
            min,
            max,
        }
    };
    let text = |mysql: u32, max_chars: Option<u64>, max_bytes: u64, pad: bool| DeclKind::Text {
        mysql,
        max_chars,
        max_bytes,
        pad,
        json: false,
    };
    let chars = |default: u64| u64::from(first.unwrap_or(default as u32));
    let varying = words.contains(&"VARYING");
    match head {
        "TINYINT" | "INT1" => int(mysql_type::TINY, 8, 4, 3),
        "SMALLINT" | "INT2" => int(mysql_type::SHORT, 16, 6, 5),
        "MEDIUMINT" | "INT3" | "MIDDLEINT" => int(mysql_type::INT24, 24, 9, 8),
        "INT" | "INT4" => int(mysql_type::LONG, 32, 11, 10),
        "BIGINT" | "INT8" | "INTEGER" => int(mysql_type::LONGLONG, 64, 20, 20),
        // How tables without a kept definition declare BIGINT UNSIGNED (with TEXT affinity).
        "BIG" if unsigned => int(mysql_type::LONGLONG, 64, 20, 20),
        "BOOL" | "BOOLEAN" => DeclKind::Int {
            mysql: mysql_type::TINY,
            length: 1,
            unsigned: false,
            min: -128,
            max: 127,
        },
        "BIT" => DeclKind::Bit {
            bits: first.unwrap_or(1).clamp(1, 64),
        },
        "YEAR" => DeclKind::Year,
        "FLOAT" if first.is_some_and(|p| p > 24) && second.is_none() => DeclKind::Double,
        "FLOAT" | "FLOAT4" => DeclKind::Float,
        "DOUBLE" | "REAL" | "FLOAT8" => DeclKind::Double,
        "DECIMAL" | "DEC" | "NUMERIC" | "FIXED" => DeclKind::Decimal {
            precision: first.unwrap_or(10).clamp(1, 65),
            scale: second.unwrap_or(0).min(30) as u8,
        },
        "DATE" => DeclKind::Date,
        "DATETIME" => DeclKind::DateTime {
            mysql: mysql_type::DATETIME,
            fsp: first.unwrap_or(0).min(6),
        },
        "TIMESTAMP" => DeclKind::DateTime {
            mysql: mysql_type::TIMESTAMP,
            fsp: first.unwrap_or(0).min(6),
        },
        "TIME" => DeclKind::Time {
            fsp: first.unwrap_or(0).min(6),
        },
        "CHAR" | "CHARACTER" | "NCHAR" if varying => {
            let n = chars(1);
            text(mysql_type::VAR_STRING, Some(n), n * 4, false)
        }
        "CHAR" | "CHARACTER" | "NCHAR" => {
            let n = chars(1);
            text(mysql_type::STRING, Some(n), n * 4, true)
        }
        "VARCHAR" | "NVARCHAR" | "VARCHARACTER" => {
            let n = chars(PLAIN_LEN);
            text(mysql_type::VAR_STRING, Some(n), n * 4, false)
        }
        "TINYTEXT" => text(mysql_type::VAR_STRING, None, TINY_LEN, false),
        "TEXT" => text(mysql_type::VAR_STRING, None, PLAIN_LEN, false),
        "MEDIUMTEXT" => text(mysql_type::VAR_STRING, None, MEDIUM_LEN, false),
        "ENUM" | enumset::SET_WORD if enumset::members(decl).is_some() => {
            let (set, members) = enumset::members(decl).unwrap_or_default();
            DeclKind::Enum {
                set,
                length: enumset::max_len(set, &members),
            }
        }
        "LONGTEXT" | "CLOB" | "ENUM" | "SET" => text(mysql_type::VAR_STRING, None, LONG_LEN, false),
        "JSON" => DeclKind::Text {
            mysql: mysql_type::VAR_STRING,
            max_chars: None,
            max_bytes: LONG_LEN,
            pad: false,
            json: true,
        },
        "BINARY" => {
            let n = first.unwrap_or(1);
            DeclKind::Binary {
                mysql: mysql_type::STRING,
                max_bytes: u64::from(n),
                fixed: Some(n),
            }
        }
        "VARBINARY" => DeclKind::Binary {
            mysql: mysql_type::VAR_STRING,
            max_bytes: first.map_or(PLAIN_LEN, u64::from),
            fixed: None,
        },
        "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" => DeclKind::Binary {
            mysql: mysql_type::BLOB,
            max_bytes: match head {
                "TINYBLOB" => TINY_LEN,
                "BLOB" => first.map_or(PLAIN_LEN, u64::from),
                "MEDIUMBLOB" => MEDIUM_LEN,
                _ => LONG_LEN,
            },
            fixed: None,
        },
        _ if base.contains("INT") => int(mysql_type::LONGLONG, 64, 20, 20),
        _ if base.contains("CHAR") || base.contains("CLOB") || base.contains("TEXT") => {
            text(mysql_type::VAR_STRING, None, LONG_LEN, false)
        }
        _ if base.contains("BLOB") => DeclKind::Binary {
            mysql: mysql_type::BLOB,
            max_bytes: LONG_LEN,
            fixed: None,
        },
        _ if base.contains("REAL") || base.contains("FLOA") || base.contains("DOUB") => {
            DeclKind::Double
        }
        _ => DeclKind::Runtime,
    }
}

/// SQLite storage classes seen in a column, as bits.
const SEEN_INT: u8 = 1;
const SEEN_REAL: u8 = 2;
const SEEN_TEXT: u8 = 4;
const SEEN_BLOB: u8 = 8;

/// Fixes every column's metadata and conversion from its name, declaration and the rows read
/// ahead (`window`: each row's values one after another, `names.len()` per row). `ended` says
/// whether those rows are the whole result.
pub(crate) fn plan_columns(
    names: Vec<String>,
    kinds: &[DeclKind],
    window: &[SqlValue],
    ended: bool,
    schema: &str,
) -> Vec<ColumnPlan> {
    let width = names.len();
    names
        .into_iter()
        .zip(kinds)
        .enumerate()
        .map(|(index, (name, &kind))| {
            // Built nameless, then given the name: moved, not copied.
            let (mut info, conv) = match kind {
                DeclKind::Runtime => {
                    let values = window
                        .chunks_exact(width)
                        .map(|row| ValueRef::from(&row[index]));
                    runtime_column(values, ended)
                }
                declared => (declared_column(declared), Conv::Declared(declared)),
            };
            info.name = name;
            if !matches!(kind, DeclKind::Runtime) {
                // A declared type means a table column (or a view or subquery over one).
                info.schema = schema.to_owned();
            }
            ColumnPlan { info, conv }
        })
        .collect()
}

/// The metadata of a column with a declared type, nameless (`plan_columns` moves the name in).
fn declared_column(kind: DeclKind) -> ColumnInfo {
    let with = |x: ColumnType, mysql: u32, length: u32, fractional: u32| {
        let mut info = ColumnInfo::new(String::new(), x, mysql);
        info.length = length;
        info.fractional_digits = fractional;
        info
    };
    let clamp = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    match kind {
        DeclKind::Int {
            mysql,
            length,
            unsigned,
            ..
        } => {
            let x = if unsigned {
                ColumnType::Uint
            } else {
                ColumnType::Sint
            };
            with(x, mysql, length, 0)
        }
        DeclKind::Year => with(ColumnType::Uint, mysql_type::YEAR, 4, 0),
        DeclKind::Bit { bits } => with(ColumnType::Bit, mysql_type::BIT, bits, 0),
        DeclKind::Float => with(ColumnType::Float, mysql_type::FLOAT, 12, NOT_FIXED_DEC),
        DeclKind::Double => with(ColumnType::Double, mysql_type::DOUBLE, 22, NOT_FIXED_DEC),
        DeclKind::Decimal { precision, scale } => {
            let length = precision + u32::from(scale > 0) + 1;
            with(
                ColumnType::Decimal,
                mysql_type::NEWDECIMAL,
                length,
                u32::from(scale),
            )
        }
        DeclKind::Date => with(ColumnType::DateTime, mysql_type::DATE, 10, 0),
        DeclKind::DateTime { mysql, fsp } => with(
            ColumnType::DateTime,
            mysql,
            19 + if fsp > 0 { fsp + 1 } else { 0 },
            fsp,
        ),
        DeclKind::Time { fsp } => with(
            ColumnType::Time,
            mysql_type::TIME,
            10 + if fsp > 0 { fsp + 1 } else { 0 },
            fsp,
        ),
        DeclKind::Text {
            mysql,
            max_chars,
            max_bytes,
            ..
        } => {
            let mut info = ColumnInfo::text(String::new());
            info.mysql_type = mysql;
            info.length = clamp(max_chars.map_or(max_bytes, |n| n.saturating_mul(4)));
            info
        }
        DeclKind::Binary {
            mysql, max_bytes, ..
        } => {
            let mut info = ColumnInfo::binary(String::new());
            info.mysql_type = mysql;
            info.length = clamp(max_bytes);
            info
        }
        DeclKind::Enum { set, length } => {
            let (x, mysql) = if set {
                (ColumnType::Set, mysql_type::SET)
            } else {
                (ColumnType::Enum, mysql_type::ENUM)
            };
            with(x, mysql, length, 0)
        }
        DeclKind::Runtime => unreachable!("runtime columns are typed from their values"),
    }
}

/// The storage classes among `values`, one `SEEN_*` bit each (NULL sets none).
fn seen_classes<'a>(values: impl Iterator<Item = ValueRef<'a>>) -> u8 {
    values.fold(0u8, |seen, v| {
        seen | match v {
            ValueRef::Null => 0,
            ValueRef::Integer(_) => SEEN_INT,
            ValueRef::Real(_) => SEEN_REAL,
            ValueRef::Text(_) => SEEN_TEXT,
            ValueRef::Blob(_) => SEEN_BLOB,
        }
    })
}

/// Everything [`plan_columns`] reads from the values read ahead for expression column `index`
/// of a `width`-column `window`: the storage classes seen and, when none was (only NULLs, or
/// no row), whether the result had ended. Two read-aheads with the same signature for every
/// expression column give the same metadata and conversions (`shape` relies on it).
pub(crate) fn runtime_signature(
    window: &[SqlValue],
    width: usize,
    index: usize,
    ended: bool,
) -> u8 {
    let seen = seen_classes(
        window
            .chunks_exact(width.max(1))
            .map(|row| ValueRef::from(&row[index])),
    );
    if seen == 0 && ended {
        ENDED_EMPTY
    } else {
        seen
    }
}

/// [`runtime_signature`] of an expression column with no value but NULL in a result that ended.
const ENDED_EMPTY: u8 = 0x80;

/// The metadata (nameless, as above) and conversion of an expression column, from the storage
/// classes read ahead.
fn runtime_column<'a>(
    values: impl Iterator<Item = ValueRef<'a>>,
    ended: bool,
) -> (ColumnInfo, Conv) {
    let seen = seen_classes(values);
    let text_column = |length: u32| {
        let mut info = ColumnInfo::text(String::new());
        info.length = length;
        (info, Conv::Bytes)
    };
    if seen == 0 {
        if ended {
            // Every value is NULL: MySQL's NULL-typed column (`select null`).
            let mut info = ColumnInfo::binary(String::new());
            info.mysql_type = mysql_type::NULL;
            info.length = 0;
            (info, Conv::Bytes)
        } else {
            text_column(0)
        }
    } else if seen == SEEN_INT {
        let mut info = ColumnInfo::bigint(String::new());
        info.length = 21;
        (info, Conv::Sint)
    } else if seen & (SEEN_TEXT | SEEN_BLOB) == 0 {
        let mut info = ColumnInfo::double(String::new());
        info.length = 22;
        info.fractional_digits = NOT_FIXED_DEC;
        (info, Conv::Double)
    } else if seen & SEEN_BLOB != 0 {
        let mut info = ColumnInfo::binary(String::new());
        info.length = 65_535;
        (info, Conv::Bytes)
    } else {
        text_column(262_140)
    }
}

/// Converts one SQLite value to its column's type: exactly, or not at all. A declared column
/// returns what MySQL would have stored for the value (see [`stored`]); an expression column
/// takes only values of the type its read-ahead chose (integers in a DOUBLE column when the
/// double holds them exactly; anything in a BYTES column, numbers as their text). `Err` means
/// the value does not fit: the statement ends with an error rather than a converted value.
pub(crate) fn convert(conv: Conv, value: ValueRef<'_>) -> Result<Value, Problem> {
    if let ValueRef::Null = value {
        return Ok(Value::Null);
    }
    Ok(match conv {
        Conv::Sint => match value {
            ValueRef::Integer(i) => Value::Sint(i),
            _ => return Err(Problem::Incorrect),
        },
        Conv::Double => match value {
            ValueRef::Real(f) => Value::Double(f),
            ValueRef::Integer(i) if (i as f64) as i64 == i && i.unsigned_abs() <= 1 << 53 => {
                Value::Double(i as f64)
            }
            _ => return Err(Problem::Incorrect),
        },
        Conv::Bytes => Value::Bytes(Bytes::from(stored::bytes_value(value))),
        Conv::Declared(kind) => declared_value(kind, value)?,
    })
}

fn declared_value(kind: DeclKind, value: ValueRef<'_>) -> Result<Value, Problem> {
    let datetime = |p: stored::Parts, fsp: u32| {
        let unit = 10u32.pow(6 - fsp.min(6));
        XDateTime::new(
            p.year,
            p.month,
            p.day,
            p.hour,
            p.minute,
            p.second,
            p.micros - p.micros % unit,
        )
        .map_err(|_| Problem::BadTemporal)
    };
    Ok(match kind {
        // Reads check only that the X type holds the value: a value beyond the declared range
        // (written before the table had its checks) is still sent exactly.
        DeclKind::Int { unsigned, .. } => {
            let (min, max) = if unsigned {
                (0, u64::MAX)
            } else {
                (i64::MIN, i64::MAX as u64)
            };
            let v = stored::int_value(value, min, max)?;
            if unsigned {
                Value::Uint(u64::try_from(v).map_err(|_| Problem::OutOfRange)?)
            } else {
                Value::Sint(i64::try_from(v).map_err(|_| Problem::OutOfRange)?)
            }
        }
        DeclKind::Year => Value::Uint(stored::year_value(value)?),
        DeclKind::Bit { bits } => Value::Bit(stored::bit_value(value, bits)?),
        // MySQL stores FLOAT in single precision.
        DeclKind::Float => Value::Float(stored::float_value(value, true)? as f32),
        DeclKind::Double => Value::Double(stored::float_value(value, false)?),
        DeclKind::Decimal { scale, .. } => {
            let n = stored::decimal_value(value, 65, scale)?;
            let int = if n.int.is_empty() { "0" } else { &n.int };
            Value::Decimal(
                XDecimal::new(n.negative, &format!("{int}{}", n.frac), scale)
                    .map_err(|_| Problem::Incorrect)?,
            )
        }
        DeclKind::Date => {
            let p = stored::stored_date_value(value)?;
            Value::DateTime(
                XDateTime::date(p.year, p.month, p.day).map_err(|_| Problem::BadTemporal)?,
            )
        }
        DeclKind::DateTime { fsp, .. } => {
            Value::DateTime(datetime(stored::stored_date_value(value)?, fsp)?)
        }
        DeclKind::Time { fsp } => {
            let (negative, h, m, s, micros) = stored::time_value(value)?;
            let unit = 10u32.pow(6 - fsp.min(6));
            Value::Time(
                XTime::new(negative, h, m, s, micros - micros % unit)
                    .map_err(|_| Problem::BadTemporal)?,
            )
        }
        DeclKind::Text { pad, max_chars, .. } => {
            let text = stored::text_value(value)?;
            let text = match max_chars {
                _ if pad => text.trim_end_matches(' '),
                Some(n) => stored::cut_chars(&text, n),
                None => &text,
            };
            Value::Bytes(Bytes::copy_from_slice(text.as_bytes()))
        }
        DeclKind::Binary { fixed, .. } => {
            let mut bytes = stored::bytes_value(value);
            if let Some(n) = fixed {
                let n = n as usize;
                if bytes.len() < n {
                    bytes.resize(n, 0);
                }
            }
            Value::Bytes(Bytes::from(bytes))
        }
        DeclKind::Enum { set: false, .. } => Value::Enum(Bytes::from(stored::bytes_value(value))),
        DeclKind::Enum { set: true, .. } => {
            let bytes = stored::bytes_value(value);
            Value::Set(
                bytes
                    .split(|&b| b == b',')
                    .filter(|item| !item.is_empty())
                    .map(Bytes::copy_from_slice)
                    .collect(),
            )
        }
        DeclKind::Runtime => Value::Bytes(Bytes::from(stored::bytes_value(value))),
    })
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
pub(crate) fn to_arg(value: &Value) -> Arg<'_> {
    fn text_or_blob(b: &Bytes) -> Arg<'_> {
        match std::str::from_utf8(b) {
            Ok(s) => Arg::Text(Cow::Borrowed(s)),
            Err(_) => Arg::Blob(b),
        }
    }
    match value {
        Value::Null => Arg::Null,
        Value::Sint(i) => Arg::Int(*i),
        // Above 2^63-1 SQLite has no integer: the exact digits, as text, which a BIGINT UNSIGNED
        // column stores and compares exactly (TEXT affinity and a numeric collation).
        Value::Uint(u) | Value::Bit(u) => match i64::try_from(*u) {
            Ok(i) => Arg::Int(i),
            Err(_) => Arg::Text(Cow::Owned(u.to_string())),
        },
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types() {
        let k = |d: &str| classify_decl(Some(d));
        assert!(matches!(
            k("INTEGER"),
            DeclKind::Int {
                mysql: mysql_type::LONGLONG,
                unsigned: false,
                min: i64::MIN,
                max: 0x7fff_ffff_ffff_ffff,
                ..
            }
        ));
        assert!(matches!(
            k("bigint unsigned"),
            DeclKind::Int {
                unsigned: true,
                min: 0,
                max: u64::MAX,
                ..
            }
        ));
        assert!(matches!(
            k("tinyint(1)"),
            DeclKind::Int {
                mysql: mysql_type::TINY,
                length: 4,
                min: -128,
                max: 127,
                ..
            }
        ));
        assert!(matches!(
            k("INT(10) UNSIGNED"),
            DeclKind::Int {
                mysql: mysql_type::LONG,
                max: 4_294_967_295,
                ..
            }
        ));
        assert!(matches!(
            k("mediumint"),
            DeclKind::Int {
                min: -8_388_608,
                max: 8_388_607,
                ..
            }
        ));
        assert!(matches!(k("BOOLEAN"), DeclKind::Int { length: 1, .. }));
        assert_eq!(
            k("decimal(10, 2)"),
            DeclKind::Decimal {
                precision: 10,
                scale: 2
            }
        );
        assert_eq!(
            k("NUMERIC"),
            DeclKind::Decimal {
                precision: 10,
                scale: 0
            }
        );
        assert!(matches!(
            k("varchar(20)"),
            DeclKind::Text {
                max_chars: Some(20),
                pad: false,
                ..
            }
        ));
        assert!(matches!(
            k("char(3)"),
            DeclKind::Text {
                mysql: mysql_type::STRING,
                max_chars: Some(3),
                pad: true,
                ..
            }
        ));
        assert!(matches!(k("json"), DeclKind::Text { json: true, .. }));
        assert!(matches!(
            k("CLOB"),
            DeclKind::Text {
                max_chars: None,
                ..
            }
        ));
        assert_eq!(
            k("varbinary(16)"),
            DeclKind::Binary {
                mysql: mysql_type::VAR_STRING,
                max_bytes: 16,
                fixed: None
            }
        );
        assert_eq!(
            k("binary(4)"),
            DeclKind::Binary {
                mysql: mysql_type::STRING,
                max_bytes: 4,
                fixed: Some(4)
            }
        );
        assert_eq!(k("double precision"), DeclKind::Double);
        assert_eq!(k("FLOAT"), DeclKind::Float);
        assert_eq!(k("float(53)"), DeclKind::Double);
        assert_eq!(
            k("datetime(3)"),
            DeclKind::DateTime {
                mysql: mysql_type::DATETIME,
                fsp: 3
            }
        );
        assert_eq!(
            k("TIMESTAMP"),
            DeclKind::DateTime {
                mysql: mysql_type::TIMESTAMP,
                fsp: 0
            }
        );
        assert_eq!(k("date"), DeclKind::Date);
        assert_eq!(k("time(6)"), DeclKind::Time { fsp: 6 });
        assert_eq!(k("year"), DeclKind::Year);
        assert_eq!(k("bit(5)"), DeclKind::Bit { bits: 5 });
        assert_eq!(k("whatever"), DeclKind::Runtime);
        assert_eq!(classify_decl(None), DeclKind::Runtime);
    }

    #[test]
    fn declared_reads_are_exact_or_refused() {
        let c = |d: &str, v: ValueRef<'_>| convert(Conv::Declared(classify_decl(Some(d))), v);
        assert_eq!(
            c("bigint unsigned", ValueRef::Integer(5)),
            Ok(Value::Uint(5))
        );
        assert_eq!(
            c("decimal(10,2)", ValueRef::Real(1.005)),
            Ok(Value::Decimal(XDecimal::parse("1.01").unwrap()))
        );
        assert_eq!(
            c("decimal(10,2)", ValueRef::Text(b"-0.004")),
            Ok(Value::Decimal(XDecimal::parse("0.00").unwrap()))
        );
        assert_eq!(
            c("date", ValueRef::Text(b"garbage")),
            Err(Problem::BadTemporal)
        );
        assert_eq!(c("int", ValueRef::Text(b"text!")), Err(Problem::Incorrect));
        assert_eq!(
            c("double", ValueRef::Blob(b"\x00")),
            Err(Problem::Incorrect)
        );
        assert_eq!(
            c("char(4)", ValueRef::Text(b"ab  ")),
            Ok(Value::Bytes(Bytes::from_static(b"ab")))
        );
        assert_eq!(
            c("binary(3)", ValueRef::Blob(b"a")),
            Ok(Value::Bytes(Bytes::from_static(b"a\0\0")))
        );
        assert_eq!(
            c("datetime(2)", ValueRef::Text(b"2024-01-02 03:04:05.678")),
            Ok(Value::DateTime(
                XDateTime::new(2024, 1, 2, 3, 4, 5, 670_000).unwrap()
            ))
        );
        assert_eq!(c("year", ValueRef::Integer(99)), Ok(Value::Uint(1999)));
        // Expression columns keep to the type their read-ahead chose.
        assert_eq!(
            convert(Conv::Sint, ValueRef::Real(1.5)),
            Err(Problem::Incorrect)
        );
        assert_eq!(
            convert(Conv::Double, ValueRef::Integer(3)),
            Ok(Value::Double(3.0))
        );
        assert_eq!(
            convert(Conv::Bytes, ValueRef::Real(1.0)),
            Ok(Value::Bytes(Bytes::from_static(b"1.0")))
        );
    }

    #[test]
    fn arguments() {
        assert_eq!(to_arg(&Value::Uint(5)), Arg::Int(5));
        assert_eq!(
            to_arg(&Value::Uint(u64::MAX)),
            Arg::Text("18446744073709551615".into())
        );
        assert_eq!(to_arg(&Value::Float(0.1)), Arg::Real(0.1));
        assert_eq!(
            to_arg(&Value::Bytes(Bytes::from_static(b"hi"))),
            Arg::Text("hi".into())
        );
        assert_eq!(
            to_arg(&Value::Bytes(Bytes::from_static(b"\xff\x00"))),
            Arg::Blob(b"\xff\x00")
        );
        assert_eq!(
            to_arg(&Value::Set(vec![
                Bytes::from_static(b"a"),
                Bytes::from_static(b"b")
            ])),
            Arg::Text("a,b".into())
        );
        assert_eq!(
            to_arg(&Value::Decimal(XDecimal::parse("-1.50").unwrap())),
            Arg::Text("-1.50".into())
        );
    }
}
