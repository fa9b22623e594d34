//! MySQL's reading and writing of dates and times, its INTERVAL arithmetic and DATE_FORMAT,
//! over chrono's calendar.

use chrono::{Datelike, Duration, Months, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use rusqlite::types::ValueRef;

/// A date or datetime read from a value, and whether it had a time part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Moment {
    pub(crate) at: NaiveDateTime,
    pub(crate) has_time: bool,
    /// Fraction digits written (0 when none).
    pub(crate) fsp: u8,
}

/// Reads a value as MySQL reads a date or datetime: `YYYY-MM-DD[ HH:MM:SS[.ffffff]]` with any
/// punctuation as delimiter, `T` between date and time, two-digit years (70–99 are 19xx),
/// and the numbers `YYYYMMDD[HHMMSS]`. `None` for NULL and for what is not a valid date (MySQL
/// gives NULL with a warning).
pub(crate) fn read(value: ValueRef<'_>) -> Option<Moment> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => read_integer(i),
        ValueRef::Real(r) if (0.0..1e15).contains(&r) => read_integer(r.trunc() as i64),
        ValueRef::Real(_) => None,
        ValueRef::Text(t) | ValueRef::Blob(t) => read_text(std::str::from_utf8(t).ok()?.trim()),
    }
}

/// A date or datetime as MySQL's default SQL mode holds it: a valid one, or one with zero parts
/// (`0000-00-00`, `2020-00-10`, `2020-01-00`), which chrono's calendar has no value for. Ordered
/// as MySQL compares them (field by field, so a zero part sorts first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DateParts {
    pub(crate) year: u32,
    pub(crate) month: u32,
    pub(crate) day: u32,
    pub(crate) hour: u32,
    pub(crate) minute: u32,
    pub(crate) second: u32,
    pub(crate) micros: u32,
    pub(crate) has_time: bool,
    /// Fraction digits written (0 when none).
    pub(crate) fsp: u8,
}

impl DateParts {
    /// The zero date, `0000-00-00 00:00:00`.
    pub(crate) const ZERO: Self = Self {
        year: 0,
        month: 0,
        day: 0,
        hour: 0,
        minute: 0,
        second: 0,
        micros: 0,
        has_time: true,
        fsp: 0,
    };

    /// Whether the SQL mode's zero-date flags (`ZERO_DATE`, `ZERO_IN_DATE`) refuse this date.
    pub(crate) fn refused_by(&self, flags: i64) -> bool {
        let zero = (self.year, self.month, self.day) == (0, 0, 0);
        let zero_in = !zero && (self.month == 0 || self.day == 0);
        (zero && flags & i64::from(ZERO_DATE) != 0)
            || (zero_in && flags & i64::from(ZERO_IN_DATE) != 0)
    }

    fn of(m: Moment) -> Self {
        Self {
            year: m.at.year().max(0) as u32,
            month: m.at.month(),
            day: m.at.day(),
            hour: m.at.hour(),
            minute: m.at.minute(),
            second: m.at.second(),
            micros: m.at.nanosecond() / 1000,
            has_time: m.has_time,
            fsp: m.fsp,
        }
    }

    /// The key MySQL compares by.
    pub(crate) fn key(&self) -> (u32, u32, u32, u32, u32, u32, u32) {
        (
            self.year,
            self.month,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.micros,
        )
    }

    /// The datetime, when the date has no zero part.
    pub(crate) fn valid(&self) -> Option<NaiveDateTime> {
        NaiveDate::from_ymd_opt(self.year as i32, self.month, self.day)?.and_hms_micro_opt(
            self.hour,
            self.minute,
            self.second,
            self.micros,
        )
    }

