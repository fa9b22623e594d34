//! The SQL rewrites that keep exact numbers exact in SQLite, and MySQL's string literals.
//!
//! - [`mysql_string_escapes`]: MySQL decodes backslash escapes in string literals (`'a\nb'`
//!   holds a newline), SQLite keeps the backslashes; such literals are rewritten in SQLite's
//!   quoting before any other pass reads the statement.
//! - [`create_table`] and [`alter_table`]: a TIME column gets `COLLATE xrpc_time`
//!   ([`compare_time`]: durations, so negative TIMEs and TIMEs of 100 hours or more order right).
//!   In `CREATE TABLE` and `ALTER TABLE … ADD`, a `DECIMAL(p,s)` column (also `NUMERIC`, `DEC`,
//!   `FIXED`) is declared `DECIMAL TEXT(p,s) COLLATE xrpc_decimal_<s>` and a `BIGINT UNSIGNED`
//!   column `BIG UNSIGNED TEXT COLLATE xrpc_decimal_0`. The word `TEXT` gives the column
//!   SQLite's TEXT affinity, so the value is kept digit for digit (NUMERIC affinity would turn it
//!   into a 64-bit REAL with 15 to 17 significant digits, and an integer above 2^63−1 into a REAL
//!   too); the collation compares the texts as numbers rounded to the column's scale, so `=`,
//!   `<`, `ORDER BY`, `UNIQUE` and indexes order them as MySQL does. The declared type still reads
//!   back as the same MySQL type ([`super::types::classify_decl`]). Since a stored value may
//!   have more fraction digits than the scale (a BEFORE trigger cannot round it; reads do), the
//!   collation rounds both sides to the scale: a stored `1.005` in a `DECIMAL(5,2)` equals
//!   `1.01`, as in MySQL, but so does a literal `1.005` compared with a stored `1.01`, which
//!   MySQL would call different.
//! - [`exact_numbers`]: SQLite reads a numeric literal as a 64-bit integer or a REAL before
//!   anything else sees it, so a literal with more than 15 significant digits
//!   (`12345678901234567890.5`, `18446744073709551615`) would be rounded, unless it is an
//!   integer up to 2^63−1, which SQLite reads exactly. Such literals, with
//!   their unary minus, are turned into string literals: stored exactly in the columns above,
//!   compared exactly by their collation, and converted to a number by arithmetic as before.
//!   SQLite's decimal-to-binary conversion is also not correctly rounded: about one literal in
//!   a few thousand (`427703446871307e-20`, `123.4567890`) lands one unit in the last place
//!   away from the double MySQL (and every correctly rounding parser) reads. So every other
//!   literal with a fraction or an exponent (any literal with an exponent: MySQL reads those as
//!   DOUBLE however long they are) becomes `xrpc_real('…')`, a deterministic function
//!   that parses the text with Rust's correctly rounded parser; SQLite evaluates such a
//!   constant call once per statement. Result column names are given back their literal
//!   ([`literal_column_name`]). Table definitions (`CREATE TABLE`, `ALTER`, where a DEFAULT
//!   wants a bare literal) and `PRAGMA` keep their REAL literals; views and triggers get the
//!   function, as they get the node's arithmetic (`arith`).
//!
//! Both work on tokens (strings, quoted identifiers and comments are skipped whole) and leave
//! any SQL they do not understand unchanged.

use std::borrow::Cow;

use crate::tokens::{Tok, Token, tokens};
use crate::types::DeclKind;

/// The system variables whose value is the same for every session of the engine (UTF-8
/// throughout), and that value: a statement SQLite runs as text (information_schema reads)
/// gets them as string literals, as MySQL reads them.
const CONSTANT_VARIABLES: &[(&str, &str)] = &[
    ("character_set_client", "utf8mb4"),
    ("character_set_connection", "utf8mb4"),
    ("character_set_results", "utf8mb4"),
    ("character_set_database", "utf8mb4"),
    ("character_set_server", "utf8mb4"),
    ("collation_connection", "utf8mb4_general_ci"),
    ("collation_database", "utf8mb4_general_ci"),
    ("collation_server", "utf8mb4_general_ci"),
];

