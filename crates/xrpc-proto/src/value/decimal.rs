//! The exact decimal [`XDecimal`]: its parsing and printing, and its packed-BCD row form (scale
//! byte, two digits a byte, a sign nibble), which the chunk form wraps in a length prefix.

use std::fmt;
use std::str::FromStr;

use super::ValueError;

/// An exact decimal as the X Protocol carries it: a sign, the digits of the unscaled value and
/// a scale, so that the value is `±digits × 10^-scale`.
///
/// Every digit is kept as written, leading zeros included, so the wire form round-trips exactly.
/// [`Display`](fmt::Display) prints the value (`-0.05`); [`XDecimal::parse`] keeps the digits it
/// is given (`"0.05"` has digits `005` and scale 2).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct XDecimal {
    negative: bool,
    scale: u8,
    // ASCII digits, at least one.
    digits: Box<str>,
}

impl XDecimal {
    /// Creates a decimal from its sign, unscaled digits (ASCII `0`–`9`, at least one) and scale.
    pub fn new(negative: bool, digits: &str, scale: u8) -> Result<Self, ValueError> {
        if digits.is_empty() {
            return Err(ValueError::BadDecimal("it has no digits"));
        }
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ValueError::BadDecimal("a digit is not 0-9"));
        }
        Ok(Self {
            negative,
            scale,
            digits: digits.into(),
        })
    }

    /// Parses `[+|-]digits[.digits]` (either side of the point may be empty, not both); the
    /// scale is the number of digits after the point, at most 255.
    pub fn parse(s: &str) -> Result<Self, ValueError> {
        let (negative, unsigned) = match (s.strip_prefix('-'), s.strip_prefix('+')) {
            (Some(rest), _) => (true, rest),
            (None, Some(rest)) => (false, rest),
            (None, None) => (false, s),
        };
        let (int, frac) = unsigned.split_once('.').unwrap_or((unsigned, ""));
        let scale = u8::try_from(frac.len())
            .map_err(|_| ValueError::BadDecimal("more than 255 digits follow the point"))?;
        let mut digits = String::with_capacity(int.len() + frac.len());
        digits.push_str(int);
        digits.push_str(frac);
        Self::new(negative, &digits, scale)
    }

    /// Returns whether the sign is negative (negative zero is kept as sent).
    pub const fn is_negative(&self) -> bool {
        self.negative
    }

    /// Returns the digits of the unscaled value, as ASCII.
    pub fn digits(&self) -> &str {
        &self.digits
    }

    /// Returns the number of digits after the decimal point.
    pub const fn scale(&self) -> u8 {
        self.scale
    }

    /// Returns the length of the row form: the scale byte, the digits two a byte, and the sign.
    pub(super) fn encoded_len(&self) -> usize {
        2 + self.digits.len() / 2
    }

    pub(super) fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.scale);
        let sign = if self.negative { 0xd } else { 0xc };
        let mut pairs = self.digits.as_bytes().chunks_exact(2);
        for pair in &mut pairs {
            out.push(((pair[0] - b'0') << 4) | (pair[1] - b'0'));
        }
        match pairs.remainder() {
            [last] => out.push(((last - b'0') << 4) | sign),
            _ => out.push(sign << 4),
        }
    }

    pub(super) fn decode(field: &[u8]) -> Result<Self, ValueError> {
        let Some((&scale, bcd)) = field.split_first() else {
            return Err(ValueError::BadDecimal("the scale byte is missing"));
        };
        let mut digits = String::with_capacity(bcd.len() * 2);
        let mut sign = None;
        for (i, &byte) in bcd.iter().enumerate() {
            let (high, low) = (byte >> 4, byte & 0x0f);
            if high > 9 {
                if low != 0 {
                    return Err(ValueError::BadDecimal("the nibble after the sign is not 0"));
                }
                sign = Some((high, i));
                break;
            }
            digits.push(char::from(b'0' + high));
            if low > 9 {
                sign = Some((low, i));
                break;
            }
            digits.push(char::from(b'0' + low));
        }
        let Some((sign, at)) = sign else {
            return Err(ValueError::BadDecimal("the sign nibble is missing"));
        };
        if at + 1 != bcd.len() {
            return Err(ValueError::BadDecimal("bytes follow the sign nibble"));
        }
        if digits.is_empty() {
            return Err(ValueError::BadDecimal("it has no digits"));
        }
        Ok(Self {
            negative: matches!(sign, 0xb | 0xd),
            scale,
            digits: digits.into(),
        })
    }
}

impl FromStr for XDecimal {
    type Err = ValueError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for XDecimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negative {
            f.write_str("-")?;
        }
        let digits = &*self.digits;
        let scale = usize::from(self.scale);
        if scale == 0 {
            f.write_str(digits)
        } else if let Some(int_len) = digits.len().checked_sub(scale).filter(|&n| n > 0) {
            let (int, frac) = digits.split_at(int_len);
            write!(f, "{int}.{frac}")
        } else {
            write!(f, "0.{:0>scale$}", digits)
        }
    }
}
