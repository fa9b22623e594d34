//! Tests of the value codecs: known wire answers, every decode error, and round-trip properties
//! of the row and chunk forms over arbitrary values.

use proptest::collection::vec;
use proptest::prelude::*;

use super::*;

fn row(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_row_field(value, &mut out);
    out
}

fn chunk(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_chunk_value(value, &mut out);
    out
}

fn decode_chunk_all(ty: ColumnType, bytes: &[u8]) -> Result<Value, ValueError> {
    let mut cur = bytes;
    let value = decode_chunk_value(ty, &mut cur)?;
    assert!(cur.is_empty(), "{} bytes left after {value:?}", cur.len());
    Ok(value)
}

/// Equality with floats compared by bits, so NaN and -0.0 round trips are checked exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

fn bytes(s: &[u8]) -> Bytes {
    Bytes::copy_from_slice(s)
}

fn time(negative: bool, h: u32, m: u32, s: u32, us: u32) -> Value {
    Value::Time(XTime::new(negative, h, m, s, us).unwrap())
}

fn datetime(y: u32, mo: u32, d: u32, h: u32, mi: u32, s: u32, us: u32) -> Value {
    Value::DateTime(XDateTime::new(y, mo, d, h, mi, s, us).unwrap())
}

fn date(y: u32, mo: u32, d: u32) -> Value {
    Value::DateTime(XDateTime::date(y, mo, d).unwrap())
}

fn decimal(s: &str) -> Value {
    Value::Decimal(s.parse().unwrap())
}

fn set(items: &[&[u8]]) -> Value {
    Value::Set(items.iter().map(|item| bytes(item)).collect())
}

/// Checks the row form of `value` is exactly `wire` and decodes back to `value`.
#[track_caller]
fn row_known(value: Value, wire: &[u8]) {
    assert_eq!(row(&value), wire, "encoding {value:?}");
    let ty = value.column_type().unwrap_or(ColumnType::Bytes);
    let decoded = decode_row_field(ty, wire).unwrap();
    assert!(same(&decoded, &value), "{decoded:?} != {value:?}");
}

/// Checks the chunk form of `value` is exactly `wire` and decodes back to `value`.
#[track_caller]
fn chunk_known(value: Value, wire: &[u8]) {
    assert_eq!(chunk(&value), wire, "encoding {value:?}");
    let decoded = decode_chunk_all(value.column_type().unwrap(), wire).unwrap();
    assert!(same(&decoded, &value), "{decoded:?} != {value:?}");
}

#[test]
fn column_type_numbers() {
    let expected = [1, 2, 5, 6, 7, 10, 12, 15, 16, 17, 18];
    for (ty, n) in ColumnType::ALL.into_iter().zip(expected) {
        assert_eq!(u32::from(ty), n);
        assert_eq!(ColumnType::try_from(n), Ok(ty));
    }
    for n in [0, 3, 4, 8, 9, 11, 13, 14, 19, u32::MAX] {
        assert_eq!(
            ColumnType::try_from(n),
            Err(ValueError::UnknownColumnType(n))
        );
    }
    assert_eq!(ColumnType::DateTime.to_string(), "DATETIME");
}

#[test]
fn varint_known_answers() {
    let cases: [(u64, &[u8]); 7] = [
        (0, &[0x00]),
        (1, &[0x01]),
        (127, &[0x7f]),
        (128, &[0x80, 0x01]),
        (300, &[0xac, 0x02]),
        (
            1 << 63,
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
        ),
        (
            u64::MAX,
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        ),
    ];
    for (value, wire) in cases {
        let mut out = Vec::new();
        put_varint(value, &mut out);
        assert_eq!(out, wire);
        assert_eq!(varint_len(value), wire.len());
        let mut cur = wire;
        assert_eq!(get_varint(&mut cur), Ok(value));
        assert!(cur.is_empty());
    }
}

#[test]
fn varint_accepts_padding_and_stops_at_the_end() {
    // The engine writes years as two-byte varints.
    let mut cur: &[u8] = &[0x85, 0x00, 0x42];
    assert_eq!(get_varint(&mut cur), Ok(5));
    assert_eq!(cur, [0x42]);
    let mut cur: &[u8] = &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
    assert_eq!(get_varint(&mut cur), Ok(0));
}