/// A [`CONSTANT_VARIABLES`] variable's value as an SQL literal.
pub(crate) fn constant_literal(name: &str) -> Option<String> {
    CONSTANT_VARIABLES
        .iter()
        .find(|(v, _)| name.eq_ignore_ascii_case(v))
        .map(|(_, value)| format!("'{value}'"))
}

/// `@@[session.|global.]name` of a [`CONSTANT_VARIABLES`] variable as its string literal;
/// any other `@@` is left for SQLite to refuse.
pub(crate) fn constant_system_variables(sql: &str) -> Cow<'_, str> {
    system_variables(sql, constant_literal)
}

/// `@@[session.|global.|local.]name` as the SQL literal `value` gives for `name` (lower
/// case); a variable it gives none for is left as written.
pub(crate) fn system_variables(sql: &str, value: impl Fn(&str) -> Option<String>) -> Cow<'_, str> {
    if !sql.contains("@@") {
        return Cow::Borrowed(sql);
    }
    let Some(toks) = tokens(sql) else {
        return Cow::Borrowed(sql);
    };
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0;
    for (n, t) in toks.iter().enumerate() {
        // `@@` then the name, with an optional scope and its dot, as adjacent tokens.
        if t.tok != Tok::Punct(b'@')
            || toks
                .get(n + 1)
                .is_none_or(|a| a.tok != Tok::Punct(b'@') || a.start != t.end)
        {
            continue;
        }
        let mut at = n + 2;
        let mut name = match toks.get(at) {
            Some(w) if w.tok == Tok::Word && w.start == t.end + 1 => *w,
            _ => continue,
        };
        let scoped = ["session", "global", "local"]
            .iter()
            .any(|s| sql[name.start..name.end].eq_ignore_ascii_case(s));
        if scoped {
            match (toks.get(at + 1), toks.get(at + 2)) {
                (Some(dot), Some(w))
                    if dot.tok == Tok::Punct(b'.')
                        && dot.start == name.end
                        && w.tok == Tok::Word
                        && w.start == dot.end =>
                {
                    at += 2;
                    name = *w;
                }
                _ => continue,
            }
        }
        let Some(literal) = value(&sql[name.start..name.end].to_ascii_lowercase()) else {
            continue;
        };
        // A select item of the variable alone is named as MySQL names it, `@@…` as written.
        let starts_item = n.checked_sub(1).map(|p| &toks[p]).is_some_and(|p| {
            p.tok == Tok::Punct(b',')
                || (p.tok == Tok::Word && sql[p.start..p.end].eq_ignore_ascii_case("select"))
        });
        let ends_item = match toks.get(at + 1) {
            None => true,
            Some(next) => {
                matches!(next.tok, Tok::Punct(b',') | Tok::Punct(b';'))
                    || (next.tok == Tok::Word
                        && [
                            "from", "limit", "where", "union", "order", "group", "having", "into",
                        ]
                        .iter()
                        .any(|w| sql[next.start..next.end].eq_ignore_ascii_case(w)))
            }
        };
        out.push_str(&sql[copied..t.start]);
        out.push_str(&literal);
        if starts_item && ends_item {
            out.push_str(&format!(
                " AS \"{}\"",
                sql[t.start..name.end].replace('"', "\"\"")
            ));
        }
        copied = name.end;
    }
    if copied == 0 {
        return Cow::Borrowed(sql);
    }
    out.push_str(&sql[copied..]);
    Cow::Owned(out)
}

/// Aliases that are words to SQLite but not to MySQL (`AS isnull`, `AS notnull`: SQLite's
/// postfix NULL tests), written as quoted identifiers so SQLite reads them as names.
pub(crate) fn sqlite_keyword_aliases(sql: &str) -> Cow<'_, str> {
    const SQLITE_ONLY_WORDS: &[&str] = &["isnull", "notnull"];
    if !SQLITE_ONLY_WORDS
        .iter()
        .any(|w| xrpc_engine::lex::contains_ignore_case(sql, w))
    {
        return Cow::Borrowed(sql);
    }
    let Some(toks) = tokens(sql) else {
        return Cow::Borrowed(sql);
    };
    let mut out = String::with_capacity(sql.len() + 4);
    let mut copied = 0;
    for pair in toks.windows(2) {
        let (before, word) = (pair[0], pair[1]);
        if before.tok == Tok::Word
            && sql[before.start..before.end].eq_ignore_ascii_case("as")
            && word.tok == Tok::Word
            && SQLITE_ONLY_WORDS
                .iter()
                .any(|w| sql[word.start..word.end].eq_ignore_ascii_case(w))
        {
            out.push_str(&sql[copied..word.start]);
            out.push('"');
            out.push_str(&sql[word.start..word.end]);
            out.push('"');
            copied = word.end;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(sql);
    }
    out.push_str(&sql[copied..]);
    Cow::Owned(out)
}