    /// `YYYY-MM-DD`.
    pub(crate) fn date_text(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// `YYYY-MM-DD HH:MM:SS[.ffffff]` with `fsp` fraction digits (truncated).
    pub(crate) fn datetime_text(&self, fsp: u8) -> String {
        let mut out = format!(
            "{} {:02}:{:02}:{:02}",
            self.date_text(),
            self.hour,
            self.minute,
            self.second
        );
        if fsp > 0 {
            let micros = format!("{:06}", self.micros);
            out.push('.');
            out.push_str(&micros[..usize::from(fsp.min(6))]);
        }
        out
    }
}

/// [`read`], and also a date with zero parts as MySQL's default SQL mode reads it: the same
/// forms with a zero year, month or day (the month at most 12, the day at most 31), and 0.
pub(crate) fn read_parts(value: ValueRef<'_>) -> Option<DateParts> {
    if let Some(m) = read(value) {
        return Some(DateParts::of(m));
    }
    let text = match value {
        ValueRef::Integer(0) => "0000-00-00".to_string(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Text(t) | ValueRef::Blob(t) => std::str::from_utf8(t).ok()?.trim().to_string(),
        _ => return None,
    };
    // Digits alone: YYYYMMDD[HHMMSS] or YYMMDD[HHMMSS], punctuated.
    let text = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let (date, time) = match text.len() {
            6 | 8 => (text.as_str(), ""),
            12 | 14 => text.split_at(text.len() - 6),
            _ => return None,
        };
        let (y, rest) = date.split_at(date.len() - 4);
        let mut out = format!("{y}-{}-{}", &rest[..2], &rest[2..]);
        if !time.is_empty() {
            out.push_str(&format!(" {}:{}:{}", &time[..2], &time[2..4], &time[4..]));
        }
        out
    } else {
        text
    };
    let (date, time) = match text.find([' ', 'T']) {
        Some(at) => (&text[..at], &text[at..]),
        None => (text.as_str(), ""),
    };
    let parts: Vec<&str> = date.split(|c: char| c.is_ascii_punctuation()).collect();
    let [y, m, d] = parts.as_slice() else {
        return None;
    };
    let number = |p: &str| {
        (!p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<u32>().ok())
            .flatten()
    };
    let (year, month, day) = (number(y)?, number(m)?, number(d)?);
    if (month != 0 && day != 0 && year != 0) || month > 12 || day > 31 {
        return None;
    }
    // The same text with each zero part made valid reads the rest (and checks it).
    let stand_in = format!(
        "{}-{:02}-{:02}{time}",
        if year == 0 { "2000" } else { y },
        month.max(1),
        day.max(1)
    );
    let read = DateParts::of(read(ValueRef::Text(stand_in.as_bytes()))?);
    Some(DateParts {
        // A zero year of four digits, or the all-zero date, is year 0 (not 2000).
        year: if year == 0 && ((month, day) == (0, 0) || y.len() > 2) {
            0
        } else {
            read.year
        },
        month,
        day,
        ..read
    })
}

/// A number read as a date or datetime as MySQL reads one (`number_to_datetime`): `YYMMDD`,
/// `YYYYMMDD`, `YYMMDDHHMMSS` or `YYYYMMDDHHMMSS`, a two-digit year below 70 in the 2000s, and
/// fewer digits as if led by zeros (`123` is 2000-01-23).
fn read_integer(nr: i64) -> Option<Moment> {
    let full = match nr {
        ..101 => return None,
        101..=691_231 => (nr + 20_000_000) * 1_000_000,
        691_232..=700_100 => return None,
        700_101..=991_231 => (nr + 19_000_000) * 1_000_000,
        991_232..=10_000_100 => return None,
        10_000_101..=99_991_231 => nr * 1_000_000,
        99_991_232..=100_999_999 => return None,
        101_000_000..=691_231_235_959 => nr + 20_000_000_000_000,
        691_231_235_960..=700_100_999_999 => return None,
        700_101_000_000..=991_231_235_959 => nr + 19_000_000_000_000,
        991_231_235_960..=10_000_100_999_999 => return None,
        10_000_101_000_000..=99_991_231_235_959 => nr,
        _ => return None,
    };
    let has_time = nr > 99_991_231;
    let d = NaiveDate::from_ymd_opt(
        i32::try_from(full / 10_000_000_000).ok()?,
        u32::try_from(full / 100_000_000 % 100).ok()?,
        u32::try_from(full / 1_000_000 % 100).ok()?,
    )?;
    let t = NaiveTime::from_hms_opt(
        u32::try_from(full / 10_000 % 100).ok()?,
        u32::try_from(full / 100 % 100).ok()?,
        u32::try_from(full % 100).ok()?,
    )?;
    Some(Moment {
        at: d.and_time(t),
        has_time,
        fsp: 0,
    })
}

fn read_number(digits: &str) -> Option<Moment> {
    let (date, time) = match digits.len() {
        6 | 8 => (digits, ""),
        12 | 14 => digits.split_at(digits.len() - 6),
        _ => return None,
    };
    let (y, rest) = date.split_at(date.len() - 4);
    let year = full_year(y.parse().ok()?, y.len());
    let month = rest[..2].parse().ok()?;
    let day = rest[2..].parse().ok()?;
    let d = NaiveDate::from_ymd_opt(year, month, day)?;
    let t = if time.is_empty() {
        NaiveTime::MIN
    } else {
        NaiveTime::from_hms_opt(
            time[..2].parse().ok()?,
            time[2..4].parse().ok()?,
            time[4..].parse().ok()?,
        )?
    };
    Some(Moment {
        at: d.and_time(t),
        has_time: !time.is_empty(),
        fsp: 0,
    })
}

/// A store or cast function's strictness flag: the zero date (`0000-00-00`) is refused, as
/// NO_ZERO_DATE makes it in a strict write.
pub(crate) const ZERO_DATE: i32 = 2;
/// A date with a zero month or day is refused (NO_ZERO_IN_DATE).
pub(crate) const ZERO_IN_DATE: i32 = 4;
/// The value is a DECIMAL's text, read as the number it is (`20240229.000000`), not as a
/// string.
pub(crate) const NUMBER_TEXT: i32 = 8;

/// Whether a datetime lies in TIMESTAMP's range, 1970-01-01 00:00:01 to 2038-01-19 03:14:07,
/// read as UTC (the session's time zone is not the store's to know: near the ends of the range
/// a zone other than UTC would move them by its offset).
pub(crate) fn in_timestamp_range(at: NaiveDateTime) -> bool {
    let seconds = at.and_utc().timestamp();
    (1..=2_147_483_647).contains(&seconds)
}

/// A year as written: two digits are widened (below 70 to the 2000s), others kept as they are
/// (`0-1-1` is the year 0000), as MariaDB reads them.
fn full_year(y: i32, digits: usize) -> i32 {
    match digits {
        2 if y < 70 => 2000 + y,
        2 => 1900 + y,
        _ => y,
    }
}

fn read_text(s: &str) -> Option<Moment> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return read_number(s);
    }
    // A number with a fraction (a DECIMAL's text): the fraction is the time's microseconds.
    if let Some((digits, fraction)) = s.split_once('.')
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
    {
        let whole = read_number(digits)?;
        if !whole.has_time || fraction.is_empty() {
            return Some(whole);
        }
        let micros: u32 = format!("{:0<6}", &fraction[..fraction.len().min(6)])
            .parse()
            .ok()?;
        let fsp = u8::try_from(fraction.len().min(6)).unwrap_or(6);
        return Some(Moment {
            at: whole.at.with_nanosecond(micros * 1000)?,
            has_time: true,
            fsp,
        });
    }
    // Split into the date part and the time part at the first space or 'T'.
    let (date, time) = match s.find([' ', 'T']) {
        Some(at) => (&s[..at], s[at + 1..].trim_start()),
        None => (s, ""),
    };
    let parts: Vec<&str> = date.split(|c: char| c.is_ascii_punctuation()).collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let year = full_year(parts[0].parse().ok()?, parts[0].len());
    let d = NaiveDate::from_ymd_opt(year, parts[1].parse().ok()?, parts[2].parse().ok()?)?;
    if time.is_empty() {
        return Some(Moment {
            at: d.and_time(NaiveTime::MIN),
            has_time: false,
            fsp: 0,
        });
    }
    let (clock, frac) = match time.split_once('.') {
        Some((clock, frac)) => (clock, frac),
        None => (time, ""),
    };
    let hms: Vec<&str> = clock.split(|c: char| c.is_ascii_punctuation()).collect();
    if hms.len() > 3
        || hms
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let get = |i: usize| hms.get(i).map_or(Some(0), |p| p.parse::<u32>().ok());
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let micros: u32 = format!("{:0<6}", &frac[..frac.len().min(6)]).parse().ok()?;
    let t = NaiveTime::from_hms_micro_opt(get(0)?, get(1)?, get(2)?, micros)?;
    Some(Moment {
        at: d.and_time(t),
        has_time: true,
        fsp: frac.len().min(6) as u8,
    })
}

/// `YYYY-MM-DD`.
pub(crate) fn date_text(at: NaiveDateTime) -> String {
    format!("{:04}-{:02}-{:02}", at.year(), at.month(), at.day())
}

/// `YYYY-MM-DD HH:MM:SS[.ffffff]` with `fsp` fraction digits.
pub(crate) fn datetime_text(at: NaiveDateTime, fsp: u8) -> String {
    let mut out = format!(
        "{} {:02}:{:02}:{:02}",
        date_text(at),
        at.hour(),
        at.minute(),
        at.second()
    );
    if fsp > 0 {
        let micros = format!("{:06}", at.nanosecond() / 1000);
        out.push('.');
        out.push_str(&micros[..usize::from(fsp.min(6))]);
    }
    out
}

/// An INTERVAL unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

impl Unit {
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Some(match name.to_ascii_uppercase().as_str() {
            "MICROSECOND" => Self::Microsecond,
            "SECOND" => Self::Second,
            "MINUTE" => Self::Minute,
            "HOUR" => Self::Hour,
            "DAY" => Self::Day,
            "WEEK" => Self::Week,
            "MONTH" => Self::Month,
            "QUARTER" => Self::Quarter,
            "YEAR" => Self::Year,
            _ => return None,
        })
    }

    /// Whether adding it to a DATE gives a DATE (the unit is a day or longer).
    pub(crate) fn is_date_unit(self) -> bool {
        matches!(
            self,
            Self::Day | Self::Week | Self::Month | Self::Quarter | Self::Year
        )
    }
}

