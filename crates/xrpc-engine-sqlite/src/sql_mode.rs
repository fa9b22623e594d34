//! A session's `sql_mode` and `time_zone`: the values `SET sql_mode | time_zone = …` give, as
//! MariaDB keeps and shows them ([`normalize`], [`time_zone`]).
//!
//! MariaDB reads a mode as a comma-separated list of words (any case, empty items skipped, no
//! spaces trimmed: `'a, b'` names the word `' b'`) or as the number of its bit set, expands the
//! combination modes (`TRADITIONAL`, `ANSI`, …) into their words and shows the words in its bit
//! order, upper case. An unknown word is 1231 naming it. [`normalize`] does the same, so
//! `SELECT @@sql_mode` after a SET answers as MariaDB does.
//!
//! The engine acts under every mode as under MariaDB's default ([`DEFAULT`]: strict writes,
//! ERROR_FOR_DIVISION_BY_ZERO, `||` as OR). The modes a session may set are the ones whose
//! differences the node either has no use for (`NO_ENGINE_SUBSTITUTION`, `NO_AUTO_CREATE_USER`,
//! the `NO_*_OPTIONS` of SHOW CREATE TABLE's old formats), or that turn an answer into an error
//! or an error into a warning (strictness, `NO_ZERO_DATE`, `ONLY_FULL_GROUP_BY`,
//! `NO_AUTO_VALUE_ON_ZERO` as dumps set it), so that a statement still gets MySQL's answer or an
//! error. The modes that would change a statement's value or how its text reads
//! ([`REFUSED`]: `PIPES_AS_CONCAT`, `ANSI_QUOTES`, `EMPTY_STRING_IS_NULL`, …) are refused with
//! 1235 instead of being kept without effect.

use xrpc_engine::result::SqlError;
use xrpc_proto::codes;

/// MariaDB 10.11's default `sql_mode`, the mode the engine acts under.
pub(crate) const DEFAULT: &str =
    "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION";

/// MariaDB's mode words in bit order (bit 0 first).
const WORDS: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// The combination modes and the words each sets besides itself.
const COMBINATIONS: &[(&str, &[&str])] = &[
    (
        "ANSI",
        &[
            "REAL_AS_FLOAT",
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
        ],
    ),
    (
        "TRADITIONAL",
        &[
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "NO_AUTO_CREATE_USER",
            "NO_ENGINE_SUBSTITUTION",
        ],
    ),
    ("POSTGRESQL", DIALECT),
    ("MSSQL", DIALECT),
    ("DB2", DIALECT),
    (
        "MAXDB",
        &[
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "NO_KEY_OPTIONS",
            "NO_TABLE_OPTIONS",
            "NO_FIELD_OPTIONS",
            "NO_AUTO_CREATE_USER",
        ],
    ),
    (
        "ORACLE",
        &[
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "NO_KEY_OPTIONS",
            "NO_TABLE_OPTIONS",
            "NO_FIELD_OPTIONS",
            "NO_AUTO_CREATE_USER",
            "SIMULTANEOUS_ASSIGNMENT",
        ],
    ),
    ("MYSQL323", &["HIGH_NOT_PRECEDENCE"]),
    ("MYSQL40", &["HIGH_NOT_PRECEDENCE"]),
];

/// What POSTGRESQL, MSSQL and DB2 set besides themselves.
const DIALECT: &[&str] = &[
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
];

/// Words that change how a statement's text reads or what it computes, which the engine does
/// not follow: a mode holding one is refused (1235) rather than kept without effect.
const REFUSED: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_BACKSLASH_ESCAPES",
    "ALLOW_INVALID_DATES",
    "HIGH_NOT_PRECEDENCE",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// A mode as MariaDB shows it after `SET sql_mode = value`, where `value` is the text the SET
/// gave (a number's digits for a number), or 1231 for a word MariaDB does not know and 1235
/// for a mode the engine does not follow ([`REFUSED`]).
pub(crate) fn normalize(value: &str) -> Result<String, SqlError> {
    if value == "NULL" {
        return Err(wrong_value(value));
    }
    let mut bits: u64 = 0;
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        bits = value
            .parse::<u64>()
            .ok()
            .filter(|&n| n < 1 << WORDS.len())
            .ok_or_else(|| wrong_value(value))?;
    } else {
        for word in value.split(',').filter(|w| !w.is_empty()) {
            let bit = WORDS
                .iter()
                .position(|w| w.eq_ignore_ascii_case(word))
                .ok_or_else(|| wrong_value(word))?;
            bits |= 1 << bit;
        }
    }
    let refused = |word: &str| {
        REFUSED.contains(&word)
            || COMBINATIONS
                .iter()
                .any(|(c, words)| *c == word && words.iter().any(|w| REFUSED.contains(w)))
    };
    if let Some(word) = WORDS
        .iter()
        .enumerate()
        .find(|(bit, w)| bits & (1 << bit) != 0 && refused(w))
        .map(|(_, w)| w)
    {
        return Err(SqlError::new(
            &codes::NOT_SUPPORTED_YET,
            format!(
                "This version of MySQL doesn't yet support 'sql_mode {word}' on the SQLite \
                 engine: statements read and compute as under MariaDB's default sql_mode \
                 (`||` is OR, `\"…\"` a string, `\\` an escape)"
            ),
        ));
    }
    for (combination, words) in COMBINATIONS {
        if bits & bit_of(combination) != 0 {
            bits |= words.iter().map(|w| bit_of(w)).fold(0, |a, b| a | b);
        }
    }
    Ok(WORDS
        .iter()
        .enumerate()
        .filter(|(bit, _)| bits & (1 << bit) != 0)
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(","))
}