/// MySQL's string literals in SQLite's form (see the module docs): without
/// NO_BACKSLASH_ESCAPES (MySQL's default) a backslash in a quoted string escapes the next
/// character (`'a\nb'` holds a newline, `'It\'s'` a quote, `'C:\\x'` one backslash),
/// where SQLite keeps every backslash as written. A single-quoted string holding a backslash
/// is decoded as MySQL decodes it and written back with SQLite's quoting (`''`); `\%` and
/// `\_` keep their backslash, as in MySQL (they are LIKE's escapes). A string holding a NUL
/// after decoding becomes `CAST(x'…' AS TEXT)`. Anything else is left as written: comments,
/// identifiers in backquotes or double quotes (SQLite reads `"…"` as an identifier first).
pub(crate) fn mysql_string_escapes(sql: &str) -> Cow<'_, str> {
    if !sql.contains('\\') {
        return Cow::Borrowed(sql);
    }
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = sql[i..].find('\n').map_or(b.len(), |n| i + n + 1);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = sql[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            }
            quote @ (b'`' | b'"') => {
                i += 1;
                while i < b.len() && b[i] != quote {
                    i += 1;
                }
                i += 1;
            }
            b'\'' => {
                let start = i;
                let mut value = String::new();
                let mut escaped = false;
                let mut closed = false;
                let mut j = i + 1;
                while j < b.len() {
                    let c = sql[j..].chars().next().expect("in bounds");
                    match c {
                        '\\' if j + 1 < b.len() => {
                            escaped = true;
                            let next = sql[j + 1..].chars().next().expect("in bounds");
                            match next {
                                '0' => value.push('\0'),
                                'b' => value.push('\u{8}'),
                                'n' => value.push('\n'),
                                'r' => value.push('\r'),
                                't' => value.push('\t'),
                                'Z' => value.push('\u{1a}'),
                                '%' | '_' => {
                                    value.push('\\');
                                    value.push(next);
                                }
                                other => value.push(other),
                            }
                            j += 1 + next.len_utf8();
                        }
                        '\'' if b.get(j + 1) == Some(&b'\'') => {
                            value.push('\'');
                            j += 2;
                        }
                        '\'' => {
                            closed = true;
                            j += 1;
                            break;
                        }
                        other => {
                            value.push(other);
                            j += other.len_utf8();
                        }
                    }
                }
                if !closed {
                    // Unterminated: SQLite's error says so.
                    break;
                }
                // `_binary'…'`, `N'…'`: a NUL cannot be written as a CAST after a prefix.
                let prefixed =
                    start > 0 && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_');
                if escaped && !(prefixed && value.contains('\0')) {
                    out.push_str(&sql[copied..start]);
                    if value.contains('\0') {
                        out.push_str("CAST(x'");
                        for byte in value.bytes() {
                            out.push_str(&format!("{byte:02x}"));
                        }
                        out.push_str("' AS TEXT)");
                    } else {
                        out.push('\'');
                        out.push_str(&value.replace('\'', "''"));
                        out.push('\'');
                    }
                    copied = j;
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(sql);
    }
    out.push_str(&sql[copied..]);
    Cow::Owned(out)
}

/// Significant digits of a decimal literal (leading zeros and the exponent not counted;
/// trailing zeros of the integer part counted, as they are digits a REAL must hold).
fn significant_digits(literal: &str) -> usize {
    let mantissa = literal
        .split(['e', 'E'])
        .next()
        .unwrap_or(literal)
        .replace('.', "");
    mantissa.trim_start_matches('0').len()
}