/// `at + amount unit`, as DATE_ADD: months and years clamp the day to the month's last;
/// `None` beyond year 9999 or before year 1 (MySQL's NULL).
pub(crate) fn add(at: NaiveDateTime, amount: i64, unit: Unit) -> Option<NaiveDateTime> {
    let months = |n: i64| -> Option<NaiveDateTime> {
        let n32 = u32::try_from(n.unsigned_abs()).ok()?;
        if n >= 0 {
            at.checked_add_months(Months::new(n32))
        } else {
            at.checked_sub_months(Months::new(n32))
        }
    };
    let out = match unit {
        Unit::Microsecond => at.checked_add_signed(Duration::microseconds(amount))?,
        Unit::Second => at.checked_add_signed(Duration::try_seconds(amount)?)?,
        Unit::Minute => at.checked_add_signed(Duration::try_minutes(amount)?)?,
        Unit::Hour => at.checked_add_signed(Duration::try_hours(amount)?)?,
        Unit::Day => at.checked_add_signed(Duration::try_days(amount)?)?,
        Unit::Week => at.checked_add_signed(Duration::try_weeks(amount)?)?,
        Unit::Month => months(amount)?,
        Unit::Quarter => months(amount.checked_mul(3)?)?,
        Unit::Year => months(amount.checked_mul(12)?)?,
    };
    (1..=9999).contains(&out.year()).then_some(out)
}

/// A compound INTERVAL unit's fields, largest first (`HOUR_MINUTE`: hours, minutes).
pub(crate) fn compound_fields(name: &str) -> Option<&'static [Unit]> {
    use Unit::{Day, Hour, Microsecond as Us, Minute, Month, Second, Year};
    Some(match name {
        "YEAR_MONTH" => &[Year, Month],
        "DAY_HOUR" => &[Day, Hour],
        "DAY_MINUTE" => &[Day, Hour, Minute],
        "DAY_SECOND" => &[Day, Hour, Minute, Second],
        "DAY_MICROSECOND" => &[Day, Hour, Minute, Second, Us],
        "HOUR_MINUTE" => &[Hour, Minute],
        "HOUR_SECOND" => &[Hour, Minute, Second],
        "HOUR_MICROSECOND" => &[Hour, Minute, Second, Us],
        "MINUTE_SECOND" => &[Minute, Second],
        "MINUTE_MICROSECOND" => &[Minute, Second, Us],
        "SECOND_MICROSECOND" => &[Second, Us],
        _ => return None,
    })
}

/// A compound interval's text read as MySQL reads it (`get_interval_value`): an optional `-`
/// negates the whole; the numbers are the runs of digits, anything else separates them; fewer
/// numbers than fields fill the smallest fields (`'90' HOUR_MINUTE` is 90 minutes); a last
/// MICROSECOND field is read as a fraction's digits (`'1.5'` is 500000). The amount as (months,
/// microseconds); `None` for more numbers than fields (MySQL's NULL) or beyond i64.
pub(crate) fn compound_amount(text: &str, fields: &[Unit]) -> Option<(i64, i64)> {
    let text = text.trim_start();
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let bytes = rest.as_bytes();
    let mut at = 0;
    let skip = |at: &mut usize| {
        while *at < bytes.len() && !bytes[*at].is_ascii_digit() {
            *at += 1;
        }
    };
    skip(&mut at);
    let mut values: Vec<u64> = Vec::with_capacity(fields.len());
    let mut last_digits = 0;
    while values.len() < fields.len() {
        let start = at;
        let mut value: u64 = 0;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            value = value
                .checked_mul(10)?
                .checked_add(u64::from(bytes[at] - b'0'))?;
            at += 1;
        }
        last_digits = at - start;
        values.push(value);
        skip(&mut at);
        if at == bytes.len() {
            break;
        }
    }
    if at != bytes.len() {
        return None;
    }
    // Fewer numbers than fields: they are the smallest fields.
    let mut all = vec![0; fields.len() - values.len()];
    all.extend(values);
    if fields.last() == Some(&Unit::Microsecond) && last_digits > 0 {
        let last = all.last_mut().expect("a field");
        *last = match last_digits {
            0..6 => *last * 10u64.pow(6 - last_digits as u32),
            6 => *last,
            _ => *last / 10u64.pow(last_digits as u32 - 6),
        };
    }
    let (mut months, mut micros) = (0i64, 0i64);
    for (unit, value) in fields.iter().zip(all) {
        let value = i64::try_from(value).ok()?;
        let (total, per) = match unit {
            Unit::Year => (&mut months, 12),
            Unit::Month => (&mut months, 1),
            Unit::Day => (&mut micros, 86_400_000_000),
            Unit::Hour => (&mut micros, 3_600_000_000),
            Unit::Minute => (&mut micros, 60_000_000),
            Unit::Second => (&mut micros, 1_000_000),
            _ => (&mut micros, 1),
        };
        *total = total.checked_add(value.checked_mul(per)?)?;
    }
    Some(if negative {
        (-months, -micros)
    } else {
        (months, micros)
    })
}

/// The day and clock fields EXTRACT reads for its units of a day or shorter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClockFields {
    pub(crate) negative: bool,
    pub(crate) day: u64,
    pub(crate) hour: u64,
    pub(crate) minute: u64,
    pub(crate) second: u64,
    pub(crate) micros: u64,
}

impl ClockFields {
    /// A datetime's fields (its day of the month).
    pub(crate) fn of(d: DateParts) -> Self {
        Self {
            negative: false,
            day: u64::from(d.day),
            hour: u64::from(d.hour),
            minute: u64::from(d.minute),
            second: u64::from(d.second),
            micros: u64::from(d.micros),
        }
    }
}

/// A value read as MySQL reads a datetime or a TIME for EXTRACT's units of a day or shorter:
/// a number past 838:59:59 (`8385959`) or a text whose first digits end in a date's separator
/// is a datetime (its day of the month); otherwise a TIME, whose whole days count as the day.
/// `Ok(None)` for NULL or what MySQL reads as no value; `Err` names a form not read as MySQL
/// reads it.
pub(crate) fn clock_fields(value: ValueRef<'_>) -> Result<Option<ClockFields>, &'static str> {
    let dated = match value {
        ValueRef::Null => return Ok(None),
        ValueRef::Integer(i) => i.unsigned_abs() > 8_385_959,
        ValueRef::Real(r) => r.abs() > 8_385_959.0,
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = std::str::from_utf8(t)
                .map_err(|_| "EXTRACT of bytes")?
                .trim();
            let after_digits = s.trim_start_matches(|c: char| c.is_ascii_digit());
            match after_digits.chars().next() {
                _ if s.starts_with('-') => false,
                None if matches!(s.len(), 12 | 14) => true,
                None if !s.is_empty() => return Err("EXTRACT of a string of digits"),
                Some(':') | None => false,
                Some(_) => read_parts(value).is_some(),
            }
        }
    };
    if dated {
        return Ok(read_parts(value).map(ClockFields::of));
    }
    match read_time(value) {
        TimeRead::Value(clock) => Ok(Some(ClockFields {
            negative: clock.negative,
            day: clock.hours() / 24,
            hour: clock.hours() % 24,
            minute: clock.minutes(),
            second: clock.secs(),
            micros: u64::from(clock.micros),
        })),
        TimeRead::Null => Ok(None),
        TimeRead::OutOfRange(_) => Err("a TIME value beyond 838:59:59"),
        TimeRead::Unsupported(what) => Err(what),
    }
}

