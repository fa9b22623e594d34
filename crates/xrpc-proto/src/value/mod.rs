//! Row and chunk value codecs of the MySQL X Protocol, as the PolarDB-X RPC speaks it.
//!
//! A result set carries each column value in one of two forms. A `Row` message holds one protobuf
//! `bytes` field per column, whose content is the *row form* below ([`encode_row_field`],
//! [`decode_row_field`]). A `Chunk` message holds one buffer per column, into which the *chunk
//! form* of every non-null value is concatenated ([`encode_chunk_value`],
//! [`decode_chunk_value`]); nulls live in the chunk's null bitmap and write nothing. The column's
//! [`ColumnType`] (from its `ColumnMetaData`) selects the encoding.
//!
//! | X type (wire id) | [`Value`] | row form | chunk form |
//! | --- | --- | --- | --- |
//! | (any) | `Null` | the empty field | nothing; the null bitmap marks it |
//! | SINT (1) | `Sint` | zigzag varint | zigzag varint |
//! | UINT (2) | `Uint` | varint | varint |
//! | DOUBLE (5) | `Double` | 8 bytes, little-endian | 8 bytes, little-endian |
//! | FLOAT (6) | `Float` | 4 bytes, little-endian | 4 bytes, little-endian |
//! | BYTES (7), ENUM (16) | `Bytes`, `Enum` | the bytes, then `0x00` | varint(len + 1), the bytes, `0x00` |
//! | TIME (10) | `Time` | sign byte (`0x00` +, `0x01` -), then varints hours, minutes, seconds, microseconds, trailing zeros left out | varint of MySQL's packed time (`i64`, two's complement) |
//! | DATETIME (12) | `DateTime` | varints year, month, day, then hour, minute, second, microseconds, trailing zeros left out; a DATE stops after the day | varint of MySQL's packed datetime |
//! | SET (15) | `Set` | each item as varint(len) and its bytes; the empty set is the single byte `0x01` | varint(total), then the items as in the row form; the empty set is `0x01 0x00` |
//! | BIT (17) | `Bit` | varint | varint |
//! | DECIMAL (18) | `Decimal` | scale byte, then packed BCD: two digits a byte, high nibble first, closed by a sign nibble `0xc` (+) or `0xd` (-); with an even digit count the sign fills the high nibble of one more byte whose low nibble is 0 | varint(len), then the row form (no `+1`, no `0x00`) |
//!
//! Varints are protobuf base-128 varints, least significant group first, at most 10 bytes.
//!
//! # Invariants
//!
//! - Decoding never panics, whatever the input: truncated or overlong varints, bad BCD, missing
//!   terminators, out-of-range date and time parts and trailing bytes all return a [`ValueError`].
//! - Every [`Value`] is valid by construction ([`XTime`], [`XDateTime`] and [`XDecimal`] check
//!   their parts), so encoding is infallible, and `decode(encode(v)) == v` for every value in the
//!   row form. The chunk form is the same except where the chunk form itself cannot tell values
//!   apart, listed below. Floats compare by bits there (NaN payloads survive).
//! - A chunk decoder either consumes exactly one value from its cursor or leaves the cursor where
//!   it was and returns an error; every chunk value takes at least one byte.
//!
//! # Choices where the sources leave room
//!
//! Sources: the `Mysqlx.Resultset` documentation in mysql-server's `mysqlx_resultset.proto`; the
//! PolarDB-X engine's encoders (`plugin/polarx_rpc/coders/encoders/encoding_polarx_row.h`,
//! `encoding_polarx_chunk.h`, `coders/xdecimal.h`); `TIME_to_longlong_*_packed` in
//! mysql-server's `my_time.cc`; and the Java client's decoders (polardbx-glue `XResultUtil`,
//! `result/chunk/block/*BlockDecoder`).
//!
//! - Packed temporal chunk values are plain varints of the `i64` reinterpreted as `u64`, not
//!   zigzag: the engine writes `WriteVarint64(TIME_to_longlong_*_packed(..))` and the Java client
//!   reads them with `readInt64`. A negative TIME therefore takes 10 bytes.
//! - The encoder writes minimal varints. The engine pads some (the year always takes 2 bytes,
//!   so year 5 is `0x85 0x00`); the decoder accepts any varint of at most 10 bytes.
//! - A DATETIME row value with [`XDateTime::has_time`] always carries its hour, even at midnight,
//!   so a DATE and a midnight DATETIME stay apart. The engine drops a zero time entirely, which
//!   the Java client reads as the same value. The chunk form cannot tell them apart (a DATE packs
//!   as a DATETIME with a zero time), so a chunk decodes `has_time` as "the time is not zero".
//! - The empty SET is `0x01` in a row, as the X Protocol documents and MySQL and the engine send
//!   (the Java client's row decoder fails on it, as it does against the engine). In a chunk the
//!   engine sends `0x01 0x00` and the Java client reads any total of 1 as the empty set, so a
//!   set whose only item is empty decodes from a chunk as the empty set (MySQL shows both as
//!   `''`).
//! - DECIMAL decoding accepts every packed-BCD sign nibble (`0xb` and `0xd` negative; `0xa`,
//!   `0xc`, `0xe`, `0xf` positive), as the engine's and the Java client's decoders do; encoding
//!   writes `0xc` or `0xd`. A scale larger than the digit count means leading zeros (`5` with
//!   scale 3 is 0.005), as the Java client reads it.
//! - TIME hours are limited to MySQL's 838, within the 10 bits the packed form has. Negative
//!   zero is normalised to positive zero, since the packed form cannot carry it. DATETIME
//!   accepts MySQL's zero dates (month and day 0) and does not check the calendar.
//!
//! # Files
//!
//! | file | what it holds |
//! | --- | --- |
//! | `mod.rs` | [`ColumnType`], [`Value`], [`ValueError`], varints, and the row and chunk codecs that dispatch on the type |
//! | `temporal.rs` | [`XTime`] and [`XDateTime`], MySQL's packed forms and their row encodings |
//! | `decimal.rs` | [`XDecimal`], its string form and its packed-BCD encoding |
//! | `tests.rs` | known answers, error cases and round-trip properties of the whole codec |