#[test]
fn varint_errors_leave_the_cursor() {
    let cases: [(&[u8], ValueError); 5] = [
        (&[], ValueError::TruncatedVarint),
        (&[0x80], ValueError::TruncatedVarint),
        (&[0xff; 9], ValueError::TruncatedVarint),
        (&[0xff; 11], ValueError::VarintOverflow),
        (
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
            ValueError::VarintOverflow,
        ),
    ];
    for (wire, err) in cases {
        let mut cur = wire;
        assert_eq!(get_varint(&mut cur), Err(err), "{wire:02x?}");
        assert_eq!(cur, wire);
    }
}

#[test]
fn zigzag_known_answers() {
    let cases = [
        (0, 0),
        (-1, 1),
        (1, 2),
        (-2, 3),
        (i64::MAX, u64::MAX - 1),
        (i64::MIN, u64::MAX),
    ];
    for (signed, unsigned) in cases {
        assert_eq!(zigzag_encode(signed), unsigned);
        assert_eq!(zigzag_decode(unsigned), signed);
    }
}

#[test]
fn row_null_is_the_empty_field() {
    assert_eq!(row(&Value::Null), []);
    for ty in ColumnType::ALL {
        assert_eq!(decode_row_field(ty, &[]), Ok(Value::Null));
    }
}

#[test]
fn row_integers() {
    row_known(Value::Sint(0), &[0x00]);
    row_known(Value::Sint(-1), &[0x01]);
    row_known(Value::Sint(1), &[0x02]);
    row_known(Value::Sint(-64), &[0x7f]);
    row_known(Value::Sint(64), &[0x80, 0x01]);
    row_known(
        Value::Sint(i64::MIN),
        &[0xff; 9].iter().copied().chain([0x01]).collect::<Vec<_>>(),
    );
    row_known(Value::Uint(0), &[0x00]);
    row_known(Value::Uint(300), &[0xac, 0x02]);
    row_known(
        Value::Uint(u64::MAX),
        &[0xff; 9].iter().copied().chain([0x01]).collect::<Vec<_>>(),
    );
    row_known(Value::Bit(0b101), &[0x05]);
    row_known(Value::Bit(300), &[0xac, 0x02]);
}

#[test]
fn row_floats() {
    row_known(Value::Double(1.0), &[0, 0, 0, 0, 0, 0, 0xf0, 0x3f]);
    row_known(Value::Double(-0.0), &[0, 0, 0, 0, 0, 0, 0, 0x80]);
    row_known(Value::Float(1.0), &[0x00, 0x00, 0x80, 0x3f]);
    row_known(Value::Float(-2.5), &[0x00, 0x00, 0x20, 0xc0]);
    let nan = Value::Double(f64::from_bits(0x7ff8_0000_dead_beef));
    row_known(nan, &[0xef, 0xbe, 0xad, 0xde, 0x00, 0x00, 0xf8, 0x7f]);
}

#[test]
fn row_strings() {
    row_known(Value::Bytes(bytes(b"ab")), &[0x61, 0x62, 0x00]);
    row_known(Value::Bytes(Bytes::new()), &[0x00]);
    row_known(Value::Bytes(bytes(b"a\0b")), &[0x61, 0x00, 0x62, 0x00]);
    row_known(Value::Enum(bytes(b"red")), b"red\0");
}

#[test]
fn row_time() {
    row_known(time(false, 0, 0, 0, 0), &[0x00]);
    row_known(time(true, 1, 2, 3, 4), &[0x01, 0x01, 0x02, 0x03, 0x04]);
    row_known(time(false, 12, 0, 0, 0), &[0x00, 0x0c]);
    row_known(time(false, 0, 30, 0, 0), &[0x00, 0x00, 0x1e]);
    row_known(time(false, 0, 0, 5, 0), &[0x00, 0x00, 0x00, 0x05]);
    row_known(
        time(true, 0, 0, 0, 500_000),
        &[0x01, 0x00, 0x00, 0x00, 0xa0, 0xc2, 0x1e],
    );
    row_known(time(false, 838, 59, 59, 0), &[0x00, 0xc6, 0x06, 0x3b, 0x3b]);
    // Explicit trailing zeros decode the same as omitted ones.
    assert_eq!(
        decode_row_field(ColumnType::Time, &[0x00, 0x0c, 0x00, 0x00, 0x00]),
        Ok(time(false, 12, 0, 0, 0))
    );
    // Negative zero becomes positive zero.
    assert_eq!(
        decode_row_field(ColumnType::Time, &[0x01]),
        Ok(time(false, 0, 0, 0, 0))
    );
    assert_eq!(time(true, 0, 0, 0, 0), time(false, 0, 0, 0, 0));
}

