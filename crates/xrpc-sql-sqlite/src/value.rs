//! MySQL's reading of SQLite values as numbers, decimals and text, and MySQL's text of a value
//! of each expression type (what a client receives).

use std::borrow::Cow;
use std::str::FromStr;

use bigdecimal::{BigDecimal, RoundingMode, Signed};
use rusqlite::types::ValueRef;

use crate::types::Ty;

/// The longest prefix of `s` (after leading spaces) that reads as a number, as MySQL converts a
/// string in numeric context: `'12abc'` is 12, `'abc'` 0, `' 1e3x'` 1000.
pub(crate) fn number_prefix(s: &str) -> &str {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let bytes = s.as_bytes();
    let mut end = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    let digits_start = end;
    while bytes.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    let mut seen = end > digits_start;
    if bytes.get(end) == Some(&b'.') {
        let mut after = end + 1;
        while bytes.get(after).is_some_and(u8::is_ascii_digit) {
            after += 1;
        }
        if after > end + 1 || seen {
            seen |= after > end + 1;
            end = after;
        }
    }
    if !seen {
        return "";
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut after = end + 1;
        if matches!(bytes.get(after), Some(b'+' | b'-')) {
            after += 1;
        }
        let exp_start = after;
        while bytes.get(after).is_some_and(u8::is_ascii_digit) {
            after += 1;
        }
        if after > exp_start {
            end = after;
        }
    }
    &s[..end]
}

/// The level of a warning the function library raised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Note,
    Warning,
}

/// How MySQL judges a string it read as a number (`number`, the prefix it read, which
/// [`number_prefix`] gives): nothing left is exact, only spaces left is a Note, anything else
/// (or no number at all) a Warning; both are 1292 "Truncated incorrect … value".
pub(crate) fn truncation(text: &str, number: &str) -> Option<Level> {
    let rest = text.trim_start_matches([' ', '\t', '\n', '\r']);
    let rest = &rest[number.len().min(rest.len())..];
    if number.is_empty() || !rest.trim_start_matches([' ', '\t', '\n', '\r']).is_empty() {
        Some(Level::Warning)
    } else if rest.is_empty() {
        None
    } else {
        Some(Level::Note)
    }
}

/// The integer prefix of a number prefix (its sign and digits), as MySQL reads a string as an
/// integer: `'12.5'` is 12.
pub(crate) fn integer_prefix(number: &str) -> &str {
    let digits = number
        .char_indices()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
        .count();
    let prefix = &number[..digits];
    if prefix.bytes().any(|b| b.is_ascii_digit()) {
        prefix
    } else {
        ""
    }
}

/// A value as a DOUBLE, as MySQL converts it; `None` for NULL.
pub(crate) fn to_f64(value: ValueRef<'_>) -> Option<f64> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(r) => Some(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = String::from_utf8_lossy(t);
            Some(number_prefix(&s).parse::<f64>().unwrap_or(0.0))
        }
    }
}

/// MySQL's widest DECIMAL: 65 digits.
const DECIMAL_DIGITS: i64 = 65;

/// A value as an exact decimal, as MySQL converts it; `None` for NULL. Values beyond DECIMAL's
/// 65 digits saturate and fractions beyond 65 digits round, so no input can make the arithmetic
/// on it unbounded.
pub(crate) fn to_decimal(value: ValueRef<'_>) -> Option<BigDecimal> {
    let d = read_decimal(value)?;
    let limit = || BigDecimal::new(1.into(), -DECIMAL_DIGITS) - BigDecimal::from(1);
    if d.digits() as i64 - d.fractional_digit_count() > DECIMAL_DIGITS {
        return Some(if d.is_negative() { -limit() } else { limit() });
    }
    if d.fractional_digit_count() > DECIMAL_DIGITS {
        return Some(d.with_scale_round(DECIMAL_DIGITS, RoundingMode::HalfUp));
    }
    Some(d)
}

