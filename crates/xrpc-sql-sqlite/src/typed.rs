//! A translated expression with its MySQL type, and the rules that depend only on types:
//! comparison classes and collations, the common type of branches, and how a value is read as
//! text, as a truth value or as a grouping key. Expressions (`expr`), the function library
//! (`library`) and statements (`translate`) all build on these; nothing here translates a tree.

use crate::error::{TranslateError, unsupported};
use crate::types::{Collation, DECIMAL_COLLATION, TIME_COLLATION, Ty};

type Result<T> = std::result::Result<T, TranslateError>;

/// How strongly a text operand's collation holds (MySQL's coercibility): an explicit
/// `COLLATE` beats a column, which beats a literal or a function result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Strength {
    Explicit,
    Column,
    Derived,
}

/// A translated expression.
#[derive(Debug, Clone)]
pub(crate) struct Typed {
    pub(crate) sql: String,
    pub(crate) ty: Ty,
    pub(crate) strength: Strength,
    /// Holds an aggregate call.
    pub(crate) aggregate: bool,
    /// An UNSIGNED integer: arithmetic on it is unsigned (a negative result is error 1690).
    pub(crate) unsigned: bool,
    /// A JSON document a JSON function returned: placed in another document as it is, and
    /// refused in comparisons and arithmetic (MariaDB reads a JSON scalar there unquoted).
    pub(crate) json: bool,
    /// An argument `?` (typed [`Ty::Dyn`]) whose value's type is known: the type comparisons
    /// read it as ([`Typed::compared`]).
    pub(crate) bound: Option<Ty>,
    /// A table column's reference: SQLite holds its values with the affinity and collation of
    /// the column's declaration (a DECIMAL column's are exact text under `mysql_decimal`).
    pub(crate) stored: bool,
    /// A hexadecimal or bit-value literal (`0x41`, `X'41'`, `b'101'`), typed as the binary
    /// string it is elsewhere: MySQL reads `0x41` as a number in arithmetic and numeric
    /// comparisons, MariaDB reads `X'41'` as a string there, and the parse tree does not tell
    /// the two apart, so such uses are refused.
    pub(crate) bytes_literal: bool,
    /// A BIT column's reference (typed as the integer it holds): MySQL reads it as a binary
    /// string beside a string, so a comparison with one is refused.
    pub(crate) bit: bool,
}

impl Typed {
    pub(crate) fn new(sql: impl Into<String>, ty: Ty) -> Self {
        Self {
            sql: sql.into(),
            ty,
            strength: Strength::Derived,
            aggregate: false,
            unsigned: false,
            json: false,
            bound: None,
            stored: false,
            bytes_literal: false,
            bit: false,
        }
    }

    /// The operand as a comparison reads it: an argument of a known type as a literal of it.
    pub(crate) fn compared(&self) -> Typed {
        match self.bound {
            Some(ty) => Typed {
                ty,
                bound: None,
                ..self.clone()
            },
            None => self.clone(),
        }
    }

    pub(crate) fn with_parts(sql: impl Into<String>, ty: Ty, parts: &[&Typed]) -> Self {
        Self {
            aggregate: parts.iter().any(|p| p.aggregate),
            ..Self::new(sql, ty)
        }
    }
}

/// A SQL string literal.
pub(crate) fn quote(s: &str) -> String {
    if s.contains('\0') {
        // SQLite reads SQL text up to a NUL byte, so a NUL (MySQL's `\0`, which dumps write
        // in binary strings) is joined in as `char(0)`.
        let parts: Vec<String> = s.split('\0').map(quote).collect();
        return format!("({})", parts.join(" || char(0) || "));
    }
    format!("'{}'", s.replace('\'', "''"))
}

/// A SQL name.
pub(crate) fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// A JSON value beside a number (`other`) as the JSON number it holds, which MySQL (comparing
/// or computing with JSON values) and MariaDB (with the text JSON_EXTRACT returns) read alike;
/// `my_json_compared_number` refuses any other JSON value when the statement meets it.
/// Anything else is returned as it is.
pub(crate) fn json_as_number(this: Typed, other: &Typed) -> Typed {
    if this.json && !other.json && other.ty.is_numeric() {
        Typed::new(format!("my_json_compared_number({})", this.sql), Ty::Double)
    } else {
        this
    }
}