#[test]
fn row_datetime() {
    row_known(date(2024, 1, 15), &[0xe8, 0x0f, 0x01, 0x0f]);
    row_known(date(0, 0, 0), &[0x00, 0x00, 0x00]);
    row_known(
        datetime(2024, 1, 15, 10, 20, 30, 123),
        &[0xe8, 0x0f, 0x01, 0x0f, 0x0a, 0x14, 0x1e, 0x7b],
    );
    row_known(
        datetime(2024, 1, 15, 10, 0, 0, 0),
        &[0xe8, 0x0f, 0x01, 0x0f, 0x0a],
    );
    row_known(
        datetime(2024, 1, 15, 0, 0, 7, 0),
        &[0xe8, 0x0f, 0x01, 0x0f, 0x00, 0x00, 0x07],
    );
    // A midnight DATETIME keeps its hour so it does not turn into a DATE.
    row_known(
        datetime(2024, 1, 15, 0, 0, 0, 0),
        &[0xe8, 0x0f, 0x01, 0x0f, 0x00],
    );
    // The engine's padded varints: year 5 as 0x85 0x00.
    assert_eq!(
        decode_row_field(ColumnType::DateTime, &[0x85, 0x00, 0x01, 0x02]),
        Ok(date(5, 1, 2))
    );
}

#[test]
fn row_decimal() {
    row_known(decimal("-12.34"), &[0x02, 0x12, 0x34, 0xd0]);
    // The example of the X Protocol documentation.
    row_known(decimal("-12.3401"), &[0x04, 0x12, 0x34, 0x01, 0xd0]);
    row_known(decimal("1.23"), &[0x02, 0x12, 0x3c]);
    row_known(decimal("-5"), &[0x00, 0x5d]);
    row_known(decimal("0"), &[0x00, 0x0c]);
    row_known(decimal("123.4500"), &[0x04, 0x12, 0x34, 0x50, 0x0c]);
    row_known(decimal("0.05"), &[0x02, 0x00, 0x5c]);
    // Other packed-BCD signs are accepted.
    for (sign, negative) in [(0xa, false), (0xb, true), (0xe, false), (0xf, false)] {
        let Value::Decimal(d) =
            decode_row_field(ColumnType::Decimal, &[0x01, 0x12, sign << 4]).unwrap()
        else {
            panic!("not a decimal");
        };
        assert_eq!(
            (d.is_negative(), d.digits(), d.scale()),
            (negative, "12", 1)
        );
    }
}

#[test]
fn decimal_strings() {
    let d: XDecimal = "-123.4500".parse().unwrap();
    assert_eq!(
        (d.is_negative(), d.digits(), d.scale()),
        (true, "1234500", 4)
    );
    assert_eq!(d.to_string(), "-123.4500");
    assert_eq!(XDecimal::parse("+7").unwrap().to_string(), "7");
    assert_eq!(XDecimal::parse(".5").unwrap().to_string(), "0.5");
    assert_eq!(
        XDecimal::parse("5.").unwrap(),
        XDecimal::new(false, "5", 0).unwrap()
    );
    assert_eq!(XDecimal::new(true, "5", 3).unwrap().to_string(), "-0.005");
    assert_eq!(XDecimal::new(false, "05", 2).unwrap().to_string(), "0.05");
    for bad in ["", "-", ".", "1.2.3", "1e5", "12a", " 1", "--1"] {
        assert!(
            matches!(XDecimal::parse(bad), Err(ValueError::BadDecimal(_))),
            "{bad:?} parsed"
        );
    }
    let long = format!("0.{}", "1".repeat(256));
    assert!(XDecimal::parse(&long).is_err());
}

#[test]
fn row_set() {
    row_known(set(&[]), &[0x01]);
    row_known(set(&[b""]), &[0x00]);
    row_known(set(&[b"\x00"]), &[0x01, 0x00]);
    row_known(set(&[b"a"]), &[0x01, 0x61]);
    row_known(
        set(&[b"FOO", b"BAR"]),
        &[0x03, b'F', b'O', b'O', 0x03, b'B', b'A', b'R'],
    );
}

