//! MySQL's `CAST(expr AS type)`, `CONVERT(expr, type)` and `CONVERT(expr USING charset)` on
//! SQLite.
//!
//! # Design
//!
//! SQLite's own CAST reads a MySQL type name as an affinity (`CAST('2024-02-29' AS DATE)` is
//! the integer 2024 there), and it has no CONVERT. [`rewrite`] turns every cast to DATE,
//! DATETIME(fsp), TIME(fsp), SIGNED, UNSIGNED, DECIMAL(p,s), CHAR(n) and BINARY(n), and every
//! CONVERT, into a call of a deterministic SQL function registered on each connection
//! ([`register`]): `xrpc_cast_date(expr, mode)`, `xrpc_cast_datetime(expr, fsp, mode)`,
//! `xrpc_cast_time(expr, fsp, mode)`, `xrpc_cast_signed(expr, mode)`,
//! `xrpc_cast_unsigned(expr, mode)`, `xrpc_cast_decimal(expr, p, s, mode)`,
//! `xrpc_cast_char(expr, n, mode)`, `xrpc_cast_binary(expr, n, mode)` (`n` is -1 when no
//! length is given). The functions implement MySQL's (as MariaDB 10.11 answers them, which the
//! differential test checks) conversions in Rust:
//!
//! - DATE and DATETIME read MySQL's relaxed formats (`2024-2-9`, `2024/02/29`, `24-02-29`,
//!   `20240229`, `240229`, `20240229123456.5`, a `T`, spaces or a punctuation character between
//!   date and time, a part cut short by punctuation: `0:01:01.` is 0000-01-01), as MariaDB's
//!   `str_to_datetime` reads them, and
//!   numbers (`20240229`, `240229`, `YYYYMMDDhhmmss`); an invalid or zero date is NULL.
//! - TIME reads `[-][D ]H:MM[:SS][.f]`, a datetime's time, and `[-]HHMMSS[.f]`; beyond
//!   ±838:59:59 it is clamped.
//! - SIGNED and UNSIGNED read the integer a string starts with (0 when none), round a DECIMAL
//!   half away from zero and a DOUBLE half to even, clamp what overflows and wrap between the
//!   two (`CAST(-1 AS UNSIGNED)` is 18446744073709551615).
//! - DECIMAL(p,s) rounds half away from zero and clamps to the largest value of the type.
//! - CHAR(n) prints numbers as MySQL does (`1.5e20`, `0.0000001`, a DECIMAL literal with its
//!   scale) and cuts to n characters; BINARY(n) cuts or pads with zero bytes.
//!
//! What MySQL reports as a warning (an invalid date, trailing junk, a cut string, an overflow)
//! is a warning in a query, and the value is what MySQL returns, with MySQL's warnings and
//! notes (sent as WARNING notices, listed by SHOW WARNINGS; see the engine's module docs). In INSERT, REPLACE and UPDATE, where MySQL's
//! strict mode turns a cast's warning into an error, the statement fails with MySQL's error
//! (1292, 1264, 1916), as MariaDB does. Notes (MySQL's level below warning) never fail a
//! statement.
//!
//! `mode` tells the functions what the argument was in the SQL, since SQLite's value alone
//! does not say: bit 0 a string literal, bit 1 a DECIMAL literal (passed as its text, so it is
//! exact: MySQL rounds `CAST(1.5 AS SIGNED)` to 2 but truncates `CAST('1.5' AS SIGNED)` to 1),
//! bit 2 a write statement. Any other argument (a column, an expression, a placeholder) is read
//! by its SQLite storage class: INTEGER as an integer, REAL as a DOUBLE, BLOB and TEXT as a
//! string. A DECIMAL column is stored as TEXT, so `CAST(d AS SIGNED)` of a stored `1.5` could be
//! 1 (string) or 2 (decimal): where the two readings differ the cast is refused (1235) rather
//! than answered one way. For the same reason a cast reads a DATE, TIME or DECIMAL column's
//! stored text: `CAST(d AS CHAR)` of a DECIMAL(5,2) written as `1.5` is `1.5`, where MySQL says
//! `1.50`. Inputs whose MySQL reading this module does not know (a digit string of 7 digits
//! cast to DATE, a charset other than utf8mb4, utf8mb3 and binary) are refused with 1235, never
//! guessed.
//!
//! # Result column types
//!
//! A function's value carries no type SQLite could report. So [`rewrite`] also returns
//! [`ColumnHint`]s: for each item of the statement's top-level select list that is a whole
//! cast (`CAST(x AS DATE)`, `CONVERT(x, DECIMAL(10,2)) AS d`), the declared kind its result
//! column takes (a DATE cast is a DATETIME X column with MySQL type DATE, as a DATE column is)
//! and, without an alias, the name MySQL gives it (the cast as written). Items are counted from
//! the start up to the first `*` and from the end after the last one. An item naming a derived
//! table's cast column (`SELECT d FROM (SELECT CAST(x AS DATE) d) t`, `t.d`, or `*` when that
//! table is the only one in FROM) takes the cast's hint ([`derived_tables`]). A cast inside an
//! expression gets no hint: its column is typed from its values like any expression (a DATE
//! cast is then text `2024-02-29`).
//!
//! Statements SQLite stores (`CREATE`, `ALTER`) are not rewritten, so that no database file
//! depends on these functions; a MySQL-only cast there is refused with 1235 as before.

use std::fmt::Write as _;

use rusqlite::Connection;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SqlValue, ValueRef};
use xrpc_proto::codes::{self, ErrorCode};

use super::Shared;
use super::types::DeclKind;
use crate::numbers::{format_double, number_prefix};
use crate::tokens::{CLAUSE_WORDS, Tok, Token, has_alias, select_items, tokens};
use crate::types::strict::{self, ExactNumber, Parts};
use xrpc_engine::result::{SqlError, SqlWarning, WarningLevel, mysql_type};

/// `mode` bit: the argument is a string literal.
const MODE_STRING: i64 = 1;
/// `mode` bit: the argument is a DECIMAL literal, passed as its text.
const MODE_DECIMAL: i64 = 2;
/// `mode` bit: the statement writes (INSERT, REPLACE, UPDATE): warnings are errors.
const MODE_WRITE: i64 = 4;
/// `mode` bit: a DATE, DATETIME or TIME cast used as a number (`CAST(x AS DATE) + 0`): the
/// value is MySQL's numeric form (`20240229`, `20240229101112`, `101112.5`).
const MODE_NUMERIC: i64 = 8;
/// `mode` bit, with [`MODE_NUMERIC`]: the numeric form without its fraction, as MariaDB
/// converts a temporal value to an integer (`CAST(CAST(t AS TIME(2)) AS SIGNED)` truncates).
const MODE_TRUNCATE: i64 = 16;

/// A cast's target type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Date,
    DateTime(u32),
    Time(u32),
    Signed,
    Unsigned,
    Decimal(u32, u32),
    /// CHAR(n), or a conversion to utf8mb4.
    Char(Option<u32>),
    /// BINARY(n), or a conversion to binary.
    Binary(Option<u32>),
}

impl Target {
    /// The declared kind a result column of this cast takes.
    pub(crate) fn kind(self) -> DeclKind {
        match self {
            Target::Date => DeclKind::Date,
            Target::DateTime(fsp) => DeclKind::DateTime {
                mysql: mysql_type::DATETIME,
                fsp,
            },
            Target::Time(fsp) => DeclKind::Time { fsp },
            Target::Signed => DeclKind::Int {
                mysql: mysql_type::LONGLONG,
                length: 21,
                unsigned: false,
                min: i64::MIN,
                max: i64::MAX as u64,
            },
            Target::Unsigned => DeclKind::Int {
                mysql: mysql_type::LONGLONG,
                length: 20,
                unsigned: true,
                min: 0,
                max: u64::MAX,
            },
            Target::Decimal(precision, scale) => DeclKind::Decimal {
                precision,
                scale: scale as u8,
            },
            Target::Char(n) => DeclKind::Text {
                mysql: mysql_type::VAR_STRING,
                max_chars: n.map(u64::from),
                max_bytes: n.map_or(4_294_967_295, |n| u64::from(n) * 4),
                pad: false,
                json: false,
            },
            Target::Binary(n) => DeclKind::Binary {
                mysql: mysql_type::VAR_STRING,
                max_bytes: n.map_or(4_294_967_295, u64::from),
                fixed: None,
            },
        }
    }

    /// The SQL call of this cast's function on `arg`.
    fn call(self, arg: &str, mode: i64) -> String {
        let length = |n: Option<u32>| n.map_or(-1, i64::from);
        match self {
            Target::Date => format!("xrpc_cast_date({arg}, {mode})"),
            Target::DateTime(fsp) => format!("xrpc_cast_datetime({arg}, {fsp}, {mode})"),
            Target::Time(fsp) => format!("xrpc_cast_time({arg}, {fsp}, {mode})"),
            Target::Signed => format!("xrpc_cast_signed({arg}, {mode})"),
            Target::Unsigned => format!("xrpc_cast_unsigned({arg}, {mode})"),
            Target::Decimal(p, s) => format!("xrpc_cast_decimal({arg}, {p}, {s}, {mode})"),
            Target::Char(n) => format!("xrpc_cast_char({arg}, {}, {mode})", length(n)),
            Target::Binary(n) => format!("xrpc_cast_binary({arg}, {}, {mode})", length(n)),
        }
    }
}

/// The type a top-level result column of a cast takes (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ColumnHint {
    /// Which column.
    pub(crate) at: HintAt,
    /// The kind its values are read as.
    /// `None`: the column keeps its type, only its name is MySQL's.
    pub(crate) kind: Option<DeclKind>,
    /// The column's name when the item has no alias: the cast as written.
    pub(crate) name: Option<String>,
}

/// Where a hinted column is in the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HintAt {
    /// Counted from the first column (0-based).
    Start(usize),
    /// Counted from the last column (0 is the last).
    End(usize),
}

impl HintAt {
    /// The column index in a result of `width` columns.
    pub(crate) fn index(self, width: usize) -> Option<usize> {
        match self {
            HintAt::Start(i) => (i < width).then_some(i),
            HintAt::End(i) => width.checked_sub(i + 1),
        }
    }
}

/// Applies hints to a result's columns: a hinted column without a declared type takes the
/// cast's kind, and its name when the item had no alias. Returns the indexes changed.
pub(crate) fn apply_hints(
    hints: &[ColumnHint],
    names: &mut [String],
    kinds: &mut [DeclKind],
) -> Vec<usize> {
    let mut changed = Vec::new();
    for hint in hints {
        let Some(index) = hint.at.index(kinds.len()) else {
            continue;
        };
        if !matches!(kinds[index], DeclKind::Runtime) {
            continue;
        }
        if let Some(name) = &hint.name {
            names[index].clone_from(name);
        }
        if let Some(kind) = hint.kind {
            kinds[index] = kind;
            changed.push(index);
        }
    }
    changed
}

/// A statement with its casts rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rewritten {
    pub(crate) sql: String,
    pub(crate) hints: Vec<ColumnHint>,
}