/// The comparison class of an operand pair.
pub(crate) enum Compare {
    /// Both text: compare under this collation.
    Text(Collation),
    /// SQLite compares the values as they are (integers, doubles, binary strings).
    Native,
    /// Exact decimals.
    Decimal,
    /// TIME values: as durations, under the TIME collation.
    Time,
    /// As DOUBLEs.
    Real,
    /// As dates and times.
    Temporal,
    /// Known when the statement runs.
    Dynamic,
    /// A binary string with text: byte for byte.
    Bytes,
}

/// The type of a value that may be either of two (CASE, IF, IFNULL, COALESCE, UNION).
pub(crate) fn unify(a: Ty, b: Ty) -> Ty {
    match (a, b) {
        (Ty::Null, t) | (t, Ty::Null) => t,
        (x, y) if x == y => x,
        (Ty::Int, Ty::Decimal(s)) | (Ty::Decimal(s), Ty::Int) => Ty::Decimal(s),
        (Ty::Decimal(s), Ty::Decimal(t)) => Ty::Decimal(s.max(t)),
        (x, y) if x.is_numeric() && y.is_numeric() => Ty::Double,
        (Ty::Date, Ty::DateTime) | (Ty::DateTime, Ty::Date) => Ty::DateTime,
        (Ty::Dyn, _) | (_, Ty::Dyn) => Ty::Dyn,
        (Ty::Bytes, _) | (_, Ty::Bytes) => Ty::Bytes,
        (Ty::Str(Collation::Bin), _) | (_, Ty::Str(Collation::Bin)) => Ty::Str(Collation::Bin),
        _ => Ty::Str(Collation::Ci),
    }
}

/// The collation two text operands compare under: the stronger one's; two different ones of
/// equal strength are MySQL's "Illegal mix of collations" (1267).
pub(crate) fn collation_of(a: &Typed, b: &Typed) -> Result<Collation> {
    let pick = |t: &Typed| t.ty.collation().unwrap_or(Collation::Bin);
    Ok(match a.strength.cmp(&b.strength) {
        std::cmp::Ordering::Less => pick(a),
        std::cmp::Ordering::Greater => pick(b),
        std::cmp::Ordering::Equal if pick(a) == pick(b) => pick(a),
        // A name looked up is compared byte for byte whatever the other side's collation.
        std::cmp::Ordering::Equal if pick(a) == Collation::Exact => pick(a),
        std::cmp::Ordering::Equal if pick(b) == Collation::Exact => pick(b),
        // MariaDB's `utf8mb3` names convert to the other side's `utf8mb4`.
        std::cmp::Ordering::Equal if pick(a) == Collation::Name => pick(b),
        std::cmp::Ordering::Equal if pick(b) == Collation::Name => pick(a),
        std::cmp::Ordering::Equal => return Err(TranslateError::IllegalMix),
    })
}

pub(crate) fn compare_class(a: &Typed, b: &Typed) -> Result<Compare> {
    use Ty::*;
    Ok(match (a.ty, b.ty) {
        (Null, _) | (_, Null) => Compare::Native,
        (Dyn, _) | (_, Dyn) => Compare::Dynamic,
        (Str(_), Str(_)) => Compare::Text(collation_of(a, b)?),
        (Bytes, Bytes) => Compare::Native,
        (Bytes, Str(_)) | (Str(_), Bytes) => Compare::Bytes,
        (Int, Int) => Compare::Native,
        (Int | Decimal(_), Int | Decimal(_)) => Compare::Decimal,
        (x, y) if x.is_numeric() && y.is_numeric() => Compare::Real,
        (x, y) if x.is_temporal() && y.is_temporal() => {
            if x == Time || y == Time {
                if x == y {
                    Compare::Time
                } else {
                    return unsupported("comparison of TIME with a date");
                }
            } else if x == y {
                Compare::Native
            } else {
                Compare::Temporal
            }
        }
        (Time, Str(_)) if time_literal(b) => Compare::Time,
        (Str(_), Time) if time_literal(a) => Compare::Time,
        (x, Str(_)) | (Str(_), x) if x.is_temporal() => {
            if x == Time {
                return unsupported("comparison of TIME with a string that is not a TIME literal");
            }
            Compare::Temporal
        }
        (x, y)
            if (x.is_numeric() || matches!(x, Str(_)) || x == Bytes)
                && (y.is_numeric() || matches!(y, Str(_) | Bytes)) =>
        {
            Compare::Real
        }
        _ => return unsupported("comparison of a date or time with a number"),
    })
}

