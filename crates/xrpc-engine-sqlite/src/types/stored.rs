//! A stored value read as the value of its column's declared MySQL type: what MySQL would
//! hold for it (a DECIMAL rounded to its scale, a two-digit YEAR widened, a date in its parts),
//! or the [`Problem`] that it is not one, for [`super::convert`].
//!
//! Dates are read as a column may hold them under MariaDB's default `sql_mode` (any day up to
//! 31 of any month up to 12, zeros included); whether a value could be written is the
//! writer's rule, not the reader's.

use std::fmt;

use rusqlite::types::ValueRef;

/// Why a stored value is not a value of its column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    /// 1366: not a value of this type at all.
    Incorrect,
    /// 1264: a number outside the type's range.
    OutOfRange,
    /// 1292: not a valid date or time.
    BadTemporal,
    /// 1406: longer than the declared length.
    TooLong,
    /// 1265: a number with trailing junk, or a fraction into an integer column.
    Truncated,
}

/// A value as MySQL quotes it in messages: text as is (at most 64 characters), blobs and
/// invalid UTF-8 as `\xNN` escapes (at most 32 bytes), numbers in their text form.
pub(crate) struct Shown<'a>(pub(crate) ValueRef<'a>);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ValueRef::Null => f.write_str("NULL"),
            ValueRef::Integer(i) => write!(f, "{i}"),
            // Debug keeps huge and tiny reals short (`1e300`), and reads back the same.
            ValueRef::Real(r) => write!(f, "{r:?}"),
            ValueRef::Text(t) | ValueRef::Blob(t) => match std::str::from_utf8(t) {
                Ok(s) if matches!(self.0, ValueRef::Text(_)) => {
                    f.write_str(&s.chars().take(64).collect::<String>())
                }
                _ => {
                    for b in t.iter().take(32) {
                        write!(f, "\\x{b:02X}")?;
                    }
                    Ok(())
                }
            },
        }
    }
}

/// `text` without the trailing spaces beyond `n` characters.
pub(crate) fn cut_chars(text: &str, n: u64) -> &str {
    match text
        .char_indices()
        .nth(usize::try_from(n).unwrap_or(usize::MAX))
    {
        Some((at, _)) if text[at..].bytes().all(|b| b == b' ') => &text[..at],
        _ => text,
    }
}

/// The text of a value for a text column: numbers in their text form, valid UTF-8 as is.
pub(crate) fn text_value(value: ValueRef<'_>) -> Result<String, Problem> {
    match value {
        ValueRef::Null => Ok(String::new()),
        ValueRef::Integer(i) => Ok(i.to_string()),
        ValueRef::Real(r) => Ok(format_real(r)),
        ValueRef::Text(t) | ValueRef::Blob(t) => std::str::from_utf8(t)
            .map(str::to_owned)
            .map_err(|_| Problem::Incorrect),
    }
}

/// A real as text: the shortest form that reads back the same, with `.0` on whole numbers as
/// SQLite prints them.
fn format_real(f: f64) -> String {
    if f.is_infinite() {
        return if f > 0.0 { "Inf" } else { "-Inf" }.to_owned();
    }
    let mut s = f.to_string();
    if f.is_finite() && !s.contains(['.', 'e', 'N']) {
        s.push_str(".0");
    }
    s
}

/// The bytes of a value for a binary column.
pub(crate) fn bytes_value(value: ValueRef<'_>) -> Vec<u8> {
    match value {
        ValueRef::Null => Vec::new(),
        ValueRef::Integer(i) => i.to_string().into_bytes(),
        ValueRef::Real(r) => format_real(r).into_bytes(),
        ValueRef::Text(t) | ValueRef::Blob(t) => t.to_vec(),
    }
}

/// A number written as text, split exactly: sign, integer digits without leading zeros, and
/// fraction digits, with any exponent applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExactNumber {
    pub(crate) negative: bool,
    pub(crate) int: String,
    pub(crate) frac: String,
}

impl ExactNumber {
    fn from_i64(i: i64) -> Self {
        Self {
            negative: i < 0,
            int: strip_zeros(&i.unsigned_abs().to_string()),
            frac: String::new(),
        }
    }