/// Words after `CAST(… AS` that this module implements.
fn parse_target(sql: &str, toks: &[Token]) -> Result<Option<Target>, SqlError> {
    let word = |t: &Token| (t.tok == Tok::Word).then(|| sql[t.start..t.end].to_ascii_uppercase());
    let Some(head) = toks.first().and_then(word) else {
        return Ok(None);
    };
    // `(n)` or `(p, s)` after the head.
    let mut args: Vec<u32> = Vec::new();
    let mut rest = &toks[1..];
    if rest.first().map(|t| t.tok) == Some(Tok::Punct(b'(')) {
        let close = rest
            .iter()
            .position(|t| t.tok == Tok::Punct(b')'))
            .ok_or_else(|| parse_error(sql, toks))?;
        for t in &rest[1..close] {
            match t.tok {
                Tok::Number => args.push(
                    sql[t.start..t.end]
                        .parse()
                        .map_err(|_| parse_error(sql, toks))?,
                ),
                Tok::Punct(b',') => {}
                _ => return Err(parse_error(sql, toks)),
            }
        }
        rest = &rest[close + 1..];
    }
    let tail: Vec<String> = rest.iter().filter_map(word).collect();
    let tail: Vec<&str> = tail.iter().map(String::as_str).collect();
    let fsp = |args: &[u32]| -> Result<u32, SqlError> {
        match args {
            [] => Ok(0),
            [n] if *n <= 6 => Ok(*n),
            [n] => Err(SqlError::new(
                &codes::PARSE_ERROR,
                format!("Too big precision {n} specified for 'CAST'. Maximum is 6"),
            )),
            _ => Err(parse_error(sql, toks)),
        }
    };
    let target = match (head.as_str(), tail.as_slice()) {
        ("DATE", []) if args.is_empty() => Target::Date,
        ("DATETIME", []) => Target::DateTime(fsp(&args)?),
        ("TIME", []) => Target::Time(fsp(&args)?),
        ("SIGNED", [] | ["INT" | "INTEGER"]) if args.is_empty() => Target::Signed,
        ("UNSIGNED", [] | ["INT" | "INTEGER"]) if args.is_empty() => Target::Unsigned,
        ("DECIMAL", []) => {
            let (p, s) = match args.as_slice() {
                [] => (10, 0),
                [p] => (*p, 0),
                [p, s] => (*p, *s),
                _ => return Err(parse_error(sql, toks)),
            };
            if p > 65 || s > 30 || s > p || p == 0 {
                return Err(SqlError::new(
                    &codes::PARSE_ERROR,
                    format!(
                        "Invalid DECIMAL({p},{s}) for CAST: precision 1 to 65, scale 0 to 30 \
                         and at most the precision"
                    ),
                ));
            }
            Target::Decimal(p, s)
        }
        ("CHAR" | "NCHAR", tail) if args.len() <= 1 => {
            // CHAR(n) CHARACTER SET utf8mb4 / ASCII / UNICODE: the node's text is utf8mb4.
            match tail {
                [] | ["CHARACTER", "SET", "UTF8MB4" | "UTF8" | "UTF8MB3"] | ["UNICODE"] => {
                    Target::Char(args.first().copied())
                }
                ["CHARACTER", "SET", "BINARY"] => Target::Binary(args.first().copied()),
                _ => return Err(unsupported(&format!("CAST … AS CHAR {}", tail.join(" ")))),
            }
        }
        ("BINARY", []) if args.len() <= 1 => Target::Binary(args.first().copied()),
        _ => return Ok(None),
    };
    Ok(Some(target))
}

fn parse_error(sql: &str, toks: &[Token]) -> SqlError {
    let near = toks.first().map_or("", |t| &sql[t.start..]);
    SqlError::new(
        &codes::PARSE_ERROR,
        format!(
            "You have an error in your SQL syntax near '{}'",
            near.chars().take(40).collect::<String>()
        ),
    )
}

fn unsupported(what: &str) -> SqlError {
    SqlError::new(
        &codes::NOT_SUPPORTED_YET,
        format!("This version doesn't yet support '{what}' on the SQLite engine"),
    )
}

/// Whether `sql` may hold a cast (cheap test before tokenising).
fn may_cast(sql: &str) -> bool {
    use xrpc_engine::lex::contains_ignore_case;
    contains_ignore_case(sql, "cast") || contains_ignore_case(sql, "convert")
}

/// Rewrites the statement's casts into function calls and finds the result columns they type
/// (see the module docs). `Ok(None)` when there is nothing to rewrite.
pub(crate) fn rewrite(sql: &str) -> Result<Option<Rewritten>, SqlError> {
    if !may_cast(sql) {
        return Ok(None);
    }
    let Some(toks) = tokens(sql) else {
        return Ok(None);
    };
    let first = toks
        .first()
        .filter(|t| t.tok == Tok::Word)
        .map(|t| sql[t.start..t.end].to_ascii_uppercase());
    if matches!(first.as_deref(), Some("CREATE" | "ALTER")) {
        return Ok(None);
    }
    let write = matches!(first.as_deref(), Some("INSERT" | "REPLACE" | "UPDATE"));
    let plan = plan_temporal_uses(sql, &toks)?;
    let mut out = String::with_capacity(sql.len() + 32);
    let mut changed = false;
    emit(
        sql,
        &toks,
        0,
        toks.len(),
        write,
        &plan,
        &mut out,
        &mut changed,
    )?;
    if !changed {
        return Ok(None);
    }
    // Keep what precedes the first token and follows the last (comments, spaces).
    let lead = toks.first().map_or(0, |t| t.start);
    let trail = toks.last().map_or(sql.len(), |t| t.end);
    let rewritten = format!("{}{out}{}", &sql[..lead], &sql[trail..]);
    Ok(Some(Rewritten {
        sql: rewritten,
        hints: hints(sql, &toks)?,
    }))
}

/// The column hints of a statement that has no cast to rewrite but other rewritten items
/// (`arith`): their names as written, and the types of literal divisions.
pub(crate) fn column_hints(sql: &str) -> Result<Vec<ColumnHint>, SqlError> {
    match tokens(sql) {
        Some(toks) => hints(sql, &toks),
        None => Ok(Vec::new()),
    }
}

