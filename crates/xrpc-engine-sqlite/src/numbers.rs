//! Numbers as MySQL writes and reads them in text: a DOUBLE printed as MySQL prints it, and the
//! number a string starts with as MySQL reads it.

/// A DOUBLE as MySQL prints it: the shortest digits that read back, in plain notation for
/// decimal exponents −15 to 14 and as `1.5e20` / `1e-16` beyond.
pub(crate) fn format_double(f: f64) -> String {
    if f == 0.0 {
        return "0".to_owned();
    }
    if !f.is_finite() {
        return if f.is_nan() {
            "nan"
        } else if f > 0.0 {
            "inf"
        } else {
            "-inf"
        }
        .to_owned();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-15..=14).contains(&exp) {
        let s = f.to_string();
        s.strip_suffix(".0").map_or(s.clone(), str::to_owned)
    } else {
        format!("{mantissa}e{exp}")
    }
}

/// Splits the number a string starts with (MySQL's reading of a string as a number):
/// `(number text, the rest)`; the number is empty when there is none.
pub(crate) fn number_prefix(s: &str) -> (&str, &str) {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let lead = s.len() - t.len();
    let b = t.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(i);
    i += int;
    let mut frac = 0;
    if b.get(i) == Some(&b'.') {
        frac = digits(i + 1);
        if int + frac > 0 {
            i += 1 + frac;
        }
    }
    if int + frac == 0 {
        return ("", s);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        let e = digits(j);
        if e > 0 {
            i = j + e;
        }
    }
    (&s[lead..lead + i], &s[lead + i..])
}