#[test]
fn row_decode_errors() {
    use ColumnType as T;
    let truncated = |ty| ValueError::Truncated { ty };
    let cases: Vec<(ColumnType, &[u8], ValueError)> = vec![
        (T::Sint, &[0x80], truncated(T::Sint)),
        (T::Uint, &[0xff; 11], ValueError::Overlong { ty: T::Uint }),
        (
            T::Uint,
            &[0x01, 0x02],
            ValueError::TrailingBytes {
                ty: T::Uint,
                count: 1,
            },
        ),
        (T::Bit, &[0x80, 0x80], truncated(T::Bit)),
        (
            T::Double,
            &[0; 7],
            ValueError::WrongLength {
                ty: T::Double,
                len: 7,
                expected: 8,
            },
        ),
        (
            T::Float,
            &[0; 5],
            ValueError::WrongLength {
                ty: T::Float,
                len: 5,
                expected: 4,
            },
        ),
        (
            T::Bytes,
            b"ab",
            ValueError::MissingTerminator { ty: T::Bytes },
        ),
        (
            T::Enum,
            &[0x01],
            ValueError::MissingTerminator { ty: T::Enum },
        ),
        (T::Time, &[0x02], ValueError::BadTimeSign(2)),
        (T::Time, &[0x00, 0x80], truncated(T::Time)),
        (
            T::Time,
            &[0x00, 1, 2, 3, 4, 5],
            ValueError::TrailingBytes {
                ty: T::Time,
                count: 1,
            },
        ),
        (
            T::Time,
            &[0x00, 0xc7, 0x06],
            ValueError::OutOfRange {
                ty: T::Time,
                field: "hours",
                value: 839,
                max: 838,
            },
        ),
        (
            T::Time,
            &[0x00, 0x00, 60],
            ValueError::OutOfRange {
                ty: T::Time,
                field: "minutes",
                value: 60,
                max: 59,
            },
        ),
        (T::DateTime, &[0xe8, 0x0f, 0x01], truncated(T::DateTime)),
        (
            T::DateTime,
            &[0xe8, 0x0f, 13, 1],
            ValueError::OutOfRange {
                ty: T::DateTime,
                field: "month",
                value: 13,
                max: 12,
            },
        ),
        (
            T::DateTime,
            &[0xe8, 0x0f, 1, 32],
            ValueError::OutOfRange {
                ty: T::DateTime,
                field: "day",
                value: 32,
                max: 31,
            },
        ),
        (
            T::DateTime,
            &[0xe8, 0x0f, 1, 1, 24],
            ValueError::OutOfRange {
                ty: T::DateTime,
                field: "hour",
                value: 24,
                max: 23,
            },
        ),
        (
            T::DateTime,
            &[0x90, 0x4e, 1, 1],
            ValueError::OutOfRange {
                ty: T::DateTime,
                field: "year",
                value: 10000,
                max: 9999,
            },
        ),
        (
            T::DateTime,
            &[0xe8, 0x0f, 1, 1, 0, 0, 0, 0xc0, 0x84, 0x3d],
            ValueError::OutOfRange {
                ty: T::DateTime,
                field: "microseconds",
                value: 1_000_000,
                max: 999_999,
            },
        ),
        (
            T::DateTime,
            &[0xe8, 0x0f, 1, 1, 1, 1, 1, 1, 1],
            ValueError::TrailingBytes {
                ty: T::DateTime,
                count: 1,
            },
        ),
        (
            T::Decimal,
            &[0x02],
            ValueError::BadDecimal("the sign nibble is missing"),
        ),
        (
            T::Decimal,
            &[0x02, 0x12, 0x34],
            ValueError::BadDecimal("the sign nibble is missing"),
        ),
        (
            T::Decimal,
            &[0x00, 0xc0],
            ValueError::BadDecimal("it has no digits"),
        ),
        (
            T::Decimal,
            &[0x00, 0x12, 0xd1],
            ValueError::BadDecimal("the nibble after the sign is not 0"),
        ),
        (
            T::Decimal,
            &[0x00, 0x1c, 0x00],
            ValueError::BadDecimal("bytes follow the sign nibble"),
        ),
        (T::Set, &[0x02, 0x61], truncated(T::Set)),
        (T::Set, &[0x01, 0x61, 0x80], truncated(T::Set)),
    ];
    for (ty, wire, err) in cases {
        assert_eq!(decode_row_field(ty, wire), Err(err), "{ty} {wire:02x?}");
    }
}