/// EXTRACT of a unit of a day or shorter, simple or compound (`DAY_HOUR` is the day times 100
/// plus the hour); `None` for another unit.
pub(crate) fn extract_clock(f: ClockFields, unit: &str) -> Option<i64> {
    let ClockFields {
        day: d,
        hour: h,
        minute: m,
        second: s,
        micros: us,
        ..
    } = f;
    let value = match unit {
        "DAY" => d,
        "HOUR" => h,
        "MINUTE" => m,
        "SECOND" => s,
        "MICROSECOND" => us,
        "DAY_HOUR" => d * 100 + h,
        "DAY_MINUTE" => (d * 100 + h) * 100 + m,
        "DAY_SECOND" => ((d * 100 + h) * 100 + m) * 100 + s,
        "DAY_MICROSECOND" => (((d * 100 + h) * 100 + m) * 100 + s) * 1_000_000 + us,
        "HOUR_MINUTE" => h * 100 + m,
        "HOUR_SECOND" => (h * 100 + m) * 100 + s,
        "HOUR_MICROSECOND" => ((h * 100 + m) * 100 + s) * 1_000_000 + us,
        "MINUTE_SECOND" => m * 100 + s,
        "MINUTE_MICROSECOND" => (m * 100 + s) * 1_000_000 + us,
        "SECOND_MICROSECOND" => s * 1_000_000 + us,
        _ => return None,
    };
    let value = i64::try_from(value).ok()?;
    Some(if f.negative { -value } else { value })
}

/// TIMESTAMPDIFF(unit, a, b): whole units from `a` to `b`, truncated toward zero.
pub(crate) fn diff(unit: Unit, a: NaiveDateTime, b: NaiveDateTime) -> i64 {
    let micros = (b - a).num_microseconds().unwrap_or(i64::MAX);
    let months = || {
        let whole = (b.year() - a.year()) * 12 + b.month() as i32 - a.month() as i32;
        // A month counts only when the day and time of day are reached.
        let a_rest = (a.day(), a.time());
        let b_rest = (b.day(), b.time());
        let whole = if whole > 0 && b_rest < a_rest {
            whole - 1
        } else if whole < 0 && b_rest > a_rest {
            whole + 1
        } else {
            whole
        };
        i64::from(whole)
    };
    match unit {
        Unit::Microsecond => micros,
        Unit::Second => micros / 1_000_000,
        Unit::Minute => micros / 60_000_000,
        Unit::Hour => micros / 3_600_000_000,
        Unit::Day => micros / 86_400_000_000,
        Unit::Week => micros / (7 * 86_400_000_000),
        Unit::Month => months(),
        Unit::Quarter => months() / 3,
        Unit::Year => months() / 12,
    }
}

const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The English name of a weekday (Monday is 0).
pub(crate) fn day_name(at: NaiveDateTime) -> &'static str {
    DAY_NAMES[at.weekday().num_days_from_monday() as usize]
}

/// The English name of a month.
pub(crate) fn month_name(at: NaiveDateTime) -> &'static str {
    MONTH_NAMES[at.month0() as usize]
}

/// WEEK(d, 0): weeks start on Sunday, week 1 is the first with a Sunday in the year, days before
/// it are week 0.
pub(crate) fn week0(at: NaiveDateTime) -> u32 {
    calc_week(at.date(), week_mode(0)).1
}

/// DATE_FORMAT's text of a moment; `None` for a specifier this does not write (so the caller
/// refuses rather than answer differently).
pub(crate) fn format(parts: &DateParts, pattern: &str) -> Option<String> {
    let fields = *parts;
    // The specifiers of a calendar's day (names, weeks, the day of the year) need a valid
    // date: a date with zero parts has none (`None`, refused).
    let calendar = || fields.valid();
    let hour12 = (fields.hour + 11) % 12 + 1;
    specifiers(pattern, String::new(), |out, spec| {
        match spec {
            'Y' => out.push_str(&format!("{:04}", fields.year)),
            'y' => out.push_str(&format!("{:02}", fields.year % 100)),
            'm' => out.push_str(&format!("{:02}", fields.month)),
            'c' => out.push_str(&fields.month.to_string()),
            'd' => out.push_str(&format!("{:02}", fields.day)),
            'e' => out.push_str(&fields.day.to_string()),
            'H' => out.push_str(&format!("{:02}", fields.hour)),
            'k' => out.push_str(&fields.hour.to_string()),
            'h' | 'I' => out.push_str(&format!("{hour12:02}")),
            'l' => out.push_str(&hour12.to_string()),
            'i' => out.push_str(&format!("{:02}", fields.minute)),
            's' | 'S' => out.push_str(&format!("{:02}", fields.second)),
            'f' => out.push_str(&format!("{:06}", fields.micros)),
            'p' => out.push_str(if fields.hour < 12 { "AM" } else { "PM" }),
            'r' => out.push_str(&format!(
                "{hour12:02}:{:02}:{:02} {}",
                fields.minute,
                fields.second,
                if fields.hour < 12 { "AM" } else { "PM" }
            )),
            'T' => out.push_str(&format!(
                "{:02}:{:02}:{:02}",
                fields.hour, fields.minute, fields.second
            )),
            'W' => out.push_str(day_name(calendar()?)),
            'a' => out.push_str(&day_name(calendar()?)[..3]),
            'M' => out.push_str(month_name(calendar()?)),
            'b' => out.push_str(&month_name(calendar()?)[..3]),
            'j' => out.push_str(&format!("{:03}", calendar()?.ordinal())),
            'w' => out.push_str(&calendar()?.weekday().num_days_from_sunday().to_string()),
            'U' => out.push_str(&format!("{:02}", week0(calendar()?))),
            'u' => out.push_str(&format!(
                "{:02}",
                calc_week(calendar()?.date(), WEEK_MONDAY_FIRST).1
            )),
            'V' | 'v' | 'X' | 'x' => {
                // Weeks of a year that has no week 0: Sunday-first (V, X) or Monday-first.
                let first = if matches!(spec, 'V' | 'X') {
                    WEEK_FIRST_WEEKDAY
                } else {
                    WEEK_MONDAY_FIRST
                };
                let (year, week) = calc_week(calendar()?.date(), WEEK_YEAR | first);
                if matches!(spec, 'V' | 'v') {
                    out.push_str(&format!("{week:02}"));
                } else {
                    out.push_str(&format!("{year:04}"));
                }
            }
            'D' => {
                let d = fields.day;
                let suffix = match (d % 10, d % 100) {
                    (_, 11..=13) => "th",
                    (1, _) => "st",
                    (2, _) => "nd",
                    (3, _) => "rd",
                    _ => "th",
                };
                out.push_str(&format!("{d}{suffix}"));
            }
            '%' => out.push('%'),
            other => out.push(other),
        }
        Some(())
    })
}

