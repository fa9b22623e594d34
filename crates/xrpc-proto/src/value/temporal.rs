//! MySQL TIME and DATE/DATETIME values: [`XTime`] and [`XDateTime`], their range checks, MySQL's
//! packed `i64` forms (the chunk encoding) and their row encodings (varint parts with trailing
//! zeros left out). The choices where the sources leave room are listed in the
//! [module docs of `value`](super).

use std::fmt;

use super::{ColumnType, ValueError, in_range, put_varint, varint};

/// A MySQL TIME: a sign and a magnitude of at most 838:59:59.999999.
///
/// Negative zero is stored as positive zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct XTime {
    negative: bool,
    hours: u16,
    minutes: u8,
    seconds: u8,
    micros: u32,
}

impl XTime {
    /// Largest hour count, MySQL's TIME range.
    pub const MAX_HOURS: u32 = 838;

    /// Creates a time, checking that hours ≤ 838, minutes and seconds ≤ 59 and micros ≤ 999999.
    pub fn new(
        negative: bool,
        hours: u32,
        minutes: u32,
        seconds: u32,
        micros: u32,
    ) -> Result<Self, ValueError> {
        Self::checked(
            negative,
            u64::from(hours),
            u64::from(minutes),
            u64::from(seconds),
            u64::from(micros),
        )
    }

    /// Unpacks MySQL's packed time (`TIME_from_longlong_time_packed`), rejecting the bits MySQL
    /// would mask away and out-of-range parts.
    pub fn from_packed(packed: i64) -> Result<Self, ValueError> {
        let magnitude = packed.unsigned_abs();
        let hms = magnitude >> 24;
        Self::checked(
            packed < 0,
            hms >> 12,
            (hms >> 6) & 0x3f,
            hms & 0x3f,
            magnitude & 0xff_ffff,
        )
    }

    /// Returns whether the time is below zero.
    pub const fn is_negative(self) -> bool {
        self.negative
    }

    /// Returns the hours, 0 to 838.
    pub const fn hours(self) -> u32 {
        self.hours as u32
    }

    /// Returns the minutes, 0 to 59.
    pub const fn minutes(self) -> u32 {
        self.minutes as u32
    }

    /// Returns the seconds, 0 to 59.
    pub const fn seconds(self) -> u32 {
        self.seconds as u32
    }

    /// Returns the microseconds, 0 to 999999.
    pub const fn micros(self) -> u32 {
        self.micros
    }

    /// Packs the time as MySQL's `TIME_to_longlong_time_packed` does.
    pub const fn to_packed(self) -> i64 {
        let hms = ((self.hours as i64) << 12) | ((self.minutes as i64) << 6) | self.seconds as i64;
        // At most 838 << 36 plus micros, far from overflowing.
        let magnitude = (hms << 24) | self.micros as i64;
        if self.negative { -magnitude } else { magnitude }
    }

    fn checked(
        negative: bool,
        hours: u64,
        minutes: u64,
        seconds: u64,
        micros: u64,
    ) -> Result<Self, ValueError> {
        const TY: ColumnType = ColumnType::Time;
        let hours = in_range(TY, "hours", hours, u64::from(Self::MAX_HOURS))?;
        let minutes = in_range(TY, "minutes", minutes, 59)?;
        let seconds = in_range(TY, "seconds", seconds, 59)?;
        let micros = in_range(TY, "microseconds", micros, 999_999)?;
        let zero = hours == 0 && minutes == 0 && seconds == 0 && micros == 0;
        Ok(Self {
            negative: negative && !zero,
            hours: hours as u16,
            minutes: minutes as u8,
            seconds: seconds as u8,
            micros: micros as u32,
        })
    }
}

impl fmt::Display for XTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.negative { "-" } else { "" };
        write!(
            f,
            "{sign}{:02}:{:02}:{:02}",
            self.hours, self.minutes, self.seconds
        )?;
        if self.micros != 0 {
            write!(f, ".{:06}", self.micros)?;
        }
        Ok(())
    }
}