mod decimal;
mod temporal;
#[cfg(test)]
mod tests;

use std::fmt;

use bytes::Bytes;

pub use decimal::XDecimal;
pub use temporal::{XDateTime, XTime};
use temporal::{decode_row_datetime, decode_row_time, encode_row_datetime, encode_row_time};

/// Most bytes a 64-bit varint takes.
pub const MAX_VARINT_LEN: usize = 10;

/// The X Protocol column types (`Mysqlx.Resultset.ColumnMetaData.FieldType`), with their wire
/// numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ColumnType {
    /// Signed integer.
    Sint = 1,
    /// Unsigned integer (also YEAR).
    Uint = 2,
    /// IEEE 754 double.
    Double = 5,
    /// IEEE 754 single.
    Float = 6,
    /// Byte string: CHAR, VARCHAR, BINARY, BLOB, TEXT, JSON, GEOMETRY, ...
    Bytes = 7,
    /// Signed time of day or duration.
    Time = 10,
    /// DATE, DATETIME and TIMESTAMP.
    DateTime = 12,
    /// SET: a list of strings.
    Set = 15,
    /// ENUM: a byte string.
    Enum = 16,
    /// BIT(n), n ≤ 64.
    Bit = 17,
    /// Exact decimal.
    Decimal = 18,
}

impl ColumnType {
    /// Every column type, in wire-number order.
    pub const ALL: [ColumnType; 11] = [
        ColumnType::Sint,
        ColumnType::Uint,
        ColumnType::Double,
        ColumnType::Float,
        ColumnType::Bytes,
        ColumnType::Time,
        ColumnType::DateTime,
        ColumnType::Set,
        ColumnType::Enum,
        ColumnType::Bit,
        ColumnType::Decimal,
    ];

    /// Returns the wire number.
    pub const fn as_u32(self) -> u32 {
        self as u32
    }