#[test]
fn error_messages_name_the_type() {
    let err = decode_row_field(ColumnType::DateTime, &[0xe8, 0x0f, 13, 1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "DATETIME month 13 is out of range (at most 12)"
    );
    let err = decode_row_field(ColumnType::Bytes, b"x").unwrap_err();
    assert_eq!(
        err.to_string(),
        "BYTES value does not end with its 0x00 terminator"
    );
    assert_eq!(
        ValueError::BadTimeSign(2).to_string(),
        "TIME sign byte 0x02 is neither 0x00 nor 0x01"
    );
}

#[test]
fn chunk_scalars() {
    assert_eq!(chunk(&Value::Null), []);
    chunk_known(Value::Sint(-1), &[0x01]);
    chunk_known(Value::Sint(150), &[0xac, 0x02]);
    chunk_known(Value::Uint(300), &[0xac, 0x02]);
    chunk_known(Value::Bit(5), &[0x05]);
    chunk_known(Value::Double(1.0), &[0, 0, 0, 0, 0, 0, 0xf0, 0x3f]);
    chunk_known(Value::Float(1.0), &[0x00, 0x00, 0x80, 0x3f]);
}

#[test]
fn chunk_strings_decimals_and_sets() {
    chunk_known(Value::Bytes(bytes(b"ab")), &[0x03, 0x61, 0x62, 0x00]);
    chunk_known(Value::Bytes(Bytes::new()), &[0x01, 0x00]);
    chunk_known(Value::Enum(bytes(b"x")), &[0x02, 0x78, 0x00]);
    chunk_known(decimal("-12.34"), &[0x04, 0x02, 0x12, 0x34, 0xd0]);
    chunk_known(decimal("1.23"), &[0x03, 0x02, 0x12, 0x3c]);
    chunk_known(set(&[]), &[0x01, 0x00]);
    chunk_known(set(&[b"a", b"bc"]), &[0x05, 0x01, 0x61, 0x02, 0x62, 0x63]);
    chunk_known(set(&[b"", b""]), &[0x02, 0x00, 0x00]);
    // A set holding one empty item is sent as the empty set.
    assert_eq!(chunk(&set(&[b""])), [0x01, 0x00]);
}

#[test]
fn chunk_temporal_values_are_mysql_packed() {
    // TIME_to_longlong_datetime_packed(2024-01-15 10:20:30.000123) = 0x19b25ea51e00007b.
    let dt = XDateTime::new(2024, 1, 15, 10, 20, 30, 123).unwrap();
    assert_eq!(dt.to_packed(), 0x19b2_5ea5_1e00_007b);
    chunk_known(
        Value::DateTime(dt),
        &[0xfb, 0x80, 0x80, 0xf0, 0xd1, 0xd4, 0x97, 0xd9, 0x19],
    );
    let d = XDateTime::date(2024, 1, 15).unwrap();
    assert_eq!(d.to_packed(), 0x19b2_5e00_0000_0000);
    chunk_known(
        Value::DateTime(d),
        &[0x80, 0x80, 0x80, 0x80, 0x80, 0xc0, 0x97, 0xd9, 0x19],
    );
    let max = XDateTime::new(9999, 12, 31, 23, 59, 59, 999_999).unwrap();
    assert_eq!(max.to_packed(), 9_147_936_188_962_652_735);
    assert_eq!(XDateTime::from_packed(max.to_packed()), Ok(max));

    // TIME_to_longlong_time_packed(-01:02:03.000004) = -70917292036: ten bytes, no zigzag.
    let t = XTime::new(true, 1, 2, 3, 4).unwrap();
    assert_eq!(t.to_packed(), -70_917_292_036);
    chunk_known(
        Value::Time(t),
        &[0xfc, 0xff, 0xff, 0xe7, 0xf7, 0xfd, 0xff, 0xff, 0xff, 0x01],
    );
    let t = XTime::new(false, 838, 59, 59, 0).unwrap();
    chunk_known(Value::Time(t), &[0x80, 0x80, 0x80, 0xd8, 0xef, 0x8d, 0x0d]);
    chunk_known(time(false, 0, 0, 0, 0), &[0x00]);

    // A midnight DATETIME comes back from a chunk as a DATE.
    let midnight = XDateTime::new(2024, 1, 15, 0, 0, 0, 0).unwrap();
    assert_eq!(XDateTime::from_packed(midnight.to_packed()), Ok(d));
}

#[test]
fn packed_decode_errors() {
    use ColumnType as T;
    assert_eq!(
        XDateTime::from_packed(-1),
        Err(ValueError::NegativePacked {
            ty: T::DateTime,
            packed: -1
        })
    );
    // Day 15 with hour 24.
    let ymd: i64 = ((2024 * 13 + 1) << 5) | 15;
    let bad_hour = ((ymd << 17) | (24 << 12)) << 24;
    assert_eq!(
        XDateTime::from_packed(bad_hour),
        Err(ValueError::OutOfRange {
            ty: T::DateTime,
            field: "hour",
            value: 24,
            max: 23
        })
    );
    assert_eq!(
        XTime::from_packed(1_000_000),
        Err(ValueError::OutOfRange {
            ty: T::Time,
            field: "microseconds",
            value: 1_000_000,
            max: 999_999
        })
    );
    assert_eq!(
        XTime::from_packed(1023 << 36),
        Err(ValueError::OutOfRange {
            ty: T::Time,
            field: "hours",
            value: 1023,
            max: 838
        })
    );
    assert!(XTime::from_packed(i64::MIN).is_err());
    // -1 is -00:00:00.000001, ten bytes on the wire.
    let mut cur: &[u8] = &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert_eq!(
        decode_chunk_value(T::Time, &mut cur),
        Ok(time(true, 0, 0, 0, 1))
    );
    assert!(XDateTime::from_packed(i64::MAX).is_err());
}

#[test]
fn chunk_decode_errors_leave_the_cursor() {
    use ColumnType as T;
    let cases: Vec<(ColumnType, &[u8], ValueError)> = vec![
        (T::Sint, &[], ValueError::Truncated { ty: T::Sint }),
        (T::Uint, &[0xff; 10], ValueError::Overlong { ty: T::Uint }),
        (T::Double, &[0; 7], ValueError::Truncated { ty: T::Double }),
        (T::Float, &[0; 3], ValueError::Truncated { ty: T::Float }),
        (
            T::Bytes,
            &[0x00],
            ValueError::BadLength {
                ty: T::Bytes,
                len: 0,
            },
        ),
        (
            T::Bytes,
            &[0x03, 0x61, 0x62],
            ValueError::Truncated { ty: T::Bytes },
        ),
        (
            T::Bytes,
            &[0x03, 0x61, 0x62, 0x63],
            ValueError::MissingTerminator { ty: T::Bytes },
        ),
        (
            T::Enum,
            &[0xff, 0xff, 0xff, 0xff, 0x0f],
            ValueError::Truncated { ty: T::Enum },
        ),
        (
            T::Decimal,
            &[0x01, 0x0c],
            ValueError::BadLength {
                ty: T::Decimal,
                len: 1,
            },
        ),
        (
            T::Decimal,
            &[0x03, 0x02, 0x12],
            ValueError::Truncated { ty: T::Decimal },
        ),
        (
            T::Decimal,
            &[0x02, 0x00, 0xc0],
            ValueError::BadDecimal("it has no digits"),
        ),
        (
            T::Set,
            &[0x00],
            ValueError::BadLength { ty: T::Set, len: 0 },
        ),
        (
            T::Set,
            &[0x01, 0x05],
            ValueError::BadLength { ty: T::Set, len: 1 },
        ),
        (
            T::Set,
            &[0x03, 0x05, 0x61, 0x62],
            ValueError::Truncated { ty: T::Set },
        ),
        (
            T::Set,
            &[0x05, 0x01, 0x61],
            ValueError::Truncated { ty: T::Set },
        ),
        (
            T::Time,
            &[0xc0, 0x84, 0x3d],
            ValueError::OutOfRange {
                ty: T::Time,
                field: "microseconds",
                value: 1_000_000,
                max: 999_999,
            },
        ),
        (
            T::DateTime,
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            ValueError::NegativePacked {
                ty: T::DateTime,
                packed: -1,
            },
        ),
    ];
    for (ty, wire, err) in cases {
        let mut cur = wire;
        assert_eq!(
            decode_chunk_value(ty, &mut cur),
            Err(err),
            "{ty} {wire:02x?}"
        );
        assert_eq!(cur, wire, "{ty} cursor moved");
    }
}

#[test]
fn chunk_values_concatenate() {
    let values = [
        Value::Bytes(bytes(b"hello")),
        Value::Bytes(Bytes::new()),
        Value::Bytes(bytes(b"\0\0")),
    ];
    let mut buf = Vec::new();
    for value in &values {
        encode_chunk_value(value, &mut buf);
    }
    let mut cur = &buf[..];
    for value in &values {
        assert_eq!(
            decode_chunk_value(ColumnType::Bytes, &mut cur).as_ref(),
            Ok(value)
        );
    }
    assert!(cur.is_empty());
}

#[test]
fn constructors_check_ranges() {
    assert!(XTime::new(false, 839, 0, 0, 0).is_err());
    assert!(XTime::new(false, 0, 60, 0, 0).is_err());
    assert!(XTime::new(false, 0, 0, 60, 0).is_err());
    assert!(XTime::new(false, 0, 0, 0, 1_000_000).is_err());
    assert!(XDateTime::date(10_000, 1, 1).is_err());
    assert!(XDateTime::date(2024, 13, 1).is_err());
    assert!(XDateTime::date(2024, 1, 32).is_err());
    assert!(XDateTime::new(2024, 1, 1, 24, 0, 0, 0).is_err());
    assert!(XDateTime::new(2024, 1, 1, 0, 60, 0, 0).is_err());
    assert!(XDateTime::new(2024, 1, 1, 0, 0, 60, 0).is_err());
    assert!(XDateTime::new(2024, 1, 1, 0, 0, 0, 1_000_000).is_err());
    assert!(XDecimal::new(false, "", 0).is_err());
    assert!(XDecimal::new(false, "1a", 0).is_err());
    assert_eq!(
        XTime::new(true, 1, 2, 3, 4).unwrap().to_string(),
        "-01:02:03.000004"
    );
    assert_eq!(
        XDateTime::date(2024, 1, 5).unwrap().to_string(),
        "2024-01-05"
    );
    assert_eq!(
        XDateTime::new(2024, 1, 5, 0, 0, 0, 0).unwrap().to_string(),
        "2024-01-05 00:00:00"
    );
}

fn arb_time() -> impl Strategy<Value = XTime> {
    let micros = prop_oneof![Just(0u32), 0..1_000_000u32];
    (any::<bool>(), 0..=838u32, 0..60u32, 0..60u32, micros)
        .prop_map(|(neg, h, m, s, us)| XTime::new(neg, h, m, s, us).unwrap())
}

fn arb_datetime() -> impl Strategy<Value = XDateTime> {
    let micros = prop_oneof![Just(0u32), 0..1_000_000u32];
    let time = prop::option::of((0..24u32, 0..60u32, 0..60u32, micros));
    (0..=9999u32, 0..=12u32, 0..=31u32, time).prop_map(|(y, mo, d, time)| match time {
        None => XDateTime::date(y, mo, d).unwrap(),
        Some((h, mi, s, us)) => XDateTime::new(y, mo, d, h, mi, s, us).unwrap(),
    })
}

fn arb_decimal() -> impl Strategy<Value = XDecimal> {
    (any::<bool>(), "[0-9]{1,70}", any::<u8>())
        .prop_map(|(neg, digits, scale)| XDecimal::new(neg, &digits, scale).unwrap())
}

fn arb_bytes() -> impl Strategy<Value = Bytes> {
    vec(any::<u8>(), 0..40).prop_map(Bytes::from)
}

fn arb_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<i64>().prop_map(Value::Sint),
        any::<u64>().prop_map(Value::Uint),
        any::<u64>().prop_map(|bits| Value::Double(f64::from_bits(bits))),
        any::<u32>().prop_map(|bits| Value::Float(f32::from_bits(bits))),
        arb_bytes().prop_map(Value::Bytes),
        arb_bytes().prop_map(Value::Enum),
        arb_time().prop_map(Value::Time),
        arb_datetime().prop_map(Value::DateTime),
        arb_decimal().prop_map(Value::Decimal),
        vec(arb_bytes(), 0..6).prop_map(Value::Set),
        any::<u64>().prop_map(Value::Bit),
    ]
}