/// A MySQL DATE or DATETIME (TIMESTAMP travels as DATETIME too).
///
/// The parts are range-checked (year ≤ 9999, month ≤ 12, day ≤ 31, hour ≤ 23, minute and second
/// ≤ 59, micros ≤ 999999; zero month and day are MySQL's zero dates), not checked against the
/// calendar. [`has_time`](Self::has_time) tells a DATETIME from a DATE; a DATE's time is zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct XDateTime {
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    micros: u32,
    has_time: bool,
}

impl XDateTime {
    /// Largest year, MySQL's DATE range.
    pub const MAX_YEAR: u32 = 9999;

    /// Creates a DATE.
    pub fn date(year: u32, month: u32, day: u32) -> Result<Self, ValueError> {
        Self::checked([year, month, day].map(u64::from), None)
    }

    /// Creates a DATETIME.
    pub fn new(
        year: u32,
        month: u32,
        day: u32,
        hour: u32,
        minute: u32,
        second: u32,
        micros: u32,
    ) -> Result<Self, ValueError> {
        Self::checked(
            [year, month, day].map(u64::from),
            Some([hour, minute, second, micros].map(u64::from)),
        )
    }

    /// Unpacks MySQL's packed datetime (`TIME_from_longlong_datetime_packed`). The packed form
    /// is the same for a DATE and a midnight DATETIME, so `has_time` is set when the time is not
    /// zero.
    pub fn from_packed(packed: i64) -> Result<Self, ValueError> {
        let Ok(packed) = u64::try_from(packed) else {
            return Err(ValueError::NegativePacked {
                ty: ColumnType::DateTime,
                packed,
            });
        };
        let micros = packed & 0xff_ffff;
        let ymdhms = packed >> 24;
        let ymd = ymdhms >> 17;
        let hms = ymdhms & 0x1_ffff;
        let ym = ymd >> 5;
        let date = [ym / 13, ym % 13, ymd & 0x1f];
        let time = [hms >> 12, (hms >> 6) & 0x3f, hms & 0x3f, micros];
        Self::checked(date, (hms != 0 || micros != 0).then_some(time))
    }

    /// Returns the year, 0 to 9999.
    pub const fn year(self) -> u32 {
        self.year as u32
    }

    /// Returns the month, 0 to 12.
    pub const fn month(self) -> u32 {
        self.month as u32
    }

    /// Returns the day of the month, 0 to 31.
    pub const fn day(self) -> u32 {
        self.day as u32
    }

    /// Returns the hour, 0 to 23.
    pub const fn hour(self) -> u32 {
        self.hour as u32
    }

    /// Returns the minute, 0 to 59.
    pub const fn minute(self) -> u32 {
        self.minute as u32
    }

    /// Returns the second, 0 to 59.
    pub const fn second(self) -> u32 {
        self.second as u32
    }

    /// Returns the microseconds, 0 to 999999.
    pub const fn micros(self) -> u32 {
        self.micros
    }

    /// Returns whether this is a DATETIME rather than a DATE.
    pub const fn has_time(self) -> bool {
        self.has_time
    }

    /// Packs the value as MySQL's `TIME_to_longlong_datetime_packed` does (for a DATE, as
    /// `TIME_to_longlong_date_packed`, which gives the same number). Always non-negative.
    pub const fn to_packed(self) -> i64 {
        let ymd = ((self.year as i64 * 13 + self.month as i64) << 5) | self.day as i64;
        let hms = ((self.hour as i64) << 12) | ((self.minute as i64) << 6) | self.second as i64;
        // 9999-12-31 23:59:59.999999 packs below 2^63.
        (((ymd << 17) | hms) << 24) | self.micros as i64
    }