    /// Returns the X Protocol name, such as `"DATETIME"`.
    pub const fn name(self) -> &'static str {
        match self {
            ColumnType::Sint => "SINT",
            ColumnType::Uint => "UINT",
            ColumnType::Double => "DOUBLE",
            ColumnType::Float => "FLOAT",
            ColumnType::Bytes => "BYTES",
            ColumnType::Time => "TIME",
            ColumnType::DateTime => "DATETIME",
            ColumnType::Set => "SET",
            ColumnType::Enum => "ENUM",
            ColumnType::Bit => "BIT",
            ColumnType::Decimal => "DECIMAL",
        }
    }
}

impl TryFrom<u32> for ColumnType {
    type Error = ValueError;

    fn try_from(value: u32) -> Result<Self, Self::Error> {
        ColumnType::ALL
            .into_iter()
            .find(|ty| ty.as_u32() == value)
            .ok_or(ValueError::UnknownColumnType(value))
    }
}

impl From<ColumnType> for u32 {
    fn from(ty: ColumnType) -> u32 {
        ty.as_u32()
    }
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A column value of a result set.
///
/// `PartialEq` compares floats as floats (so NaN differs from itself); the round-trip guarantee
/// of the module holds bit for bit.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL, of any column type.
    Null,
    /// A SINT value.
    Sint(i64),
    /// A UINT value.
    Uint(u64),
    /// A DOUBLE value.
    Double(f64),
    /// A FLOAT value.
    Float(f32),
    /// A BYTES value, without the wire's `0x00` terminator.
    Bytes(Bytes),
    /// An ENUM value: the member's name, without the wire's `0x00` terminator.
    Enum(Bytes),
    /// A TIME value.
    Time(XTime),
    /// A DATE, DATETIME or TIMESTAMP value.
    DateTime(XDateTime),
    /// A DECIMAL value.
    Decimal(XDecimal),
    /// A SET value: its members, in order.
    Set(Vec<Bytes>),
    /// A BIT value, right-aligned.
    Bit(u64),
}

impl Value {
    /// Returns the column type whose encoding this value uses, or `None` for [`Value::Null`].
    pub const fn column_type(&self) -> Option<ColumnType> {
        Some(match self {
            Value::Null => return None,
            Value::Sint(_) => ColumnType::Sint,
            Value::Uint(_) => ColumnType::Uint,
            Value::Double(_) => ColumnType::Double,
            Value::Float(_) => ColumnType::Float,
            Value::Bytes(_) => ColumnType::Bytes,
            Value::Enum(_) => ColumnType::Enum,
            Value::Time(_) => ColumnType::Time,
            Value::DateTime(_) => ColumnType::DateTime,
            Value::Decimal(_) => ColumnType::Decimal,
            Value::Set(_) => ColumnType::Set,
            Value::Bit(_) => ColumnType::Bit,
        })
    }