/// What a value becomes through the chunk form, which cannot tell a DATE from a midnight
/// DATETIME, or `{''}` from the empty set.
fn through_chunk(value: &Value) -> Value {
    match value {
        Value::DateTime(dt) => Value::DateTime(XDateTime::from_packed(dt.to_packed()).unwrap()),
        Value::Set(items) if items.len() == 1 && items[0].is_empty() => Value::Set(Vec::new()),
        other => other.clone(),
    }
}

fn arb_column_type() -> impl Strategy<Value = ColumnType> {
    prop::sample::select(&ColumnType::ALL[..])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn varint_round_trips(value in any::<u64>(), tail in vec(any::<u8>(), 0..4)) {
        let mut buf = Vec::new();
        put_varint(value, &mut buf);
        prop_assert_eq!(buf.len(), varint_len(value));
        buf.extend_from_slice(&tail);
        let mut cur = &buf[..];
        prop_assert_eq!(get_varint(&mut cur), Ok(value));
        prop_assert_eq!(cur, &tail[..]);
    }

    #[test]
    fn zigzag_round_trips(value in any::<i64>()) {
        prop_assert_eq!(zigzag_decode(zigzag_encode(value)), value);
        prop_assert_eq!(zigzag_encode(zigzag_decode(value as u64)), value as u64);
    }

    #[test]
    fn row_round_trips(value in arb_value()) {
        let wire = row(&value);
        let ty = value.column_type().unwrap_or(ColumnType::Bytes);
        let decoded = decode_row_field(ty, &wire).unwrap();
        prop_assert!(same(&decoded, &value), "{:?} -> {:02x?} -> {:?}", value, wire, decoded);
    }

    #[test]
    fn chunk_round_trips(value in arb_value()) {
        let Some(ty) = value.column_type() else {
            prop_assert!(chunk(&value).is_empty());
            return Ok(());
        };
        let wire = chunk(&value);
        let decoded = decode_chunk_all(ty, &wire).unwrap();
        let expected = through_chunk(&value);
        prop_assert!(same(&decoded, &expected), "{:?} -> {:02x?} -> {:?}", value, wire, decoded);
    }

    #[test]
    fn chunk_column_round_trips(ty in arb_column_type(), values in vec(arb_value(), 0..20)) {
        let values: Vec<Value> =
            values.into_iter().filter(|v| v.column_type() == Some(ty)).collect();
        let mut buf = Vec::new();
        for value in &values {
            encode_chunk_value(value, &mut buf);
        }
        let mut cur = &buf[..];
        for value in &values {
            let decoded = decode_chunk_value(ty, &mut cur).unwrap();
            prop_assert!(same(&decoded, &through_chunk(value)));
        }
        prop_assert!(cur.is_empty());
    }

    #[test]
    fn packed_round_trips(t in arb_time(), dt in arb_datetime()) {
        prop_assert_eq!(XTime::from_packed(t.to_packed()), Ok(t));
        let back = XDateTime::from_packed(dt.to_packed()).unwrap();
        prop_assert_eq!(back.to_packed(), dt.to_packed());
    }

    #[test]
    fn decimal_strings_round_trip(d in arb_decimal()) {
        let parsed = XDecimal::parse(&d.to_string()).unwrap();
        prop_assert_eq!(parsed.is_negative(), d.is_negative());
        prop_assert_eq!(parsed.scale(), d.scale());
        // Printing may add leading zeros; the number is the same.
        prop_assert_eq!(parsed.digits().trim_start_matches('0'), d.digits().trim_start_matches('0'));
    }

    #[test]
    fn row_decode_never_panics(ty in arb_column_type(), field in vec(any::<u8>(), 0..48)) {
        if let Ok(value) = decode_row_field(ty, &field) {
            // Whatever decodes re-encodes to something that decodes the same.
            let again = decode_row_field(ty, &row(&value)).unwrap();
            prop_assert!(same(&again, &value));
        }
    }

    #[test]
    fn chunk_decode_never_panics(ty in arb_column_type(), buf in vec(any::<u8>(), 0..48)) {
        let mut cur = &buf[..];
        while !cur.is_empty() {
            let before = cur.len();
            match decode_chunk_value(ty, &mut cur) {
                Ok(value) => {
                    prop_assert!(cur.len() < before, "no progress");
                    let again = decode_chunk_all(ty, &chunk(&value)).unwrap();
                    prop_assert!(same(&again, &value));
                }
                Err(_) => {
                    prop_assert_eq!(cur.len(), before);
                    break;
                }
            }
        }
    }

    #[test]
    fn varint_decode_never_panics(buf in vec(any::<u8>(), 0..16)) {
        let mut cur = &buf[..];
        match get_varint(&mut cur) {
            Ok(value) => {
                let used = buf.len() - cur.len();
                prop_assert!(used >= varint_len(value) && used <= MAX_VARINT_LEN);
            }
            Err(_) => prop_assert_eq!(cur.len(), buf.len()),
        }
    }
}