/// Words after which a `-` is a sign rather than a subtraction.
const SIGN_CONTEXT: &[&str] = &[
    "SELECT",
    "VALUES",
    "THEN",
    "ELSE",
    "WHEN",
    "AND",
    "OR",
    "NOT",
    "BETWEEN",
    "IN",
    "IS",
    "LIKE",
    "WHERE",
    "SET",
    "RETURNING",
    "ON",
    "BY",
    "LIMIT",
    "OFFSET",
    "CASE",
    "DEFAULT",
    "HAVING",
];

/// The SQL function [`exact_numbers`] wraps REAL literals in.
pub(crate) const REAL_FUNCTION: &str = "xrpc_real";

/// Turns numeric literals of more than 15 significant digits into string literals, and other
/// literals with a fraction or an exponent into `xrpc_real('…')` calls (see the module docs).
/// Returns the SQL unchanged when there are none.
pub(crate) fn exact_numbers(sql: &str) -> Cow<'_, str> {
    // Most statements have no number that needs either: check cheaply first.
    let mut run = 0;
    let mut prev = b' ';
    let candidate = sql.bytes().any(|b| {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        let real = (prev.is_ascii_digit() && matches!(b, b'.' | b'e' | b'E'))
            || (prev == b'.' && b.is_ascii_digit());
        prev = b;
        run > 15 || real
    });
    if !candidate {
        return Cow::Borrowed(sql);
    }
    let Some(tokens) = tokens(sql) else {
        return Cow::Borrowed(sql);
    };
    // Table definitions (a DEFAULT wants a bare literal) and PRAGMA values keep bare
    // literals; views and triggers are expressions, whose stored SQL already calls the node's
    // functions (see `arith`).
    let word = |i: usize, w: &str| {
        tokens
            .get(i)
            .is_some_and(|t| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w))
    };
    let stored_expression = word(0, "CREATE")
        && ["VIEW", "TRIGGER"]
            .iter()
            .any(|w| word(1, w) || (word(1, "TEMP") || word(1, "TEMPORARY")) && word(2, w));
    let wrap_reals = stored_expression || !["CREATE", "ALTER", "PRAGMA"].iter().any(|w| word(0, w));
    let mut out = String::with_capacity(sql.len() + 16);
    let mut copied = 0;
    for (index, token) in tokens.iter().enumerate() {
        if token.tok != Tok::Number || sql[token.start..].starts_with("0x") {
            continue;
        }
        let literal = &sql[token.start..token.end];
        // `t1.5` is a name and a qualifier SQLite would refuse, not a number to rewrite.
        let qualified = literal.starts_with('.')
            && index > 0
            && tokens[index - 1].end == token.start
            && matches!(tokens[index - 1].tok, Tok::Word | Tok::QuotedIdent);
        if qualified {
            continue;
        }
        let integer = literal.bytes().all(|b| b.is_ascii_digit());
        // SQLite reads an integer literal up to 2^63-1 exactly.
        let exact_integer = integer
            && literal
                .parse::<u64>()
                .is_ok_and(|v| i64::try_from(v).is_ok());
        if exact_integer {
            continue;
        }
        // A literal with an exponent is a DOUBLE in MySQL however many digits it has.
        let approximate = literal.contains(['e', 'E']);
        if significant_digits(literal) <= 15 || (approximate && wrap_reals) {
            if wrap_reals && !integer {
                out.push_str(&sql[copied..token.start]);
                out.push_str(REAL_FUNCTION);
                out.push_str("('");
                out.push_str(literal);
                out.push_str("')");
                copied = token.end;
            }
            continue;
        }
        // Take a unary minus along, so `-1234…` stays one exact value.
        let mut start = token.start;
        if index > 0 && tokens[index - 1].tok == Tok::Punct(b'-') {
            let unary = match index.checked_sub(2).map(|i| tokens[i]) {
                None => true,
                Some(prev) => match prev.tok {
                    Tok::Punct(c) => b"(,=<>+-*/%|".contains(&c),
                    Tok::Word => SIGN_CONTEXT
                        .iter()
                        .any(|w| w.eq_ignore_ascii_case(&sql[prev.start..prev.end])),
                    _ => false,
                },
            };
            if unary {
                start = tokens[index - 1].start;
            }
        }
        out.push_str(&sql[copied..start]);
        out.push('\'');
        if start != token.start {
            out.push('-');
        }
        out.push_str(literal);
        out.push('\'');
        copied = token.end;
    }
    if copied == 0 {
        return Cow::Borrowed(sql);
    }
    out.push_str(&sql[copied..]);
    Cow::Owned(out)
}