    /// Returns whether this is [`Value::Null`].
    pub const fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// Why a value could not be decoded or built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// The column type number is not an X Protocol type this crate knows.
    #[error("unknown X column type {0}")]
    UnknownColumnType(u32),
    /// A bare varint ([`get_varint`]) ends before its last byte.
    #[error("varint is truncated")]
    TruncatedVarint,
    /// A bare varint ([`get_varint`]) is longer than 10 bytes or exceeds 64 bits.
    #[error("varint is longer than 10 bytes or exceeds 64 bits")]
    VarintOverflow,
    /// The value ends too early.
    #[error("{ty} value is truncated")]
    Truncated {
        /// The column type being decoded.
        ty: ColumnType,
    },
    /// A varint inside the value is longer than 10 bytes or exceeds 64 bits.
    #[error("{ty} value has a varint longer than 10 bytes or exceeding 64 bits")]
    Overlong {
        /// The column type being decoded.
        ty: ColumnType,
    },
    /// Bytes are left over after a complete row value.
    #[error("{ty} value has {count} unexpected trailing byte(s)")]
    TrailingBytes {
        /// The column type being decoded.
        ty: ColumnType,
        /// How many bytes are left over.
        count: usize,
    },
    /// A fixed-size value has the wrong size.
    #[error("{ty} value is {len} bytes long instead of {expected}")]
    WrongLength {
        /// The column type being decoded.
        ty: ColumnType,
        /// The size found.
        len: usize,
        /// The size required.
        expected: usize,
    },
    /// A BYTES or ENUM value does not end with `0x00`.
    #[error("{ty} value does not end with its 0x00 terminator")]
    MissingTerminator {
        /// The column type being decoded.
        ty: ColumnType,
    },
    /// A chunk value's length prefix is impossible (0 for BYTES or SET, below 2 for DECIMAL),
    /// or the body of a one-byte SET is not `0x00`.
    #[error("{ty} chunk value has an invalid length prefix {len}")]
    BadLength {
        /// The column type being decoded.
        ty: ColumnType,
        /// The length prefix found.
        len: u64,
    },
    /// A part of a TIME or DATETIME is out of range.
    #[error("{ty} {field} {value} is out of range (at most {max})")]
    OutOfRange {
        /// The column type being decoded or built.
        ty: ColumnType,
        /// The part, such as `"month"`.
        field: &'static str,
        /// The value found.
        value: u64,
        /// The largest valid value.
        max: u64,
    },
    /// A TIME row value's sign byte is neither `0x00` nor `0x01`.
    #[error("TIME sign byte {0:#04x} is neither 0x00 nor 0x01")]
    BadTimeSign(u8),
    /// A packed DATETIME is negative.
    #[error("packed {ty} value {packed} is negative")]
    NegativePacked {
        /// The column type being decoded.
        ty: ColumnType,
        /// The packed value found.
        packed: i64,
    },
    /// A DECIMAL's wire form or string is malformed; the text says how.
    #[error("DECIMAL value is malformed: {0}")]
    BadDecimal(&'static str),
}

/// Appends `value` as a protobuf varint.
#[inline]
pub fn put_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a protobuf varint from the front of `buf` and advances it.
///
/// Accepts non-minimal (padded) varints of up to 10 bytes. On error `buf` is left unchanged.
#[inline]
pub fn get_varint(buf: &mut &[u8]) -> Result<u64, ValueError> {
    let bytes = *buf;
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().take(MAX_VARINT_LEN).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            // The tenth byte holds only bit 63.
            if i == MAX_VARINT_LEN - 1 && byte > 1 {
                return Err(ValueError::VarintOverflow);
            }
            *buf = &bytes[i + 1..];
            return Ok(value);
        }
    }
    if bytes.len() >= MAX_VARINT_LEN {
        Err(ValueError::VarintOverflow)
    } else {
        Err(ValueError::TruncatedVarint)
    }
}