/// `pattern` written out: its text as it is, each `%x` specifier by `write` (its `None` makes
/// the whole text `None`); a `%` at the end is dropped, as MySQL drops it.
fn specifiers(
    pattern: &str,
    mut out: String,
    mut write: impl FnMut(&mut String, char) -> Option<()>,
) -> Option<String> {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            break;
        };
        write(&mut out, spec)?;
    }
    Some(out)
}

/// TIME_FORMAT's text of a time, as MariaDB writes it: hours past 23 as they are for `%H`,
/// `%k` and `%T`, the 12-hour specifiers and `%p` of the hour of the day; a negative time's
/// sign once before the whole text. `None` when the pattern has a specifier of a date (MySQL's
/// NULL).
pub(crate) fn time_format(clock: &Clock, pattern: &str) -> Option<String> {
    let hours = clock.hours();
    let of_day = hours % 24;
    let hour12 = (of_day + 11) % 12 + 1;
    let meridiem = if of_day < 12 { "AM" } else { "PM" };
    let (minute, second) = (clock.minutes(), clock.secs());
    let sign = if clock.negative { "-" } else { "" };
    specifiers(pattern, sign.to_owned(), |out, spec| {
        match spec {
            'H' => out.push_str(&format!("{hours:02}")),
            'k' => out.push_str(&hours.to_string()),
            'h' | 'I' => out.push_str(&format!("{hour12:02}")),
            'l' => out.push_str(&hour12.to_string()),
            'i' => out.push_str(&format!("{minute:02}")),
            's' | 'S' => out.push_str(&format!("{second:02}")),
            'f' => out.push_str(&format!("{:06}", clock.micros)),
            'p' => out.push_str(meridiem),
            'r' => out.push_str(&format!("{hour12:02}:{minute:02}:{second:02} {meridiem}")),
            'T' => out.push_str(&format!("{hours:02}:{minute:02}:{second:02}")),
            'Y' | 'y' | 'm' | 'c' | 'd' | 'e' | 'D' | 'a' | 'b' | 'M' | 'W' | 'j' | 'w' | 'U'
            | 'u' | 'V' | 'v' | 'X' | 'x' => return None,
            other => out.push(other),
        }
        Some(())
    })
}

/// The specifiers STR_TO_DATE reads here: numbers only (`%Y %y %m %c %d %e %H %k %i %s %S %T`
/// and `%%`); whether the format has a time part (the result is a DATETIME) or `None` for one
/// with another specifier or without a whole date.
pub(crate) fn str_to_date_kind(format: &str) -> Option<bool> {
    let mut chars = format.chars();
    let (mut year, mut month, mut day, mut time) = (false, false, false, false);
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        match chars.next()? {
            'Y' | 'y' => year = true,
            'm' | 'c' => month = true,
            'd' | 'e' => day = true,
            'H' | 'k' | 'i' | 's' | 'S' | 'T' => time = true,
            '%' => {}
            _ => return None,
        }
    }
    (year && month && day).then_some(time)
}

/// STR_TO_DATE of a format [`str_to_date_kind`] accepts: the fields read, `Ok(None)` where the
/// text does not match (NULL, as MySQL answers), `Err(())` for `%Y` of other than four digits
/// (MariaDB reads those by rules of its own). Text after the format is ignored and fields the
/// text ends before are 0, as MySQL reads them. The fields are not checked against a calendar
/// (MariaDB returns `2024-02-30` and zero parts as read): see [`StrToDate::text`].
pub(crate) fn str_to_date(input: &str, format: &str) -> Result<Option<StrToDate>, ()> {
    let mut rest = input.trim_start();
    let (mut y, mut mo, mut d, mut h, mut mi, mut se) = (0i32, 0u32, 0u32, 0u32, 0u32, 0u32);
    fn number(rest: &mut &str, max_digits: usize) -> Option<(u32, usize)> {
        let n = rest
            .bytes()
            .take(max_digits)
            .take_while(u8::is_ascii_digit)
            .count();
        let v = rest[..n].parse().ok()?;
        *rest = &rest[n..];
        Some((v, n))
    }
    let mut f = format.chars();
    while let Some(c) = f.next() {
        if rest.is_empty() {
            break;
        }
        if c != '%' {
            match rest.strip_prefix(c) {
                Some(r) => rest = r,
                None => return Ok(None),
            }
            continue;
        }
        let spec = f.next().unwrap_or('%');
        let two = |rest: &mut &str| number(rest, 2).map(|(v, _)| v);
        let field = match spec {
            'Y' => match number(&mut rest, 4) {
                Some((v, 4)) => {
                    y = v as i32;
                    Some(())
                }
                _ => return Err(()),
            },
            'y' => two(&mut rest).map(|v| {
                y = if v < 70 {
                    2000 + v as i32
                } else {
                    1900 + v as i32
                }
            }),
            'm' | 'c' => two(&mut rest).map(|v| mo = v),
            'd' | 'e' => two(&mut rest).map(|v| d = v),
            'H' | 'k' => two(&mut rest).map(|v| h = v),
            'i' => two(&mut rest).map(|v| mi = v),
            's' | 'S' => two(&mut rest).map(|v| se = v),
            'T' => {
                let parts = (|| {
                    let hh = two(&mut rest)?;
                    rest = rest.strip_prefix(':')?;
                    let mm = two(&mut rest)?;
                    rest = rest.strip_prefix(':')?;
                    Some((hh, mm, two(&mut rest)?))
                })();
                parts.map(|(a, b, c)| (h, mi, se) = (a, b, c))
            }
            _ => match rest.strip_prefix('%') {
                Some(r) => {
                    rest = r;
                    Some(())
                }
                None => None,
            },
        };
        if field.is_none() {
            return Ok(None);
        }
    }
    Ok(Some(StrToDate {
        year: y,
        month: mo,
        day: d,
        hour: h,
        minute: mi,
        second: se,
    }))
}

/// The fields STR_TO_DATE read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StrToDate {
    year: i32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
}

