//! The scalar functions a statement may call: each MySQL name with its arity, the SQLite call
//! it becomes (mostly a `my_` function of [`crate::functions`]) and its result type. A name
//! MySQL has but this table lacks is refused with 1235; a name MySQL does not have is 1305.

use sqlparser::ast::DateTimeField;

use crate::error::{TranslateError, unsupported};
use crate::typed::{
    Strength, Typed, as_text, collation_of, compare, convert_to, integer_reading, quote, truth,
    unify,
};
use crate::types::{Catalog, Collation, Ty};

type Result<T> = std::result::Result<T, TranslateError>;

/// The aggregate functions.
pub(crate) fn is_aggregate(name: &str) -> bool {
    matches!(
        name,
        "COUNT"
            | "SUM"
            | "AVG"
            | "MIN"
            | "MAX"
            | "GROUP_CONCAT"
            | "BIT_AND"
            | "BIT_OR"
            | "BIT_XOR"
            | "STD"
            | "STDDEV"
            | "STDDEV_POP"
            | "STDDEV_SAMP"
            | "VARIANCE"
            | "VAR_POP"
            | "VAR_SAMP"
            | "JSON_ARRAYAGG"
            | "JSON_OBJECTAGG"
    )
}

/// The field of an INTERVAL unit name.
pub(crate) fn unit_field(unit: &str) -> Option<DateTimeField> {
    Some(match unit {
        "MICROSECOND" => DateTimeField::Microsecond,
        "SECOND" => DateTimeField::Second,
        "MINUTE" => DateTimeField::Minute,
        "HOUR" => DateTimeField::Hour,
        "DAY" => DateTimeField::Day,
        "WEEK" => DateTimeField::Week(None),
        "MONTH" => DateTimeField::Month,
        "QUARTER" => DateTimeField::Quarter,
        "YEAR" => DateTimeField::Year,
        _ => return None,
    })
}

/// Whether function `name` reads its first argument as a TIME when it is one (its text, kept
/// as MySQL writes the time, is read back as the same time).
pub(crate) fn reads_a_time(name: &str) -> bool {
    matches!(
        name,
        "HOUR"
            | "MINUTE"
            | "SECOND"
            | "MICROSECOND"
            | "TIME_TO_SEC"
            | "TIME_FORMAT"
            | "ADDTIME"
            | "SUBTIME"
    )
}

/// The functions of numbers: their arguments are read as numbers.
const NUMERIC: &[&str] = &[
    "ABS", "ACOS", "ASIN", "ATAN", "ATAN2", "CEIL", "CEILING", "COS", "COT", "DEGREES", "EXP",
    "FLOOR", "LN", "LOG", "LOG10", "LOG2", "MOD", "POW", "POWER", "RADIANS", "ROUND", "SIGN",
    "SIN", "SQRT", "TAN", "TRUNCATE",
];

/// MySQL's built-in functions this translation does not provide: calling one is 1235, not 1305.
const MYSQL_ONLY: &[&str] = &[
    "TIMESTAMP",
    "JSON_MERGE",
    "UUID_SHORT",
    "AES_ENCRYPT",
    "AES_DECRYPT",
    "COMPRESS",
    "UNCOMPRESS",
    "UTC_TIME",
    "CONVERT_TZ",
    "GET_FORMAT",
    "FOUND_ROWS",
    "ROW_COUNT",
    "USER",
    "CURRENT_USER",
    "SESSION_USER",
    "SYSTEM_USER",
    "BENCHMARK",
    "SLEEP",
    "CHARSET",
    "COLLATION",
    "COERCIBILITY",
    "INET6_ATON",
    "INET6_NTOA",
    "EXPORT_SET",
    "MAKE_SET",
    "LOAD_FILE",
    "SOUNDEX",
    "OCTET_LENGTH",
    "WEIGHT_STRING",
    "REGEXP_REPLACE",
    "REGEXP_SUBSTR",
    "REGEXP_INSTR",
    "REGEXP_LIKE",
    "PI",
    "CONVERT",
    "ANY_VALUE",
    "GROUPING",
    "NAME_CONST",
    "MASTER_POS_WAIT",
    "ST_ASTEXT",
    "POINT",
    "NTILE",
    "LAG",
    "LEAD",
    "FIRST_VALUE",
    "LAST_VALUE",
    "NTH_VALUE",
    "PERCENT_RANK",
    "CUME_DIST",
    "TO_SECONDS",
    "MID_STR",
    "STRCMP_BIN",
    "NOW6",
    "ENCRYPT",
    "PASSWORD",
    "OLD_PASSWORD",
    "DECODE",
    "ENCODE",
    "DES_ENCRYPT",
    "DES_DECRYPT",
    "LAST_DAY_OF",
    "DATE_TRUNC",
    "CHR",
    "VALUES",
];

/// A value as JSON text in a document JSON_ARRAY, JSON_OBJECT or JSON_SET builds: a JSON
/// function's result as it is, a number as its MySQL text, a truth value (`truth_value`, by the
/// form of its expression) as `true`/`false`, NULL as `null`, a `?` argument by its class when
/// the statement runs, anything else as a JSON string.
pub(crate) fn json_value(t: &Typed, truth_value: bool) -> String {
    let kind = match t.ty {
        _ if t.json => "r",
        _ if truth_value => "b",
        Ty::Null => return "'null'".to_string(),
        Ty::Int | Ty::Decimal(_) | Ty::Double | Ty::Float => "n",
        Ty::Dyn => "d",
        _ => "s",
    };
    format!("my_json_value({}, '{kind}')", as_text(t))
}