fn read_decimal(value: ValueRef<'_>) -> Option<BigDecimal> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(BigDecimal::from(i)),
        ValueRef::Real(r) => BigDecimal::from_str(&double_text(r)).ok(),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = String::from_utf8_lossy(t);
            Some(BigDecimal::from_str(number_prefix(&s)).unwrap_or_default())
        }
    }
}

/// A value as an integer, as MySQL converts it in integer context (rounding a fraction half
/// away from zero); `None` for NULL or beyond BIGINT.
pub(crate) fn to_i64(value: ValueRef<'_>) -> Option<i64> {
    match value {
        ValueRef::Integer(i) => Some(i),
        other => {
            let d = to_decimal(other)?.with_scale_round(0, RoundingMode::HalfUp);
            i64::try_from(d.into_bigint_and_exponent().0).ok()
        }
    }
}

/// A value as text; `None` for NULL. Numbers are written as SQLite holds them: callers give
/// the text of typed values through [`text_of`].
pub(crate) fn to_text(value: ValueRef<'_>) -> Option<Cow<'_, str>> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(Cow::Owned(i.to_string())),
        ValueRef::Real(r) => Some(Cow::Owned(double_text(r))),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t)),
    }
}

/// A decimal's text with exactly `scale` fraction digits (rounded half away from zero).
pub(crate) fn decimal_text(value: &BigDecimal, scale: i64) -> String {
    value
        .with_scale_round(scale, RoundingMode::HalfUp)
        .to_plain_string()
}

/// MySQL's text of a DOUBLE: the shortest digits that read back as the same double, in plain
/// notation for at most 15 integer digits or 14 zeros after the point (`123456789012345`,
/// `-0.00000025`) and as `1e15`, `1.5e-17` otherwise.
pub(crate) fn double_text(value: f64) -> String {
    if value == 0.0 {
        return "0".into();
    }
    if !value.is_finite() {
        return value.to_string();
    }
    let sci = format!("{value:e}");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is a number");
    let point = exp + 1;
    let plain = if point > 0 { point <= 15 } else { point > -15 };
    if plain {
        format!("{value}")
    } else {
        format!("{mantissa}e{exp}")
    }
}

/// MySQL's text of a FLOAT column's value: six significant digits, as MySQL prints FLOAT.
pub(crate) fn float_text(value: f64) -> String {
    if value == 0.0 {
        return "0".into();
    }
    let exp = value.abs().log10().floor() as i32;
    let digits = (5 - exp).max(0) as usize;
    let fixed = format!("{value:.digits$}");
    let trimmed = if fixed.contains('.') {
        fixed.trim_end_matches('0').trim_end_matches('.')
    } else {
        &fixed
    };
    trimmed.to_string()
}

/// The value a user variable keeps for a value of expression type `ty` (`SET @a = …`,
/// `SELECT … INTO @a`): an integer as it is, anything else as the text MySQL shows.
pub fn variable_value(value: ValueRef<'_>, ty: &Ty) -> rusqlite::types::Value {
    match (text_of(value, ty), ty) {
        (None, _) => rusqlite::types::Value::Null,
        (Some(_), Ty::Int) => rusqlite::types::Value::from(value),
        (Some(s), _) => rusqlite::types::Value::Text(s),
    }
}

/// What a client receives for a value of expression type `ty`: MySQL's text, `None` for NULL.
pub fn text_of(value: ValueRef<'_>, ty: &Ty) -> Option<String> {
    if matches!(value, ValueRef::Null) {
        return None;
    }
    Some(match ty {
        Ty::Int => match value {
            ValueRef::Integer(i) => i.to_string(),
            other => to_i64(other).map_or_else(
                || to_text(other).unwrap_or_default().into_owned(),
                |i| i.to_string(),
            ),
        },
        Ty::Decimal(scale) => decimal_text(&to_decimal(value)?, i64::from(*scale)),
        Ty::Double => double_text(to_f64(value)?),
        Ty::Float => float_text(to_f64(value)?),
        _ => to_text(value)?.into_owned(),
    })
}