impl StrToDate {
    /// The value as MariaDB returns it, with the time when `with_time`: each field within its
    /// range (a month to 12, a day to 31, whatever the month), zero parts kept; `None` past a
    /// range (NULL with warning 1411 in MariaDB).
    pub(crate) fn text(&self, with_time: bool) -> Option<String> {
        if self.month > 12
            || self.day > 31
            || self.hour > 23
            || self.minute > 59
            || self.second > 59
        {
            return None;
        }
        let date = format!("{:04}-{:02}-{:02}", self.year, self.month, self.day);
        Some(if with_time {
            format!(
                "{date} {:02}:{:02}:{:02}",
                self.hour, self.minute, self.second
            )
        } else {
            date
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        read(ValueRef::Text(s.as_bytes())).unwrap().at
    }

    #[test]
    fn dates_are_read_relaxed() {
        assert_eq!(
            datetime_text(at("2024-1-5 3:04:05"), 0),
            "2024-01-05 03:04:05"
        );
        assert_eq!(date_text(at("20240105")), "2024-01-05");
        assert_eq!(date_text(at("99/12/31")), "1999-12-31");
        assert!(read(ValueRef::Text(b"2024-02-30")).is_none());
        assert_eq!(
            read(ValueRef::Text(b"2024-01-05 10:00:00.25")).unwrap().fsp,
            2
        );
    }

    #[test]
    fn dates_with_zero_parts_are_read_as_mysqls_default_mode_reads_them() {
        let parts = |s: &str| read_parts(ValueRef::Text(s.as_bytes())).map(|d| d.datetime_text(0));
        assert_eq!(parts("0000-00-00").as_deref(), Some("0000-00-00 00:00:00"));
        assert_eq!(parts("00-00-00").as_deref(), Some("0000-00-00 00:00:00"));
        assert_eq!(
            parts("2020-00-10 1:2:3").as_deref(),
            Some("2020-00-10 01:02:03")
        );
        assert_eq!(parts("20200100").as_deref(), Some("2020-01-00 00:00:00"));
        assert_eq!(parts("2020-02-30"), None);
        assert_eq!(parts("2020-13-00"), None);
        let zero = read_parts(ValueRef::Integer(0)).unwrap();
        assert!(zero.key() < read_parts(ValueRef::Text(b"2020-00-10")).unwrap().key());
        assert_eq!(zero.valid(), None);
        assert_eq!(
            format(&zero, "%d.%m.%Y %D").as_deref(),
            Some("00.00.0000 0th")
        );
        assert_eq!(format(&zero, "%W"), None);
    }

    #[test]
    fn months_clamp_to_the_last_day() {
        let jan31 = at("2024-01-31");
        assert_eq!(date_text(add(jan31, 1, Unit::Month).unwrap()), "2024-02-29");
        assert_eq!(date_text(add(jan31, -1, Unit::Year).unwrap()), "2023-01-31");
    }

    #[test]
    fn compound_amounts_are_read_as_mysql_reads_them() {
        let amount = |text: &str, unit: &str| compound_amount(text, compound_fields(unit).unwrap());
        assert_eq!(amount("1:30", "HOUR_MINUTE"), Some((0, 90 * 60_000_000)));
        assert_eq!(amount("90", "HOUR_MINUTE"), Some((0, 90 * 60_000_000)));
        assert_eq!(amount("-1-2", "YEAR_MONTH"), Some((-14, 0)));
        assert_eq!(
            amount("1:-30", "HOUR_MINUTE"),
            amount("1:30", "HOUR_MINUTE")
        );
        assert_eq!(amount("1.5", "SECOND_MICROSECOND"), Some((0, 1_500_000)));
        assert_eq!(amount("x", "DAY_HOUR"), Some((0, 0)));
        assert_eq!(amount("1:2:3", "HOUR_MINUTE"), None);
    }

    #[test]
    fn extract_reads_a_time_where_mysql_does() {
        let clock = |v: ValueRef<'_>, unit| {
            clock_fields(v)
                .unwrap()
                .and_then(|f| extract_clock(f, unit))
        };
        assert_eq!(clock(ValueRef::Text(b"30:00:00"), "DAY_HOUR"), Some(106));
        assert_eq!(clock(ValueRef::Text(b"10:11:12"), "HOUR"), Some(10));
        assert_eq!(clock(ValueRef::Text(b"2020-03-04"), "DAY_HOUR"), Some(400));
        assert_eq!(clock(ValueRef::Integer(101_112), "HOUR"), Some(10));
        assert_eq!(
            clock(ValueRef::Text(b"-10:11:12"), "HOUR_MINUTE"),
            Some(-1011)
        );
    }

    #[test]
    fn timestampdiff_counts_whole_units() {
        assert_eq!(diff(Unit::Month, at("2024-01-31"), at("2024-02-29")), 0);
        assert_eq!(diff(Unit::Month, at("2024-01-15"), at("2024-03-15")), 2);
        assert_eq!(diff(Unit::Day, at("2024-03-15"), at("2024-03-01")), -14);
    }

    #[test]
    fn texts_with_characters_of_several_bytes_read_without_panicking() {
        for text in [
            "é ü",
            "é-1",
            "1é-",
            "ü:1",
            "-é",
            "2024-é-01",
            "é 10:00",
            "１２:００",
        ] {
            let _ = read_time(ValueRef::Text(text.as_bytes()));
            let _ = read_parts(ValueRef::Text(text.as_bytes()));
            let _ = compare_times(text, "10:00:00");
        }
    }

    #[test]
    fn time_format_writes_mariadbs_text() {
        let clock = |text: &str| match read_time(ValueRef::Text(text.as_bytes())) {
            TimeRead::Value(clock) => clock,
            _ => panic!("{text}"),
        };
        let cases = [
            (
                "08:30:05",
                "%H:%i:%s %k %h %I %l %p %r %T %f %%",
                "08:30:05 8 08 08 8 AM 08:30:05 AM 08:30:05 000000 %",
            ),
            (
                "100:05:06",
                "%H %k %h %l %p %r %T",
                "100 100 04 4 AM 04:05:06 AM 100:05:06",
            ),
            ("-01:02:03", "x%i", "-x02"),
            ("00:00:00", "%h %p %l", "12 AM 12"),
            ("12:00:00", "%p %h %l", "PM 12 12"),
            ("10:00:00", "%q %H", "q 10"),
        ];
        for (time, pattern, expected) in cases {
            assert_eq!(
                time_format(&clock(time), pattern).as_deref(),
                Some(expected),
                "{time} {pattern}"
            );
        }
        assert_eq!(time_format(&clock("10:00:00"), "%H %Y"), None);
    }

    #[test]
    fn date_format_writes_mysqls_specifiers() {
        let t = &read_parts(ValueRef::Text(b"2024-03-05 14:07:09")).unwrap();
        assert_eq!(
            format(t, "%Y/%m/%d %H:%i:%s").unwrap(),
            "2024/03/05 14:07:09"
        );
        assert_eq!(
            format(t, "%W %M %D %h %p %j").unwrap(),
            "Tuesday March 5th 02 PM 065"
        );
    }

    #[test]
    fn str_to_date_reads_numeric_formats_without_a_calendar() {
        let read = |i: &str, f: &str| str_to_date(i, f).map(|d| d.map(|d| d.text(true)));
        assert_eq!(
            read("1/3/2024 5:06", "%d/%m/%Y %H:%i"),
            Ok(Some(Some("2024-03-01 05:06:00".into())))
        );
        assert_eq!(read("2024/03/01", "%Y-%m-%d"), Ok(None));
        assert_eq!(
            read("2024-02-30", "%Y-%m-%d"),
            Ok(Some(Some("2024-02-30 00:00:00".into())))
        );
        assert_eq!(read("2024-13-01", "%Y-%m-%d"), Ok(Some(None)));
        assert_eq!(read("0/0/24", "%d/%m/%Y"), Err(()));
        assert_eq!(str_to_date_kind("%d %M %Y"), None);
        assert_eq!(str_to_date_kind("%Y-%m"), None);
        assert_eq!(str_to_date_kind("%Y-%m-%d %T"), Some(true));
    }
}

/// The largest TIME MySQL holds: 838:59:59.
const TIME_MAX_SECONDS: u64 = 838 * 3600 + 59 * 60 + 59;

/// A TIME value: a signed duration within MySQL's range (±838:59:59.999999), and the fraction
/// digits it was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Clock {
    pub(crate) negative: bool,
    pub(crate) seconds: u64,
    pub(crate) micros: u32,
    pub(crate) fsp: u8,
}