/// Whether `t` is a string literal that reads as a TIME: the TIME collation orders it as
/// MySQL converts it. Any other string MySQL would read as a TIME with a warning.
fn time_literal(t: &Typed) -> bool {
    t.sql
        .strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .filter(|s| !s.contains('\''))
        .is_some_and(|s| {
            matches!(
                crate::dates::read_time(rusqlite::types::ValueRef::Text(s.as_bytes())),
                crate::dates::TimeRead::Value(_)
            )
        })
}

/// `l op r` for a comparison operator under MySQL's conversion rules.
pub(crate) fn compare(op: &str, l: &Typed, r: &Typed) -> Result<Typed> {
    compare_decimals(op, l, r, true)
}

/// `l op r` with DECIMAL operands as computed: a quotient keeps its internal digits, where
/// the comparison operators read it at its scale (MySQL's BETWEEN and `CASE x WHEN`).
pub(crate) fn compare_unrounded(op: &str, l: &Typed, r: &Typed) -> Result<Typed> {
    compare_decimals(op, l, r, false)
}

fn compare_decimals(op: &str, l: &Typed, r: &Typed, rounded: bool) -> Result<Typed> {
    // A JSON number beside a number compares as that number in MySQL and MariaDB alike (MySQL
    // compares JSON values, MariaDB the text JSON_EXTRACT returns): any other JSON value there
    // is refused when the statement runs, and one beside anything else here.
    let (l, r) = (l.compared(), r.compared());
    let (l, r) = (json_as_number(l.clone(), &r), json_as_number(r, &l));
    let (l, r) = (&l, &r);
    if l.json || r.json {
        return unsupported("comparison of a JSON value");
    }
    // A quotient carries more digits than its scale shows; MySQL's comparison operators
    // compare the value as shown.
    let at_scale = |t: &Typed| match t.ty {
        Ty::Decimal(s) if rounded => format!("my_text({}, 'd{s}')", t.sql),
        _ => t.sql.clone(),
    };
    let parts = [l, r];
    let spaceship = op == "<=>";
    let eq_op = if spaceship { "=" } else { op };
    let core = match compare_class(l, r)? {
        Compare::Native => format!("({} {eq_op} {})", l.sql, r.sql),
        Compare::Text(c) => format!("({} {eq_op} {} COLLATE {})", l.sql, r.sql, c.sqlite_name()),
        // A DECIMAL column with an integer: the integer's digits under the column's collation,
        // which orders decimal text exactly, so SQLite can search the column's index.
        Compare::Decimal if l.stored && r.ty == Ty::Int => format!(
            "({} {eq_op} CAST({} AS TEXT) COLLATE {DECIMAL_COLLATION})",
            l.sql, r.sql
        ),
        Compare::Decimal if r.stored && l.ty == Ty::Int => format!(
            "(CAST({} AS TEXT) {eq_op} {} COLLATE {DECIMAL_COLLATION})",
            l.sql, r.sql
        ),
        Compare::Decimal => format!("(my_dec_cmp({}, {}) {eq_op} 0)", at_scale(l), at_scale(r)),
        Compare::Real => format!(
            "(CAST({} AS REAL) {eq_op} CAST({} AS REAL))",
            real_operand(l),
            real_operand(r)
        ),
        Compare::Temporal => format!("(my_dt_cmp({}, {}) {eq_op} 0)", l.sql, r.sql),
        Compare::Time => format!("({} {eq_op} {} COLLATE {TIME_COLLATION})", l.sql, r.sql),
        Compare::Dynamic => format!("(my_dyn_cmp({}, {}) {eq_op} 0)", l.sql, r.sql),
        Compare::Bytes => format!("(CAST({} AS BLOB) {eq_op} CAST({} AS BLOB))", l.sql, r.sql),
    };
    let sql = if spaceship {
        format!(
            "coalesce({core}, ({} IS NULL AND {} IS NULL))",
            l.sql, r.sql
        )
    } else {
        core
    };
    Ok(Typed::with_parts(sql, Ty::Int, &parts))
}