/// Why a column DEFAULT is not kept ([`constant_default`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefaultRefused {
    /// A literal the column cannot hold: MySQL's `ER_INVALID_DEFAULT` (1067).
    Invalid,
    /// Not a literal, or one whose conversion the translation does not do (1235).
    NotKept,
}

/// A column DEFAULT as the constant MySQL keeps: a literal converted to the column's type.
pub(crate) fn constant_default(
    e: &sqlparser::ast::Expr,
    ty: &crate::types::ColumnType,
) -> std::result::Result<String, DefaultRefused> {
    use crate::types::ColumnType as C;
    use DefaultRefused::{Invalid, NotKept};
    use sqlparser::ast::{Expr, UnaryOperator, Value};
    let (text, negative) = match e {
        Expr::Value(v) => (v.value.clone(), false),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) => (v.value.clone(), true),
            _ => return Err(NotKept),
        },
        _ => return Err(NotKept),
    };
    // b'101' of a BIT column: its number (of another type, the bytes, which are not kept).
    if let (Value::SingleQuotedByteStringLiteral(bits), C::Bit { width }, false) =
        (&text, ty, negative)
    {
        let value = u64::from_str_radix(bits, 2).map_err(|_| NotKept)?;
        return (value >> width == 0)
            .then(|| value.to_string())
            .ok_or(NotKept);
    }
    let raw = match &text {
        Value::Number(n, _) => format!("{}{n}", if negative { "-" } else { "" }),
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) if !negative => s.clone(),
        Value::Null if !negative => return Ok("NULL".into()),
        // TRUE and FALSE are MySQL's 1 and 0.
        Value::Boolean(b) if !negative => i32::from(*b).to_string(),
        _ => return Err(NotKept),
    };
    let quoted = |s: &str| format!("'{}'", s.replace('\'', "''"));
    match ty {
        C::Int { min, max } => match raw.trim().parse::<i64>() {
            Ok(v) if v >= *min && v <= *max => Ok(v.to_string()),
            Ok(_) => Err(Invalid),
            // MySQL rounds a fraction ('12.5' is 13): not done here. Not a number at all: 1067.
            Err(_) if raw.trim().parse::<f64>().is_ok() => Err(NotKept),
            Err(_) => Err(Invalid),
        },
        C::Year => {
            let v: i64 = match text {
                Value::Number(..) => raw.trim().parse().map_err(|_| NotKept)?,
                _ => return Err(NotKept),
            };
            year_of_number(v)
                .filter(|y| *y != 0)
                .map(|y| y.to_string())
                .ok_or(NotKept)
        }
        // A number (a string's bytes would be MySQL's number: not kept).
        C::Bit { width } => {
            let v: u64 = match text {
                Value::Number(..) | Value::Boolean(_) => raw.trim().parse().map_err(|_| NotKept)?,
                _ => return Err(NotKept),
            };
            (v >> width == 0).then(|| v.to_string()).ok_or(NotKept)
        }
        C::Decimal {
            precision,
            scale,
            unsigned,
        } => {
            let d = BigDecimal::from_str(raw.trim()).map_err(|_| Invalid)?;
            if *unsigned && d.sign() == bigdecimal::num_bigint::Sign::Minus {
                return Err(Invalid);
            }
            let text = decimal_text(&d, i64::from(*scale));
            let digits = text
                .trim_start_matches('-')
                .replace('.', "")
                .trim_start_matches('0')
                .len();
            (digits <= usize::from(*precision))
                .then(|| quoted(&text))
                .ok_or(Invalid)
        }
        C::Double | C::Float => raw
            .trim()
            .parse::<f64>()
            .map(|v| format!("{v:?}"))
            .map_err(|_| NotKept),
        C::Char { length, .. } | C::VarChar { length, .. } => {
            let kept = if matches!(ty, C::Char { .. }) {
                raw.trim_end_matches(' ')
            } else {
                raw.as_str()
            };
            (kept.chars().count() <= *length as usize)
                .then(|| quoted(kept))
                .ok_or(Invalid)
        }
        C::Date | C::DateTime { .. } => {
            let d = crate::dates::read_parts(ValueRef::Text(raw.as_bytes())).ok_or(NotKept)?;
            Ok(quoted(&match ty {
                C::Date => d.date_text(),
                C::DateTime { fsp, .. } if d.fsp <= *fsp => d.datetime_text(*fsp),
                _ => return Err(NotKept),
            }))
        }
        C::Enum { values, collation } => {
            let kept = raw.trim_end_matches(' ');
            values
                .iter()
                .find(|v| crate::collation::compare(*collation, v, kept).is_eq())
                .map(|v| quoted(v))
                .ok_or(Invalid)
        }
        C::Set { values, collation } => set_text(&raw, values, *collation)
            .map(|v| quoted(&v))
            .map_err(|_| Invalid),
        C::Bytes { .. } | C::Time { .. } => Err(NotKept),
    }
}