impl Clock {
    /// From signed whole seconds; `None` outside MySQL's range (where it clamps with a warning).
    pub(crate) fn from_seconds(seconds: i64) -> Option<Self> {
        let abs = seconds.unsigned_abs();
        (abs <= TIME_MAX_SECONDS).then_some(Self {
            negative: seconds < 0,
            seconds: abs,
            micros: 0,
            fsp: 0,
        })
    }

    /// The end of MySQL's range on the side of `negative`: ±838:59:59.
    pub(crate) fn limit(negative: bool) -> Self {
        Self {
            negative,
            seconds: TIME_MAX_SECONDS,
            micros: 0,
            fsp: 0,
        }
    }

    /// Rounded to `fsp` fraction digits, half away from zero as MySQL rounds; `None` when that
    /// leaves MySQL's range.
    pub(crate) fn rounded(self, fsp: u8) -> Option<Self> {
        let unit = 10u32.pow(6 - u32::from(fsp.min(6)));
        let micros = (self.micros + unit / 2) / unit * unit;
        let (seconds, micros) = if micros >= 1_000_000 {
            (self.seconds + 1, micros - 1_000_000)
        } else {
            (self.seconds, micros)
        };
        (seconds <= TIME_MAX_SECONDS).then_some(Self {
            seconds,
            micros,
            fsp,
            ..self
        })
    }

    /// The signed number of microseconds.
    fn signed_micros(self) -> i64 {
        let m = self.seconds as i64 * 1_000_000 + i64::from(self.micros);
        if self.negative { -m } else { m }
    }

    /// The signed number of whole seconds.
    pub(crate) fn signed_seconds(self) -> i64 {
        let s = self.seconds as i64;
        if self.negative { -s } else { s }
    }

    pub(crate) fn hours(self) -> u64 {
        self.seconds / 3600
    }

    pub(crate) fn minutes(self) -> u64 {
        self.seconds / 60 % 60
    }

    pub(crate) fn secs(self) -> u64 {
        self.seconds % 60
    }

    /// `[-]HH:MM:SS[.ffffff]` with `fsp` fraction digits.
    pub(crate) fn text(self, fsp: u8) -> String {
        let mut out = format!(
            "{}{:02}:{:02}:{:02}",
            if self.negative && (self.seconds > 0 || self.micros > 0) {
                "-"
            } else {
                ""
            },
            self.hours(),
            self.minutes(),
            self.secs()
        );
        if fsp > 0 {
            let micros = format!("{:06}", self.micros);
            out.push('.');
            out.push_str(&micros[..usize::from(fsp.min(6))]);
        }
        out
    }
}

/// What a value read as a TIME gives: the value, NULL (what MySQL reads as an invalid time,
/// answering NULL with a warning), or a form this does not read the way MySQL does (named, for
/// the caller's refusal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeRead {
    Value(Clock),
    Null,
    /// Beyond ±838:59:59 (negative or not), where MySQL clamps with a warning.
    OutOfRange(bool),
    Unsupported(&'static str),
}

/// The order of two TIME texts as durations (the TIME collation); a text that is no TIME
/// sorts after every TIME, by its bytes, so the order stays total.
pub(crate) fn compare_times(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |s: &str| match read_time_text(s.trim()) {
        TimeRead::Value(clock) => Ok(clock.signed_micros()),
        _ => Err(s.to_owned()),
    };
    key(a).cmp(&key(b))
}

/// Reads a value as MySQL reads a TIME: `[-][D ]H…:MM[:SS][.f]`, the digits `[[H…]MM]SS[.f]`
/// (numbers too), or a datetime's time of day (`YYYY-MM-DD HH:MM:SS`, 12 or 14 digits).
/// Beyond ±838:59:59 MySQL clamps with a warning ([`TimeRead::OutOfRange`]); a date without a time is refused.
/// Whether a text is a date without a time (`2024-03-05`), which CAST AS TIME and TIME() read
/// otherwise than as midnight (`1000-1-1` is 00:10:00, its leading digits) while HOUR() and
/// the comparisons read midnight.
pub(crate) fn is_date_alone(text: &str) -> bool {
    let s = text.trim();
    s.as_bytes()
        .iter()
        .skip(1)
        .any(|b| matches!(b, b'-' | b'/'))
        && !s.contains([':', ' ', 'T'])
}

pub(crate) fn read_time(value: ValueRef<'_>) -> TimeRead {
    match value {
        ValueRef::Null => TimeRead::Null,
        ValueRef::Integer(i) => read_time_text(&i.to_string()),
        ValueRef::Real(r) if r.fract() == 0.0 && r.abs() < 1e15 => {
            read_time_text(&format!("{}", r as i64))
        }
        // MariaDB cuts the binary fraction to microseconds (10709.5777 is 01:07:09.577699),
        // MySQL rounds it: read where the two agree, the fraction's shortest digits.
        ValueRef::Real(r) if r.abs() < 1e15 => {
            let shortest = format!("{}", r.abs());
            let digits = shortest.split_once('.').map_or("", |(_, d)| d);
            let cut = (r.abs().fract() * 1e6).floor() as u32;
            if digits.len() > 6 || format!("{digits:0<6}") != format!("{cut:06}") {
                return TimeRead::Unsupported("a DOUBLE with this fraction read as a TIME");
            }
            let sign = if r < 0.0 { "-" } else { "" };
            read_time_text(&format!("{sign}{}.{digits}", r.abs().trunc() as i64))
        }
        ValueRef::Real(_) => TimeRead::Unsupported("a DOUBLE with a fraction read as a TIME"),
        ValueRef::Text(t) | ValueRef::Blob(t) => match std::str::from_utf8(t) {
            Ok(s) => read_time_text(s.trim()),
            Err(_) => TimeRead::Null,
        },
    }
}