    fn is_zero(&self) -> bool {
        self.int.is_empty() && self.frac.bytes().all(|b| b == b'0')
    }

    /// Rounds half away from zero to `scale` fraction digits (padding with zeros).
    pub(crate) fn round(&self, scale: usize) -> Self {
        let mut out = self.clone();
        if out.frac.len() <= scale {
            out.frac
                .extend(std::iter::repeat_n('0', scale - out.frac.len()));
            return out;
        }
        let up = out.frac.as_bytes()[scale] >= b'5';
        out.frac.truncate(scale);
        if up {
            let mut all = format!("{}{}", out.int, out.frac).into_bytes();
            let mut carry = true;
            for b in all.iter_mut().rev() {
                if *b == b'9' {
                    *b = b'0';
                } else {
                    *b += 1;
                    carry = false;
                    break;
                }
            }
            if carry {
                all.insert(0, b'1');
            }
            let all = String::from_utf8(all).expect("ASCII digits");
            let (int, frac) = all.split_at(all.len() - scale);
            out.int = strip_zeros(int);
            out.frac = frac.to_owned();
        }
        out
    }
}

fn strip_zeros(digits: &str) -> String {
    digits.trim_start_matches('0').to_owned()
}

/// Parses `[+-]digits[.digits][e[+-]digits]` with surrounding spaces. `Err(Truncated)` when a
/// number is followed by junk, `Err(Incorrect)` when there is no number at all.
pub(crate) fn parse_exact(text: &str) -> Result<ExactNumber, Problem> {
    let s = text.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n' || c == '\r');
    let b = s.as_bytes();
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let digits_from = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_len = digits_from(i);
    let int = &s[i..i + int_len];
    i += int_len;
    let mut frac = "";
    if b.get(i) == Some(&b'.') {
        let n = digits_from(i + 1);
        frac = &s[i + 1..i + 1 + n];
        i += 1 + n;
    }
    if int.is_empty() && frac.is_empty() {
        return Err(Problem::Incorrect);
    }
    let mut exponent: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        let exp_negative = match b.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let n = digits_from(j);
        if n > 0 {
            let magnitude: i64 = s[j..j + n].parse().map_err(|_| Problem::OutOfRange)?;
            if magnitude > 400 {
                return Err(Problem::OutOfRange);
            }
            exponent = if exp_negative { -magnitude } else { magnitude };
            i = j + n;
        }
    }
    if i != b.len() {
        return Err(Problem::Truncated);
    }
    // Apply the exponent by moving the point.
    let mut all = format!("{int}{frac}");
    let mut point = int.len() as i64 + exponent;
    if point < 0 {
        all.insert_str(0, &"0".repeat((-point) as usize));
        point = 0;
    }
    let point = point as usize;
    if point > all.len() {
        all.extend(std::iter::repeat_n('0', point - all.len()));
    }
    let (int, frac) = all.split_at(point);
    Ok(ExactNumber {
        negative,
        int: strip_zeros(int),
        frac: frac.trim_end_matches('0').to_owned(),
    })
}

/// A value as an exact number: integers exactly, reals in their shortest round-trip form, text
/// and blobs parsed strictly.
pub(crate) fn exact_value(value: ValueRef<'_>) -> Result<ExactNumber, Problem> {
    match value {
        ValueRef::Null => Err(Problem::Incorrect),
        ValueRef::Integer(i) => Ok(ExactNumber::from_i64(i)),
        ValueRef::Real(r) if !r.is_finite() => Err(Problem::OutOfRange),
        // Rust prints finite floats without an exponent, in the shortest form that reads back.
        ValueRef::Real(r) => parse_exact(&r.to_string()),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            parse_exact(std::str::from_utf8(t).map_err(|_| Problem::Incorrect)?)
        }
    }
}