/// The year MySQL stores in a YEAR column for number `n`: 1 to 69 are 2001 to 2069, 70 to 99
/// are 1970 to 1999, 0 and 1901 to 2155 are themselves; `None` out of range.
pub(crate) fn year_of_number(n: i64) -> Option<i64> {
    match n {
        0 => Some(0),
        1..=69 => Some(n + 2000),
        70..=99 => Some(n + 1900),
        1901..=2155 => Some(n),
        _ => None,
    }
}

/// A SET value from a comma-separated text: its members in declaration order, each once, as
/// declared. `Err` carries the value without the parts that are no member.
pub(crate) fn set_text(
    text: &str,
    members: &[String],
    collation: crate::types::Collation,
) -> std::result::Result<String, String> {
    let mut chosen = vec![false; members.len()];
    // An empty member between commas (`x,,y`, `,x`, `x,`) is none of the SET's, as MySQL
    // reads it; the empty text is the empty set.
    let mut unknown = !text.is_empty() && text.split(',').any(str::is_empty);
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let part = part.trim_end_matches(' ');
        match members
            .iter()
            .position(|m| crate::collation::compare(collation, m, part).is_eq())
        {
            Some(i) => chosen[i] = true,
            None => unknown = true,
        }
    }
    let value = members
        .iter()
        .zip(&chosen)
        .filter(|(_, c)| **c)
        .map(|(m, _)| m.as_str())
        .collect::<Vec<_>>()
        .join(",");
    if unknown { Err(value) } else { Ok(value) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_read_as_their_numeric_prefix() {
        assert_eq!(number_prefix("12abc"), "12");
        assert_eq!(number_prefix(" -1.5e3x"), "-1.5e3");
        assert_eq!(number_prefix("abc"), "");
        assert_eq!(number_prefix(".5"), ".5");
        assert_eq!(number_prefix("1e"), "1");
    }

    #[test]
    fn doubles_print_as_mysql_prints_them() {
        assert_eq!(double_text(3.0), "3");
        assert_eq!(double_text(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(double_text(1e15), "1e15");
        assert_eq!(double_text(123456789012345.0), "123456789012345");
        assert_eq!(double_text(-2.5e-7), "-0.00000025");
        assert_eq!(double_text(1.5e-17), "1.5e-17");
        assert_eq!(float_text(1.0 / 3.0), "0.333333");
        assert_eq!(float_text(1234.5678), "1234.57");
    }

    #[test]
    fn decimals_keep_their_scale() {
        let d = BigDecimal::from_str("11.6").unwrap();
        assert_eq!(decimal_text(&d, 2), "11.60");
        assert_eq!(
            decimal_text(&BigDecimal::from_str("2.345").unwrap(), 2),
            "2.35"
        );
        assert_eq!(
            decimal_text(&BigDecimal::from_str("-2.345").unwrap(), 2),
            "-2.35"
        );
    }

    #[test]
    fn huge_exponents_are_bounded() {
        let big = to_decimal(ValueRef::Text(b"1e1000000000")).unwrap();
        assert_eq!(big.to_plain_string().len(), 65);
        let tiny = to_decimal(ValueRef::Text(b"1e-1000000000")).unwrap();
        assert!(tiny.fractional_digit_count() <= 65);
    }
}