/// An operand as SQLite should read it as a DOUBLE: text through MySQL's prefix reading, and a
/// DECIMAL (held as its text) as the nearest double, which SQLite's own reading of the text
/// misses by a unit in the last place for some.
pub(crate) fn real_operand(t: &Typed) -> String {
    match t.ty {
        Ty::Str(_) | Ty::Bytes | Ty::Decimal(_) => format!("my_cast_double({})", t.sql),
        _ => t.sql.clone(),
    }
}

/// How `my_cast_signed` and `my_cast_unsigned` read a value of this type as an integer: a
/// string's integer prefix (`s`), a DOUBLE rounded half to even (`f`), an exact number rounded
/// half up (`n`).
pub(crate) fn integer_reading(ty: Ty) -> &'static str {
    match ty {
        Ty::Str(_) | Ty::Bytes | Ty::Dyn => "s",
        Ty::Double | Ty::Float => "f",
        _ => "n",
    }
}

/// The text of a typed value as MySQL converts it to a string (CONCAT's arguments).
pub(crate) fn as_text(t: &Typed) -> String {
    match t.ty {
        Ty::Double | Ty::Float | Ty::Decimal(_) => format!("my_text({}, '{}')", t.sql, t.ty.code()),
        _ => t.sql.clone(),
    }
}

/// An operand of AND, OR, NOT or a condition as SQLite should read its truth: text and
/// decimals as MySQL's numbers, a JSON value as the number it holds.
pub(crate) fn truth(t: &Typed) -> String {
    if t.json {
        return format!("my_json_number({})", t.sql);
    }
    match t.ty {
        Ty::Str(_) | Ty::Bytes | Ty::Decimal(_) => format!("my_cast_double({})", t.sql),
        _ => t.sql.clone(),
    }
}

/// The key of a DISTINCT aggregate or a grouping: text under its collation.
pub(crate) fn distinct_key(t: &Typed, distinct: bool) -> String {
    match t.ty {
        Ty::Str(c) if distinct => format!("{} COLLATE {}", t.sql, c.sqlite_name()),
        _ => t.sql.clone(),
    }
}

/// A GROUP BY or PARTITION BY key.
pub(crate) fn group_key(t: &Typed) -> String {
    distinct_key(t, true)
}

/// A branch value converted to the type of the whole (a CASE of an integer and a decimal is a
/// decimal, so the integer is written as decimal text with the decimal's scale: SQLite orders
/// every integer before every text, whatever the collation).
pub(crate) fn convert_to(t: &Typed, ty: Ty) -> String {
    match (t.ty, ty) {
        (from, Ty::Str(_)) if from != Ty::Null && !matches!(from, Ty::Str(_)) => as_text(t),
        (Ty::Int, Ty::Decimal(s)) => format!("my_dec_key({}, {s})", t.sql),
        _ => t.sql.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quote_doubles_single_quotes() {
        assert_eq!(quote("it's"), "'it''s'");
    }

    /// SQLite would read the text only up to the NUL byte.
    #[test]
    fn quote_joins_a_nul_in_as_char_0() {
        let sql = quote("a'\0b");
        assert!(!sql.contains('\0'), "{sql:?}");
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let value: Vec<u8> = conn
            .query_row(&format!("SELECT CAST({sql} AS BLOB)"), [], |row| row.get(0))
            .unwrap();
        assert_eq!(value, b"a'\0b");
    }
}