/// An integer column's value: `min..=max` (as i128, so BIGINT UNSIGNED fits), no fraction.
pub(crate) fn int_value(value: ValueRef<'_>, min: i64, max: u64) -> Result<i128, Problem> {
    let number = match value {
        ValueRef::Integer(i) => ExactNumber::from_i64(i),
        ValueRef::Real(r) if r.is_finite() && r.abs() >= 9.223_372_036_854_776e18 => {
            // SQLite turned an integer too big for 64-bit signed into an inexact REAL.
            return Err(Problem::OutOfRange);
        }
        other => exact_value(other)?,
    };
    if number.frac.bytes().any(|b| b != b'0') {
        return Err(Problem::Truncated);
    }
    if number.int.len() > 20 {
        return Err(Problem::OutOfRange);
    }
    let magnitude: i128 = if number.int.is_empty() {
        0
    } else {
        number.int.parse().map_err(|_| Problem::OutOfRange)?
    };
    let v = if number.negative {
        -magnitude
    } else {
        magnitude
    };
    if v < i128::from(min) || v > i128::from(max) {
        return Err(Problem::OutOfRange);
    }
    Ok(v)
}

/// A YEAR column's value, widened as MySQL widens numbers: 1–69 → 2001–2069, 70–99 →
/// 1970–1999; 0 and 1901–2155 as they are.
pub(crate) fn year_value(value: ValueRef<'_>) -> Result<u64, Problem> {
    let v = int_value(value, i64::MIN, u64::MAX)?;
    match v {
        0 => Ok(0),
        1..=69 => Ok(2000 + v as u64),
        70..=99 => Ok(1900 + v as u64),
        1901..=2155 => Ok(v as u64),
        _ => Err(Problem::OutOfRange),
    }
}

/// A BIT(n) column's value: a non-negative integer below 2^n, or text as its big-endian bytes.
pub(crate) fn bit_value(value: ValueRef<'_>, bits: u32) -> Result<u64, Problem> {
    let v = match value {
        ValueRef::Integer(i) => u64::try_from(i).map_err(|_| Problem::TooLong)?,
        ValueRef::Real(_) => return Err(Problem::TooLong),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            if t.len() > 8 {
                return Err(Problem::TooLong);
            }
            t.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
        }
        ValueRef::Null => 0,
    };
    if bits < 64 && v >> bits != 0 {
        return Err(Problem::TooLong);
    }
    Ok(v)
}

/// A FLOAT or DOUBLE column's value.
pub(crate) fn float_value(value: ValueRef<'_>, single: bool) -> Result<f64, Problem> {
    let v = match value {
        ValueRef::Integer(i) => i as f64,
        ValueRef::Real(r) => r,
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let text = std::str::from_utf8(t).map_err(|_| Problem::Incorrect)?;
            parse_exact(text)?;
            text.trim().parse::<f64>().map_err(|_| Problem::Incorrect)?
        }
        ValueRef::Null => 0.0,
    };
    if !v.is_finite() || single && v.abs() > f64::from(f32::MAX) {
        return Err(Problem::OutOfRange);
    }
    Ok(v)
}

/// A DECIMAL(p, s) column's value, rounded to `s` digits; more than `p - s` integer digits is
/// out of range.
pub(crate) fn decimal_value(
    value: ValueRef<'_>,
    precision: u32,
    scale: u8,
) -> Result<ExactNumber, Problem> {
    let mut number = exact_value(value)?.round(usize::from(scale));
    if number.int.len() as u64 > u64::from(precision.saturating_sub(u32::from(scale))) {
        return Err(Problem::OutOfRange);
    }
    if number.is_zero() {
        number.negative = false;
    }
    Ok(number)
}

/// Date parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Parts {
    pub(crate) year: u32,
    pub(crate) month: u32,
    pub(crate) day: u32,
    pub(crate) hour: u32,
    pub(crate) minute: u32,
    pub(crate) second: u32,
    pub(crate) micros: u32,
}