/// The literal a result column's name had before [`exact_numbers`] wrapped it: SQLite names an
/// unaliased expression column by its text, and MySQL would call `select 0.5` column `0.5`.
pub(crate) fn literal_column_name(name: &str) -> Cow<'_, str> {
    let open = "xrpc_real('";
    if !name.contains(open) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        let after = &rest[at + open.len()..];
        match after.find("')") {
            Some(close) => {
                out.push_str(&after[..close]);
                rest = &after[close + 2..];
            }
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Parses the text of a REAL literal as MySQL does: correctly rounded to the nearest double.
pub(crate) fn parse_real(literal: &str) -> Option<f64> {
    literal.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// MySQL CAST targets SQLite would answer differently (it reads them as NUMERIC affinity:
/// `CAST('2024-02-29' AS DATE)` is 2024, `CAST('1.5' AS SIGNED)` is 1.5).
const MYSQL_ONLY_CASTS: &[&str] = &[
    "DATE", "DATETIME", "TIME", "SIGNED", "UNSIGNED", "DECIMAL", "DEC", "NUMERIC", "FIXED",
    "BINARY",
];

/// The first `CAST(… AS type)` whose type is one of MySQL's that SQLite would answer
/// differently, as written (`CAST … AS DATE`); `None` when there is none. The engine refuses
/// such statements (1235) rather than return a wrong value.
pub(crate) fn mysql_only_cast(sql: &str) -> Option<String> {
    if !xrpc_engine::lex::contains_ignore_case(sql, "cast") {
        return None;
    }
    let tokens = tokens(sql)?;
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    for (i, t) in tokens.iter().enumerate() {
        if !word(t, "CAST") || tokens.get(i + 1).map(|t| t.tok) != Some(Tok::Punct(b'(')) {
            continue;
        }
        let mut depth = 0usize;
        let mut target = None;
        for (j, inner) in tokens.iter().enumerate().skip(i + 1) {
            match inner.tok {
                Tok::Punct(b'(') => depth += 1,
                Tok::Punct(b')') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ if depth == 1 && word(inner, "AS") => target = tokens.get(j + 1),
                _ => {}
            }
        }
        if let Some(target) = target {
            let name = &sql[target.start..target.end];
            if MYSQL_ONLY_CASTS
                .iter()
                .any(|w| w.eq_ignore_ascii_case(name))
            {
                return Some(format!("CAST … AS {}", name.to_ascii_uppercase()));
            }
        }
    }
    None
}

/// Words that end a column's type in a column definition.
const CONSTRAINT_WORDS: &[&str] = &[
    "CONSTRAINT",
    "PRIMARY",
    "NOT",
    "NULL",
    "UNIQUE",
    "CHECK",
    "DEFAULT",
    "COLLATE",
    "REFERENCES",
    "GENERATED",
    "AS",
];

/// Words that start a table constraint rather than a column.
const TABLE_CONSTRAINT_WORDS: &[&str] = &["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"];

/// The collation comparing TIME values as durations (see [`compare_time`]).
pub(crate) const TIME_COLLATION: &str = "xrpc_time";

/// Compares two stored TIME values as signed durations. Text that is not a TIME sorts after
/// every TIME, bytewise.
pub(crate) fn compare_time(a: &str, b: &str) -> std::cmp::Ordering {
    use rusqlite::types::ValueRef;
    let micros = |s: &str| {
        crate::types::strict::time_value(ValueRef::Text(s.as_bytes()))
            .ok()
            .map(|(negative, h, m, sec, us)| {
                let total = ((i64::from(h) * 60 + i64::from(m)) * 60 + i64::from(sec)) * 1_000_000
                    + i64::from(us);
                if negative { -total } else { total }
            })
    };
    match (micros(a), micros(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// The name of the collation comparing numbers rounded to `scale` digits.
pub(crate) fn decimal_collation(scale: u8) -> String {
    format!("xrpc_decimal_{scale}")
}

/// Rewrites the exact-number columns of a `CREATE TABLE` (see the module docs); `None` when
/// there is nothing to rewrite or the statement is not a plain column list.
pub(crate) fn create_table(sql: &str) -> Option<String> {
    let tokens = tokens(sql)?;
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    // CREATE [TEMP|TEMPORARY] TABLE [IF NOT EXISTS] name [. name] (
    let open = tokens.iter().position(|t| t.tok == Tok::Punct(b'('))?;
    if !word(tokens.first()?, "CREATE")
        || !tokens[..open].iter().any(|t| word(t, "TABLE"))
        || tokens[..open].iter().any(|t| word(t, "AS"))
    {
        return None;
    }
    // Column definitions: runs of tokens between commas at depth 1.
    let mut defs: Vec<std::ops::Range<usize>> = Vec::new();
    let mut depth = 0usize;
    let mut def_start = open + 1;
    let mut close = None;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct(b'(') => depth += 1,
            Tok::Punct(b')') => {
                depth -= 1;
                if depth == 0 {
                    defs.push(def_start..i);
                    close = Some(i);
                    break;
                }
            }
            Tok::Punct(b',') if depth == 1 => {
                defs.push(def_start..i);
                def_start = i + 1;
            }
            _ => {}
        }
    }
    close?;
    rewrite_defs(sql, &tokens, defs)
}

/// Rewrites the exact-number column of `ALTER TABLE … ADD [COLUMN] name type …`.
pub(crate) fn alter_table(sql: &str) -> Option<String> {
    let tokens = tokens(sql)?;
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    let add = tokens.iter().position(|t| word(t, "ADD"))?;
    if !word(tokens.first()?, "ALTER") {
        return None;
    }
    let start = if tokens.get(add + 1).is_some_and(|t| word(t, "COLUMN")) {
        add + 2
    } else {
        add + 1
    };
    rewrite_defs(sql, &tokens, std::iter::once(start..tokens.len()))
}

/// Rewrites the types of the given column definitions (token ranges).
fn rewrite_defs(
    sql: &str,
    tokens: &[Token],
    defs: impl IntoIterator<Item = std::ops::Range<usize>>,
) -> Option<String> {
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for def in defs {
        let def = &tokens[def];
        let Some(first) = def.first() else { continue };
        if TABLE_CONSTRAINT_WORDS.iter().any(|w| word(first, w)) {
            continue;
        }
        // The type: words after the name, with one parenthesised group, up to a constraint.
        let mut end = 1;
        let mut seen_group = false;
        while end < def.len() {
            let t = &def[end];
            match t.tok {
                Tok::Word if !CONSTRAINT_WORDS.iter().any(|w| word(t, w)) => end += 1,
                Tok::Punct(b'(') if !seen_group && end > 1 => {
                    seen_group = true;
                    let group_end = def[end..].iter().position(|t| t.tok == Tok::Punct(b')'))?;
                    end += group_end + 1;
                }
                _ => break,
            }
        }
        if end <= 1 {
            continue;
        }
        let (type_start, type_end) = (def[1].start, def[end - 1].end);
        let declared = &sql[type_start..type_end];
        if let Some(replacement) = crate::types::enumset::declare(declared) {
            edits.push((type_start, type_end, replacement));
            continue;
        }
        let replacement = match super::types::classify_decl(Some(declared)) {
            DeclKind::Decimal { precision, scale } => format!(
                "DECIMAL TEXT({precision},{scale}) COLLATE {}",
                decimal_collation(scale)
            ),
            DeclKind::Int {
                unsigned: true,
                max: u64::MAX,
                ..
            } => format!("BIG UNSIGNED TEXT COLLATE {}", decimal_collation(0)),
            // A TIME's text orders as a duration only between 0 and 99:59:59: the collation
            // compares durations (`-02:00:00` before `-01:00:00`, `20:00:00` before `100:00:00`).
            DeclKind::Time { .. } => format!("{declared} COLLATE {TIME_COLLATION}"),
            _ => continue,
        };
        edits.push((type_start, type_end, replacement));
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len() + 32 * edits.len());
    let mut copied = 0;
    for (start, end, replacement) in edits {
        out.push_str(&sql[copied..start]);
        out.push_str(&replacement);
        copied = end;
    }
    out.push_str(&sql[copied..]);
    Some(out)
}

/// Compares two stored exact numbers as numbers rounded to `scale` digits (half away from
/// zero, as MySQL stores them). Text that is not a number sorts after every number, bytewise.
pub(crate) fn compare_decimal(a: &str, b: &str, scale: u8) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let parse = |s: &str| {
        crate::types::strict::parse_exact(s)
            .ok()
            .map(|n| n.round(usize::from(scale)))
    };
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => {
            let zero = |n: &crate::types::strict::ExactNumber| {
                n.int.is_empty() && n.frac.bytes().all(|c| c == b'0')
            };
            let neg_x = x.negative && !zero(&x);
            let neg_y = y.negative && !zero(&y);
            let magnitude = x
                .int
                .len()
                .cmp(&y.int.len())
                .then_with(|| x.int.cmp(&y.int))
                .then_with(|| x.frac.cmp(&y.frac));
            match (neg_x, neg_y) {
                (false, false) => magnitude,
                (true, true) => magnitude.reverse(),
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
            }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Ordering;

    use super::*;

    #[test]
    fn long_literals_become_strings() {
        assert!(matches!(
            exact_numbers("select 123456789012345, 9223372036854775807"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            exact_numbers(
                "insert into t values (1, -12345678901234567890.5, 'x1234567890123456789')"
            ),
            "insert into t values (1, '-12345678901234567890.5', 'x1234567890123456789')"
        );
        assert_eq!(
            exact_numbers("select a - 18446744073709551615 from t"),
            "select a - '18446744073709551615' from t"
        );
        assert_eq!(
            exact_numbers("select 0.00000000000000001, c1234567890123456789"),
            "select xrpc_real('0.00000000000000001'), c1234567890123456789"
        );
        assert_eq!(
            exact_numbers("/* 12345678901234567 */ select 1.0000000000000000001"),
            "/* 12345678901234567 */ select '1.0000000000000000001'"
        );
    }

    #[test]
    fn reals_are_parsed_by_a_correctly_rounding_function() {
        assert_eq!(
            exact_numbers(
                "insert into d values (1, 427703446871307e-20, -.5, 1.e3, x1.5, 1.5815525236165121e-177)"
            ),
            "insert into d values (1, xrpc_real('427703446871307e-20'), -xrpc_real('.5'), \
             xrpc_real('1.e3'), x1.5, xrpc_real('1.5815525236165121e-177'))"
        );
        assert!(matches!(
            exact_numbers("select 1, 2 from t where a = 'x1.5' and b.c = 3"),
            Cow::Borrowed(_)
        ));
        // Stored SQL and PRAGMA keep bare literals; long numbers are still made exact.
        for kept in [
            "CREATE TABLE t (d DOUBLE DEFAULT 0.5)",
            "alter table t add column e double default 1e-300",
            "pragma cache_size = 2.5",
        ] {
            assert_eq!(exact_numbers(kept), kept);
        }
        assert_eq!(
            exact_numbers("create table t (d decimal(30,2) default 12345678901234567890.5)"),
            "create table t (d decimal(30,2) default '12345678901234567890.5')"
        );
        assert_eq!(parse_real("427703446871307e-20"), Some(4.27703446871307e-6));
        assert_eq!(parse_real("1e999"), None);
    }

    #[test]
    fn backslash_escapes_are_mysqls() {
        let cases = [
            (r"select 'a\nb'", "select 'a\nb'"),
            (r"select 'It\'s', 'x'", "select 'It''s', 'x'"),
            (
                r"insert into t values ('C:\\dir')",
                r"insert into t values ('C:\dir')",
            ),
            (r"select 'a\_b\%', '\q'", r"select 'a\_b\%', 'q'"),
            (r"select 'x' -- it\'s", r"select 'x' -- it\'s"),
            (r#"select `a\`, "b\" from t"#, r#"select `a\`, "b\" from t"#),
            (r"select 'a''b\t'", "select 'a''b\t'"),
            (r"select '\0'", "select CAST(x'00' AS TEXT)"),
            (r"select 'é\é'", "select 'éé'"),
        ];
        for (sql, want) in cases {
            assert_eq!(mysql_string_escapes(sql), want, "{sql}");
        }
        assert!(matches!(
            mysql_string_escapes("select 'plain'"),
            Cow::Borrowed(_)
        ));
        assert_eq!(mysql_string_escapes(r"select 'open\"), r"select 'open\");
    }

    #[test]
    fn wrapped_literals_get_their_names_back() {
        assert_eq!(literal_column_name("-xrpc_real('0.5')"), "-0.5");
        assert_eq!(
            literal_column_name("xrpc_real('1.5') + xrpc_real('2e3')"),
            "1.5 + 2e3"
        );
        assert_eq!(literal_column_name("a.b"), "a.b");
    }

    #[test]
    fn exact_columns_get_text_affinity_and_a_numeric_collation() {
        assert_eq!(
            create_table(
                "CREATE TABLE t (k INTEGER PRIMARY KEY, d decimal(30, 10) NOT NULL, \
                 n NUMERIC, u BIGINT UNSIGNED DEFAULT 0, i INT UNSIGNED, \
                 CONSTRAINT c CHECK (d > 0))"
            )
            .unwrap(),
            "CREATE TABLE t (k INTEGER PRIMARY KEY, d DECIMAL TEXT(30,10) COLLATE xrpc_decimal_10 \
             NOT NULL, n DECIMAL TEXT(10,0) COLLATE xrpc_decimal_0, u BIG UNSIGNED TEXT COLLATE \
             xrpc_decimal_0 DEFAULT 0, i INT UNSIGNED, CONSTRAINT c CHECK (d > 0))"
        );
        assert_eq!(create_table("create table t (a int, b text)"), None);
        assert_eq!(
            create_table("create table t (a int, t TIME(3) NOT NULL)").unwrap(),
            "create table t (a int, t TIME(3) COLLATE xrpc_time NOT NULL)"
        );
        assert_eq!(
            alter_table("ALTER TABLE t ADD COLUMN d DECIMAL(20,2) DEFAULT 0").unwrap(),
            "ALTER TABLE t ADD COLUMN d DECIMAL TEXT(20,2) COLLATE xrpc_decimal_2 DEFAULT 0"
        );
        assert_eq!(alter_table("ALTER TABLE t ADD c INT"), None);
        assert_eq!(create_table("create table t as select 1.5 as d"), None);
        assert_eq!(
            create_table("create table t as select cast(1 as decimal(10,2)) as d"),
            None
        );
    }

    #[test]
    fn mysql_only_casts_are_found() {
        assert_eq!(
            mysql_only_cast("select cast('2024-02-29' as date)").as_deref(),
            Some("CAST … AS DATE")
        );
        assert_eq!(
            mysql_only_cast("SELECT CAST(CAST(x AS TEXT) AS decimal(10,2)) FROM t").as_deref(),
            Some("CAST … AS DECIMAL")
        );
        assert_eq!(
            mysql_only_cast("select cast(x as integer), cast(y as text)"),
            None
        );
        assert_eq!(mysql_only_cast("select 'cast(x as date)'"), None);
        assert_eq!(mysql_only_cast("select 1"), None);
    }

    #[test]
    fn times_compare_as_durations() {
        assert_eq!(compare_time("-02:00:00", "-01:00:00"), Ordering::Less);
        assert_eq!(compare_time("100:00:00", "20:00:00"), Ordering::Greater);
        assert_eq!(compare_time("8:0:0", "08:00:00.000"), Ordering::Equal);
        assert_eq!(compare_time("x", "838:59:59"), Ordering::Greater);
    }

    #[test]
    fn decimals_compare_as_numbers_at_their_scale() {
        assert_eq!(compare_decimal("10", "9", 0), Ordering::Greater);
        assert_eq!(compare_decimal("-10", "-9", 0), Ordering::Less);
        assert_eq!(compare_decimal("1.005", "1.01", 2), Ordering::Equal);
        assert_eq!(compare_decimal("-0.001", "0", 2), Ordering::Equal);
        assert_eq!(
            compare_decimal("18446744073709551615", "18446744073709551614", 0),
            Ordering::Greater
        );
        assert_eq!(compare_decimal("abc", "1", 0), Ordering::Greater);
    }
}