fn read_time_text(s: &str) -> TimeRead {
    // A datetime: its time of day.
    let digits_only = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    // (`-1 02:03:04` is a negative TIME of a day and two hours, not a date.)
    let dated = match s.find([' ', 'T']) {
        Some(at) => s[..at].trim_start_matches(['-', '+']).contains(['-', '/']),
        None => false,
    };
    // A date alone (not a leading minus) is a datetime at midnight.
    // (By bytes: the text may start with any character.)
    let date_alone = s
        .as_bytes()
        .iter()
        .skip(1)
        .any(|b| matches!(b, b'-' | b'/'))
        && !s.contains(':');
    if dated || date_alone || (digits_only && matches!(s.len(), 12 | 14)) {
        return match read_parts(ValueRef::Text(s.as_bytes())) {
            Some(d) => TimeRead::Value(Clock {
                negative: false,
                seconds: u64::from(d.hour * 3600 + d.minute * 60 + d.second),
                micros: d.micros,
                fsp: d.fsp,
            }),
            // MariaDB reads the time of some dates it does not read as dates ('2024-02-30
            // 10:00:00' is 10:00:00, '2024-13-01 10:00:00' NULL), and of others with text after
            // them.
            None => TimeRead::Unsupported("a date and time of this form read as a TIME"),
        };
    }
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, s),
    };
    let (clock, fraction) = body.split_once('.').unwrap_or((body, ""));
    if !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return TimeRead::Unsupported("a TIME value with text after it");
    }
    if !clock.starts_with(|c: char| c.is_ascii_digit()) {
        return TimeRead::Null;
    }
    let number = |p: &str| -> Option<u64> {
        (!p.is_empty() && p.len() <= 7 && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let (days, hms) = match clock.split_once(' ') {
        // A day count takes an hour of two digits or a clock (`3 04`, `3 4:00`); MySQL reads
        // `3 4` as 3 seconds, with a truncation warning.
        Some((_, rest)) if !rest.contains(':') && rest.trim().len() < 2 => {
            return TimeRead::Unsupported("a TIME value of this form");
        }
        Some((d, rest)) => match number(d) {
            Some(d) if d <= 34 => (d, rest.trim_start()),
            _ => return TimeRead::Unsupported("a TIME value of this form"),
        },
        None => (0, clock),
    };
    let (h, m, sec) = if hms.contains(':') || days > 0 {
        let parts: Vec<&str> = hms.split(':').collect();
        let parts: Option<Vec<u64>> = parts.iter().map(|p| number(p)).collect();
        match parts.as_deref() {
            Some([h]) => (*h, 0, 0),
            Some([h, m]) => (*h, *m, 0),
            Some([h, m, s]) => (*h, *m, *s),
            _ => return TimeRead::Unsupported("a TIME value of this form"),
        }
    } else if hms.len() <= 7 && hms.bytes().all(|b| b.is_ascii_digit()) {
        let n: u64 = match hms.parse() {
            Ok(n) => n,
            Err(_) => return TimeRead::Unsupported("a TIME value of this form"),
        };
        (n / 10000, n / 100 % 100, n % 100)
    } else {
        return TimeRead::Unsupported("a TIME value of this form");
    };
    if m > 59 || sec > 59 {
        return TimeRead::Null;
    }
    let seconds = (days * 24 + h) * 3600 + m * 60 + sec;
    let micros: u32 = if fraction.is_empty() {
        0
    } else {
        format!("{:0<6}", &fraction[..fraction.len().min(6)])
            .parse()
            .unwrap_or(0)
    };
    if seconds > TIME_MAX_SECONDS {
        return TimeRead::OutOfRange(negative);
    }
    if fraction.len() > 6 {
        return TimeRead::Unsupported("a TIME value with more than 6 fraction digits");
    }
    TimeRead::Value(Clock {
        negative,
        seconds,
        micros,
        fsp: fraction.len() as u8,
    })
}

/// MySQL's week computation (`calc_week`) under a behaviour of [`WEEK_MONDAY_FIRST`],
/// [`WEEK_YEAR`] and [`WEEK_FIRST_WEEKDAY`]: the week number and the year it belongs to.
pub(crate) fn calc_week(d: NaiveDate, behaviour: u32) -> (i32, u32) {
    let monday_first = behaviour & WEEK_MONDAY_FIRST != 0;
    let mut week_year = behaviour & WEEK_YEAR != 0;
    let first_weekday = behaviour & WEEK_FIRST_WEEKDAY != 0;
    let weekday_of = |d: NaiveDate| -> i64 {
        if monday_first {
            i64::from(d.weekday().num_days_from_monday())
        } else {
            i64::from(d.weekday().num_days_from_sunday())
        }
    };
    let days_in_year = |y: i32| -> i64 {
        if NaiveDate::from_ymd_opt(y, 2, 29).is_some() {
            366
        } else {
            365
        }
    };
    let daynr = i64::from(d.num_days_from_ce());
    let jan1 = NaiveDate::from_ymd_opt(d.year(), 1, 1).expect("January 1st exists");
    let mut first_daynr = i64::from(jan1.num_days_from_ce());
    let mut weekday = weekday_of(jan1);
    let mut year = d.year();
    if d.month() == 1 && i64::from(d.day()) <= 7 - weekday {
        if !week_year && ((first_weekday && weekday != 0) || (!first_weekday && weekday >= 4)) {
            return (year, 0);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first_daynr -= days;
        weekday = (weekday + 53 * 7 - days).rem_euclid(7);
    }
    let days = if (first_weekday && weekday != 0) || (!first_weekday && weekday >= 4) {
        daynr - (first_daynr + (7 - weekday))
    } else {
        daynr - (first_daynr - weekday)
    };
    if week_year && days >= 52 * 7 {
        let weekday = (weekday + days_in_year(year)).rem_euclid(7);
        if (!first_weekday && weekday < 4) || (first_weekday && weekday == 0) {
            return (year + 1, 1);
        }
    }
    (year, (days / 7 + 1) as u32)
}

/// Weeks start on Monday (else Sunday).
pub(crate) const WEEK_MONDAY_FIRST: u32 = 1;
/// Week 0 does not exist: such days belong to the previous year's last week.
pub(crate) const WEEK_YEAR: u32 = 2;
/// Week 1 is the first week with the first weekday in the year (else the first with 4 or
/// more days in it).
pub(crate) const WEEK_FIRST_WEEKDAY: u32 = 4;

/// The behaviour of WEEK's `mode` argument (MySQL's `week_mode`).
pub(crate) fn week_mode(mode: i64) -> u32 {
    let mut behaviour = (mode & 7) as u32;
    if behaviour & WEEK_MONDAY_FIRST == 0 {
        behaviour ^= WEEK_FIRST_WEEKDAY;
    }
    behaviour
}