/// Returns how many bytes [`put_varint`] writes for `value`.
#[inline]
pub const fn varint_len(value: u64) -> usize {
    // Bits needed (at least 1), rounded up to 7-bit groups.
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

/// Maps a signed integer onto an unsigned one so that small magnitudes stay small (protobuf
/// `sint64`).
#[inline]
pub const fn zigzag_encode(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// Inverts [`zigzag_encode`].
#[inline]
pub const fn zigzag_decode(value: u64) -> i64 {
    (value >> 1) as i64 ^ -((value & 1) as i64)
}

/// Appends the row form of `value` (the content of one `Row.field`); [`Value::Null`] appends
/// nothing.
pub fn encode_row_field(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => {}
        Value::Sint(v) => put_varint(zigzag_encode(*v), out),
        Value::Uint(v) | Value::Bit(v) => put_varint(*v, out),
        Value::Double(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::Float(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::Bytes(b) | Value::Enum(b) => {
            out.reserve(b.len() + 1);
            out.extend_from_slice(b);
            out.push(0);
        }
        Value::Time(t) => encode_row_time(*t, out),
        Value::DateTime(dt) => encode_row_datetime(*dt, out),
        Value::Decimal(d) => d.encode(out),
        Value::Set(items) if items.is_empty() => out.push(0x01),
        Value::Set(items) => encode_set_items(items, out),
    }
}

/// Decodes the row form of a value of column type `ty`; an empty field is [`Value::Null`].
pub fn decode_row_field(ty: ColumnType, field: &[u8]) -> Result<Value, ValueError> {
    if field.is_empty() {
        return Ok(Value::Null);
    }
    Ok(match ty {
        ColumnType::Sint => Value::Sint(zigzag_decode(whole_varint(ty, field)?)),
        ColumnType::Uint => Value::Uint(whole_varint(ty, field)?),
        ColumnType::Bit => Value::Bit(whole_varint(ty, field)?),
        ColumnType::Double => Value::Double(f64::from_le_bytes(fixed(ty, field)?)),
        ColumnType::Float => Value::Float(f32::from_le_bytes(fixed(ty, field)?)),
        ColumnType::Bytes => Value::Bytes(terminated(ty, field)?),
        ColumnType::Enum => Value::Enum(terminated(ty, field)?),
        ColumnType::Time => Value::Time(decode_row_time(field)?),
        ColumnType::DateTime => Value::DateTime(decode_row_datetime(field)?),
        ColumnType::Decimal => Value::Decimal(XDecimal::decode(field)?),
        ColumnType::Set => Value::Set(decode_row_set(field)?),
    })
}

/// Appends the chunk form of `value` to a column buffer; [`Value::Null`] appends nothing, since
/// the chunk's null bitmap carries it.
pub fn encode_chunk_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => {}
        Value::Sint(v) => put_varint(zigzag_encode(*v), out),
        Value::Uint(v) | Value::Bit(v) => put_varint(*v, out),
        Value::Double(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::Float(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::Bytes(b) | Value::Enum(b) => {
            put_varint(b.len() as u64 + 1, out);
            out.reserve(b.len() + 1);
            out.extend_from_slice(b);
            out.push(0);
        }
        // Two's complement reinterpretation, not zigzag: see the module docs.
        Value::Time(t) => put_varint(t.to_packed() as u64, out),
        Value::DateTime(dt) => put_varint(dt.to_packed() as u64, out),
        Value::Decimal(d) => {
            put_varint(d.encoded_len() as u64, out);
            d.encode(out);
        }
        Value::Set(items) => {
            let total: usize = items
                .iter()
                .map(|item| varint_len(item.len() as u64) + item.len())
                .sum();
            // A total of 0 (no items) or 1 (one empty item) is what the engine sends for ''.
            if total <= 1 {
                out.extend_from_slice(&[0x01, 0x00]);
            } else {
                put_varint(total as u64, out);
                encode_set_items(items, out);
            }
        }
    }
}

/// Decodes one chunk value of column type `ty` from the front of `buf` and advances it past the
/// value. On error `buf` is left unchanged. Never returns [`Value::Null`].
pub fn decode_chunk_value(ty: ColumnType, buf: &mut &[u8]) -> Result<Value, ValueError> {
    let mut cur = *buf;
    let value = match ty {
        ColumnType::Sint => Value::Sint(zigzag_decode(varint(ty, &mut cur)?)),
        ColumnType::Uint => Value::Uint(varint(ty, &mut cur)?),
        ColumnType::Bit => Value::Bit(varint(ty, &mut cur)?),
        ColumnType::Double => Value::Double(f64::from_le_bytes(take_array(ty, &mut cur)?)),
        ColumnType::Float => Value::Float(f32::from_le_bytes(take_array(ty, &mut cur)?)),
        ColumnType::Bytes => Value::Bytes(chunk_string(ty, &mut cur)?),
        ColumnType::Enum => Value::Enum(chunk_string(ty, &mut cur)?),
        // Two's complement reinterpretation, not zigzag: see the module docs.
        ColumnType::Time => Value::Time(XTime::from_packed(varint(ty, &mut cur)? as i64)?),
        ColumnType::DateTime => {
            Value::DateTime(XDateTime::from_packed(varint(ty, &mut cur)? as i64)?)
        }
        ColumnType::Decimal => {
            let len = varint(ty, &mut cur)?;
            if len < 2 {
                return Err(ValueError::BadLength { ty, len });
            }
            Value::Decimal(XDecimal::decode(take(ty, &mut cur, len)?)?)
        }
        ColumnType::Set => {
            let len = varint(ty, &mut cur)?;
            let body = match len {
                0 => return Err(ValueError::BadLength { ty, len }),
                _ => take(ty, &mut cur, len)?,
            };
            match body {
                [0x00] => Value::Set(Vec::new()),
                [_] => return Err(ValueError::BadLength { ty, len }),
                _ => {
                    let mut items = decode_set_items(body)?;
                    // A lone empty item (behind a padded length) is the empty set here too.
                    if matches!(&items[..], [only] if only.is_empty()) {
                        items.clear();
                    }
                    Value::Set(items)
                }
            }
        }
    };
    *buf = cur;
    Ok(value)
}

fn encode_set_items(items: &[Bytes], out: &mut Vec<u8>) {
    for item in items {
        put_varint(item.len() as u64, out);
        out.extend_from_slice(item);
    }
}

fn decode_row_set(field: &[u8]) -> Result<Vec<Bytes>, ValueError> {
    // A lone 0x01 cannot be an item (its byte would be missing): the X Protocol's empty set.
    if field == [0x01] {
        return Ok(Vec::new());
    }
    decode_set_items(field)
}

fn decode_set_items(mut rest: &[u8]) -> Result<Vec<Bytes>, ValueError> {
    const TY: ColumnType = ColumnType::Set;
    let mut items = Vec::new();
    while !rest.is_empty() {
        let len = varint(TY, &mut rest)?;
        items.push(Bytes::copy_from_slice(take(TY, &mut rest, len)?));
    }
    Ok(items)
}

/// Reads a varint, reporting errors against column type `ty`.
#[inline]
fn varint(ty: ColumnType, buf: &mut &[u8]) -> Result<u64, ValueError> {
    get_varint(buf).map_err(|err| match err {
        ValueError::TruncatedVarint => ValueError::Truncated { ty },
        _ => ValueError::Overlong { ty },
    })
}

/// Reads a varint that must fill the whole field.
fn whole_varint(ty: ColumnType, field: &[u8]) -> Result<u64, ValueError> {
    let mut rest = field;
    let value = varint(ty, &mut rest)?;
    if rest.is_empty() {
        Ok(value)
    } else {
        Err(ValueError::TrailingBytes {
            ty,
            count: rest.len(),
        })
    }
}

fn fixed<const N: usize>(ty: ColumnType, field: &[u8]) -> Result<[u8; N], ValueError> {
    field.try_into().map_err(|_| ValueError::WrongLength {
        ty,
        len: field.len(),
        expected: N,
    })
}

fn terminated(ty: ColumnType, field: &[u8]) -> Result<Bytes, ValueError> {
    match field.split_last() {
        Some((0, body)) => Ok(Bytes::copy_from_slice(body)),
        _ => Err(ValueError::MissingTerminator { ty }),
    }
}

/// Splits `len` bytes off the front of `buf`.
fn take<'a>(ty: ColumnType, buf: &mut &'a [u8], len: u64) -> Result<&'a [u8], ValueError> {
    // A length beyond usize cannot fit in the buffer either.
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    if len > buf.len() {
        return Err(ValueError::Truncated { ty });
    }
    let (head, tail) = buf.split_at(len);
    *buf = tail;
    Ok(head)
}

fn take_array<const N: usize>(ty: ColumnType, buf: &mut &[u8]) -> Result<[u8; N], ValueError> {
    let Some((head, tail)) = buf.split_first_chunk::<N>() else {
        return Err(ValueError::Truncated { ty });
    };
    *buf = tail;
    Ok(*head)
}

/// Reads a chunk string: varint(len + 1), the bytes, `0x00`.
fn chunk_string(ty: ColumnType, buf: &mut &[u8]) -> Result<Bytes, ValueError> {
    let len = varint(ty, buf)?;
    if len == 0 {
        return Err(ValueError::BadLength { ty, len });
    }
    terminated(ty, take(ty, buf, len)?)
}

fn in_range(ty: ColumnType, field: &'static str, value: u64, max: u64) -> Result<u64, ValueError> {
    if value <= max {
        Ok(value)
    } else {
        Err(ValueError::OutOfRange {
            ty,
            field,
            value,
            max,
        })
    }
}