/// A run of `min..=max` ASCII digits.
fn digits(s: &str, min: usize, max: usize) -> Option<u32> {
    (s.len() >= min && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Fraction digits as microseconds, truncated (MariaDB's rule; MySQL rounds).
fn micros_of(fraction: &str) -> Option<u32> {
    if fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let six: String = fraction
        .chars()
        .chain(std::iter::repeat('0'))
        .take(6)
        .collect();
    six.parse().ok()
}

/// `HH:MM[:SS[.fraction]]` of a datetime.
fn clock(s: &str) -> Option<(u32, u32, u32, u32)> {
    let (hms, fraction) = match s.split_once('.') {
        Some((hms, f)) => (hms, Some(f)),
        None => (s, None),
    };
    let mut parts = hms.split(':');
    let hour = digits(parts.next()?, 1, 2)?;
    let minute = digits(parts.next()?, 1, 2)?;
    let second = match parts.next() {
        Some(p) => digits(p, 1, 2)?,
        None if fraction.is_none() => 0,
        None => return None,
    };
    if parts.next().is_some() || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let micros = match fraction {
        Some(f) => micros_of(f)?,
        None => 0,
    };
    Some((hour, minute, second, micros))
}

/// A date or datetime, in text (`YYYY-MM-DD[( |T)HH:MM[:SS[.f]]]`) or in MySQL's numeric forms
/// `YYYYMMDD` and `YYYYMMDDhhmmss`, with any day up to 31 of any month up to 12, zeros included
/// (`0000-00-00`, `2020-00-10`, `2020-02-30`): what a column may hold under MariaDB's default
/// `sql_mode`, which has neither `NO_ZERO_DATE` nor `NO_ZERO_IN_DATE`, and what `STR_TO_DATE`
/// returns without a calendar check.
pub(crate) fn stored_date_parts(value: ValueRef<'_>) -> Option<Parts> {
    let mut p = Parts::default();
    match value {
        ValueRef::Integer(i) => {
            let i = u64::try_from(i).ok()?;
            let (date, time) = if i > 99_991_231 {
                (i / 1_000_000, i % 1_000_000)
            } else {
                (i, 0)
            };
            p.year = (date / 10_000) as u32;
            p.month = (date / 100 % 100) as u32;
            p.day = (date % 100) as u32;
            p.hour = (time / 10_000) as u32;
            p.minute = (time / 100 % 100) as u32;
            p.second = (time % 100) as u32;
            if (p.year < 1000 && date != 0) || p.hour > 23 || p.minute > 59 || p.second > 59 {
                return None;
            }
        }
        ValueRef::Text(t) => {
            let s = std::str::from_utf8(t).ok()?.trim();
            let (date, time) = match s.find([' ', 'T']) {
                Some(at) => (&s[..at], Some(s[at + 1..].trim_start())),
                None => (s, None),
            };
            let mut parts = date.split('-');
            p.year = digits(parts.next()?, 4, 4)?;
            p.month = digits(parts.next()?, 1, 2)?;
            p.day = digits(parts.next()?, 1, 2)?;
            if parts.next().is_some() {
                return None;
            }
            if let Some(time) = time {
                (p.hour, p.minute, p.second, p.micros) = clock(time)?;
            }
        }
        _ => return None,
    }
    (p.month <= 12 && p.day <= 31).then_some(p)
}

/// A DATE, DATETIME or TIMESTAMP value read from a column: [`stored_date_parts`].
pub(crate) fn stored_date_value(value: ValueRef<'_>) -> Result<Parts, Problem> {
    stored_date_parts(value).ok_or(Problem::BadTemporal)
}

/// A TIME: `[-]H…H:MM[:SS[.f]]` up to 838:59:59.999999, or MySQL's numeric `[-]HHMMSS`.
/// Returns (negative, hours, minutes, seconds, micros).
pub(crate) fn time_value(value: ValueRef<'_>) -> Result<(bool, u32, u32, u32, u32), Problem> {
    let parsed = match value {
        ValueRef::Integer(i) => {
            let m = i.unsigned_abs();
            let (h, mi, s) = (m / 10_000, m / 100 % 100, m % 100);
            (mi <= 59 && s <= 59 && h <= 838).then_some((i < 0, h as u32, mi as u32, s as u32, 0))
        }
        ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(|s| {
            let s = s.trim();
            let (negative, s) = match s.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, s),
            };
            let (hms, fraction) = match s.split_once('.') {
                Some((hms, f)) => (hms, Some(f)),
                None => (s, None),
            };
            let mut parts = hms.split(':');
            let hours = digits(parts.next()?, 1, 3)?;
            // MySQL takes one or two digits for minutes and seconds (`8:0:0` is 08:00:00).
            let minutes = digits(parts.next()?, 1, 2)?;
            let seconds = match parts.next() {
                Some(p) => digits(p, 1, 2)?,
                None if fraction.is_none() => 0,
                None => return None,
            };
            if parts.next().is_some() || hours > 838 || minutes > 59 || seconds > 59 {
                return None;
            }
            let micros = match fraction {
                Some(f) => micros_of(f)?,
                None => 0,
            };
            Some((negative, hours, minutes, seconds, micros))
        }),
        _ => None,
    };
    parsed.ok_or(Problem::BadTemporal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Result<(bool, String, String), Problem> {
        parse_exact(s).map(|e| (e.negative, e.int, e.frac))
    }

    #[test]
    fn exact_numbers() {
        assert_eq!(n(" 12 "), Ok((false, "12".into(), "".into())));
        assert_eq!(n("-0.50"), Ok((true, "".into(), "5".into())));
        assert_eq!(n("1.5e2"), Ok((false, "150".into(), "".into())));
        assert_eq!(n("15e-3"), Ok((false, "".into(), "015".into())));
        assert_eq!(n("12abc"), Err(Problem::Truncated));
        assert_eq!(n("abc"), Err(Problem::Incorrect));
        assert_eq!(n(""), Err(Problem::Incorrect));
        let r = parse_exact("9.995").unwrap().round(2);
        assert_eq!((r.int.as_str(), r.frac.as_str()), ("10", "00"));
        let r = parse_exact("0.004").unwrap().round(2);
        assert_eq!((r.int.as_str(), r.frac.as_str()), ("", "00"));
    }

    #[test]
    fn integers() {
        let t = |s: &'static str| ValueRef::Text(s.as_bytes());
        assert_eq!(int_value(ValueRef::Integer(127), -128, 127), Ok(127));
        assert_eq!(
            int_value(ValueRef::Integer(128), -128, 127),
            Err(Problem::OutOfRange)
        );
        assert_eq!(
            int_value(ValueRef::Integer(-1), 0, 255),
            Err(Problem::OutOfRange)
        );
        assert_eq!(
            int_value(ValueRef::Real(1.5), -128, 127),
            Err(Problem::Truncated)
        );
        assert_eq!(int_value(t("abc"), -128, 127), Err(Problem::Incorrect));
        assert_eq!(int_value(t("12abc"), -128, 127), Err(Problem::Truncated));
        assert_eq!(
            int_value(ValueRef::Real(1.8e19), 0, u64::MAX),
            Err(Problem::OutOfRange)
        );
        assert_eq!(year_value(ValueRef::Integer(5)), Ok(2005));
        assert_eq!(
            year_value(ValueRef::Integer(1900)),
            Err(Problem::OutOfRange)
        );
        assert_eq!(bit_value(ValueRef::Integer(8), 3), Err(Problem::TooLong));
        assert_eq!(bit_value(ValueRef::Integer(7), 3), Ok(7));
    }

    #[test]
    fn dates_and_times_are_read_as_a_column_may_hold_them() {
        let t = |s: &'static str| ValueRef::Text(s.as_bytes());
        assert_eq!(stored_date_value(t("2024-02-29")).map(|p| p.day), Ok(29));
        assert_eq!(stored_date_value(t("garbage")), Err(Problem::BadTemporal));
        assert_eq!(
            stored_date_value(t("2020-13-01")),
            Err(Problem::BadTemporal)
        );
        assert_eq!(stored_date_value(t("0000-00-00")).map(|p| p.year), Ok(0));
        assert_eq!(stored_date_value(t("2020-00-10")).map(|p| p.day), Ok(10));
        assert_eq!(stored_date_value(t("2020-02-30")).map(|p| p.day), Ok(30));
        assert_eq!(
            stored_date_value(t("2020-02-32")),
            Err(Problem::BadTemporal)
        );
        assert_eq!(
            stored_date_value(ValueRef::Integer(20240229)).map(|p| p.day),
            Ok(29)
        );
        assert_eq!(
            stored_date_value(t("2024-01-01 23:59:59.999999")).map(|p| p.micros),
            Ok(999_999)
        );
        assert_eq!(time_value(t("-838:59:59")), Ok((true, 838, 59, 59, 0)));
        assert_eq!(time_value(t("839:00:00")), Err(Problem::BadTemporal));
        assert_eq!(
            time_value(ValueRef::Integer(123456)),
            Ok((false, 12, 34, 56, 0))
        );
    }
}