/// Where a function is called: what its translation depends on besides its arguments.
#[derive(Clone, Copy)]
pub(crate) struct CallSite<'a> {
    /// In a write's values: conversions fail as strict mode does.
    pub(crate) strict: bool,
    /// For the current database's name in an unknown function's error.
    pub(crate) catalog: &'a dyn Catalog,
}

impl CallSite<'_> {
    /// A scalar function of translated arguments.
    pub(crate) fn call(self, name: &str, args: Vec<Typed>) -> Result<Typed> {
        let n = args.len();
        // MySQL's numeric functions read a date or time as its number (20240229), which its
        // text (read as 2024) is not.
        if NUMERIC.contains(&name)
            && args
                .iter()
                .any(|a| matches!(a.ty, Ty::Date | Ty::DateTime | Ty::Time))
        {
            return unsupported(format!("a date or time as the number of {name}()"));
        }
        let arity = |ok: bool| -> Result<()> {
            if ok {
                Ok(())
            } else {
                Err(TranslateError::ParamCount(name.to_string()))
            }
        };
        let aggregate = args.iter().any(|a| a.aggregate);
        let text = |i: usize| as_text(&args[i]);
        let sql = |i: usize| args[i].sql.clone();
        let ci = |i: usize, j: usize| {
            let c = |t: &Typed| match t.ty {
                Ty::Bytes => Collation::Bin,
                Ty::Str(c) => c,
                _ => Collation::Ci,
            };
            i32::from(c(&args[i]).folds_case() && c(&args[j]).folds_case())
        };
        let str_ty = |i: usize| match args.get(i).map(|a| a.ty) {
            Some(Ty::Bytes) => Ty::Bytes,
            Some(Ty::Str(c)) => Ty::Str(c),
            _ => Ty::Str(Collation::Ci),
        };
        let list = |from: usize, f: &dyn Fn(usize) -> String| -> String {
            (from..n).map(f).collect::<Vec<_>>().join(", ")
        };
        let numeric_kind = |t: Ty| match t {
            Ty::Int => "i",
            Ty::Decimal(_) => "d",
            _ => "f",
        };
        let (out, ty): (String, Ty) = match name {
            // Flow.
            "IF" => {
                arity(n == 3)?;
                let ty = unify(args[1].ty, args[2].ty);
                (
                    format!(
                        "(CASE WHEN {} THEN {} ELSE {} END)",
                        truth(&args[0]),
                        convert_to(&args[1], ty),
                        convert_to(&args[2], ty)
                    ),
                    ty,
                )
            }
            "ISNULL" => {
                arity(n == 1)?;
                (format!("({} IS NULL)", sql(0)), Ty::Int)
            }
            "IFNULL" | "COALESCE" => {
                arity(if name == "IFNULL" { n == 2 } else { n >= 1 })?;
                let ty = args.iter().fold(Ty::Null, |t, a| unify(t, a.ty));
                let all = list(0, &|i| convert_to(&args[i], ty));
                if n == 1 {
                    (all, ty)
                } else {
                    (format!("coalesce({all})"), ty)
                }
            }
            "NULLIF" => {
                arity(n == 2)?;
                let eq = compare("=", &args[0], &args[1])?;
                (
                    format!("(CASE WHEN {} THEN NULL ELSE {} END)", eq.sql, sql(0)),
                    args[0].ty,
                )
            }
            // Values of one type compare as SQLite's max/min do; mixed ones as MySQL compares
            // them (`my_extreme`): numbers with strings as DOUBLEs, integers with decimals
            // exactly, strings with bytes as bytes, a DATE with strings and integers as dates
            // (a DATETIME only with DATEs: MySQL's fraction digits of a string differ).
            "GREATEST" | "LEAST" => {
                arity(n >= 2)?;
                let f = if name == "GREATEST" { "max" } else { "min" };
                let greatest = i32::from(name == "GREATEST");
                let tys: Vec<Ty> = args
                    .iter()
                    .map(|a| a.ty)
                    .filter(|t| *t != Ty::Null)
                    .collect();
                let has = |p: &dyn Fn(Ty) -> bool| tys.iter().any(|t| p(*t));
                let all = |p: &dyn Fn(Ty) -> bool| tys.iter().all(|t| p(*t));
                let ty = tys.iter().fold(Ty::Null, |t, a| unify(t, *a));
                let extreme =
                    |kind: &str| format!("my_extreme('{kind}', {greatest}, {})", list(0, &sql));
                let is_text = |t: Ty| matches!(t, Ty::Str(_) | Ty::Bytes);
                match ty {
                    Ty::Null => ("NULL".into(), Ty::Null),
                    Ty::Int | Ty::Date | Ty::DateTime | Ty::Bytes | Ty::Time
                        if all(&|t| t == ty) =>
                    {
                        (format!("{f}({})", list(0, &sql)), ty)
                    }
                    Ty::Str(_) if all(&|t| matches!(t, Ty::Str(_))) => {
                        // The strongest collation of the strings (1267 for an illegal mix).
                        let mut texts = args.iter().filter(|a| matches!(a.ty, Ty::Str(_)));
                        let mut c = texts.next().cloned().expect("a string argument");
                        for a in texts {
                            let collation = collation_of(&c, a)?;
                            if a.strength < c.strength {
                                c = a.clone();
                            }
                            c.ty = Ty::Str(collation);
                        }
                        let collation = c.ty.collation().unwrap_or(Collation::Ci);
                        (
                            format!(
                                "{f}({} COLLATE {}, {})",
                                sql(0),
                                collation.sqlite_name(),
                                list(1, &sql)
                            ),
                            Ty::Str(collation),
                        )
                    }
                    Ty::Decimal(_) if all(&|t| matches!(t, Ty::Int | Ty::Decimal(_))) => {
                        (extreme("d"), ty)
                    }
                    _ if all(&|t| t.is_numeric() || is_text(t)) && has(&Ty::is_numeric) => {
                        (extreme("f"), Ty::Double)
                    }
                    _ if all(&is_text) => (extreme("b"), Ty::Bytes),
                    _ if all(&|t| matches!(t, Ty::Date | Ty::Str(_) | Ty::Int)) => {
                        (extreme("D"), Ty::Date)
                    }
                    _ if all(&|t| matches!(t, Ty::Date | Ty::DateTime)) => {
                        (extreme("T"), Ty::DateTime)
                    }
                    _ => return unsupported(format!("{name} of mixed types")),
                }
            }
            // Strings.
            "CONCAT" => {
                arity(n >= 1)?;
                let ty = if args.iter().any(|a| a.ty == Ty::Bytes) {
                    Ty::Bytes
                } else {
                    Ty::Str(Collation::Ci)
                };
                (format!("my_concat({})", list(0, &text)), ty)
            }
            "CONCAT_WS" => {
                arity(n >= 2)?;
                (
                    format!("my_concat_ws({})", list(0, &text)),
                    Ty::Str(Collation::Ci),
                )
            }
            "LENGTH" | "OCTET_LENGTH" => {
                arity(n == 1)?;
                (format!("my_length({})", text(0)), Ty::Int)
            }
            "CHAR_LENGTH" | "CHARACTER_LENGTH" => {
                arity(n == 1)?;
                (format!("my_char_length({})", text(0)), Ty::Int)
            }
            "UPPER" | "UCASE" | "LOWER" | "LCASE" => {
                arity(n == 1)?;
                let f = if name.starts_with('U') {
                    "my_upper"
                } else {
                    "my_lower"
                };
                if args[0].ty == Ty::Bytes {
                    (sql(0), Ty::Bytes)
                } else {
                    (format!("{f}({})", text(0)), str_ty(0))
                }
            }
            "LPAD" | "RPAD" => {
                arity(n == 3)?;
                (
                    format!(
                        "my_{}({}, {}, {})",
                        name.to_ascii_lowercase(),
                        text(0),
                        sql(1),
                        text(2)
                    ),
                    str_ty(0),
                )
            }
            "SUBSTRING" | "SUBSTR" | "MID" => {
                arity(n == 2 || n == 3)?;
                (
                    format!("my_substr({}, {})", text(0), list(1, &sql)),
                    str_ty(0),
                )
            }
            "SUBSTRING_INDEX" => {
                arity(n == 3)?;
                (
                    format!("my_substring_index({}, {}, {})", text(0), text(1), sql(2)),
                    str_ty(0),
                )
            }
            "LOCATE" => {
                arity(n == 2 || n == 3)?;
                let pos = if n == 3 { sql(2) } else { "1".into() };
                (
                    format!("my_locate({}, {}, {pos}, {})", text(0), text(1), ci(0, 1)),
                    Ty::Int,
                )
            }
            "INSTR" => {
                arity(n == 2)?;
                (
                    format!("my_locate({}, {}, 1, {})", text(1), text(0), ci(0, 1)),
                    Ty::Int,
                )
            }
            "FIND_IN_SET" => {
                arity(n == 2)?;
                (
                    format!("my_find_in_set({}, {}, {})", text(0), text(1), ci(0, 1)),
                    Ty::Int,
                )
            }
            "FIELD" => {
                arity(n >= 2)?;
                let numeric = args.iter().all(|a| a.ty.is_numeric() || a.ty == Ty::Null);
                let all_ci = args.iter().all(|a| {
                    matches!(a.ty, Ty::Str(c) if c.folds_case())
                        || a.ty == Ty::Null
                        || a.ty.is_numeric()
                });
                (
                    format!(
                        "my_field({}, '{}', {})",
                        i32::from(all_ci),
                        if numeric { "n" } else { "s" },
                        list(0, &text)
                    ),
                    Ty::Int,
                )
            }
            "ELT" => {
                arity(n >= 2)?;
                (
                    format!("my_elt({}, {})", sql(0), list(1, &text)),
                    Ty::Str(Collation::Ci),
                )
            }
            "LEFT" | "RIGHT" | "REPEAT" => {
                arity(n == 2)?;
                (
                    format!("my_{}({}, {})", name.to_ascii_lowercase(), text(0), sql(1)),
                    str_ty(0),
                )
            }
            "REVERSE" => {
                arity(n == 1)?;
                (format!("my_reverse({})", text(0)), str_ty(0))
            }
            "SPACE" => {
                arity(n == 1)?;
                (format!("my_space({})", sql(0)), Ty::Str(Collation::Ci))
            }
            "HEX" => {
                arity(n == 1)?;
                let call = match args[0].ty {
                    Ty::Int | Ty::Bytes | Ty::Str(_) => format!("my_hex({})", sql(0)),
                    Ty::Decimal(_) => format!("my_hex_dec({})", sql(0)),
                    Ty::Double | Ty::Float => format!("my_hex(CAST({} AS REAL))", sql(0)),
                    Ty::Null => "NULL".into(),
                    _ => return unsupported("HEX of a date or time"),
                };
                (call, Ty::Str(Collation::Ci))
            }
            "UNHEX" => {
                arity(n == 1)?;
                (format!("my_unhex({})", text(0)), Ty::Bytes)
            }
            "ASCII" => {
                arity(n == 1)?;
                (format!("my_ascii({})", text(0)), Ty::Int)
            }
            "STRCMP" => {
                arity(n == 2)?;
                (
                    format!("my_strcmp({}, {}, {})", text(0), text(1), ci(0, 1)),
                    Ty::Int,
                )
            }
            "TRIM" | "LTRIM" | "RTRIM" => {
                arity(n == 1)?;
                let mode = match name {
                    "TRIM" => 0,
                    "LTRIM" => 1,
                    _ => 2,
                };
                (format!("my_trim({mode}, ' ', {})", text(0)), str_ty(0))
            }
            "REPLACE" => {
                arity(n == 3)?;
                (
                    format!("replace({}, {}, {})", text(0), text(1), text(2)),
                    str_ty(0),
                )
            }
            "INSERT" => {
                arity(n == 4)?;
                (
                    format!(
                        "my_insert({}, {}, {}, {})",
                        text(0),
                        sql(1),
                        sql(2),
                        text(3)
                    ),
                    str_ty(0),
                )
            }
            "FORMAT" => {
                arity(n == 2)?;
                (
                    format!("my_format({}, {})", sql(0), sql(1)),
                    Ty::Str(Collation::Ci),
                )
            }
            // Numbers.
            "ABS" => {
                arity(n == 1)?;
                match args[0].ty {
                    Ty::Int => (format!("abs({})", sql(0)), Ty::Int),
                    Ty::Decimal(s) => (format!("my_dec_abs({}, {s})", sql(0)), Ty::Decimal(s)),
                    _ => (format!("abs(my_cast_double({}))", sql(0)), Ty::Double),
                }
            }
            "ROUND" | "TRUNCATE" if args.first().is_some_and(|a| a.ty == Ty::Null) => {
                arity(if name == "ROUND" {
                    n == 1 || n == 2
                } else {
                    n == 2
                })?;
                ("NULL".into(), Ty::Null)
            }
            "ROUND" | "TRUNCATE" => {
                arity(if name == "ROUND" {
                    n == 1 || n == 2
                } else {
                    n == 2
                })?;
                let digits = if n == 2 { sql(1) } else { "0".into() };
                // The result keeps the argument's kind; a constant digit count fixes the scale.
                let fixed: Option<i64> = args.get(1).map_or(Some(0), |d| d.sql.parse().ok());
                let kind = numeric_kind(args[0].ty);
                let ty = match (args[0].ty, fixed) {
                    (Ty::Int, Some(d)) if d >= 0 => Ty::Int,
                    (Ty::Int, Some(_)) => Ty::Int,
                    (Ty::Decimal(_), Some(d)) => Ty::Decimal(d.clamp(0, 30) as u8),
                    (Ty::Double | Ty::Float | Ty::Str(_), _) => Ty::Double,
                    _ => return unsupported(format!("{name} with a computed digit count")),
                };
                // A DOUBLE rounded to d digits is shown by MySQL with d fixed decimals, and so is
                // arithmetic on it. To no digits (or fewer) it behaves as an integer would;
                // to more, it is refused rather than printed differently.
                if ty == Ty::Double {
                    if fixed.is_none_or(|d| d > 0) {
                        return unsupported(format!("{name} of a DOUBLE to decimals"));
                    }
                    let f = name.to_ascii_lowercase();
                    return Ok(Typed {
                        aggregate,
                        ..Typed::new(format!("my_{f}({}, {digits}, 'f')", sql(0)), Ty::Int)
                    });
                }
                let kind = if ty == Ty::Double { "f" } else { kind };
                (
                    format!(
                        "my_{}({}, {digits}, '{kind}')",
                        name.to_ascii_lowercase(),
                        sql(0)
                    ),
                    ty,
                )
            }
            "CEIL" | "CEILING" | "FLOOR" => {
                arity(n == 1)?;
                let f = if name == "FLOOR" {
                    "my_floor"
                } else {
                    "my_ceil"
                };
                match args[0].ty {
                    Ty::Int => (sql(0), Ty::Int),
                    Ty::Decimal(_) => (format!("{f}({}, 'd')", sql(0)), Ty::Int),
                    Ty::Null => ("NULL".into(), Ty::Null),
                    // A DOUBLE without decimals: as an integer (see ROUND).
                    _ => (format!("{f}({}, 'f')", sql(0)), Ty::Int),
                }
            }
            "MOD" => {
                arity(n == 2)?;
                return self.mod_call(args);
            }
            "POW" | "POWER" => {
                arity(n == 2)?;
                (format!("my_pow({}, {})", sql(0), sql(1)), Ty::Double)
            }
            "SQRT" | "LN" | "LOG10" | "LOG2" | "EXP" => {
                arity(n == 1)?;
                (
                    format!("my_{}({})", name.to_ascii_lowercase(), sql(0)),
                    Ty::Double,
                )
            }
            "LOG" => {
                arity(n == 1 || n == 2)?;
                if n == 1 {
                    (format!("my_ln({})", sql(0)), Ty::Double)
                } else {
                    (format!("my_log({}, {})", sql(0), sql(1)), Ty::Double)
                }
            }
            "SIGN" => {
                arity(n == 1)?;
                (format!("my_sign({})", sql(0)), Ty::Int)
            }
            "CONV" => {
                arity(n == 3)?;
                (
                    format!("my_conv({}, {}, {})", text(0), sql(1), sql(2)),
                    Ty::Str(Collation::Ci),
                )
            }
            "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN" | "ATAN2" | "COT" | "DEGREES"
            | "RADIANS" => {
                arity(match name {
                    "ATAN" => n == 1 || n == 2,
                    "ATAN2" => n == 2,
                    _ => n == 1,
                })?;
                if n == 2 {
                    (format!("my_atan2({}, {})", sql(0), sql(1)), Ty::Double)
                } else {
                    (
                        format!("my_{}({})", name.to_ascii_lowercase(), sql(0)),
                        Ty::Double,
                    )
                }
            }
            // BIN and OCT of an integer (MySQL rounds another number first).
            "BIN" | "OCT" => {
                arity(n == 1)?;
                if !matches!(args[0].ty, Ty::Int | Ty::Null) {
                    return unsupported(format!("{name} of a non-integer"));
                }
                let base = if name == "BIN" { 2 } else { 8 };
                (
                    format!("my_conv({}, 10, {base})", text(0)),
                    Ty::Str(Collation::Ci),
                )
            }
            "BIT_COUNT" => {
                arity(n == 1)?;
                if args[0].bytes_literal || !matches!(args[0].ty, Ty::Int | Ty::Null) {
                    return unsupported("BIT_COUNT of a non-integer");
                }
                (format!("my_bit_count({})", sql(0)), Ty::Int)
            }
            "BIT_LENGTH" => {
                arity(n == 1)?;
                (format!("(my_length({}) * 8)", text(0)), Ty::Int)
            }
            // Digests and encodings of a string's bytes.
            "MD5" | "SHA1" | "SHA" | "CRC32" | "TO_BASE64" | "QUOTE" | "ORD" | "INET_ATON" => {
                arity(n == 1)?;
                let f = match name {
                    "SHA" => "sha1",
                    other => &other.to_ascii_lowercase(),
                };
                let ty = if matches!(name, "CRC32" | "ORD" | "INET_ATON") {
                    Ty::Int
                } else {
                    Ty::Str(Collation::Ci)
                };
                (format!("my_{f}({})", text(0)), ty)
            }
            "SHA2" => {
                arity(n == 2)?;
                (
                    format!("my_sha2({}, {})", text(0), sql(1)),
                    Ty::Str(Collation::Ci),
                )
            }
            "FROM_BASE64" => {
                arity(n == 1)?;
                (format!("my_from_base64({})", text(0)), Ty::Bytes)
            }
            "INET_NTOA" => {
                arity(n == 1)?;
                if !matches!(args[0].ty, Ty::Int | Ty::Null) {
                    return unsupported("INET_NTOA of a non-integer");
                }
                (format!("my_inet_ntoa({})", sql(0)), Ty::Str(Collation::Ci))
            }
            "CHAR" => {
                arity(n >= 1)?;
                if !args.iter().all(|a| matches!(a.ty, Ty::Int | Ty::Null)) {
                    return unsupported("CHAR of a non-integer");
                }
                (format!("my_char({})", list(0, &sql)), Ty::Bytes)
            }
            // RAND(seed) repeats MySQL's own sequence, which this does not.
            "RAND" => {
                if n == 1 {
                    return unsupported("RAND with a seed");
                }
                arity(n == 0)?;
                ("my_rand()".into(), Ty::Double)
            }
            "UUID" => {
                arity(n == 0)?;
                ("my_uuid()".into(), Ty::Str(Collation::Ci))
            }
            // Dates and times.
            "UTC_TIMESTAMP" | "UTC_DATE" => {
                arity(n == 0)?;
                if name == "UTC_DATE" {
                    ("my_utc_now(0)".into(), Ty::Date)
                } else {
                    ("my_utc_now(1)".into(), Ty::DateTime)
                }
            }
            "NOW" | "CURRENT_TIMESTAMP" | "SYSDATE" | "LOCALTIME" | "LOCALTIMESTAMP" => {
                arity(n <= 1)?;
                if n == 0 {
                    ("my_now()".into(), Ty::DateTime)
                } else {
                    // The fraction digits: a literal 0 to 6, as MySQL requires.
                    let Some(fsp) = args[0].sql.parse::<u8>().ok().filter(|f| *f <= 6) else {
                        return unsupported(format!("{name} of other than 0 to 6 fraction digits"));
                    };
                    (format!("my_now({fsp})"), Ty::DateTime)
                }
            }
            "CURDATE" | "CURRENT_DATE" => {
                arity(n == 0)?;
                ("my_curdate()".into(), Ty::Date)
            }
            "CURTIME" | "CURRENT_TIME" => {
                arity(n == 0)?;
                ("my_curtime()".into(), Ty::Time)
            }
            "DATE" => {
                arity(n == 1)?;
                (format!("my_date({}, 0)", sql(0)), Ty::Date)
            }
            // A literal format of numeric fields with a whole date: a DATE, or a DATETIME when
            // it reads a time too.
            "STR_TO_DATE" => {
                arity(n == 2)?;
                let format = args[1]
                    .sql
                    .strip_prefix('\'')
                    .and_then(|f| f.strip_suffix('\''))
                    .filter(|_| matches!(args[1].ty, Ty::Str(_)))
                    .map(|f| f.replace("''", "'"));
                let kind = format.as_deref().and_then(crate::dates::str_to_date_kind);
                let Some(with_time) = kind else {
                    return unsupported(format!("STR_TO_DATE with the format {}", args[1].sql));
                };
                (
                    format!(
                        "my_str_to_date({}, {}, {})",
                        text(0),
                        sql(1),
                        i32::from(with_time)
                    ),
                    if with_time { Ty::DateTime } else { Ty::Date },
                )
            }
            // The time of day of a date or datetime, with the fraction digits it has; a string
            // may be a TIME value itself, which this does not read.
            "TIME" => {
                arity(n == 1)?;
                match args[0].ty {
                    Ty::Date | Ty::DateTime => (format!("my_time_of_day({})", sql(0)), Ty::Time),
                    Ty::Time => (sql(0), Ty::Time),
                    Ty::Null => ("NULL".into(), Ty::Null),
                    _ => (format!("my_time({}, -1, 0)", sql(0)), Ty::Time),
                }
            }
            // The clock fields of a value read as a TIME (a string is a TIME first).
            "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND"
                if !matches!(args.first().map(|a| a.ty), Some(Ty::Date | Ty::DateTime)) =>
            {
                arity(n == 1)?;
                (format!("my_time_part({}, '{name}')", sql(0)), Ty::Int)
            }
            "YEAR" | "MONTH" | "DAY" | "DAYOFMONTH" | "HOUR" | "MINUTE" | "SECOND"
            | "MICROSECOND" | "QUARTER" | "DAYOFWEEK" | "WEEKDAY" | "DAYOFYEAR" | "TO_DAYS" => {
                arity(n == 1)?;
                let part = if name == "DAYOFMONTH" { "DAY" } else { name };
                (format!("my_part({}, '{part}')", sql(0)), Ty::Int)
            }
            "WEEK" | "YEARWEEK" => {
                arity(n == 1 || n == 2)?;
                let mode = if n == 2 { sql(1) } else { "0".into() };
                let yearweek = i32::from(name == "YEARWEEK");
                (format!("my_week({}, {mode}, {yearweek})", sql(0)), Ty::Int)
            }
            "WEEKOFYEAR" => {
                arity(n == 1)?;
                (format!("my_week({}, 3, 0)", sql(0)), Ty::Int)
            }
            // Of a DATETIME or TIME; MySQL decides by a string's text whether it is either.
            "ADDTIME" | "SUBTIME" => {
                arity(n == 2)?;
                let kind = match args[0].ty {
                    Ty::DateTime => ("datetime", Ty::DateTime),
                    Ty::Time => ("time", Ty::Time),
                    Ty::Null => ("time", Ty::Null),
                    _ => return unsupported(format!("{name} of other than a DATETIME or TIME")),
                };
                let sign = if name == "ADDTIME" { 1 } else { -1 };
                (
                    format!("my_addtime({}, {}, {sign}, '{}')", sql(0), sql(1), kind.0),
                    kind.1,
                )
            }
            // Periods are read as integers, as CAST AS SIGNED reads them.
            "PERIOD_ADD" | "PERIOD_DIFF" => {
                arity(n == 2)?;
                if args.iter().any(|a| a.json) {
                    return unsupported(format!("{name} of a JSON value"));
                }
                let integer = |i: usize| {
                    format!(
                        "my_cast_signed({}, '{}')",
                        sql(i),
                        integer_reading(args[i].ty)
                    )
                };
                (
                    format!(
                        "my_{}({}, {})",
                        name.to_ascii_lowercase(),
                        integer(0),
                        integer(1)
                    ),
                    Ty::Int,
                )
            }
            "TIME_FORMAT" => {
                arity(n == 2)?;
                (
                    format!("my_time_format({}, {})", sql(0), text(1)),
                    Ty::Str(Collation::Ci),
                )
            }
            "TIME_TO_SEC" => {
                arity(n == 1)?;
                (format!("my_time_to_sec({})", sql(0)), Ty::Int)
            }
            "SEC_TO_TIME" => {
                arity(n == 1)?;
                (format!("my_sec_to_time({})", sql(0)), Ty::Time)
            }
            "MAKETIME" => {
                arity(n == 3)?;
                (format!("my_maketime({})", list(0, &sql)), Ty::Time)
            }
            "TIMEDIFF" => {
                arity(n == 2)?;
                (format!("my_timediff({}, {})", text(0), text(1)), Ty::Time)
            }
            "DAYNAME" | "MONTHNAME" => {
                arity(n == 1)?;
                (
                    format!("my_{}({})", name.to_ascii_lowercase(), sql(0)),
                    Ty::Str(Collation::Ci),
                )
            }
            "LAST_DAY" => {
                arity(n == 1)?;
                (format!("my_last_day({})", sql(0)), Ty::Date)
            }
            "DATE_FORMAT" => {
                arity(n == 2)?;
                (
                    format!("my_date_format({}, {})", sql(0), text(1)),
                    Ty::Str(Collation::Ci),
                )
            }
            "DATEDIFF" => {
                arity(n == 2)?;
                (format!("my_datediff({}, {})", sql(0), sql(1)), Ty::Int)
            }
            "UNIX_TIMESTAMP" => {
                arity(n <= 1)?;
                // A value with fractional seconds gives a DECIMAL's text; others an integer.
                let ty = if n == 1
                    && !matches!(args[0].ty, Ty::Date | Ty::DateTime | Ty::Str(_) | Ty::Null)
                {
                    return unsupported("UNIX_TIMESTAMP of a number");
                } else if n == 1 && matches!(args[0].ty, Ty::Str(_)) {
                    Ty::Str(Collation::Ci)
                } else {
                    Ty::Int
                };
                (format!("my_unix_timestamp({})", list(0, &sql)), ty)
            }
            "FROM_UNIXTIME" => {
                arity(n == 1 || n == 2)?;
                if !matches!(args[0].ty, Ty::Int | Ty::Null) {
                    return unsupported("FROM_UNIXTIME of a non-integer");
                }
                let at = format!("my_from_unixtime({})", sql(0));
                if n == 2 {
                    (
                        format!("my_date_format({at}, {})", text(1)),
                        Ty::Str(Collation::Ci),
                    )
                } else {
                    (at, Ty::DateTime)
                }
            }
            "FROM_DAYS" => {
                arity(n == 1)?;
                (format!("my_from_days({})", sql(0)), Ty::Date)
            }
            // JSON documents are text (see `crate::json`).
            "JSON_EXTRACT" => {
                arity(n >= 2)?;
                let mut t = Typed::new(format!("my_json_extract({})", list(0, &text)), str_ty(0));
                t.json = true;
                t.aggregate = aggregate;
                return Ok(t);
            }
            "JSON_UNQUOTE" => {
                arity(n == 1)?;
                // Binary, and as strong as a column's collation (MySQL's IMPLICIT).
                let mut t = Typed::new(
                    format!("my_json_unquote({})", text(0)),
                    Ty::Str(Collation::Bin),
                );
                t.strength = Strength::Column;
                t.aggregate = aggregate;
                return Ok(t);
            }
            "JSON_LENGTH" => {
                arity(n == 1 || n == 2)?;
                (format!("my_json_length({})", list(0, &text)), Ty::Int)
            }
            "JSON_VALID" => {
                arity(n == 1)?;
                (format!("my_json_valid({})", text(0)), Ty::Int)
            }
            "JSON_TYPE" => {
                arity(n == 1)?;
                (format!("my_json_type({})", text(0)), Ty::Str(Collation::Ci))
            }
            // A JSON array in a string (MariaDB places it in a document as a string).
            "JSON_KEYS" => {
                arity(n == 1 || n == 2)?;
                (
                    format!("my_json_keys({})", list(0, &text)),
                    Ty::Str(Collation::Ci),
                )
            }
            "JSON_CONTAINS" => {
                arity(n == 2 || n == 3)?;
                (format!("my_json_contains({})", list(0, &text)), Ty::Int)
            }
            "JSON_CONTAINS_PATH" => {
                arity(n >= 3)?;
                (
                    format!("my_json_contains_path({})", list(0, &text)),
                    Ty::Int,
                )
            }
            // A string's JSON literal; NULL for a number, as MariaDB gives.
            "JSON_QUOTE" => {
                arity(n == 1)?;
                if args[0].ty.is_numeric() || args[0].ty == Ty::Null {
                    ("NULL".into(), Ty::Null)
                } else {
                    (
                        format!("my_json_quote({})", text(0)),
                        Ty::Str(Collation::Ci),
                    )
                }
            }
            // Documents: the values of SET/INSERT/REPLACE arrive as JSON (`json_value`).
            "JSON_SET" | "JSON_INSERT" | "JSON_REPLACE" | "JSON_REMOVE" | "JSON_MERGE_PATCH"
            | "JSON_SEARCH" => {
                let sql = match name {
                    "JSON_REMOVE" | "JSON_MERGE_PATCH" => {
                        arity(n >= 2)?;
                        format!("my_{}({})", name.to_ascii_lowercase(), list(0, &text))
                    }
                    "JSON_SEARCH" => {
                        arity(n >= 3)?;
                        let escape = args.get(3).map_or_else(|| "NULL".into(), |_| text(3));
                        let paths: String = (4..n).map(|i| format!(", {}", text(i))).collect();
                        format!(
                            "my_json_search({}, {}, {}, {escape}, {}{paths})",
                            text(0),
                            text(1),
                            text(2),
                            ci(0, 2)
                        )
                    }
                    _ => {
                        arity(n >= 3 && n % 2 == 1)?;
                        let change = name["JSON_".len()..].to_ascii_lowercase();
                        format!("my_json_modify('{change}', {})", list(0, &text))
                    }
                };
                let mut t = Typed::new(sql, Ty::Str(Collation::Ci));
                t.json = true;
                t.aggregate = aggregate;
                return Ok(t);
            }
            // The values arrive as JSON already (`json_value`); object keys are text.
            "JSON_ARRAY" | "JSON_OBJECT" => {
                let object = name == "JSON_OBJECT";
                arity(!object || n.is_multiple_of(2))?;
                let f = if object {
                    "my_json_object"
                } else {
                    "my_json_array"
                };
                let mut t = Typed::new(format!("{f}({})", list(0, &text)), Ty::Str(Collation::Ci));
                t.json = true;
                t.aggregate = aggregate;
                return Ok(t);
            }
            // A super-aggregate row's value of GROUP BY … WITH ROLLUP (see `crate::rollup`):
            // refused when the rows it adds up differ in it.
            "__ROLLUP_ONE_VALUE" => {
                arity(n == 2)?;
                (
                    format!(
                        "(CASE WHEN {} THEN my_rollup_varies() ELSE {} END)",
                        truth(&args[0]),
                        sql(1)
                    ),
                    args[1].ty,
                )
            }
            // The previous statement's counts, as the engine reported them.
            // LAST_INSERT_ID(expr) reads its argument as an integer, as CAST AS SIGNED does.
            "LAST_INSERT_ID" if n == 1 => {
                if args[0].json {
                    return unsupported("LAST_INSERT_ID of a JSON value");
                }
                (
                    format!(
                        "my_last_insert_id(my_cast_signed({}, '{}'))",
                        sql(0),
                        integer_reading(args[0].ty)
                    ),
                    Ty::Int,
                )
            }
            "ROW_COUNT" | "FOUND_ROWS" | "LAST_INSERT_ID" => {
                arity(n == 0)?;
                (format!("my_{}()", name.to_ascii_lowercase()), Ty::Int)
            }
            // The current database: the translation is kept per current database.
            "DATABASE" | "SCHEMA" => {
                arity(n == 0)?;
                let current = self.catalog.current_schema();
                (
                    current.map_or_else(|| "NULL".to_owned(), |db| quote(&db)),
                    Ty::Str(Collation::Ci),
                )
            }
            "CONNECTION_ID" => {
                arity(n == 0)?;
                ("my_connection_id()".into(), Ty::Int)
            }
            // Named locks: the engine's (`my_get_lock` and the others are its functions).
            // MariaDB takes only a string as the name: 4079 for a number or a temporal value.
            "GET_LOCK" | "RELEASE_LOCK" | "IS_FREE_LOCK" | "IS_USED_LOCK"
                if n >= 1 && !matches!(args[0].ty, Ty::Str(_) | Ty::Null | Ty::Dyn) =>
            {
                return match refused_type_name(&args[0]) {
                    Some(ty) => Err(TranslateError::IllegalParameterType(
                        ty,
                        name.to_ascii_lowercase(),
                    )),
                    // A binary string MariaDB takes; its conversion is not done here.
                    None => unsupported(format!("{name} of a binary string")),
                };
            }
            "GET_LOCK" => {
                arity(n == 2)?;
                (
                    format!("my_get_lock({}, {})", as_text(&args[0]), sql(1)),
                    Ty::Int,
                )
            }
            "RELEASE_LOCK" | "IS_FREE_LOCK" | "IS_USED_LOCK" => {
                arity(n == 1)?;
                (
                    format!("my_{}({})", name.to_ascii_lowercase(), as_text(&args[0])),
                    Ty::Int,
                )
            }
            "RELEASE_ALL_LOCKS" => {
                arity(n == 0)?;
                ("my_release_all_locks()".into(), Ty::Int)
            }
            "VERSION" => {
                arity(n == 0)?;
                ("my_version()".into(), Ty::Str(Collation::Ci))
            }
            "MAKEDATE" => {
                arity(n == 2)?;
                (format!("my_makedate({}, {})", sql(0), sql(1)), Ty::Date)
            }
            other if MYSQL_ONLY.contains(&other) || is_aggregate(other) => {
                return unsupported(format!("function {other}"));
            }
            other => {
                let schema = self.catalog.current_schema().unwrap_or_default();
                return Err(TranslateError::UnknownFunction(format!(
                    "{schema}.{}",
                    other.to_ascii_lowercase()
                )));
            }
        };
        // A text result takes its text arguments' collation (binary wins) and their strength.
        let texts: Vec<&Typed> = args.iter().filter(|a| matches!(a.ty, Ty::Str(_))).collect();
        let ty = match ty {
            Ty::Str(_) if texts.iter().any(|a| a.ty == Ty::Str(Collation::Bin)) => {
                Ty::Str(Collation::Bin)
            }
            other => other,
        };
        let mut t = Typed::new(out, ty);
        if matches!(ty, Ty::Str(_))
            && let Some(strongest) = texts.iter().map(|a| a.strength).min()
        {
            t.strength = strongest;
        }
        t.aggregate = aggregate;
        Ok(t)
    }

    fn mod_call(self, args: Vec<Typed>) -> Result<Typed> {
        let (l, r) = (&args[0], &args[1]);
        let strict = i32::from(self.strict);
        let scale = |t: Ty| match t {
            Ty::Decimal(s) => Some(s),
            Ty::Int | Ty::Null => Some(0),
            _ => None,
        };
        let t = match (scale(l.ty), scale(r.ty)) {
            (Some(a), Some(b)) => {
                let s = a.max(b);
                let ty = if s == 0
                    && !matches!((l.ty, r.ty), (Ty::Decimal(_), _) | (_, Ty::Decimal(_)))
                {
                    Ty::Int
                } else {
                    Ty::Decimal(s)
                };
                Typed::new(
                    format!("my_dec_mod({}, {}, {s}, {strict})", l.sql, r.sql),
                    ty,
                )
            }
            _ => Typed::new(
                format!("my_dbl_mod({}, {}, {strict})", l.sql, r.sql),
                Ty::Double,
            ),
        };
        Ok(t)
    }
}

/// The name MariaDB gives the type of `arg` in error 4079, for the types a string-only function
/// refuses; `None` for a binary string, which such functions take.
fn refused_type_name(arg: &Typed) -> Option<&'static str> {
    Some(match arg.ty {
        // A literal that fits in 32 bits is MariaDB's INT, any other integer its BIGINT.
        Ty::Int => match arg.sql.trim().parse::<i64>() {
            Ok(v) if i32::try_from(v).is_ok() => "int",
            _ => "bigint",
        },
        Ty::Decimal(_) => "decimal",
        Ty::Double => "double",
        Ty::Float => "float",
        Ty::Date => "date",
        Ty::DateTime => "datetime",
        Ty::Time => "time",
        Ty::Bytes | Ty::Str(_) | Ty::Null | Ty::Dyn => return None,
    })
}