    fn checked(date: [u64; 3], time: Option<[u64; 4]>) -> Result<Self, ValueError> {
        const TY: ColumnType = ColumnType::DateTime;
        let [year, month, day] = date;
        let [hour, minute, second, micros] = time.unwrap_or_default();
        Ok(Self {
            year: in_range(TY, "year", year, u64::from(Self::MAX_YEAR))? as u16,
            month: in_range(TY, "month", month, 12)? as u8,
            day: in_range(TY, "day", day, 31)? as u8,
            hour: in_range(TY, "hour", hour, 23)? as u8,
            minute: in_range(TY, "minute", minute, 59)? as u8,
            second: in_range(TY, "second", second, 59)? as u8,
            micros: in_range(TY, "microseconds", micros, 999_999)? as u32,
            has_time: time.is_some(),
        })
    }
}

impl fmt::Display for XDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)?;
        if self.has_time {
            write!(f, " {:02}:{:02}:{:02}", self.hour, self.minute, self.second)?;
            if self.micros != 0 {
                write!(f, ".{:06}", self.micros)?;
            }
        }
        Ok(())
    }
}

pub(super) fn encode_row_time(time: XTime, out: &mut Vec<u8>) {
    out.push(u8::from(time.negative));
    put_varints_up_to_last_nonzero(
        &[
            u64::from(time.hours),
            u64::from(time.minutes),
            u64::from(time.seconds),
            u64::from(time.micros),
        ],
        out,
    );
}

/// Writes `parts` as varints, leaving out the trailing zero ones: the row encodings of TIME and
/// of a DATETIME's time omit trailing zero parts.
fn put_varints_up_to_last_nonzero(parts: &[u64], out: &mut Vec<u8>) {
    let len = parts
        .iter()
        .rposition(|&part| part != 0)
        .map_or(0, |i| i + 1);
    for &part in &parts[..len] {
        put_varint(part, out);
    }
}

pub(super) fn decode_row_time(field: &[u8]) -> Result<XTime, ValueError> {
    const TY: ColumnType = ColumnType::Time;
    let Some((&sign, mut rest)) = field.split_first() else {
        return Err(ValueError::Truncated { ty: TY });
    };
    let negative = match sign {
        0 => false,
        1 => true,
        other => return Err(ValueError::BadTimeSign(other)),
    };
    let mut parts = [0u64; 4];
    optional_varints(TY, &mut rest, &mut parts)?;
    let [hours, minutes, seconds, micros] = parts;
    XTime::checked(negative, hours, minutes, seconds, micros)
}

pub(super) fn encode_row_datetime(dt: XDateTime, out: &mut Vec<u8>) {
    put_varint(u64::from(dt.year), out);
    put_varint(u64::from(dt.month), out);
    put_varint(u64::from(dt.day), out);
    if !dt.has_time {
        return;
    }
    // The hour is written even when the whole time is zero, so that a DATETIME stays one.
    put_varint(u64::from(dt.hour), out);
    put_varints_up_to_last_nonzero(
        &[
            u64::from(dt.minute),
            u64::from(dt.second),
            u64::from(dt.micros),
        ],
        out,
    );
}

pub(super) fn decode_row_datetime(field: &[u8]) -> Result<XDateTime, ValueError> {
    const TY: ColumnType = ColumnType::DateTime;
    let mut rest = field;
    let mut date = [0u64; 3];
    for part in &mut date {
        *part = varint(TY, &mut rest)?;
    }
    let mut time = [0u64; 4];
    let present = optional_varints(TY, &mut rest, &mut time)?;
    XDateTime::checked(date, (present > 0).then_some(time))
}

/// Reads up to `parts.len()` varints until `rest` runs out, returning how many were present and
/// rejecting bytes beyond them.
fn optional_varints(
    ty: ColumnType,
    rest: &mut &[u8],
    parts: &mut [u64],
) -> Result<usize, ValueError> {
    let mut present = 0;
    for part in parts.iter_mut() {
        if rest.is_empty() {
            break;
        }
        *part = varint(ty, rest)?;
        present += 1;
    }
    if !rest.is_empty() {
        return Err(ValueError::TrailingBytes {
            ty,
            count: rest.len(),
        });
    }
    Ok(present)
}