fn bit_of(word: &str) -> u64 {
    1 << WORDS
        .iter()
        .position(|w| *w == word)
        .expect("a word of the table")
}

/// MySQL's 1231 for `sql_mode`.
pub(crate) fn wrong_value(shown: &str) -> SqlError {
    SqlError::new(
        &codes::WRONG_VALUE_FOR_VAR,
        format!("Variable 'sql_mode' can't be set to the value of '{shown}'"),
    )
}

/// A session `time_zone` as MariaDB shows it after `SET time_zone = value`: `SYSTEM`, or an
/// offset `±HH:MM` (within ±13:59 of UTC, MariaDB's range). The engine's clock functions
/// read the system's zone, so an offset other than the system's current one is refused
/// (1235) rather than kept without effect; a named zone too (MariaDB needs its time zone
/// tables for one). Anything else is MariaDB's 1298.
pub(crate) fn time_zone(value: &str) -> Result<String, SqlError> {
    if value.eq_ignore_ascii_case("SYSTEM") {
        return Ok("SYSTEM".to_owned());
    }
    let unknown = || {
        SqlError::new(
            &codes::UNKNOWN_TIME_ZONE,
            format!("Unknown or incorrect time zone: '{value}'"),
        )
    };
    let Some((sign, rest)) = value
        .strip_prefix('+')
        .map(|r| (1, r))
        .or_else(|| value.strip_prefix('-').map(|r| (-1, r)))
    else {
        return Err(SqlError::new(
            &codes::NOT_SUPPORTED_YET,
            format!(
                "This version of MySQL doesn't yet support 'time_zone {value}' on the SQLite \
                 engine: its clock reads the system's time zone"
            ),
        ));
    };
    let (hours, minutes) = rest.split_once(':').ok_or_else(unknown)?;
    let number = |t: &str| {
        (!t.is_empty() && t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<i32>().ok())
            .flatten()
    };
    let (Some(hours), Some(minutes)) = (number(hours), number(minutes)) else {
        return Err(unknown());
    };
    if minutes > 59 || hours * 60 + minutes > 13 * 60 + 59 {
        return Err(unknown());
    }
    let offset = sign * (hours * 60 + minutes) * 60;
    let system = chrono::Local::now().offset().local_minus_utc();
    if offset != system {
        return Err(SqlError::new(
            &codes::NOT_SUPPORTED_YET,
            format!(
                "This version of MySQL doesn't yet support 'time_zone {value}' other than the \
                 system's on the SQLite engine: its clock reads the system's time zone"
            ),
        ));
    }
    Ok(format!(
        "{}{hours:02}:{minutes:02}",
        if sign < 0 { '-' } else { '+' }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_show_as_mariadb_shows_them() {
        for (set, shown) in [
            ("", ""),
            (
                "no_engine_substitution,STRICT_TRANS_TABLES",
                "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION",
            ),
            (",,STRICT_TRANS_TABLES,", "STRICT_TRANS_TABLES"),
            (
                "TRADITIONAL",
                "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
                 ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
            ),
            ("32", "ONLY_FULL_GROUP_BY"),
            ("NO_AUTO_VALUE_ON_ZERO", "NO_AUTO_VALUE_ON_ZERO"),
            (DEFAULT, DEFAULT),
        ] {
            assert_eq!(normalize(set).unwrap(), shown, "{set}");
        }
    }

    #[test]
    fn an_unknown_word_is_1231_naming_it_as_written() {
        let err = normalize("STRICT_TRANS_TABLES, NO_ZERO_DATE").unwrap_err();
        assert_eq!(err.code, 1231);
        assert!(err.message.contains("' NO_ZERO_DATE'"), "{err}");
    }

    #[test]
    fn time_zones_are_the_systems_or_refused() {
        let system = chrono::Local::now().offset().local_minus_utc() / 60;
        let written = format!(
            "{}{}:{:02}",
            if system < 0 { '-' } else { '+' },
            system.abs() / 60,
            system.abs() % 60
        );
        let shown = format!(
            "{}{:02}:{:02}",
            if system < 0 { '-' } else { '+' },
            system.abs() / 60,
            system.abs() % 60
        );
        assert_eq!(time_zone(&written).unwrap(), shown);
        assert_eq!(time_zone("system").unwrap(), "SYSTEM");
        let other = if system == 0 { "+05:00" } else { "+00:00" };
        assert_eq!(time_zone(other).unwrap_err().code, 1235);
        assert_eq!(time_zone("Europe/Paris").unwrap_err().code, 1235);
        for bad in ["+14:00", "+1:60", "+x:00", "+01"] {
            assert_eq!(time_zone(bad).unwrap_err().code, 1298, "{bad}");
        }
    }

    #[test]
    fn modes_the_engine_does_not_follow_are_refused() {
        for mode in ["ANSI", "postgresql", "EMPTY_STRING_IS_NULL", "MYSQL40", "1"] {
            assert_eq!(normalize(mode).unwrap_err().code, 1235, "{mode}");
        }
    }
}