/// The index of the `)` closing the `(` at `open`.
fn closing(toks: &[Token], open: usize, hi: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().take(hi).skip(open) {
        match t.tok {
            Tok::Punct(b'(') => depth += 1,
            Tok::Punct(b')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A parsed cast: tokens of its argument and its target.
struct CastAt {
    /// Token range of the argument.
    arg: (usize, usize),
    /// `None`: a cast SQLite answers as MySQL does (`CAST(x AS INTEGER)`), kept.
    target: Option<Target>,
    /// The `)` ending the cast.
    close: usize,
}

/// The cast starting at token `i` (`CAST` or `CONVERT` followed by `(`), if it is one.
fn cast_at(sql: &str, toks: &[Token], i: usize, hi: usize) -> Result<Option<CastAt>, SqlError> {
    let t = &toks[i];
    let name = &sql[t.start..t.end];
    let is_cast = name.eq_ignore_ascii_case("CAST");
    if t.tok != Tok::Word
        || !(is_cast || name.eq_ignore_ascii_case("CONVERT"))
        || toks.get(i + 1).map(|t| t.tok) != Some(Tok::Punct(b'('))
        || (i > 0 && toks[i - 1].tok == Tok::Punct(b'.'))
    {
        return Ok(None);
    }
    let close = closing(toks, i + 1, hi).ok_or_else(|| parse_error(sql, &toks[i..]))?;
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    // The separator at depth 1: AS for CAST, `,` or USING for CONVERT.
    let mut depth = 0usize;
    let mut sep = None;
    for (j, t) in toks.iter().enumerate().take(close).skip(i + 1) {
        match t.tok {
            Tok::Punct(b'(') => depth += 1,
            Tok::Punct(b')') => depth -= 1,
            _ if depth == 1 => {
                let hit = if is_cast {
                    word(t, "AS")
                } else {
                    t.tok == Tok::Punct(b',') || word(t, "USING")
                };
                if hit {
                    sep = Some(j);
                }
            }
            _ => {}
        }
    }
    let Some(sep) = sep else {
        return Err(parse_error(sql, &toks[i..]));
    };
    let arg = (i + 2, sep);
    if arg.0 >= arg.1 {
        return Err(parse_error(sql, &toks[i..]));
    }
    let target = if word(&toks[sep], "USING") {
        let cs = toks
            .get(sep + 1)
            .filter(|_| sep + 2 == close)
            .map(|t| {
                sql[t.start..t.end]
                    .trim_matches(['\'', '`', '"'])
                    .to_ascii_lowercase()
            })
            .ok_or_else(|| parse_error(sql, &toks[i..]))?;
        match cs.as_str() {
            "utf8mb4" | "utf8" | "utf8mb3" => Some(Target::Char(None)),
            "binary" => Some(Target::Binary(None)),
            other => return Err(unsupported(&format!("CONVERT … USING {other}"))),
        }
    } else {
        parse_target(sql, &toks[sep + 1..close])?
    };
    Ok(Some(CastAt { arg, target, close }))
}

/// Writes tokens `lo..hi` of `sql` to `out` with their casts rewritten (the text between
/// tokens kept).
#[allow(clippy::too_many_arguments)]
fn emit(
    sql: &str,
    toks: &[Token],
    lo: usize,
    hi: usize,
    write: bool,
    plan: &TemporalPlan,
    out: &mut String,
    changed: &mut bool,
) -> Result<(), SqlError> {
    let mut i = lo;
    while i < hi {
        if i > lo {
            out.push_str(&sql[toks[i - 1].end..toks[i].start]);
        }
        let Some(cast) = cast_at(sql, toks, i, hi)? else {
            match plan.literals.iter().find(|(at, _)| *at == i) {
                Some((_, replacement)) => {
                    out.push_str(replacement);
                    *changed = true;
                }
                None => out.push_str(&sql[toks[i].start..toks[i].end]),
            }
            i += 1;
            continue;
        };
        let (a, b) = cast.arg;
        let mut arg = String::new();
        emit(sql, toks, a, b, write, plan, &mut arg, changed)?;
        match cast.target {
            None if sql[toks[i].start..toks[i].end].eq_ignore_ascii_case("CAST") => {
                // SQLite's own CAST; only its argument may change.
                out.push_str(&sql[toks[i].start..toks[a].start]);
                out.push_str(&arg);
                out.push_str(&sql[toks[b - 1].end..toks[cast.close].end]);
            }
            None => {
                // CONVERT(x, type) with a type SQLite's CAST reads as MySQL does.
                let ty = &sql[toks[b + 1].start..toks[cast.close - 1].end];
                let _ = write!(out, "CAST({arg} AS {ty})");
                *changed = true;
            }
            Some(target) => {
                let mut mode = if write { MODE_WRITE } else { 0 };
                if plan.numeric.contains(&i) {
                    mode |= MODE_NUMERIC;
                }
                if plan.truncated.contains(&i) {
                    mode |= MODE_TRUNCATE;
                }
                let literal = &toks[a..b];
                let signed_number = match literal {
                    [n] if n.tok == Tok::Number => Some(&sql[n.start..n.end]),
                    [s, n] if matches!(s.tok, Tok::Punct(b'-' | b'+')) && n.tok == Tok::Number => {
                        Some(&sql[s.start..n.end])
                    }
                    _ => None,
                };
                let arg = match (literal, signed_number) {
                    ([s], _) if s.tok == Tok::String => {
                        mode |= MODE_STRING;
                        arg
                    }
                    // A DECIMAL literal (a point, no exponent, not hex): its exact text.
                    (_, Some(n))
                        if n.contains('.') && !n.contains(['e', 'E']) && !n.contains("0x") =>
                    {
                        mode |= MODE_DECIMAL;
                        format!("'{}'", n.replace(' ', ""))
                    }
                    // An integer literal beyond 64-bit signed is exact as a DECIMAL too.
                    (_, Some(n))
                        if n.bytes().filter(u8::is_ascii_digit).count() > 18
                            && !n.contains(['e', 'E', 'x', 'X']) =>
                    {
                        mode |= MODE_DECIMAL;
                        format!("'{}'", n.replace(' ', ""))
                    }
                    _ => arg,
                };
                out.push_str(&target.call(&arg, mode));
                *changed = true;
            }
        }
        i = cast.close + 1;
    }
    Ok(())
}

/// How the statement uses its DATE, DATETIME and TIME casts (see [`plan_temporal_uses`]).
#[derive(Debug, Default)]
struct TemporalPlan {
    /// Token indexes of the casts whose value is used as a number.
    numeric: Vec<usize>,
    /// Those of them whose number is read as an integer (truncated).
    truncated: Vec<usize>,
    /// Literal tokens compared with a temporal cast, replaced by the cast's reading of them.
    literals: Vec<(usize, String)>,
}

/// Functions whose arguments MySQL reads as numbers: a temporal argument is its numeric form
/// there (`SUM(CAST(x AS DATE))` adds 20240229, not 2024).
const NUMERIC_FUNCTIONS: &[&str] = &[
    "SUM", "AVG", "TOTAL", "ABS", "ROUND", "CEIL", "CEILING", "FLOOR", "SIGN", "SQRT", "POW",
    "POWER", "EXP", "LN", "LOG", "LOG10", "LOG2", "MOD", "TRUNCATE", "TRUNC",
];

/// Decides, for each DATE, DATETIME and TIME cast, what SQLite must be given so that the
/// expression around it has MySQL's value. A function's value is text (`2024-02-29`), which
/// SQLite reads as the number 2024 and compares as text, where MySQL uses the temporal value:
///
/// - As an operand of an arithmetic operator (`+ - * / % DIV MOD & ^ ~`, unary too), or the
///   whole argument of a numeric function (`SUM`, `ABS`, …), or of a CAST to SIGNED, UNSIGNED
///   (then without its fraction, as MariaDB truncates it) or DECIMAL, the cast gives MySQL's
///   numeric form: `YYYYMMDD`, `YYYYMMDDhhmmss[.f]`,
///   `[-]hhmmss[.f]` (a DATETIME with 2 or more fraction digits is refused: a 64-bit double
///   cannot hold its numeric form exactly, MySQL's is a DECIMAL).
/// - Compared (`= <> != < > <= >=`) with a string or integer literal, the literal is replaced
///   by the cast's reading of it (`CAST(x AS DATE) = '2024-2-9'` compares with `'2024-02-09'`),
///   as MySQL converts the constant; a literal that is not a valid value of the type is refused.
///   DATE and DATETIME compare as canonical text (which orders as time does); TIME compares
///   as its numeric form (text would put `-2:00` after `-1:00`). Compared with another cast
///   to the same type it stays as it is; compared with anything else (a column, an
///   expression), or under IN, BETWEEN or LIKE, it is refused with 1235: the node cannot tell
///   what SQLite would compare it with.
/// - A TIME cast as the argument of a DATE or DATETIME cast is refused (MySQL adds the
///   current date).
/// - Anywhere else (the select list, function arguments, CASE, ORDER BY) its value is its text,
///   as MySQL's value printed; a TIME after `BY` (ORDER BY, GROUP BY) is its numeric form, so
///   that it orders as time does.
fn plan_temporal_uses(sql: &str, toks: &[Token]) -> Result<TemporalPlan, SqlError> {
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    let punct = |t: &Token, set: &[u8]| matches!(t.tok, Tok::Punct(c) if set.contains(&c));
    let arithmetic = |t: &Token| punct(t, b"+-*/%&^~") || word(t, "DIV") || word(t, "MOD");
    let comparison = |t: &Token| punct(t, b"=<>!");
    let set_op = |t: &Token| {
        ["IN", "BETWEEN", "LIKE", "GLOB", "REGEXP", "RLIKE"]
            .iter()
            .any(|w| word(t, w))
    };
    let temporal = |target: Option<Target>| {
        matches!(
            target,
            Some(Target::Date | Target::DateTime(_) | Target::Time(_))
        )
    };
    // A word before `(` names a function unless it is one of these.
    let is_function_name = |t: &Token| {
        t.tok == Tok::QuotedIdent || t.tok == Tok::Word && !CLAUSE_WORDS.iter().any(|w| word(t, w))
    };
    // `SET c = CAST(…)` in an UPDATE (or an upsert) assigns rather than compares.
    let assigns = toks.iter().any(|t| word(t, "UPDATE")) && toks.iter().any(|t| word(t, "SET"));
    let mut plan = TemporalPlan::default();
    // Every cast, nested ones too: (start, close, target).
    let mut casts = Vec::new();
    for i in 0..toks.len() {
        if let Some(cast) = cast_at(sql, toks, i, toks.len())? {
            casts.push((i, cast));
        }
    }
    let whole_cast_at = |a: usize, b: usize| {
        casts
            .iter()
            .find(|(start, c)| *start == a && c.close + 1 == b)
            .and_then(|(_, c)| c.target)
    };
    let refuse = |what: &str, start: usize, close: usize| {
        unsupported(&format!(
            "{} {what}",
            &sql[toks[start].start..toks[close].end]
        ))
    };
    for (start, cast) in &casts {
        let (start, close) = (*start, cast.close);
        let Some(target) = cast.target else { continue };
        // A cast of a cast.
        let (a, b) = cast.arg;
        if let Some(inner) = whole_cast_at(a, b).filter(|&t| temporal(Some(t))) {
            match (inner, target) {
                (Target::Time(_), Target::Date | Target::DateTime(_)) => {
                    return Err(refuse(
                        "(MySQL gives the current date with the time)",
                        start,
                        close,
                    ));
                }
                (_, Target::Signed | Target::Unsigned) => {
                    plan.numeric.push(a);
                    plan.truncated.push(a);
                }
                (_, Target::Decimal(..)) => plan.numeric.push(a),
                _ => {}
            }
        }
        if !temporal(Some(target)) {
            continue;
        }
        // Step out of parentheses around the cast alone: `(CAST(x AS DATE)) + 0`.
        let (mut first, mut last) = (start, close);
        while first > 0
            && last + 1 < toks.len()
            && toks[first - 1].tok == Tok::Punct(b'(')
            && toks[last + 1].tok == Tok::Punct(b')')
            && !(first >= 2 && is_function_name(&toks[first - 2]))
        {
            first -= 1;
            last += 1;
        }
        let prev = first.checked_sub(1).map(|k| &toks[k]);
        let next = toks.get(last + 1);
        let numeric = prev.is_some_and(&arithmetic) || next.is_some_and(&arithmetic);
        // The whole argument of a function: the word before the enclosing `(`.
        let function = (prev.is_some_and(|t| punct(t, b"(,"))
            && next.is_some_and(|t| punct(t, b"),")))
        .then(|| {
            let mut depth = 0i32;
            let mut k = first;
            while k > 0 {
                k -= 1;
                match toks[k].tok {
                    Tok::Punct(b')') => depth += 1,
                    Tok::Punct(b'(') if depth == 0 => {
                        return k
                            .checked_sub(1)
                            .filter(|&f| toks[f].tok == Tok::Word)
                            .map(|f| sql[toks[f].start..toks[f].end].to_ascii_uppercase());
                    }
                    Tok::Punct(b'(') => depth -= 1,
                    _ => {}
                }
            }
            None
        })
        .flatten();
        let in_numeric_function = function
            .as_deref()
            .is_some_and(|f| NUMERIC_FUNCTIONS.contains(&f));
        let is_time = matches!(target, Target::Time(_));
        if numeric || in_numeric_function {
            if matches!(target, Target::DateTime(fsp) if fsp >= 2) {
                return Err(refuse(
                    "used as a number (MySQL's value is a DECIMAL of 16 or more digits)",
                    start,
                    close,
                ));
            }
            plan.numeric.push(start);
            continue;
        }
        if is_time && prev.is_some_and(|t| word(t, "BY")) {
            plan.numeric.push(start);
            continue;
        }
        let assignment = assigns
            && first >= 3
            && punct(&toks[first - 1], b"=")
            && !comparison(&toks[first - 2])
            && matches!(toks[first - 2].tok, Tok::Word | Tok::QuotedIdent)
            && (word(&toks[first - 3], "SET") || punct(&toks[first - 3], b",."));
        if assignment {
            continue;
        }
        let compared_before = prev.is_some_and(&comparison);
        let compared_after = next.is_some_and(&comparison);
        let between_bound = prev.is_some_and(|t| word(t, "AND"))
            && toks[..first]
                .iter()
                .rev()
                .take(8)
                .any(|t| word(t, "BETWEEN"));
        if between_bound
            || prev.is_some_and(&set_op)
            || next.is_some_and(|t| set_op(t) || word(t, "NOT"))
        {
            return Err(refuse(
                "under IN, BETWEEN or LIKE (SQLite would compare its text)",
                start,
                close,
            ));
        }
        if !(compared_before || compared_after) {
            continue;
        }
        // The operand across the comparison operator(s).
        let across = if compared_before {
            let mut k = first - 1;
            while k > 0 && comparison(&toks[k - 1]) {
                k -= 1;
            }
            // toks[k] is the first operator token; the operand ends at k - 1.
            k.checked_sub(1).map(|end| {
                let mut begin = end;
                if toks[end].tok == Tok::Punct(b')') {
                    // A cast ending here?
                    if let Some((s, _)) = casts.iter().find(|(_, c)| c.close == end) {
                        begin = *s;
                    }
                } else if end >= 1 && punct(&toks[end - 1], b"-+") && toks[end].tok == Tok::Number {
                    begin = end - 1;
                }
                (begin, end)
            })
        } else {
            let mut k = last + 1;
            while k < toks.len() && comparison(&toks[k]) {
                k += 1;
            }
            (k < toks.len()).then(|| {
                let mut end = k;
                if let Some((_, c)) = casts.iter().find(|(s, _)| *s == k) {
                    end = c.close;
                } else if punct(&toks[k], b"-+")
                    && toks.get(k + 1).is_some_and(|t| t.tok == Tok::Number)
                {
                    end = k + 1;
                }
                (k, end)
            })
        };
        // The operand must be alone: nothing binding tighter on its far side.
        let alone = across.filter(|&(begin, end)| {
            let before_ok = begin == 0
                || punct(&toks[begin - 1], b"(,=<>!")
                || matches!(toks[begin - 1].tok, Tok::Word);
            let after_ok = end + 1 >= toks.len()
                || punct(&toks[end + 1], b"),;=<>!")
                || matches!(toks[end + 1].tok, Tok::Word);
            before_ok && after_ok
        });
        let what = "compared with this operand (SQLite would compare its text; compare it with a \
                    literal or with a cast to the same type)";
        let Some((begin, end)) = alone else {
            return Err(refuse(what, start, close));
        };
        if let Some(other) = whole_cast_at(begin, end + 1) {
            if other == target {
                if is_time {
                    plan.numeric.push(start);
                }
                continue;
            }
            return Err(refuse(what, start, close));
        }
        let literal = &sql[toks[begin].start..toks[end].end];
        let input = match (&toks[begin..=end], literal.parse::<i64>()) {
            ([t], _) if t.tok == Tok::String => {
                let text = &literal[1..literal.len() - 1];
                if text.contains(['\'', '\\']) {
                    return Err(refuse(what, start, close));
                }
                Input::Str(text.as_bytes(), false)
            }
            (_, Ok(n)) => Input::Int(n),
            _ => return Err(refuse(what, start, close)),
        };
        // Read at full precision: MySQL compares with the constant's own precision, so a
        // constant with more (a time compared with a DATE, digits beyond the fsp) cannot be
        // replaced by the cast's reading of it.
        let (answer, kept) = match target {
            Target::Date => (to_datetime(input, Some(6))?, 10),
            Target::DateTime(fsp) => (
                to_datetime(input, Some(6))?,
                19 + fsp as usize + usize::from(fsp > 0),
            ),
            Target::Time(_) => (to_time(input, 6)?, 0),
            _ => unreachable!("temporal targets only"),
        };
        // A constant read with a warning (trailing text) is compared as read, as MySQL does.
        let answer = match answer {
            (SqlValue::Text(t), _) => {
                let (head, rest) = if is_time {
                    let dot = t.find('.').unwrap_or(t.len());
                    let fsp = match target {
                        Target::Time(fsp) => fsp as usize,
                        _ => 0,
                    };
                    let cut = (dot + usize::from(fsp > 0) + fsp).min(t.len());
                    t.split_at(cut)
                } else {
                    t.split_at(kept.min(t.len()))
                };
                let more_precise = rest.bytes().any(|c| c.is_ascii_digit() && c != b'0');
                if more_precise {
                    return Err(refuse(
                        "compared with a literal more precise than the cast (MySQL compares \
                         at the literal's precision)",
                        start,
                        close,
                    ));
                }
                (SqlValue::Text(head.to_owned()), None)
            }
            other => other,
        };
        let replacement = match answer {
            (SqlValue::Text(t), None) if is_time => match numeric_form(&t) {
                SqlValue::Integer(i) => i.to_string(),
                SqlValue::Real(f) => format!("{f:?}"),
                _ => return Err(refuse(what, start, close)),
            },
            (SqlValue::Text(t), None) => format!("'{t}'"),
            _ => {
                return Err(refuse(
                    "compared with a literal that is not a valid value of its type",
                    start,
                    close,
                ));
            }
        };
        if is_time {
            plan.numeric.push(start);
        }
        if begin == end {
            plan.literals.push((begin, replacement));
        } else {
            // A signed number: the sign is a token of its own.
            plan.literals.push((begin, String::new()));
            plan.literals.push((end, replacement));
        }
    }
    Ok(plan)
}

/// MySQL's numeric form of a DATE, DATETIME or TIME cast's text: `2024-02-29` → 20240229,
/// `2024-02-29 10:11:12.5` → 20240229101112.5, `-10:11:12` → -101112.
fn numeric_form(text: &str) -> SqlValue {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits: String = int.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { -1 } else { 1 };
    if frac.is_empty() {
        SqlValue::Integer(sign * digits.parse::<i64>().unwrap_or(0))
    } else {
        let f: f64 = format!("{digits}.{frac}").parse().unwrap_or(0.0);
        SqlValue::Real(if negative { -f } else { f })
    }
}

/// The result columns typed by a whole cast in the top-level select list.
///
/// In a compound SELECT (UNION, EXCEPT, INTERSECT) the columns take the first SELECT's names, as
/// in MySQL, and a cast's type when every SELECT has a cast to the same type there (otherwise
/// MySQL's type is a mix, and the column is typed from its values).
fn hints(sql: &str, toks: &[Token]) -> Result<Vec<ColumnHint>, SqlError> {
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    let mut depth = 0i32;
    let mut branches = Vec::new();
    let mut from = 0;
    let mut i = 0;
    while i < toks.len() {
        match toks[i].tok {
            Tok::Punct(b'(') => depth += 1,
            Tok::Punct(b')') => depth -= 1,
            _ if depth == 0
                && ["UNION", "EXCEPT", "INTERSECT"]
                    .iter()
                    .any(|w| word(&toks[i], w)) =>
            {
                branches.push((from, i));
                from = i + 1;
                if toks
                    .get(from)
                    .is_some_and(|t| word(t, "ALL") || word(t, "DISTINCT"))
                {
                    from += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    branches.push((from, toks.len()));
    let (first, rest) = branches.split_first().expect("one branch at least");
    let mut out = select_hints(sql, &toks[first.0..first.1])?;
    if rest.is_empty() {
        return Ok(out);
    }
    let others = rest
        .iter()
        .map(|&(a, b)| select_hints(sql, &toks[a..b]))
        .collect::<Result<Vec<_>, _>>()?;
    for hint in &mut out {
        let agreed = others.iter().all(|branch| {
            branch
                .iter()
                .any(|h| h.at == hint.at && h.kind.is_some() && h.kind == hint.kind)
        });
        if !agreed {
            hint.kind = None;
        }
    }
    Ok(out)
}

/// [`hints`] for one SELECT.
fn select_hints(sql: &str, toks: &[Token]) -> Result<Vec<ColumnHint>, SqlError> {
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    let Some((items, end)) = select_items(sql, toks) else {
        return Ok(Vec::new());
    };
    let derived = derived_tables(sql, toks, end)?;
    // `SELECT * FROM (SELECT CAST(…) …) t`: the derived table's columns as they are.
    if let ([(a, b)], [only]) = (&items[..], &derived[..])
        && b - a == 1
        && toks[*a].tok == Tok::Punct(b'*')
        && only.only_source
    {
        return Ok(only
            .hints
            .iter()
            .filter(|h| h.kind.is_some())
            .map(|h| ColumnHint {
                at: h.at,
                kind: h.kind,
                name: None,
            })
            .collect());
    }
    let star = |(a, b): (usize, usize)| {
        b > a
            && toks[b - 1].tok == Tok::Punct(b'*')
            && (b - a == 1 || toks[b - 2].tok == Tok::Punct(b'.'))
    };
    let first_star = items.iter().position(|&it| star(it));
    let last_star = items.iter().rposition(|&it| star(it));
    let mut out = Vec::new();
    for (n, &(a, b)) in items.iter().enumerate() {
        let at = match (first_star, last_star) {
            (None, _) => HintAt::Start(n),
            (Some(f), _) if n < f => HintAt::Start(n),
            (_, Some(l)) if n > l => HintAt::End(items.len() - 1 - n),
            _ => continue,
        };
        if a >= b {
            continue;
        }
        // A column of a derived table that is a cast there takes the cast's type.
        if let Some(kind) = derived_reference(sql, &toks[a..b], &derived) {
            out.push(ColumnHint {
                at,
                kind: Some(kind),
                name: None,
            });
            continue;
        }
        // A whole cast, alone or with an alias: its column takes the target's type.
        let whole = cast_at(sql, toks, a, b)?.and_then(|cast| {
            let target = cast.target?;
            let name = match &toks[cast.close + 1..b] {
                [] => Some(sql[toks[a].start..toks[cast.close].end].to_owned()),
                [alias] if alias.tok != Tok::Punct(b'.') => None,
                [as_, _] if word(as_, "AS") => None,
                _ => return None,
            };
            Some((target, name))
        });
        // A scalar subquery whose one column is a whole cast: `(SELECT CAST(x AS DATE) …)`.
        let subquery = (toks[a].tok == Tok::Punct(b'(')
            && toks.get(a + 1).is_some_and(|t| word(t, "SELECT")))
        .then(|| closing(toks, a, b))
        .flatten()
        .filter(|&close| match &toks[close + 1..b] {
            [] => true,
            [alias] => alias.tok != Tok::Punct(b'.'),
            [as_, _] => word(as_, "AS"),
            _ => false,
        });
        if let Some(close) = subquery {
            let inner = select_hints(sql, &toks[a + 1..close])?;
            if let Some(kind) = inner
                .iter()
                .find(|h| h.at == HintAt::Start(0))
                .and_then(|h| h.kind)
            {
                out.push(ColumnHint {
                    at,
                    kind: Some(kind),
                    name: (close + 1 == b).then(|| sql[toks[a].start..toks[close].end].to_owned()),
                });
                continue;
            }
        }
        let Some((target, name)) = whole else {
            // An item with a cast or arithmetic the node rewrites inside: SQLite would name it
            // by the rewritten text; MySQL names it as written. A division of literals takes
            // MySQL's type (`arith`).
            let aliased = has_alias(sql, &toks[a..b]);
            let expr_end = if aliased {
                b - if b >= a + 2 && word(&toks[b - 2], "AS") {
                    2
                } else {
                    1
                }
            } else {
                b
            };
            let kind = super::arith::literal_kind(sql, &toks[a..expr_end]);
            let rewritten = (a..b).any(|i| {
                cast_at(sql, toks, i, b).ok().flatten().is_some()
                    || matches!(
                        toks[i].tok,
                        Tok::Punct(
                            b'/' | b'%' | b'+' | b'-' | b'*' | b'|' | b'&' | b'=' | b'<' | b'>'
                        )
                    )
                    || word(&toks[i], "DIV")
                    || word(&toks[i], "MOD")
            });
            if kind.is_some() || rewritten && !aliased {
                out.push(ColumnHint {
                    at,
                    kind,
                    name: (!aliased).then(|| sql[toks[a].start..toks[b - 1].end].to_owned()),
                });
            }
            continue;
        };
        out.push(ColumnHint {
            at,
            kind: Some(target.kind()),
            name,
        });
    }
    Ok(out)
}

/// A derived table (`FROM (SELECT …) t`) of a SELECT: its alias, its columns' names with the
/// kinds their casts give them, and those casts' hints.
struct Derived {
    alias: Option<String>,
    columns: Vec<(String, Option<DeclKind>)>,
    hints: Vec<ColumnHint>,
    /// The FROM clause has no other table.
    only_source: bool,
}

/// An identifier without its quotes.
fn unquoted(sql: &str, t: &Token) -> String {
    sql[t.start..t.end]
        .trim_matches(['`', '"', '[', ']'])
        .to_owned()
}

/// The derived tables of the FROM clause starting at token `from` (see [`Derived`]).
fn derived_tables(sql: &str, toks: &[Token], from: usize) -> Result<Vec<Derived>, SqlError> {
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    let mut out = Vec::new();
    if !toks.get(from).is_some_and(|t| word(t, "FROM")) {
        return Ok(out);
    }
    const CLAUSE: &[&str] = &["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW"];
    const NOT_ALIAS: &[&str] = &[
        "WHERE",
        "GROUP",
        "HAVING",
        "ORDER",
        "LIMIT",
        "WINDOW",
        "JOIN",
        "LEFT",
        "RIGHT",
        "INNER",
        "OUTER",
        "CROSS",
        "NATURAL",
        "FULL",
        "ON",
        "USING",
        "STRAIGHT_JOIN",
    ];
    let mut sources = 0;
    let mut k = from + 1;
    while k < toks.len() {
        let t = &toks[k];
        if CLAUSE.iter().any(|w| word(t, w)) || t.tok == Tok::Punct(b';') {
            break;
        }
        if t.tok == Tok::Punct(b',') || word(t, "JOIN") {
            sources += 1;
        }
        if t.tok != Tok::Punct(b'(') {
            k += 1;
            continue;
        }
        let Some(close) = closing(toks, k, toks.len()) else {
            break;
        };
        if toks.get(k + 1).is_some_and(|t| word(t, "SELECT")) {
            let inner = &toks[k + 1..close];
            let mut alias_at = close + 1;
            if toks.get(alias_at).is_some_and(|t| word(t, "AS")) {
                alias_at += 1;
            }
            let alias = toks
                .get(alias_at)
                .filter(|t| {
                    matches!(t.tok, Tok::Word | Tok::QuotedIdent)
                        && !NOT_ALIAS.iter().any(|w| word(t, w))
                })
                .map(|t| unquoted(sql, t));
            let hints = select_hints(sql, inner)?;
            let mut columns = Vec::new();
            if let Some((items, _)) = select_items(sql, inner) {
                for (n, &(a, b)) in items.iter().enumerate() {
                    if a >= b {
                        continue;
                    }
                    let item = &inner[a..b];
                    // An alias, a bare name or the column of `t.c`; else the text.
                    let named = has_alias(sql, item)
                        || item.len() == 1
                        || item.len() >= 3 && item[item.len() - 2].tok == Tok::Punct(b'.');
                    let name = if named {
                        unquoted(sql, &item[item.len() - 1])
                    } else {
                        sql[item[0].start..item[item.len() - 1].end].to_owned()
                    };
                    let kind = hints
                        .iter()
                        .find(|h| h.at == HintAt::Start(n))
                        .and_then(|h| h.kind);
                    columns.push((name, kind));
                }
            }
            out.push(Derived {
                alias,
                columns,
                hints,
                only_source: false,
            });
        }
        k = close + 1;
    }
    if sources == 0 {
        for derived in &mut out {
            derived.only_source = true;
        }
    }
    Ok(out)
}

/// The kind a select-list item takes when it names a derived table's cast column (`d`,
/// `t.d`, with or without an alias); `None` otherwise, or when the name is ambiguous.
fn derived_reference(sql: &str, item: &[Token], derived: &[Derived]) -> Option<DeclKind> {
    if derived.is_empty() {
        return None;
    }
    let item = if has_alias(sql, item) {
        let as_ = item.len() >= 2
            && item[item.len() - 2].tok == Tok::Word
            && sql[item[item.len() - 2].start..item[item.len() - 2].end].eq_ignore_ascii_case("AS");
        &item[..item.len() - if as_ { 2 } else { 1 }]
    } else {
        item
    };
    let ident = |t: &Token| matches!(t.tok, Tok::Word | Tok::QuotedIdent);
    let (table, column) = match item {
        [c] if ident(c) => (None, unquoted(sql, c)),
        [t, dot, c] if ident(t) && dot.tok == Tok::Punct(b'.') && ident(c) => {
            (Some(unquoted(sql, t)), unquoted(sql, c))
        }
        _ => return None,
    };
    let mut found = derived
        .iter()
        .filter(|d| match &table {
            Some(t) => d
                .alias
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(t)),
            None => true,
        })
        .flat_map(|d| d.columns.iter())
        .filter(|(name, _)| name.eq_ignore_ascii_case(&column));
    let (_, kind) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    *kind
}

// ---------------------------------------------------------------------------------------------
// The conversions.

/// How loud MySQL is about a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// Never an error.
    Note,
    /// An error in a write statement under strict mode.
    Warning,
}

/// What MySQL would report next to a cast's value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Warn {
    level: Level,
    code: &'static ErrorCode,
    message: String,
    /// A second warning MySQL reports with this one (a cut string that was also negative).
    next: Option<Box<Warn>>,
}

impl Warn {
    fn warning(code: &'static ErrorCode, message: String) -> Self {
        Self {
            level: Level::Warning,
            code,
            message,
            next: None,
        }
    }

    fn note(code: &'static ErrorCode, message: String) -> Self {
        Self {
            level: Level::Note,
            code,
            message,
            next: None,
        }
    }
}

/// A cast's answer: its value and what MySQL would warn, or a refusal.
type Answer = Result<(SqlValue, Option<Warn>), SqlError>;

/// A cast's argument as MySQL would see it.
#[derive(Debug, Clone, Copy)]
enum Input<'a> {
    Int(i64),
    Double(f64),
    /// A DECIMAL literal's text.
    Decimal(&'a str),
    /// A string; `typed_unknown` when it came from a column or an expression (it may be a
    /// DECIMAL or temporal column's stored text).
    Str(&'a [u8], bool),
}

impl<'a> Input<'a> {
    fn of(value: ValueRef<'a>, mode: i64) -> Option<Self> {
        Some(match value {
            ValueRef::Null => return None,
            ValueRef::Integer(i) => Input::Int(i),
            ValueRef::Real(f) => Input::Double(f),
            ValueRef::Text(t) if mode & MODE_DECIMAL != 0 => {
                Input::Decimal(std::str::from_utf8(t).unwrap_or("0"))
            }
            ValueRef::Text(t) => Input::Str(t, mode & MODE_STRING == 0),
            ValueRef::Blob(b) => Input::Str(b, false),
        })
    }

    /// The value as MySQL quotes it in messages.
    fn shown(self) -> String {
        match self {
            Input::Int(i) => i.to_string(),
            Input::Double(f) => format_double(f),
            Input::Decimal(d) => d.to_owned(),
            Input::Str(s, _) => String::from_utf8_lossy(s).chars().take(64).collect(),
        }
    }
}

fn is_space(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

fn utf8(s: &[u8]) -> Result<&str, SqlError> {
    std::str::from_utf8(s).map_err(|_| unsupported("CAST of bytes that are not UTF-8 text"))
}

/// An exact number's integer part as i128, saturated.
fn int_part(n: &ExactNumber) -> i128 {
    let magnitude = if n.int.len() > 30 {
        i128::MAX / 2
    } else if n.int.is_empty() {
        0
    } else {
        n.int.parse::<i128>().unwrap_or(i128::MAX / 2)
    };
    if n.negative { -magnitude } else { magnitude }
}

/// CAST(… AS SIGNED) or UNSIGNED.
fn to_integer(input: Input<'_>, unsigned: bool) -> Answer {
    let target = if unsigned { "UNSIGNED" } else { "SIGNED" };
    let wrap = |v: i128| -> SqlValue {
        // MySQL reinterprets between the signed and unsigned 64-bit forms.
        let bits = v as u64;
        if unsigned {
            match i64::try_from(bits) {
                Ok(i) => SqlValue::Integer(i),
                Err(_) => SqlValue::Text(bits.to_string()),
            }
        } else {
            SqlValue::Integer(bits as i64)
        }
    };
    let clamp = |v: i128| -> i128 {
        if unsigned {
            v.clamp(0, i128::from(u64::MAX))
        } else {
            v.clamp(i128::from(i64::MIN), i128::from(i64::MAX))
        }
    };
    let overflow = |level: Level, shown: String, what: &str| Warn {
        level,
        code: &codes::CONVERSION_OVERFLOW,
        message: format!("Got overflow when converting '{shown}' to {what}. Value truncated"),
        next: None,
    };
    match input {
        Input::Int(i) => Ok((
            wrap(i128::from(i)),
            complement_note(i128::from(i), unsigned),
        )),
        Input::Double(f) => {
            let r = f.round_ties_even();
            let v = if r.is_nan() { 0 } else { r as i128 };
            let c = clamp(v);
            let warn = (c != v || !f.is_finite())
                .then(|| overflow(Level::Note, input.shown(), &format!("{target} BIGINT")));
            Ok((wrap(c), warn))
        }
        Input::Decimal(text) => {
            let n = strict::parse_exact(text).map_err(|_| unsupported("this DECIMAL literal"))?;
            let integer_literal = !text.contains('.');
            let v = int_part(&n.round(0));
            if integer_literal && (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(&v) {
                // An integer literal beyond BIGINT is BIGINT UNSIGNED in MySQL: it wraps.
                return Ok((wrap(v), complement_note(v, unsigned)));
            }
            let c = clamp(v);
            let warn = (c != v).then(|| {
                overflow(
                    Level::Warning,
                    input.shown(),
                    if unsigned { "UNSIGNED INT" } else { "INT" },
                )
            });
            Ok((wrap(c), warn))
        }
        Input::Str(bytes, typed_unknown) => {
            let s = utf8(bytes)?;
            let (number, rest) = number_prefix(s);
            if typed_unknown {
                // A DECIMAL column's text rounds; a string truncates. Refuse where they differ.
                if let Ok(n) = strict::parse_exact(number)
                    && is_space(rest)
                    && int_part(&n.round(0)) != int_part(&n)
                {
                    return Err(unsupported(&format!(
                        "CAST of the stored text '{s}' AS {target}: MySQL rounds it if the \
                             column is DECIMAL and truncates it if it is a string; cast a string \
                             literal or CAST(x AS DECIMAL(p,s)) first"
                    )));
                }
            }
            // The integer the string starts with: digits only, no fraction or exponent.
            let t = s.trim_start_matches([' ', '\t', '\n', '\r']);
            let b = t.as_bytes();
            let negative = b.first() == Some(&b'-');
            let sign = usize::from(matches!(b.first(), Some(b'-' | b'+')));
            let digits = b[sign..].iter().take_while(|c| c.is_ascii_digit()).count();
            let truncated = |m: String| Warn::warning(&codes::INCORRECT_DATETIME, m);
            let message = format!("Truncated incorrect INTEGER value: '{}'", input.shown());
            if digits == 0 {
                return Ok((SqlValue::Integer(0), Some(truncated(message))));
            }
            let text = &t[sign..sign + digits];
            let after = &t[sign + digits..];
            let (magnitude, too_big) = match text.trim_start_matches('0').parse::<u64>() {
                Ok(m) => (m, false),
                Err(_) if text.trim_start_matches('0').is_empty() => (0, false),
                Err(_) => (u64::MAX, true),
            };
            let mut warn = if !is_space(after) || too_big {
                Some(truncated(message.clone()))
            } else if !after.is_empty() {
                // Trailing spaces are a note; leading ones nothing (MariaDB).
                Some(Warn::note(&codes::INCORRECT_DATETIME, message))
            } else {
                None
            };
            let mut overflowed = too_big;
            let v = if negative {
                let m = i128::from(magnitude);
                let min = i128::from(i64::MIN);
                if -m < min {
                    overflowed = true;
                    warn = Some(truncated(format!(
                        "Truncated incorrect INTEGER value: '{}'",
                        input.shown()
                    )));
                    min
                } else {
                    -m
                }
            } else {
                i128::from(magnitude)
            };
            // `-0` counts as negative for the note, as in MariaDB.
            let signed_as = if negative && v == 0 { -1 } else { v };
            // An overflow is its own warning, without the note (MariaDB).
            let note = if overflowed {
                None
            } else {
                complement_note(signed_as, unsigned)
            };
            let warn = match (warn, note) {
                (Some(mut first), Some(note)) => {
                    first.next = Some(Box::new(note));
                    Some(first)
                }
                (first, note) => first.or(note),
            };
            Ok((wrap(v), warn))
        }
    }
}

/// MySQL's note when a cast reinterprets an integer between its signed and unsigned forms.
fn complement_note(v: i128, unsigned: bool) -> Option<Warn> {
    if unsigned && v < 0 {
        Some(Warn::note(
            &codes::ENGINE_ERROR,
            "Cast to unsigned converted negative integer to it's positive complement".into(),
        ))
    } else if !unsigned && v > i128::from(i64::MAX) {
        Some(Warn::note(
            &codes::ENGINE_ERROR,
            "Cast to signed converted positive out-of-range integer to it's negative complement"
                .into(),
        ))
    } else {
        None
    }
}

/// An exact number for DECIMAL, and what was dropped reading it.
fn exact_input(input: Input<'_>) -> Result<(ExactNumber, Option<Warn>), SqlError> {
    let shown = input.shown();
    let truncated = || {
        Some(Warn::warning(
            &codes::INCORRECT_DATETIME,
            format!("Truncated incorrect DECIMAL value: '{shown}'"),
        ))
    };
    let zero = || strict::parse_exact("0").expect("zero parses");
    Ok(match input {
        Input::Int(i) => (
            strict::parse_exact(&i.to_string()).unwrap_or_else(|_| zero()),
            None,
        ),
        Input::Double(f) if !f.is_finite() => {
            return Err(unsupported("CAST of an infinite DOUBLE"));
        }
        Input::Double(f) => (
            strict::parse_exact(&f.to_string()).unwrap_or_else(|_| zero()),
            None,
        ),
        Input::Decimal(t) => (strict::parse_exact(t).unwrap_or_else(|_| zero()), None),
        Input::Str(bytes, _) => {
            let s = utf8(bytes)?;
            let (number, rest) = number_prefix(s);
            match strict::parse_exact(number) {
                Ok(n) if rest.is_empty() => (n, None),
                // Trailing spaces: a note.
                Ok(n) if is_space(rest) => (
                    n,
                    Some(Warn::note(
                        &codes::INCORRECT_DATETIME,
                        format!("Truncated incorrect DECIMAL value: '{shown}'"),
                    )),
                ),
                Ok(n) => (n, truncated()),
                Err(strict::Problem::OutOfRange) => {
                    return Err(unsupported("CAST of a number with an exponent beyond ±400"));
                }
                Err(_) => (zero(), truncated()),
            }
        }
    })
}

/// CAST(… AS DECIMAL(p, s)): the value's text with exactly `s` fraction digits.
fn to_decimal(input: Input<'_>, precision: u32, scale: u32) -> Answer {
    let (n, mut warn) = exact_input(input)?;
    let mut r = n.round(scale as usize);
    let max_int = (precision - scale) as usize;
    if r.int.len() > max_int {
        r.int = "9".repeat(max_int);
        r.frac = "9".repeat(scale as usize);
        warn = Some(Warn::warning(
            &codes::OUT_OF_RANGE,
            format!(
                "Out of range value for column 'CAST({} AS DECIMAL({precision},{scale}))' at row 1",
                input.shown()
            ),
        ));
    }
    let zero = r.int.is_empty() && r.frac.bytes().all(|b| b == b'0');
    let mut text = String::new();
    if r.negative && !zero {
        text.push('-');
    }
    text.push_str(if r.int.is_empty() { "0" } else { &r.int });
    if scale > 0 {
        text.push('.');
        text.push_str(&r.frac);
    }
    Ok((SqlValue::Text(text), warn))
}

/// Date and time parts from MySQL's numeric form `[YY]YYMMDD[hhmmss]`.
fn number_to_parts(n: u64) -> Option<Parts> {
    let (date, time) = match n {
        0..=100 => return None,
        101..=691_231 => (n + 20_000_000, 0),
        691_232..=700_100 => return None,
        700_101..=991_231 => (n + 19_000_000, 0),
        991_232..=10_000_100 => return None,
        10_000_101..=99_991_231 => (n, 0),
        99_991_232..=100_999_999 => return None,
        101_000_000..=691_231_235_959 => (n / 1_000_000 + 20_000_000, n % 1_000_000),
        691_231_235_960..=700_100_999_999 => return None,
        700_101_000_000..=991_231_235_959 => (n / 1_000_000 + 19_000_000, n % 1_000_000),
        991_231_235_960..=10_000_100_999_999 => return None,
        10_000_101_000_000..=99_991_231_235_959 => (n / 1_000_000, n % 1_000_000),
        _ => return None,
    };
    valid(Parts {
        year: (date / 10_000) as u32,
        month: (date / 100 % 100) as u32,
        day: (date % 100) as u32,
        hour: (time / 10_000) as u32,
        minute: (time / 100 % 100) as u32,
        second: (time % 100) as u32,
        micros: 0,
    })
}

/// The parts when they are a real date and time (no zero month or day).
fn valid(p: Parts) -> Option<Parts> {
    (p.month >= 1
        && p.day >= 1
        && p.day <= strict::days_in_month(p.year, p.month)
        && p.hour <= 23
        && p.minute <= 59
        && p.second <= 59)
        .then_some(p)
}

/// Fraction digits as microseconds (truncated) and whether digits were dropped.
fn micros(fraction: &str) -> (u32, bool) {
    let six: String = fraction
        .chars()
        .chain(std::iter::repeat('0'))
        .take(6)
        .collect();
    (six.parse().unwrap_or(0), fraction.len() > 6)
}

/// How a string read as a date or time went.
#[derive(Debug, PartialEq, Eq)]
enum Read<T> {
    /// The value; `Some(level)` when something after it was dropped.
    Value(T, Option<Level>),
    /// Not a value of the type: NULL and a warning.
    Invalid,
}

/// A string in one of MySQL's datetime formats, read as MariaDB's `str_to_datetime` reads it
/// (10.11, `strings/my_time.c`), so that what it accepts, refuses and warns about is the same:
///
/// - Leading spaces are skipped.
/// - Digits only (`[YY]YYMMDD[T][hhmmss[.f]]`, a `.f` only after 12 digits or more): 4, 8 or
///   14+ digits have a 4-digit year, others a 2-digit one; the fields are then read two digits
///   at a time, as far as the digits go (`2402291` is 2024-02-29 01:00:00).
/// - Delimited: year, one punctuation character, month, one punctuation character, day, then
///   a `T`, one punctuation character (DATE and DATETIME only: `punct_separates`) or spaces,
///   then hour, minute and second with one punctuation character between them, each field as
///   many digits as there are (`2024-002-29` is 2024-02-29); then `.` and the fraction. A part
///   may end early at a punctuation character (`0:01:01.` is 0000-01-01, no warning).
/// - A 2-digit year is 20YY below 70, else 19YY; a year of any other length is as written.
/// - Fewer than three fields, a field out of range or a date that is not in the calendar is
///   not a value (NULL); anything other than spaces after what was read is a warning (the
///   value stands); fraction digits beyond six are a note.
fn parse_datetime_text(s: &str, punct_separates: bool) -> Result<Read<Parts>, SqlError> {
    let b = s
        .trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c'])
        .as_bytes();
    let end = b.len();
    let run = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    // MariaDB's get_number: `Ok(None)` at the end (no field), `Err` at a non-digit.
    let number = |at: &mut usize, limit: usize| -> Result<Option<u64>, ()> {
        let stop = end.min(at.saturating_add(limit));
        if *at >= stop {
            return Ok(None);
        }
        if !b[*at].is_ascii_digit() {
            return Err(());
        }
        let mut v: u64 = 0;
        while *at < stop && b[*at].is_ascii_digit() {
            v = v
                .saturating_mul(10)
                .saturating_add(u64::from(b[*at] - b'0'));
            *at += 1;
        }
        Ok(Some(v))
    };
    let punct = |at: &mut usize| -> Result<(), ()> {
        if *at >= end {
            return Ok(());
        }
        if b[*at].is_ascii_punctuation() {
            *at += 1;
            return Ok(());
        }
        Err(())
    };
    let is_space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let mut fields: Vec<u64> = Vec::with_capacity(6);
    let mut at = 0usize;
    let mut warn = false;
    // Digits only?
    let mut digits = run(0);
    let mut pos = digits;
    if pos < end && b[pos] == b'T' {
        pos += 1;
        let more = run(pos);
        digits += more;
        pos += more;
    }
    if pos < end && b[pos] == b'.' && digits >= 12 {
        pos += 1;
        pos += run(pos);
    }
    let year_length;
    if pos == end {
        year_length = if digits == 4 || digits == 8 || digits >= 14 {
            4
        } else {
            2
        };
        for (k, width) in [year_length, 2, 2, 2, 2, 2].into_iter().enumerate() {
            if k == 3 && at < end && b[at] == b'T' {
                at += 1;
            }
            match number(&mut at, width) {
                Ok(Some(v)) => fields.push(v),
                Ok(None) => {}
                Err(()) => {
                    warn = true;
                    break;
                }
            }
        }
    } else {
        let start = at;
        match number(&mut at, usize::MAX) {
            Ok(v) => fields.extend(v),
            Err(()) => warn = true,
        }
        year_length = at - start;
        if !warn {
            // month, day, [separator] hour, minute, second
            'fields: for k in 1..6 {
                let separated = if k == 3 {
                    if at >= end {
                        Ok(())
                    } else if b[at] == b'T' || (punct_separates && b[at].is_ascii_punctuation()) {
                        at += 1;
                        Ok(())
                    } else if is_space(b[at]) {
                        while at < end && is_space(b[at]) {
                            at += 1;
                        }
                        Ok(())
                    } else {
                        Err(())
                    }
                } else {
                    punct(&mut at)
                };
                let read = separated.and_then(|()| number(&mut at, usize::MAX));
                match read {
                    Ok(v) => fields.extend(v),
                    Err(()) => {
                        warn = true;
                        break 'fields;
                    }
                }
            }
        }
    }
    if fields.len() < 3 {
        return Ok(Read::Invalid);
    }
    let mut dropped = None;
    let mut micros_value = 0;
    if !warn && at < end && b[at] == b'.' {
        at += 1;
        let n = run(at);
        let (us, cut) = micros(std::str::from_utf8(&b[at..at + n]).unwrap_or(""));
        micros_value = us;
        if cut {
            dropped = Some(Level::Note);
        }
        at += n;
    }
    let field = |k: usize| fields.get(k).copied().unwrap_or(0);
    let not_zero = fields.iter().any(|&v| v != 0) || micros_value != 0;
    let mut year = field(0);
    if year_length == 2 && not_zero {
        year += if year < 70 { 2000 } else { 1900 };
    }
    if year > 9999 || field(1) > 12 || field(2) > 31 || field(3) > 23 || field(4) > 59 {
        return Ok(Read::Invalid);
    }
    if field(5) > 59 {
        return Ok(Read::Invalid);
    }
    let p = Parts {
        year: year as u32,
        month: field(1) as u32,
        day: field(2) as u32,
        hour: field(3) as u32,
        minute: field(4) as u32,
        second: field(5) as u32,
        micros: micros_value,
    };
    let Some(p) = valid(p) else {
        return Ok(Read::Invalid);
    };
    if b[at..].iter().any(|&c| !is_space(c)) {
        dropped = Some(Level::Warning);
    }
    Ok(Read::Value(p, dropped))
}

/// Whether a number `int.frac` is a date alone (`[YY]YYMMDD`) with a fraction other than
/// zero, which MySQL drops with a note ("Truncated incorrect date value") whatever the cast's
/// type: a date has no seconds for the fraction to belong to. The fraction of a number with a
/// time (`YYYYMMDDhhmmss.f`) is its microseconds; digits beyond six are dropped without a word.
fn date_number_drops_fraction(int: u64, frac: &str) -> bool {
    int <= 99_991_231 && frac.bytes().any(|b| b != b'0')
}

/// The date and time of an input, for DATE and DATETIME (`date` drops the time).
fn datetime_input(input: Input<'_>, date: bool) -> Result<Read<Parts>, SqlError> {
    // A number: its integer part in MySQL's numeric form, its fraction as microseconds.
    let number = |int: u64, frac: &str| -> Read<Parts> {
        match number_to_parts(int) {
            Some(mut p) => {
                let dropped = date_number_drops_fraction(int, frac);
                if !date && !dropped {
                    p.micros = micros(frac).0;
                }
                Read::Value(p, dropped.then_some(Level::Note))
            }
            None => Read::Invalid,
        }
    };
    Ok(match input {
        Input::Int(i) => match u64::try_from(i) {
            Ok(n) => number(n, ""),
            Err(_) => Read::Invalid,
        },
        Input::Double(f) if !(0.0..1e15).contains(&f) => Read::Invalid,
        Input::Double(f) => {
            let text = f.to_string();
            let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
            number(int.parse().unwrap_or(0), frac)
        }
        Input::Decimal(t) => match strict::parse_exact(t) {
            Ok(n) if !n.negative && n.int.len() <= 14 => {
                number(n.int.parse().unwrap_or(0), &n.frac)
            }
            _ => Read::Invalid,
        },
        Input::Str(bytes, _) => parse_datetime_text(utf8(bytes)?, true)?,
    })
}

fn datetime_text(p: Parts, fsp: u32, date_only: bool) -> String {
    let mut s = format!("{:04}-{:02}-{:02}", p.year, p.month, p.day);
    if !date_only {
        let _ = write!(s, " {:02}:{:02}:{:02}", p.hour, p.minute, p.second);
        if fsp > 0 {
            let frac = format!("{:06}", p.micros);
            s.push('.');
            s.push_str(&frac[..fsp as usize]);
        }
    }
    s
}

/// CAST(… AS DATE) and CAST(… AS DATETIME(fsp)).
fn to_datetime(input: Input<'_>, fsp: Option<u32>) -> Answer {
    let date = fsp.is_none();
    let shown = input.shown();
    // What a number drops is a date's fraction (see `date_number_drops_fraction`).
    let noun = if date || !matches!(input, Input::Str(..)) {
        "date"
    } else {
        "datetime"
    };
    Ok(match datetime_input(input, date)? {
        Read::Value(p, dropped) => {
            let warn = dropped.map(|level| Warn {
                level,
                code: &codes::INCORRECT_DATETIME,
                message: format!("Truncated incorrect {noun} value: '{shown}'"),
                next: None,
            });
            (
                SqlValue::Text(datetime_text(p, fsp.unwrap_or(0), date)),
                warn,
            )
        }
        Read::Invalid => (
            SqlValue::Null,
            Some(Warn::warning(
                &codes::INCORRECT_DATETIME,
                format!("Incorrect datetime value: '{shown}'"),
            )),
        ),
    })
}

/// A time: (negative, hours, minutes, seconds, micros).
type TimeParts = (bool, u64, u32, u32, u32);

/// A number `[-]HHMMSS[.f]` as a time. A number of 8 digits or more is a datetime
/// (`YYYYMMDD[hhmmss]`) and gives its time, unless it was written as a string, which MySQL
/// reads as hours and clamps. Fraction digits beyond six are a note only in a string (a
/// number's are rounded away quietly); a date's fraction is a note about the date (see
/// `date_number_drops_fraction`, and `to_time` for its message).
fn number_to_time(
    negative: bool,
    n: u64,
    frac: &str,
    from_string: bool,
) -> Result<Read<TimeParts>, SqlError> {
    let (us, cut) = micros(frac);
    if n > 9_999_999 {
        if from_string && n <= 99_999_999 {
            return Ok(Read::Value((negative, 839, 0, 0, 0), None));
        }
        if from_string || n > 99_991_231_235_959 {
            return Err(unsupported(
                "CAST of a number of more than 8 digits AS TIME",
            ));
        }
        return Ok(match number_to_parts(n) {
            Some(p) if !negative => Read::Value(
                // A date-only number drops its fraction, as for DATETIME.
                (
                    false,
                    u64::from(p.hour),
                    p.minute,
                    p.second,
                    if n > 99_991_231 { us } else { 0 },
                ),
                date_number_drops_fraction(n, frac).then_some(Level::Note),
            ),
            _ => Read::Invalid,
        });
    }
    let (h, m, s) = (n / 10_000, (n / 100 % 100) as u32, (n % 100) as u32);
    if m > 59 || s > 59 {
        return Ok(Read::Invalid);
    }
    Ok(Read::Value(
        (negative, h, m, s, us),
        (cut && from_string).then_some(Level::Note),
    ))
}

fn time_input(input: Input<'_>) -> Result<Read<TimeParts>, SqlError> {
    match input {
        Input::Int(i) => number_to_time(i < 0, i.unsigned_abs(), "", false),
        Input::Double(f) if !f.is_finite() => Ok(Read::Invalid),
        Input::Double(f) => {
            let text = f.abs().to_string();
            let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
            match int.parse() {
                Ok(n) => number_to_time(f < 0.0, n, frac, false),
                Err(_) => Err(unsupported("CAST of a large DOUBLE AS TIME")),
            }
        }
        Input::Decimal(t) => match strict::parse_exact(t) {
            Ok(n) if n.int.len() <= 14 => {
                number_to_time(n.negative, n.int.parse().unwrap_or(0), &n.frac, false)
            }
            _ => Err(unsupported("CAST of a large DECIMAL AS TIME")),
        },
        Input::Str(bytes, _) => {
            let s = utf8(bytes)?.trim_matches([' ', '\t', '\n', '\r']);
            if s.is_empty()
                || !s
                    .trim_start_matches('-')
                    .starts_with(|c: char| c.is_ascii_digit())
            {
                return Ok(Read::Invalid);
            }
            // A datetime's time.
            let digits = s.bytes().take_while(u8::is_ascii_digit).count();
            let whole = s.split('.').next().unwrap_or(s);
            let datetime_digits = (whole.len() == 12 || whole.len() == 14) && whole.len() == digits;
            if !datetime_digits && digits >= 2 && s[digits..].starts_with('-') && !s.contains(':') {
                // A date alone: MySQL reads its leading digits as a time ('2024-02-29' is
                // 00:20:24); not guessed here.
                return Err(unsupported(&format!("CAST of '{s}' AS TIME")));
            }
            if datetime_digits || (digits >= 2 && s[digits..].starts_with('-')) {
                return Ok(match parse_datetime_text(s, false)? {
                    Read::Value(p, dropped) => Read::Value(
                        (false, u64::from(p.hour), p.minute, p.second, p.micros),
                        dropped,
                    ),
                    // MySQL reads what is not a datetime in other ways ('1000-0-0' is
                    // 00:10:00); not guessed here.
                    Read::Invalid => {
                        return Err(unsupported(&format!("CAST of '{s}' AS TIME")));
                    }
                });
            }
            let (negative, t) = match s.strip_prefix('-') {
                Some(r) => (true, r),
                None => (false, s),
            };
            if !t.contains(':') {
                // [-]HHMMSS[.f]
                let (int, frac) = t.split_once('.').unwrap_or((t, ""));
                if int.is_empty()
                    || !int.bytes().all(|b| b.is_ascii_digit())
                    || !frac.bytes().all(|b| b.is_ascii_digit())
                {
                    return Err(unsupported(&format!("CAST of '{s}' AS TIME")));
                }
                return number_to_time(negative, int.parse().unwrap_or(u64::MAX), frac, true);
            }
            // [D ]H:MM[:SS][.f]
            let (days, clock) = match t.split_once(' ') {
                Some((d, c)) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => {
                    (d.parse::<u64>().unwrap_or(u64::MAX / 48), c.trim_start())
                }
                _ => (0, t),
            };
            let (hms, frac) = clock.split_once('.').unwrap_or((clock, ""));
            let parts: Vec<&str> = hms.split(':').collect();
            let ok = |p: &str, max: usize| {
                !p.is_empty() && p.len() <= max && p.bytes().all(|b| b.is_ascii_digit())
            };
            if parts.len() > 3
                || !ok(parts[0], 3)
                || !parts[1..].iter().all(|p| ok(p, 2))
                || !frac.bytes().all(|b| b.is_ascii_digit())
            {
                return Err(unsupported(&format!("CAST of '{s}' AS TIME")));
            }
            let h: u64 = parts[0].parse().unwrap_or(0);
            let m: u32 = parts.get(1).map_or(0, |p| p.parse().unwrap_or(0));
            let sec: u32 = parts.get(2).map_or(0, |p| p.parse().unwrap_or(0));
            if m > 59 || sec > 59 {
                return Ok(Read::Invalid);
            }
            let (us, cut) = micros(frac);
            Ok(Read::Value(
                (negative, days * 24 + h, m, sec, us),
                cut.then_some(Level::Note),
            ))
        }
    }
}

/// CAST(… AS TIME(fsp)).
fn to_time(input: Input<'_>, fsp: u32) -> Answer {
    let shown = input.shown();
    // A number drops only a date's fraction (see `number_to_time`).
    let noun = if matches!(input, Input::Str(..)) {
        "time"
    } else {
        "date"
    };
    Ok(match time_input(input)? {
        Read::Value((negative, h, m, s, us), dropped) => {
            let mut warn = dropped.map(|level| Warn {
                level,
                code: &codes::INCORRECT_DATETIME,
                message: format!("Truncated incorrect {noun} value: '{shown}'"),
                next: None,
            });
            let (mut h, mut m, mut s, mut us) = (h, m, s, us);
            if h > 838 {
                (h, m, s, us) = (838, 59, 59, 999_999);
                warn = Some(Warn::warning(
                    &codes::INCORRECT_DATETIME,
                    format!("Truncated incorrect time value: '{shown}'"),
                ));
            }
            let unit = 10u32.pow(6 - fsp);
            let us = us - us % unit;
            let zero = h == 0 && m == 0 && s == 0 && us == 0;
            let mut text = format!(
                "{}{h:02}:{m:02}:{s:02}",
                if negative && !zero { "-" } else { "" }
            );
            if fsp > 0 {
                let frac = format!("{us:06}");
                text.push('.');
                text.push_str(&frac[..fsp as usize]);
            }
            (SqlValue::Text(text), warn)
        }
        Read::Invalid => (
            SqlValue::Null,
            Some(Warn::warning(
                &codes::INCORRECT_DATETIME,
                format!("Incorrect time value: '{shown}'"),
            )),
        ),
    })
}

/// The text of a DECIMAL literal as MySQL prints it: its digits and scale as written.
fn decimal_literal_text(t: &str) -> String {
    let (negative, digits) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let zero = int == "0" && frac.bytes().all(|b| b == b'0');
    let mut s = String::new();
    if negative && !zero {
        s.push('-');
    }
    s.push_str(int);
    if !frac.is_empty() {
        s.push('.');
        s.push_str(frac);
    }
    s
}

/// CAST(… AS CHAR(n)) and CAST(… AS BINARY(n)).
fn to_string(input: Input<'_>, length: Option<u32>, binary: bool) -> Answer {
    let mut bytes: Vec<u8> = match input {
        Input::Int(i) => i.to_string().into_bytes(),
        Input::Double(f) => format_double(f).into_bytes(),
        Input::Decimal(t) => decimal_literal_text(t).into_bytes(),
        Input::Str(b, _) if binary => b.to_vec(),
        Input::Str(b, _) => utf8(b)?.as_bytes().to_vec(),
    };
    let mut warn = None;
    if let Some(n) = length {
        let n = n as usize;
        let cut_at = if binary {
            if bytes.len() > n && !bytes.is_ascii() {
                // MariaDB cuts such text by characters, not bytes; not guessed here.
                return Err(unsupported(
                    "CAST of non-ASCII text AS BINARY(n) shorter than it",
                ));
            }
            (bytes.len() > n).then_some(n)
        } else {
            std::str::from_utf8(&bytes)
                .ok()
                .and_then(|s| s.char_indices().nth(n).map(|(at, _)| at))
        };
        if let Some(at) = cut_at {
            // A warning in MySQL; strict mode turns it into an error in a write only when
            // the argument was a number (MariaDB checked: a cut string is written).
            let level = if matches!(input, Input::Str(..)) {
                Level::Note
            } else {
                Level::Warning
            };
            warn = Some(Warn {
                level,
                code: &codes::INCORRECT_DATETIME,
                message: format!(
                    "Truncated incorrect {}({n}) value: '{}'",
                    if binary { "BINARY" } else { "CHAR" },
                    input.shown()
                ),
                next: None,
            });
            bytes.truncate(at);
        }
        if binary && bytes.len() < n {
            bytes.resize(n, 0);
        }
    }
    Ok((
        if binary {
            SqlValue::Blob(bytes)
        } else {
            SqlValue::Text(String::from_utf8(bytes).expect("checked UTF-8"))
        },
        warn,
    ))
}

/// Registers the cast functions (see the module docs). A refusal, or a warning in a write
/// statement, fails the statement with its MySQL error, handed to `shared.fail` for the
/// engine to report.
pub(crate) fn register(conn: &Connection, shared: &std::sync::Arc<Shared>) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    type Conv = fn(Input<'_>, &[i64]) -> Answer;
    let functions: [(&str, usize, Conv); 8] = [
        ("xrpc_cast_date", 0, |i, _| to_datetime(i, None)),
        ("xrpc_cast_datetime", 1, |i, a| {
            to_datetime(i, Some(a[0] as u32))
        }),
        ("xrpc_cast_time", 1, |i, a| to_time(i, a[0] as u32)),
        ("xrpc_cast_signed", 0, |i, _| to_integer(i, false)),
        ("xrpc_cast_unsigned", 0, |i, _| to_integer(i, true)),
        ("xrpc_cast_decimal", 2, |i, a| {
            to_decimal(i, a[0] as u32, a[1] as u32)
        }),
        ("xrpc_cast_char", 1, |i, a| {
            to_string(i, u32::try_from(a[0]).ok(), false)
        }),
        ("xrpc_cast_binary", 1, |i, a| {
            to_string(i, u32::try_from(a[0]).ok(), true)
        }),
    ];
    for (name, extra, conv) in functions {
        let numeric = matches!(
            name,
            "xrpc_cast_date" | "xrpc_cast_datetime" | "xrpc_cast_time"
        );
        let s = std::sync::Arc::clone(shared);
        conn.create_scalar_function(name, 2 + extra as i32, flags, move |ctx: &Context<'_>| {
            let mut args = [0i64; 2];
            for (k, arg) in args.iter_mut().enumerate().take(extra) {
                *arg = ctx.get_raw(1 + k).as_i64().unwrap_or(0);
            }
            let mode = ctx.get_raw(1 + extra).as_i64().unwrap_or(0);
            let Some(input) = Input::of(ctx.get_raw(0), mode) else {
                return Ok(SqlValue::Null);
            };
            let failed = |err: SqlError| {
                let message = err.message.clone();
                s.fail(err);
                rusqlite::Error::UserFunctionError(message.into())
            };
            let answer = conv(input, &args[..extra]);
            if let Ok((_, Some(first))) = &answer {
                // A warning the statement goes on with (a query, or a note): MySQL reports it.
                let mut next = Some(first);
                while let Some(warn) = next {
                    if warn.level == Level::Note || mode & MODE_WRITE == 0 {
                        s.warn(SqlWarning {
                            level: match warn.level {
                                Level::Note => WarningLevel::Note,
                                Level::Warning => WarningLevel::Warning,
                            },
                            code: warn.code.code,
                            message: warn.message.clone(),
                        });
                    }
                    next = warn.next.as_deref();
                }
            }
            match answer {
                Ok((_, Some(warn))) if warn.level == Level::Warning && mode & MODE_WRITE != 0 => {
                    Err(failed(SqlError::new(warn.code, warn.message)))
                }
                Ok((SqlValue::Text(text), _)) if numeric && mode & MODE_NUMERIC != 0 => {
                    let text = if mode & MODE_TRUNCATE != 0 {
                        text.split('.').next().unwrap_or_default()
                    } else {
                        &text
                    };
                    Ok(numeric_form(text))
                }
                Ok((value, _)) => Ok(value),
                Err(err) => Err(failed(err)),
            }
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(sql: &str) -> String {
        rewrite(sql)
            .unwrap()
            .map_or_else(|| sql.to_owned(), |r| r.sql)
    }

    #[test]
    fn casts_become_function_calls() {
        assert_eq!(
            rw("select cast('2024-02-29' as date), CONVERT(x, DATETIME(3)) from t"),
            "select xrpc_cast_date('2024-02-29', 1), xrpc_cast_datetime(x, 3, 0) from t"
        );
        assert_eq!(
            rw(
                "insert into t values (cast(-1.5 as signed), cast(cast(a as char(3)) as unsigned integer))"
            ),
            "insert into t values (xrpc_cast_signed('-1.5', 6), xrpc_cast_unsigned(xrpc_cast_char(a, 3, 4), 4))"
        );
        assert_eq!(
            rw("select convert(b using binary), cast(x as decimal(10, 2)), cast(y as integer)"),
            "select xrpc_cast_binary(b, -1, 0), xrpc_cast_decimal(x, 10, 2, 0), cast(y as integer)"
        );
        assert_eq!(rw("select convert(x, double)"), "select CAST(x AS double)");
        assert_eq!(rw("select 'cast(x as date)'"), "select 'cast(x as date)'");
        assert!(
            rewrite("create view v as select cast(x as date) from t")
                .unwrap()
                .is_none()
        );
        assert_eq!(
            rewrite("select convert(x using latin1)").unwrap_err().code,
            codes::NOT_SUPPORTED_YET.code
        );
        assert_eq!(
            rewrite("select cast(x as datetime(7))").unwrap_err().code,
            codes::PARSE_ERROR.code
        );
    }

    #[test]
    fn whole_casts_in_the_select_list_type_their_columns() {
        let r = rewrite("select a, cast(b as date), convert(c, signed) as n, cast(d as time) + 1, t.*, cast(e as decimal(5,2)) e from t")
            .unwrap()
            .unwrap();
        assert_eq!(
            r.hints,
            vec![
                ColumnHint {
                    at: HintAt::Start(1),
                    kind: Some(DeclKind::Date),
                    name: Some("cast(b as date)".into())
                },
                ColumnHint {
                    at: HintAt::Start(2),
                    kind: Some(Target::Signed.kind()),
                    name: None
                },
                ColumnHint {
                    at: HintAt::Start(3),
                    kind: None,
                    name: Some("cast(d as time) + 1".into())
                },
                ColumnHint {
                    at: HintAt::End(0),
                    kind: Some(DeclKind::Decimal {
                        precision: 5,
                        scale: 2
                    }),
                    name: None
                },
            ]
        );
        assert_eq!(HintAt::End(0).index(7), Some(6));
        // A UNION: the first SELECT's names; a type only where every SELECT agrees.
        assert_eq!(
            rewrite("select cast(a as date), cast(b as date) from t union all select cast(c as date), d from u")
                .unwrap()
                .unwrap()
                .hints,
            vec![
                ColumnHint {
                    at: HintAt::Start(0),
                    kind: Some(DeclKind::Date),
                    name: Some("cast(a as date)".into())
                },
                ColumnHint {
                    at: HintAt::Start(1),
                    kind: None,
                    name: Some("cast(b as date)".into())
                },
            ]
        );
        // A scalar subquery of a whole cast.
        assert_eq!(
            rewrite("select (select cast(a as date) from t) as d")
                .unwrap()
                .unwrap()
                .hints,
            vec![ColumnHint {
                at: HintAt::Start(0),
                kind: Some(DeclKind::Date),
                name: None
            }]
        );
    }

    fn value(answer: Answer) -> SqlValue {
        answer.unwrap().0
    }

    fn s(t: &str) -> Input<'_> {
        Input::Str(t.as_bytes(), false)
    }

    #[test]
    fn dates_read_mysqls_relaxed_formats() {
        let d = |i| value(to_datetime(i, None));
        let text = |t: &str| SqlValue::Text(t.to_owned());
        assert_eq!(d(s("2024-02-29")), text("2024-02-29"));
        assert_eq!(d(s("2024/2/9")), text("2024-02-09"));
        assert_eq!(d(s("24-02-29")), text("2024-02-29"));
        assert_eq!(d(s("99-12-31")), text("1999-12-31"));
        assert_eq!(d(s("240229")), text("2024-02-29"));
        assert_eq!(d(s("2024-02-29T10:11:12")), text("2024-02-29"));
        assert_eq!(d(s("2024-02-30")), SqlValue::Null);
        assert_eq!(d(s("garbage")), SqlValue::Null);
        assert_eq!(d(s("0000-00-00")), SqlValue::Null);
        assert_eq!(d(Input::Int(20240229)), text("2024-02-29"));
        assert_eq!(d(Input::Int(123)), text("2000-01-23"));
        assert_eq!(d(Input::Int(0)), SqlValue::Null);
        let (v, w) = to_datetime(s("2024-02-29x"), None).unwrap();
        assert_eq!((v, w.unwrap().level), (text("2024-02-29"), Level::Warning));
        assert_eq!(
            value(to_datetime(s("2024-02-29 1:2:3.4567891"), Some(6))),
            text("2024-02-29 01:02:03.456789")
        );
        assert_eq!(
            value(to_datetime(Input::Decimal("20240229123456.5"), Some(1))),
            text("2024-02-29 12:34:56.5")
        );
    }

    /// MariaDB's answers (10.11), checked by hand: trailing punctuation ends a part without a
    /// warning, fields are as long as their digits, digit strings are read two by two.
    #[test]
    fn dates_are_parsed_as_mariadb_parses_them() {
        let dt = |t: &str, fsp| to_datetime(s(t), fsp).unwrap();
        let text = |t: &str| SqlValue::Text(t.to_owned());
        let quiet = |t: &str, fsp, want: &str| assert_eq!(dt(t, fsp), (text(want), None), "{t}");
        quiet("0:01:01.", None, "0000-01-01");
        quiet("0.1.1.", None, "0000-01-01");
        quiet("2024-02-29.", None, "2024-02-29");
        quiet("2024-02-29-", Some(0), "2024-02-29 00:00:00");
        quiet("2024-02-29.5", Some(0), "2024-02-29 05:00:00");
        quiet(
            "2024-02-29.10.11.12.5",
            Some(6),
            "2024-02-29 10:11:12.500000",
        );
        quiet("2024-02-29 10:11:12.", Some(0), "2024-02-29 10:11:12");
        quiet("2024-02-29 10:11:", Some(0), "2024-02-29 10:11:00");
        quiet("2024-002-29", None, "2024-02-29");
        quiet("1:2:3:4:5:6", Some(0), "0001-02-03 04:05:06");
        quiet("2402291", Some(0), "2024-02-29 01:00:00");
        quiet("240229123", Some(0), "2024-02-29 12:03:00");
        quiet("20240229T101112", Some(0), "2024-02-29 10:11:12");
        for warned in [
            "2024-02-29 .",
            "2024-02-29 10:11:12..",
            "1:2:3:4:5:6:7",
            "2024-02-29x",
        ] {
            let (v, w) = dt(warned, Some(0));
            assert!(
                v != SqlValue::Null && w.unwrap().level == Level::Warning,
                "{warned}"
            );
        }
        for null in [
            "20240229.5",
            "2024022912345",
            "12345-01-01",
            "2024--02-29",
            "2024",
            "202402",
        ] {
            assert_eq!(dt(null, None).0, SqlValue::Null, "{null}");
        }
    }

    /// MariaDB's warnings for numbers cast to a temporal type (10.11, checked by hand): a date
    /// number's fraction is a note about the date whatever the cast's type; a number's
    /// fraction digits beyond six and a time number's fraction are dropped without a word.
    #[test]
    fn numbers_cast_to_temporal_types_warn_as_mariadb() {
        let text = |t: &str| SqlValue::Text(t.to_owned());
        let note = |answer: Answer| {
            let (v, w) = answer.unwrap();
            let w = w.expect("a note");
            assert_eq!(
                (w.level, w.code.code, w.next.is_none()),
                (Level::Note, 1292, true)
            );
            (v, w.message)
        };
        let quiet = |answer: Answer| {
            let (v, w) = answer.unwrap();
            assert!(w.is_none(), "{v:?}: {:?}", w.map(|w| w.message));
            v
        };
        assert_eq!(
            note(to_datetime(Input::Decimal("21129.14961"), Some(6))),
            (
                text("2002-11-29 00:00:00.000000"),
                "Truncated incorrect date value: '21129.14961'".to_owned()
            )
        );
        assert_eq!(
            note(to_datetime(Input::Double(123.25), Some(0))),
            (
                text("2000-01-23 00:00:00"),
                "Truncated incorrect date value: '123.25'".to_owned()
            )
        );
        assert_eq!(
            note(to_time(Input::Double(20_240_229.5), 2)),
            (
                text("00:00:00.00"),
                "Truncated incorrect date value: '20240229.5'".to_owned()
            )
        );
        assert_eq!(
            note(to_datetime(Input::Decimal("20240229.0001"), None)).0,
            text("2024-02-29")
        );
        assert_eq!(
            quiet(to_datetime(Input::Decimal("20240229.000"), Some(0))),
            text("2024-02-29 00:00:00")
        );
        assert_eq!(
            quiet(to_datetime(Input::Decimal("20240229123456.5"), None)),
            text("2024-02-29")
        );
        assert_eq!(
            quiet(to_datetime(
                Input::Decimal("20240229123456.1234567"),
                Some(6)
            )),
            text("2024-02-29 12:34:56.123456")
        );
        assert_eq!(quiet(to_time(Input::Double(1e-7), 2)), text("00:00:00.00"));
        assert_eq!(
            quiet(to_time(Input::Decimal("10800.0"), 0)),
            text("01:08:00")
        );
        assert_eq!(
            quiet(to_time(Input::Decimal("1.0000001"), 6)),
            text("00:00:01.000000")
        );
        // A string's seventh fraction digit is a note, about the time.
        assert_eq!(
            note(to_time(s("0.0000001"), 0)).1,
            "Truncated incorrect time value: '0.0000001'"
        );
    }

    #[test]
    fn integers_round_wrap_and_clamp_as_mysql() {
        let i = |input, unsigned| value(to_integer(input, unsigned));
        assert_eq!(i(Input::Decimal("1.9"), false), SqlValue::Integer(2));
        assert_eq!(i(Input::Decimal("-1.5"), false), SqlValue::Integer(-2));
        assert_eq!(i(Input::Double(2.5), false), SqlValue::Integer(2));
        assert_eq!(i(Input::Double(3.5), false), SqlValue::Integer(4));
        assert_eq!(i(Input::Str(b"1.9", false), false), SqlValue::Integer(1));
        assert_eq!(i(s(" 12abc"), false), SqlValue::Integer(12));
        assert_eq!(i(s("abc"), false), SqlValue::Integer(0));
        assert_eq!(
            i(Input::Int(-1), true),
            SqlValue::Text("18446744073709551615".into())
        );
        assert_eq!(i(s("18446744073709551615"), false), SqlValue::Integer(-1));
        assert_eq!(i(Input::Double(1e30), false), SqlValue::Integer(i64::MAX));
        assert_eq!(i(Input::Double(-1.5), true), SqlValue::Integer(0));
        assert_eq!(
            to_integer(Input::Str(b"1.5", true), false)
                .unwrap_err()
                .code,
            codes::NOT_SUPPORTED_YET.code
        );
        assert_eq!(i(Input::Str(b"1.4", true), false), SqlValue::Integer(1));
    }

    #[test]
    fn decimals_round_and_clamp() {
        let d = |input, p, s| value(to_decimal(input, p, s));
        let text = |t: &str| SqlValue::Text(t.to_owned());
        assert_eq!(d(s("1234.567"), 5, 2), text("999.99"));
        assert_eq!(d(Input::Decimal("-1234.567"), 5, 2), text("-999.99"));
        assert_eq!(d(s("1.005"), 5, 2), text("1.01"));
        assert_eq!(d(s("abc"), 5, 2), text("0.00"));
        assert_eq!(d(s("1.5x"), 5, 2), text("1.50"));
        assert_eq!(d(s("1e2"), 5, 2), text("100.00"));
        assert_eq!(d(Input::Decimal("2.5"), 10, 0), text("3"));
        assert_eq!(d(Input::Double(-0.001), 5, 2), text("0.00"));
    }

    #[test]
    fn strings_print_numbers_as_mysql() {
        assert_eq!(format_double(1.5e20), "1.5e20");
        assert_eq!(format_double(1e15), "1e15");
        assert_eq!(format_double(1e14), "100000000000000");
        assert_eq!(format_double(1e-7), "0.0000001");
        assert_eq!(format_double(1e-16), "1e-16");
        assert_eq!(format_double(-2.5), "-2.5");
        assert_eq!(format_double(1234567890123456.0), "1.234567890123456e15");
        let c = |input, n| value(to_string(input, n, false));
        assert_eq!(c(s("abcdef"), Some(3)), SqlValue::Text("abc".into()));
        assert_eq!(
            c(Input::Decimal("01.50"), None),
            SqlValue::Text("1.50".into())
        );
        assert_eq!(
            value(to_string(s("ab"), Some(4), true)),
            SqlValue::Blob(b"ab\0\0".to_vec())
        );
    }

    #[test]
    fn times() {
        let t = |input, fsp| value(to_time(input, fsp));
        let text = |t: &str| SqlValue::Text(t.to_owned());
        assert_eq!(t(s("12:34:56"), 0), text("12:34:56"));
        assert_eq!(t(s("-1 02:03:04.5"), 1), text("-26:03:04.5"));
        assert_eq!(t(s("123456"), 0), text("12:34:56"));
        assert_eq!(t(s("2024-02-29 10:11:12"), 0), text("10:11:12"));
        assert_eq!(t(s("900:00:00"), 0), text("838:59:59"));
        assert_eq!(t(Input::Int(-5), 0), text("-00:00:05"));
        assert_eq!(t(s("12:60:00"), 0), SqlValue::Null);
    }
}
