//! MySQL's division, modulo, conversion of strings in arithmetic and `||`/`&&`, on SQLite.
//!
//! # Design
//!
//! SQLite answers `1/0` and `5 % 0` with NULL and says nothing, divides integers as integers
//! (`7/2` is 3 where MySQL's is 3.5000), has no `DIV` operator and no binary `MOD`, and reads
//! `'12abc' + 0` as 12 without a word. SQLite lets no one override an operator, so [`rewrite`]
//! turns every `a / b`, `a % b`, `a MOD b`, `MOD(a, b)` and `a DIV b` into a call of a
//! deterministic SQL function registered on each connection ([`register`]):
//! `xrpc_div(a, b, mode)`, `xrpc_mod(a, b, mode)`, `xrpc_intdiv(a, b, mode)`, and every string
//! literal that is an operand of `+`, `-` or `*`, or compared with a numeric literal
//! (`'12abc' = 12`, which SQLite answers 0), into `xrpc_num('…', mode)`. `mode` is 1 in
//! INSERT, REPLACE and UPDATE, else 0.
//!
//! The operands are found on tokens: a multiplicative chain `t1 op t2 op t3 …` (`*`, `/`, `%`,
//! `DIV`, `MOD`, all left-associative at one precedence, as in MySQL and SQLite) of unary
//! terms (a literal, a possibly qualified name, a function call, a parenthesised group, a
//! `CASE … END`, each with unary `-`, `+`, `~` before it and `COLLATE x` after it) is folded
//! from the left: `a * b / c % d` becomes `xrpc_mod(xrpc_div(a * b, c, 0), d, 0)`. Every
//! parenthesised group and CASE is rewritten inside the same way. SQL the pass does not
//! understand is left as it is.
//!
//! What the functions answer, as MySQL (MariaDB 10.11, which the differential test checks):
//!
//! - A NULL operand gives NULL. A zero divisor gives NULL and `Warning 1365 Division by 0` in a
//!   query; in INSERT, REPLACE and UPDATE the statement fails with `Error 1365` (22012), as
//!   strict mode with `ERROR_FOR_DIVISION_BY_ZERO` (MySQL 8's default) does.
//! - A string (TEXT or BLOB) is read as the number it starts with, and anything after it (but
//!   spaces) is `Warning 1292 Truncated incorrect DOUBLE value: '…'` (an error in a write).
//! - `/` of two integers is their quotient as a REAL (MySQL's is a DECIMAL with 4 more fraction
//!   digits than the dividend: the top-level select item `7/2` is typed DECIMAL(…,4) and sent
//!   as 3.5000, see [`literal_kind`]; inside an expression the REAL is used, exact to about 15
//!   digits). Anything else divides as DOUBLE.
//! - `%` and `MOD` of integers (integer texts too, so BIGINT UNSIGNED and DECIMAL(p,0) columns
//!   stay exact) take the sign of the dividend, as MySQL; otherwise they are `fmod` of DOUBLEs.
//! - `DIV` truncates toward zero to an integer; a result beyond BIGINT is `Error 1690`.
//!
//! The same pass makes MySQL's `||` SQLite's `OR` and `&&` `AND` (MySQL's default `sql_mode`
//! has no PIPES_AS_CONCAT; both words have the lowest precedence in both dialects), and gives a
//! `LIKE` whose pattern is not a backslash-free string literal MySQL's default `ESCAPE '\'`.
//!
//! # Stored SQL
//!
//! `CREATE` and `ALTER` are rewritten too, so views, triggers, defaults, CHECK constraints and
//! generated columns get MySQL's arithmetic, with `mode` 2 ([`MODE_STORED`]): whether a problem
//! is an error is read when the SQL runs, from the running statement (a view read by `INSERT …
//! SELECT` fails on a division by zero, the same view read by `SELECT` warns). Such SQL then
//! needs these functions, which every connection of the node registers; `docs/ARCHITECTURE.md`
//! says what that means for tools reading the file. A view keeps the client's text in a
//! comment ([`original_text`], shown by SHOW CREATE TABLE) and gets aliases naming its
//! rewritten items as written ([`view_with_names`]); a default is shown with its operators
//! back ([`shown_sql`]). `PRAGMA` is never rewritten.

use rusqlite::Connection;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SqlValue, ValueRef};
use xrpc_proto::codes;

use super::Shared;
use super::types::DeclKind;
use crate::numbers::{format_double, number_prefix};
use crate::tokens::{Tok, Token, tokens};
use xrpc_engine::result::{SqlError, SqlWarning, WarningLevel, mysql_type};

/// `mode` bit: the statement writes (INSERT, REPLACE, UPDATE): a warning is an error.
const MODE_WRITE: i64 = 1;

/// `mode` bit: SQL SQLite stores (a view, a trigger, a default, a CHECK, a generated column):
/// whether a warning is an error is decided by the statement running it (see
/// [`Shared::statement_writes`]), since the SQL outlives the statement that wrote it.
const MODE_STORED: i64 = 2;

/// Words that end an operand rather than being one (so a `-` after them is unary): the clause
/// words `cast` shares, and these.
const MORE_KEYWORDS: &[&str] = &[
    "AS", "FROM", "XOR", "DIV", "MOD", "ESCAPE", "GLOB", "REGEXP", "RLIKE", "INTERVAL",
];

/// Words that make a typed literal of the string after them (`DATE '2024-02-29'`).
const LITERAL_PREFIXES: &[&str] = &["DATE", "TIME", "TIMESTAMP"];

/// The comment a rewritten view or trigger keeps the statement as the client wrote it in
/// (see [`original_text`]).
const ORIGINAL_OPEN: &str = "/*xrpc_text:";

/// Whether `sql` may hold something to rewrite (cheap test before tokenising).
fn may_have_arithmetic(sql: &str) -> bool {
    use xrpc_engine::lex::contains_ignore_case;
    // The byte tests first: a statement carrying a long string literal is settled by the quote.
    sql.contains('\'')
        || sql.contains('/')
        || sql.contains('%')
        || sql.contains("||")
        || sql.contains("&&")
        || contains_ignore_case(sql, "div")
        || contains_ignore_case(sql, "mod")
        || contains_ignore_case(sql, "like")
}

/// The rewritten statement (see the module docs), or `None` when it has nothing to rewrite.
pub(crate) fn rewrite(sql: &str) -> Option<String> {
    if !may_have_arithmetic(sql) {
        return None;
    }
    let toks = tokens(sql)?;
    let word_at = |i: usize| {
        toks.get(i)
            .filter(|t| t.tok == Tok::Word)
            .map(|t| sql[t.start..t.end].to_ascii_uppercase())
    };
    let first = word_at(0);
    let mode = match first.as_deref() {
        Some("PRAGMA") => return None,
        Some("CREATE" | "ALTER") => MODE_STORED,
        Some("INSERT" | "REPLACE" | "UPDATE") => MODE_WRITE,
        _ => 0,
    };
    let pass = Pass {
        sql,
        toks: &toks,
        mode,
    };
    if !(0..toks.len()).any(|i| pass.rewrites_at(i)) {
        return None;
    }
    if mode == MODE_STORED {
        // `CREATE [TEMP | TEMPORARY] VIEW | TRIGGER`: named as written, shown as written.
        let kind = match word_at(1).as_deref() {
            Some("TEMP" | "TEMPORARY") => word_at(2),
            other => other.map(str::to_owned),
        };
        match kind.as_deref() {
            Some("VIEW") => {
                let named = view_with_names(sql, &toks).unwrap_or_else(|| sql.to_owned());
                return Some(stored(&named, sql, "AS"));
            }
            Some("TRIGGER") => return Some(stored(sql, sql, "BEGIN")),
            _ => {}
        }
    }
    Some(pass.rewrite())
}

/// A view or trigger `sql` rewritten, with the client's `original` text in a comment after
/// the first `after` word at depth 0 (SQLite keeps the text from the object's name on as
/// written, so the comment is stored; [`original_text`] reads it back).
fn stored(sql: &str, original: &str, after: &str) -> String {
    let rewritten = tokens(sql).map_or_else(
        || sql.to_owned(),
        |toks| {
            Pass {
                sql,
                toks: &toks,
                mode: MODE_STORED,
            }
            .rewrite()
        },
    );
    let Some(toks) = tokens(&rewritten) else {
        return rewritten;
    };
    let mut depth = 0usize;
    let at = toks.iter().find_map(|t| {
        match t.tok {
            Tok::Punct(b'(') => depth += 1,
            Tok::Punct(b')') => depth = depth.saturating_sub(1),
            Tok::Word if depth == 0 && rewritten[t.start..t.end].eq_ignore_ascii_case(after) => {
                return Some(t.end);
            }
            _ => {}
        }
        None
    });
    let Some(at) = at else { return rewritten };
    let escaped = original.replace('\\', "\\\\").replace("*/", "*\\/");
    format!(
        "{} {ORIGINAL_OPEN}{escaped}*/{}",
        &rewritten[..at],
        &rewritten[at..]
    )
}

/// The statement a view or trigger was created with, as the client wrote it, when the node
/// rewrote it (see [`rewrite`]); `None` for SQL stored as written.
pub(crate) fn original_text(stored: &str) -> Option<String> {
    let open = stored.find(ORIGINAL_OPEN)? + ORIGINAL_OPEN.len();
    let close = open + stored[open..].find("*/")?;
    let mut out = String::with_capacity(close - open);
    let mut chars = stored[open..close].chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// `CREATE VIEW … AS SELECT …` with an alias, the item as written, after every unaliased
/// select item the pass rewrites (SQLite names a view's column by its text, which would be
/// the rewritten one; MySQL names it as written). `None` when the view has a column list or
/// nothing needs a name.
fn view_with_names(sql: &str, toks: &[Token]) -> Option<String> {
    let pass = Pass {
        sql,
        toks,
        mode: MODE_STORED,
    };
    // The first depth-0 AS ends the view's name (and column list, which names the columns).
    let as_at = toks
        .iter()
        .position(|t| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case("AS"))?;
    if toks[..as_at].iter().any(|t| t.tok == Tok::Punct(b'(')) {
        return Some(sql.to_owned());
    }
    let body = &toks[as_at + 1..];
    let Some((items, _)) = crate::tokens::select_items(sql, body) else {
        return Some(sql.to_owned());
    };
    let mut out = String::with_capacity(sql.len() + 32);
    let mut copied = 0;
    for (a, b) in items {
        if a >= b || crate::tokens::has_alias(sql, &body[a..b]) {
            continue;
        }
        let (a, b) = (a + as_at + 1, b + as_at + 1);
        if !(a..b).any(|i| pass.rewrites_at(i)) {
            continue;
        }
        let end = toks[b - 1].end;
        let name = &sql[toks[a].start..end];
        out.push_str(&sql[copied..end]);
        out.push_str(&format!(" AS \"{}\"", name.replace('"', "\"\"")));
        copied = end;
    }
    out.push_str(&sql[copied..]);
    Some(out)
}

/// Stored SQL as MySQL would show it: `xrpc_div(a, b, 2)` as `a / b`, `xrpc_num('1', 2)` as
/// `'1'`, `xrpc_real('0.5')` as `0.5` (for a column's default, which keeps no original text).
pub(crate) fn shown_sql(stored: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if !stored.contains("xrpc_") {
        return Cow::Borrowed(stored);
    }
    let Some(toks) = tokens(stored) else {
        return Cow::Borrowed(stored);
    };
    let mut out = String::with_capacity(stored.len());
    let mut copied = 0;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        let name = &stored[t.start..t.end];
        let operator = match name {
            "xrpc_div" => Some(" / "),
            "xrpc_mod" => Some(" % "),
            "xrpc_intdiv" => Some(" DIV "),
            "xrpc_num" | super::rewrite::REAL_FUNCTION => Some(""),
            _ => None,
        };
        let open = i + 1;
        let close = operator
            .filter(|_| toks.get(open).is_some_and(|t| t.tok == Tok::Punct(b'(')))
            .and_then(|_| {
                let mut depth = 0usize;
                (open..toks.len()).find(|&k| match toks[k].tok {
                    Tok::Punct(b'(') => {
                        depth += 1;
                        false
                    }
                    Tok::Punct(b')') => {
                        depth -= 1;
                        depth == 0
                    }
                    _ => false,
                })
            });
        let (Some(operator), Some(close)) = (operator, close) else {
            i += 1;
            continue;
        };
        // The arguments, split at depth-1 commas.
        let mut args = Vec::new();
        let mut depth = 0usize;
        let mut from = toks[open].end;
        for k in open..close {
            match toks[k].tok {
                Tok::Punct(b'(') => depth += 1,
                Tok::Punct(b')') => depth -= 1,
                Tok::Punct(b',') if depth == 1 => {
                    args.push(stored[from..toks[k].start].trim());
                    from = toks[k].end;
                }
                _ => {}
            }
        }
        args.push(stored[from..toks[close].start].trim());
        out.push_str(&stored[copied..t.start]);
        match (name, &args[..]) {
            (n, [literal]) if n == super::rewrite::REAL_FUNCTION => {
                out.push_str(literal.trim_matches('\''));
            }
            ("xrpc_num", [string, _]) => out.push_str(&shown_sql(string)),
            (_, [a, b, _]) => {
                out.push_str(&shown_sql(a));
                out.push_str(operator);
                // A right operand is one term: a division there was `MOD(…)` or grouped.
                let nested = ["xrpc_div(", "xrpc_mod(", "xrpc_intdiv("]
                    .iter()
                    .any(|f| b.starts_with(f));
                if nested {
                    out.push('(');
                }
                out.push_str(&shown_sql(b));
                if nested {
                    out.push(')');
                }
            }
            _ => out.push_str(&stored[t.start..toks[close].end]),
        }
        copied = toks[close].end;
        i = close + 1;
    }
    out.push_str(&stored[copied..]);
    Cow::Owned(out)
}

/// One rewrite of one statement's tokens.
struct Pass<'a> {
    sql: &'a str,
    toks: &'a [Token],
    mode: i64,
}

/// A multiplicative operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Mul,
    Div,
    Mod,
    IntDiv,
}

impl Op {
    fn function(self) -> &'static str {
        match self {
            Op::Mul => "*",
            Op::Div => "xrpc_div",
            Op::Mod => "xrpc_mod",
            Op::IntDiv => "xrpc_intdiv",
        }
    }
}

impl Pass<'_> {
    /// The whole statement rewritten.
    fn rewrite(&self) -> String {
        let mut out = String::with_capacity(self.sql.len() + 32);
        self.range(0, self.toks.len(), &mut out);
        let lead = self.toks.first().map_or(0, |t| t.start);
        let trail = self.toks.last().map_or(self.sql.len(), |t| t.end);
        format!("{}{out}{}", &self.sql[..lead], &self.sql[trail..])
    }

    /// Whether the pass changes something at token `i`.
    fn rewrites_at(&self, i: usize) -> bool {
        self.is_division(i)
            || self.wraps_string(i)
            || self.logical(i).is_some()
            || self.like_pattern(i).is_some_and(|(_, escape)| escape)
    }

    /// At a `LIKE`: the end of its pattern, and whether it needs `ESCAPE '\'` (MySQL's LIKE
    /// escapes with a backslash unless told otherwise; SQLite's escapes with nothing). A
    /// pattern that is a string without a backslash needs none.
    fn like_pattern(&self, i: usize) -> Option<(usize, bool)> {
        if !self.word(i, "LIKE") {
            return None;
        }
        let end = self.term_end(i + 1, self.toks.len())?;
        let plain =
            end == i + 2 && self.toks[i + 1].tok == Tok::String && !self.text(i + 1).contains('\\');
        Some((end, !plain && !self.word(end, "ESCAPE")))
    }

    /// `||` (MySQL's OR) or `&&` (AND) starting at token `i`, as SQLite's word for it.
    fn logical(&self, i: usize) -> Option<&'static str> {
        let (a, b) = (self.toks.get(i)?, self.toks.get(i + 1)?);
        if a.end != b.start {
            return None;
        }
        match (a.tok, b.tok) {
            (Tok::Punct(b'|'), Tok::Punct(b'|')) => Some("OR"),
            (Tok::Punct(b'&'), Tok::Punct(b'&')) => Some("AND"),
            _ => None,
        }
    }

    fn text(&self, i: usize) -> &str {
        &self.sql[self.toks[i].start..self.toks[i].end]
    }

    fn word(&self, i: usize, w: &str) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| t.tok == Tok::Word && self.text(i).eq_ignore_ascii_case(w))
    }

    fn punct(&self, i: usize, set: &[u8]) -> bool {
        matches!(self.toks.get(i).map(|t| t.tok), Some(Tok::Punct(c)) if set.contains(&c))
    }

    fn keyword(&self, i: usize) -> bool {
        crate::tokens::CLAUSE_WORDS
            .iter()
            .chain(MORE_KEYWORDS)
            .any(|w| self.word(i, w))
    }

    /// The multiplicative operator at token `i`, if it is one (`MOD` followed by `(` is the
    /// function).
    fn op(&self, i: usize) -> Option<Op> {
        match self.toks.get(i)?.tok {
            Tok::Punct(b'*') => Some(Op::Mul),
            Tok::Punct(b'/') => Some(Op::Div),
            Tok::Punct(b'%') => Some(Op::Mod),
            Tok::Word if self.word(i, "DIV") => Some(Op::IntDiv),
            Tok::Word if self.word(i, "MOD") && !self.punct(i + 1, b"(") => Some(Op::Mod),
            _ => None,
        }
    }

    /// Whether token `i` is a division the pass rewrites.
    fn is_division(&self, i: usize) -> bool {
        matches!(self.op(i), Some(Op::Div | Op::Mod | Op::IntDiv))
            || self.word(i, "MOD") && self.punct(i + 1, b"(")
    }

    /// Whether token `i` ends an operand (so a `+` or `-` after it is binary).
    fn ends_operand(&self, i: usize) -> bool {
        match self.toks[i].tok {
            Tok::Number | Tok::String | Tok::QuotedIdent => true,
            Tok::Punct(c) => c == b')' || c == b'?',
            Tok::Word => !self.keyword(i),
        }
    }

    /// Whether the string literal at `i` is an operand of `+`, `-` or `*` (wrapped into
    /// `xrpc_num`). Not a prefixed literal (`x'41'`, `_utf8mb4'a'`, `DATE '…'`), not after a
    /// unary `+` (which MySQL ignores: `+'1a'` stays a string).
    fn wraps_string(&self, i: usize) -> bool {
        if self.toks[i].tok != Tok::String {
            return false;
        }
        let prefixed = i > 0
            && self.toks[i - 1].tok == Tok::Word
            && (self.toks[i - 1].end == self.toks[i].start
                || LITERAL_PREFIXES.iter().any(|w| self.word(i - 1, w)));
        // A JSON path after `->` or `->>`.
        let json_path = i >= 2
            && self.punct(i - 1, b">")
            && (self.punct(i - 2, b"-")
                || i >= 3 && self.punct(i - 2, b">") && self.punct(i - 3, b"-"));
        if prefixed || json_path {
            return false;
        }
        let before = i > 0
            && (self.punct(i - 1, b"-*")
                || self.punct(i - 1, b"+") && i >= 2 && self.ends_operand(i - 2));
        // Not `'…'->'$.a'`, SQLite's JSON operator.
        let after = self.punct(i + 1, b"+-*") && !self.punct(i + 2, b">");
        before || after || self.compared_with_number(i)
    }

    /// The length in tokens of a comparison operator (`=`, `<`, `>`, `<=`, `>=`, `<>`, `!=`,
    /// `<=>`) starting at token `i`.
    fn comparison_at(&self, i: usize) -> Option<usize> {
        let joined = |k: usize| {
            self.toks
                .get(k + 1)
                .is_some_and(|next| next.start == self.toks[k].end)
        };
        if self.punct(i, b"<") && joined(i) && self.punct(i + 1, b"=") {
            if joined(i + 1) && self.punct(i + 2, b">") {
                return Some(3);
            }
            return Some(2);
        }
        if (self.punct(i, b"<") && self.punct(i + 1, b">")
            || self.punct(i, b">!") && self.punct(i + 1, b"="))
            && joined(i)
        {
            return Some(2);
        }
        self.punct(i, b"=<>").then_some(1)
    }

    /// Whether the string literal at `i` is compared with a numeric literal (`'12abc' = 12`,
    /// `10 < '5'`): MySQL compares the two as DOUBLEs, SQLite orders every number before every
    /// string.
    fn compared_with_number(&self, i: usize) -> bool {
        let number_at = |k: usize| {
            self.toks.get(k).is_some_and(|t| t.tok == Tok::Number)
                || self.punct(k, b"-+")
                    && self.toks.get(k + 1).is_some_and(|t| t.tok == Tok::Number)
        };
        if let Some(len) = self.comparison_at(i + 1)
            && number_at(i + 1 + len)
        {
            return true;
        }
        (1..=3.min(i)).any(|len| {
            let op = i - len;
            self.comparison_at(op) == Some(len)
                && op > 0
                && self.toks[op - 1].tok == Tok::Number
                && !(op >= 2 && self.punct(op - 2, b"."))
        })
    }

    /// The end (exclusive) of the unary term starting at `i`, if one starts there.
    fn term_end(&self, mut i: usize, hi: usize) -> Option<usize> {
        while i < hi && self.punct(i, b"-+~") {
            i += 1;
        }
        if i >= hi {
            return None;
        }
        let mut end = match self.toks[i].tok {
            Tok::Punct(b'(') => self.closing(i, hi)? + 1,
            Tok::Punct(b'?') => {
                if i + 1 < hi
                    && self.toks[i + 1].tok == Tok::Number
                    && self.toks[i + 1].start == self.toks[i].end
                {
                    i + 2
                } else {
                    i + 1
                }
            }
            Tok::Number | Tok::String => i + 1,
            Tok::Word if self.word(i, "CASE") => self.case_end(i, hi)? + 1,
            Tok::Word if self.keyword(i) && !(self.word(i, "MOD") && self.punct(i + 1, b"(")) => {
                return None;
            }
            Tok::Word | Tok::QuotedIdent => {
                let mut j = i + 1;
                if j < hi && self.punct(j, b"(") {
                    j = self.closing(j, hi)? + 1;
                } else if j < hi
                    && self.toks[j].tok == Tok::String
                    && (self.toks[j].start == self.toks[i].end
                        || LITERAL_PREFIXES.iter().any(|w| self.word(i, w)))
                {
                    j += 1;
                } else {
                    while j + 1 < hi
                        && self.punct(j, b".")
                        && matches!(self.toks[j + 1].tok, Tok::Word | Tok::QuotedIdent)
                    {
                        j += 2;
                    }
                }
                j
            }
            Tok::Punct(_) => return None,
        };
        loop {
            if end + 1 < hi && self.word(end, "COLLATE") {
                end += 2;
            } else if end + 1 < hi
                && self.punct(end, b"-")
                && self.punct(end + 1, b">")
                && self.toks[end].end == self.toks[end + 1].start
            {
                // `->` and `->>` (JSON) bind tighter than `*`: `j->>'$.a' / 2`.
                let mut next = end + 2;
                if self.punct(next, b">") && self.toks[next - 1].end == self.toks[next].start {
                    next += 1;
                }
                end = self.term_end(next, hi)?;
            } else {
                return Some(end);
            }
        }
    }

    /// The `)` closing the `(` at `open`, before `hi`.
    fn closing(&self, open: usize, hi: usize) -> Option<usize> {
        let mut depth = 0usize;
        for i in open..hi {
            match self.toks[i].tok {
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

    /// The `END` closing the `CASE` at `case`, before `hi`.
    fn case_end(&self, case: usize, hi: usize) -> Option<usize> {
        let mut depth = 0usize;
        for i in case..hi {
            if self.word(i, "CASE") {
                depth += 1;
            } else if self.word(i, "END") {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
        }
        None
    }

    /// The text between token `i - 1` and token `i` (spaces, comments).
    fn gap(&self, i: usize, lo: usize) -> &str {
        if i == lo || i == 0 {
            ""
        } else {
            &self.sql[self.toks[i - 1].end..self.toks[i].start]
        }
    }

    /// Writes tokens `lo..hi` rewritten.
    fn range(&self, lo: usize, hi: usize, out: &mut String) {
        let mut i = lo;
        let mut after_operand = false;
        while i < hi {
            if let Some(word) = self.logical(i).filter(|_| i + 1 < hi) {
                // OR's (AND's) precedence is SQLite's as MySQL's: below every comparison.
                out.push_str(self.gap(i, lo));
                out.push(' ');
                out.push_str(word);
                out.push(' ');
                after_operand = false;
                i += 2;
                continue;
            }
            if let Some((end, escape)) = self.like_pattern(i).filter(|&(end, _)| end <= hi) {
                out.push_str(self.gap(i, lo));
                out.push_str(self.text(i));
                out.push_str(self.gap(i + 1, i));
                self.term(i + 1, end, &mut *out);
                if escape {
                    out.push_str(" ESCAPE '\\'");
                }
                after_operand = true;
                i = end;
                continue;
            }
            let binary_sign = after_operand && self.punct(i, b"+-");
            let end = if binary_sign {
                None
            } else {
                self.term_end(i, hi)
            };
            let Some(end) = end else {
                out.push_str(self.gap(i, lo));
                out.push_str(self.text(i));
                after_operand = self.ends_operand(i);
                i += 1;
                continue;
            };
            // A chain of terms joined by multiplicative operators.
            let mut terms = vec![(i, end)];
            let mut ops = Vec::new();
            let mut j = end;
            while j < hi {
                let Some(op) = self.op(j) else { break };
                let Some(next) = self.term_end(j + 1, hi) else {
                    break;
                };
                ops.push(op);
                terms.push((j + 1, next));
                j = next;
            }
            out.push_str(self.gap(i, lo));
            if ops.iter().all(|&op| op == Op::Mul) {
                // Nothing to fold: the terms and operators as written.
                let mut k = i;
                for (n, &(a, b)) in terms.iter().enumerate() {
                    if n > 0 {
                        out.push_str(self.gap(k, lo));
                        out.push_str(self.text(k));
                    }
                    out.push_str(self.gap(a, k));
                    self.term(a, b, out);
                    k = b;
                }
            } else {
                let mut acc = String::new();
                self.term(terms[0].0, terms[0].1, &mut acc);
                for (&op, &(a, b)) in ops.iter().zip(&terms[1..]) {
                    let mut operand = String::new();
                    self.term(a, b, &mut operand);
                    acc = match op {
                        Op::Mul => format!("{acc} * {operand}"),
                        _ => format!("{}({acc}, {operand}, {})", op.function(), self.mode),
                    };
                }
                out.push_str(&acc);
            }
            after_operand = true;
            i = j;
        }
    }

    /// Writes the term `a..b` with what is inside its parentheses and CASE rewritten.
    fn term(&self, a: usize, b: usize, out: &mut String) {
        let mut i = a;
        while i < b {
            out.push_str(self.gap(i, a));
            if self.word(i, "MOD") && self.punct(i + 1, b"(") {
                let close = self.closing(i + 1, b).unwrap_or(b - 1);
                let commas = (i + 2..close)
                    .filter(|&k| self.punct(k, b",") && self.closing_depth(i + 1, k) == 1)
                    .count();
                if commas == 1 {
                    out.push_str("xrpc_mod(");
                    self.range(i + 2, close, out);
                    out.push_str(&format!(", {})", self.mode));
                    i = close + 1;
                    continue;
                }
            }
            if self.wraps_string(i) {
                out.push_str(&format!("xrpc_num({}, {})", self.text(i), self.mode));
                i += 1;
                continue;
            }
            if self.punct(i, b"(") {
                let close = self.closing(i, b).unwrap_or(b - 1);
                out.push('(');
                out.push_str(self.gap(i + 1, i));
                self.range(i + 1, close, out);
                out.push_str(self.gap(close, i + 1));
                out.push(')');
                i = close + 1;
                continue;
            }
            if self.word(i, "CASE") {
                let end = self.case_end(i, b).unwrap_or(b - 1);
                out.push_str(self.text(i));
                out.push_str(self.gap(i + 1, i));
                self.range(i + 1, end, out);
                out.push_str(self.gap(end, i + 1));
                out.push_str(self.text(end));
                i = end + 1;
                continue;
            }
            out.push_str(self.text(i));
            i += 1;
        }
    }

    /// The parenthesis depth at token `k`, counted from the `(` at `open`.
    fn closing_depth(&self, open: usize, k: usize) -> usize {
        let mut depth = 0usize;
        for i in open..k {
            match self.toks[i].tok {
                Tok::Punct(b'(') => depth += 1,
                Tok::Punct(b')') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        depth
    }
}

/// A numeric literal's (integer digits, fraction digits, has an exponent), or `None`.
fn literal_shape(sql: &str, t: &Token) -> Option<(u32, u32, bool)> {
    if t.tok != Tok::Number {
        return None;
    }
    let text = &sql[t.start..t.end];
    if text.starts_with("0x") || text.starts_with("0X") {
        return None;
    }
    if text.contains(['e', 'E']) {
        return Some((0, 0, true));
    }
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let int = int.trim_start_matches('0').len().max(1) as u32;
    Some((int, frac.len() as u32, false))
}

/// The kind of a select-list item that is a division of two numeric literals (`7/2`, `1/0`,
/// `5 % 0`, `7 DIV 2`, `MOD(5, 0)`, a `-` before either allowed), as MySQL types it: `/` a
/// DECIMAL with 4 more fraction digits than the dividend (DOUBLE with an exponent); `%` and
/// `MOD` an integer of integers, a DECIMAL of decimals; `DIV` an integer. `None` for anything
/// else: such a column is typed from its values.
pub(crate) fn literal_kind(sql: &str, item: &[Token]) -> Option<DeclKind> {
    let punct = |t: &Token, c: u8| t.tok == Tok::Punct(c);
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    let operand = |toks: &[Token]| match toks {
        [n] => literal_shape(sql, n),
        [sign, n] if punct(sign, b'-') || punct(sign, b'+') => literal_shape(sql, n),
        _ => None,
    };
    let (left, op, right) = if item.len() >= 6
        && word(&item[0], "MOD")
        && punct(&item[1], b'(')
        && punct(&item[item.len() - 1], b')')
    {
        let inner = &item[2..item.len() - 1];
        let comma = inner.iter().position(|t| punct(t, b','))?;
        (
            operand(&inner[..comma])?,
            Op::Mod,
            operand(&inner[comma + 1..])?,
        )
    } else {
        let at = item.iter().enumerate().skip(1).find_map(|(k, t)| {
            let op = match t.tok {
                Tok::Punct(b'/') => Op::Div,
                Tok::Punct(b'%') => Op::Mod,
                Tok::Word if word(t, "DIV") => Op::IntDiv,
                Tok::Word if word(t, "MOD") => Op::Mod,
                _ => return None,
            };
            Some((k, op))
        })?;
        let (k, op) = at;
        (operand(&item[..k])?, op, operand(&item[k + 1..])?)
    };
    let int = |length: u32| DeclKind::Int {
        mysql: mysql_type::LONGLONG,
        length,
        unsigned: false,
        min: i64::MIN,
        max: i64::MAX as u64,
    };
    let exponent = left.2 || right.2;
    Some(match op {
        Op::IntDiv => int(21),
        _ if exponent => DeclKind::Double,
        Op::Div => {
            let scale = (left.1 + 4).min(30);
            DeclKind::Decimal {
                precision: (left.0 + left.1 + right.1 + 4).clamp(scale + 1, 65),
                scale: scale as u8,
            }
        }
        Op::Mod if left.1 == 0 && right.1 == 0 => int(left.0.max(right.0) + 1),
        _ => {
            let scale = left.1.max(right.1).min(30);
            DeclKind::Decimal {
                precision: (left.0.max(right.0) + scale).clamp(scale + 1, 65),
                scale: scale as u8,
            }
        }
    })
}

/// An operand as MySQL reads it in arithmetic.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    /// An integer (an integer text too, up to i128).
    Int(i128),
    Double(f64),
}

impl Num {
    fn to_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Double(f) => f,
        }
    }

    fn is_zero(self) -> bool {
        self.to_f64() == 0.0
    }
}

/// A warning (an error in a write) or a note of an operation.
struct Problem {
    level: WarningLevel,
    code: &'static codes::ErrorCode,
    message: String,
}

/// Reads an operand: `Ok(None)` for NULL; a string's trailing junk is a 1292 problem (the
/// number it starts with is still the value).
fn operand(value: ValueRef<'_>, problems: &mut Vec<Problem>) -> Option<Num> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(Num::Int(i128::from(i))),
        ValueRef::Real(f) => Some(Num::Double(f)),
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            Some(string_number(&text, problems))
        }
    }
}

/// MySQL's reading of a string as a number (see [`operand`]).
fn string_number(text: &str, problems: &mut Vec<Problem>) -> Num {
    let (number, rest) = number_prefix(text);
    let spaces = rest
        .bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if number.is_empty() || !rest.is_empty() {
        let shown: String = text.chars().take(64).collect();
        problems.push(Problem {
            // Only spaces after the number: a note, as MariaDB's (it never fails a write).
            level: if number.is_empty() || !spaces {
                WarningLevel::Warning
            } else {
                WarningLevel::Note
            },
            code: &codes::INCORRECT_DATETIME,
            message: format!("Truncated incorrect DOUBLE value: '{shown}'"),
        });
    }
    if number.is_empty() {
        return Num::Int(0);
    }
    let digits = number.trim_start_matches(['+', '-']);
    if digits.bytes().all(|b| b.is_ascii_digit())
        && digits.len() <= 38
        && let Ok(i) = number.trim_start_matches('+').parse::<i128>()
    {
        return Num::Int(i);
    }
    Num::Double(number.parse::<f64>().unwrap_or(0.0))
}

/// An integer result: INTEGER when it fits, else the TEXT of its digits (exact in a BIGINT
/// UNSIGNED or DECIMAL column).
fn integer(i: i128) -> SqlValue {
    i64::try_from(i).map_or_else(|_| SqlValue::Text(i.to_string()), SqlValue::Integer)
}

fn division_by_zero() -> Problem {
    Problem {
        level: WarningLevel::Warning,
        code: &codes::DIVISION_BY_ZERO,
        message: codes::DIVISION_BY_ZERO.message.to_owned(),
    }
}

/// `a / b`.
fn divide(a: Num, b: Num, problems: &mut Vec<Problem>) -> SqlValue {
    if b.is_zero() {
        problems.push(division_by_zero());
        return SqlValue::Null;
    }
    SqlValue::Real(a.to_f64() / b.to_f64())
}

/// `a % b`, `MOD(a, b)`.
fn modulo(a: Num, b: Num, problems: &mut Vec<Problem>) -> SqlValue {
    if b.is_zero() {
        problems.push(division_by_zero());
        return SqlValue::Null;
    }
    match (a, b) {
        (Num::Int(a), Num::Int(b)) => integer(a.checked_rem(b).unwrap_or(0)),
        _ => SqlValue::Real(a.to_f64() % b.to_f64()),
    }
}

/// `a DIV b`.
fn int_divide(a: Num, b: Num, problems: &mut Vec<Problem>) -> Result<SqlValue, SqlError> {
    if b.is_zero() {
        problems.push(division_by_zero());
        return Ok(SqlValue::Null);
    }
    let quotient = match (a, b) {
        (Num::Int(a), Num::Int(b)) => a.checked_div(b),
        _ => {
            let q = (a.to_f64() / b.to_f64()).trunc();
            (q.abs() < 1.8e19).then_some(q as i128)
        }
    };
    match quotient {
        Some(q) if q >= i128::from(i64::MIN) && q <= i128::from(u64::MAX) => Ok(integer(q)),
        _ => Err(SqlError::new(
            &codes::DATA_OUT_OF_RANGE,
            format!(
                "BIGINT value is out of range in '{} DIV {}'",
                shown(a),
                shown(b)
            ),
        )),
    }
}

fn shown(n: Num) -> String {
    match n {
        Num::Int(i) => i.to_string(),
        Num::Double(f) => format_double(f),
    }
}

/// Registers `xrpc_div`, `xrpc_mod`, `xrpc_intdiv` and `xrpc_num` (see the module docs). In a
/// write statement a problem fails the statement with its MySQL error, handed to
/// `shared.fail` for the engine to report; in a query it is a warning.
pub(crate) fn register(conn: &Connection, shared: &std::sync::Arc<Shared>) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    type Binary = fn(Num, Num, &mut Vec<Problem>) -> Result<SqlValue, SqlError>;
    let binaries: [(&str, Binary); 3] = [
        ("xrpc_div", |a, b, p| Ok(divide(a, b, p))),
        ("xrpc_mod", |a, b, p| Ok(modulo(a, b, p))),
        ("xrpc_intdiv", int_divide),
    ];
    let report = |shared: &Shared, mode: i64, problems: Vec<Problem>| -> rusqlite::Result<()> {
        let writes = mode & MODE_WRITE != 0
            || mode & MODE_STORED != 0
                && shared
                    .statement_writes
                    .load(std::sync::atomic::Ordering::Relaxed);
        for problem in problems {
            if writes && problem.level == WarningLevel::Warning {
                let err = SqlError::new(problem.code, problem.message);
                let message = err.message.clone();
                shared.fail(err);
                return Err(rusqlite::Error::UserFunctionError(message.into()));
            }
            shared.warn(SqlWarning {
                level: problem.level,
                code: problem.code.code,
                message: problem.message,
            });
        }
        Ok(())
    };
    for (name, op) in binaries {
        let s = std::sync::Arc::clone(shared);
        conn.create_scalar_function(name, 3, flags, move |ctx: &Context<'_>| {
            let mode = ctx.get_raw(2).as_i64().unwrap_or(0);
            let mut problems = Vec::new();
            // MySQL reads the dividend first, and stops at a NULL.
            let value = match operand(ctx.get_raw(0), &mut problems) {
                None => Ok(SqlValue::Null),
                Some(a) => match operand(ctx.get_raw(1), &mut problems) {
                    None => Ok(SqlValue::Null),
                    Some(b) => op(a, b, &mut problems),
                },
            };
            report(&s, mode, problems)?;
            value.map_err(|err| {
                let message = err.message.clone();
                s.fail(err);
                rusqlite::Error::UserFunctionError(message.into())
            })
        })?;
    }
    let s = std::sync::Arc::clone(shared);
    conn.create_scalar_function("xrpc_num", 2, flags, move |ctx: &Context<'_>| {
        let mode = ctx.get_raw(1).as_i64().unwrap_or(0);
        let mut problems = Vec::new();
        let value = match operand(ctx.get_raw(0), &mut problems) {
            None => SqlValue::Null,
            // MySQL reads a string in arithmetic as a DOUBLE.
            Some(n) => SqlValue::Real(n.to_f64()),
        };
        report(&s, mode, problems)?;
        Ok(value)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(sql: &str) -> String {
        rewrite(sql).unwrap_or_else(|| sql.to_owned())
    }

    #[test]
    fn divisions_become_function_calls_with_mysqls_precedence() {
        let cases = [
            ("select 1/0", "select xrpc_div(1, 0, 0)"),
            (
                "select 5 % 0, 7 DIV 2",
                "select xrpc_mod(5, 0, 0), xrpc_intdiv(7, 2, 0)",
            ),
            ("select 5 mod 2", "select xrpc_mod(5, 2, 0)"),
            ("select MOD(5, 0)", "select xrpc_mod(5, 0, 0)"),
            (
                "select a * b / c % d from t",
                "select xrpc_mod(xrpc_div(a * b, c, 0), d, 0) from t",
            ),
            ("select a / b * c", "select xrpc_div(a, b, 0) * c"),
            ("select x - a / -b + 1", "select x - xrpc_div(a, -b, 0) + 1"),
            ("select -a / b", "select xrpc_div(-a, b, 0)"),
            (
                "select t.a / f(x, y / 2)",
                "select xrpc_div(t.a, f(x, xrpc_div(y, 2, 0)), 0)",
            ),
            ("select (1 + 2) / 3", "select xrpc_div((1 + 2), 3, 0)"),
            (
                "select case when a / 0 is null then 1 end / 2",
                "select xrpc_div(case when xrpc_div(a, 0, 0) is null then 1 end, 2, 0)",
            ),
            (
                "insert into t values (1/0)",
                "insert into t values (xrpc_div(1, 0, 1))",
            ),
            (
                "update t set a = a DIV 0",
                "update t set a = xrpc_intdiv(a, 0, 1)",
            ),
            ("select count(*) from t", "select count(*) from t"),
            (
                "select * from t where a like '%x/'",
                "select * from t where a like '%x/'",
            ),
            ("select ?/2", "select xrpc_div(?, 2, 0)"),
            ("select /* c */ 4 / 2", "select /* c */ xrpc_div(4, 2, 0)"),
            ("select j->>'$.a' / 2", "select xrpc_div(j->>'$.a', 2, 0)"),
            ("select j -> '$.a' * 2", "select j -> '$.a' * 2"),
        ];
        for (sql, want) in cases {
            assert_eq!(rw(sql), want, "{sql}");
        }
        assert_eq!(rewrite("create view v as select a from t"), None);
        assert_eq!(rewrite("pragma x = 1/2"), None);
        assert_eq!(rewrite("select a from t"), None);
    }

    #[test]
    fn string_operands_of_plus_minus_times_are_read_as_numbers() {
        let cases = [
            ("select '12abc' + 0", "select xrpc_num('12abc', 0) + 0"),
            ("select 1 - '2'", "select 1 - xrpc_num('2', 0)"),
            ("select -'3x'", "select -xrpc_num('3x', 0)"),
            (
                "select 2 * 'a' / 3",
                "select xrpc_div(2 * xrpc_num('a', 0), 3, 0)",
            ),
            // Unary plus is ignored by MySQL: the string stays a string.
            ("select +'1a'", "select +'1a'"),
            ("select x'41' + 0", "select x'41' + 0"),
            ("select 'a' = 'b'", "select 'a' = 'b'"),
            ("select '12abc' = 12", "select xrpc_num('12abc', 0) = 12"),
            ("select 1 <> '1.0'", "select 1 <> xrpc_num('1.0', 0)"),
            (
                "select 10 <= '5', '5' <=> -1",
                "select 10 <= xrpc_num('5', 0), xrpc_num('5', 0) <=> -1",
            ),
            ("select a = '5' from t", "select a = '5' from t"),
            ("select 'a' || 'b'", "select 'a'  OR  'b'"),
            (
                "insert into t values ('1x' + 0)",
                "insert into t values (xrpc_num('1x', 1) + 0)",
            ),
        ];
        for (sql, want) in cases {
            assert_eq!(rw(sql), want, "{sql}");
        }
    }

    fn run(f: fn(Num, Num, &mut Vec<Problem>) -> SqlValue, a: Num, b: Num) -> (SqlValue, Vec<u32>) {
        let mut problems = Vec::new();
        let v = f(a, b, &mut problems);
        (v, problems.iter().map(|p| p.code.code).collect())
    }

    #[test]
    fn operations_answer_as_mysql() {
        use Num::{Double, Int};
        type Op = fn(Num, Num, &mut Vec<Problem>) -> SqlValue;
        let cases: [(Op, Num, Num, SqlValue, &[u32]); 8] = [
            (divide, Int(1), Int(0), SqlValue::Null, &[1365]),
            (divide, Int(7), Int(2), SqlValue::Real(3.5), &[]),
            (divide, Double(1.0), Double(0.0), SqlValue::Null, &[1365]),
            (modulo, Int(5), Int(0), SqlValue::Null, &[1365]),
            (modulo, Int(-7), Int(2), SqlValue::Integer(-1), &[]),
            (modulo, Double(5.5), Int(2), SqlValue::Real(1.5), &[]),
            (
                modulo,
                Int(i128::from(u64::MAX)),
                Int(10),
                SqlValue::Integer(5),
                &[],
            ),
            (modulo, Int(7), Double(-2.0), SqlValue::Real(1.0), &[]),
        ];
        for (f, a, b, want, codes) in cases {
            assert_eq!(run(f, a, b), (want, codes.to_vec()), "{a:?} {b:?}");
        }
        let mut p = Vec::new();
        assert_eq!(
            int_divide(Num::Int(7), Num::Int(2), &mut p).unwrap(),
            SqlValue::Integer(3)
        );
        assert_eq!(
            int_divide(Num::Int(-7), Num::Int(2), &mut p).unwrap(),
            SqlValue::Integer(-3)
        );
        assert_eq!(
            int_divide(Num::Double(7.5), Num::Int(2), &mut p).unwrap(),
            SqlValue::Integer(3)
        );
        assert_eq!(
            int_divide(Num::Int(5), Num::Int(0), &mut p).unwrap(),
            SqlValue::Null
        );
        assert_eq!(p.len(), 1);
        let err = int_divide(Num::Double(1e300), Num::Int(1), &mut p).unwrap_err();
        assert_eq!(err.code, 1690);
    }

    #[test]
    fn strings_read_as_numbers_warn_about_junk() {
        let mut p = Vec::new();
        assert_eq!(string_number("12abc", &mut p), Num::Int(12));
        assert_eq!(
            string_number("18446744073709551615", &mut p),
            Num::Int(i128::from(u64::MAX))
        );
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].message, "Truncated incorrect DOUBLE value: '12abc'");
        assert_eq!(p[0].level, WarningLevel::Warning);
        assert_eq!(string_number("", &mut p), Num::Int(0));
        assert_eq!(p[1].message, "Truncated incorrect DOUBLE value: ''");
        // Spaces after the number: a note (MariaDB's).
        assert_eq!(string_number(" 1.5e1 ", &mut p), Num::Double(15.0));
        assert_eq!(p[2].level, WarningLevel::Note);
    }

    #[test]
    fn pipes_and_ampersands_are_mysqls_or_and_and() {
        let cases = [
            ("select 1 || 0", "select 1  OR  0"),
            ("select a=1||b=2 from t", "select a=1 OR b=2 from t"),
            ("select 1 && (2 || x)", "select 1  AND  (2  OR  x)"),
            ("select f(a || b)", "select f(a  OR  b)"),
            ("select 'x||y', `a||b`", "select 'x||y', `a||b`"),
            ("select a | | b, a & b", "select a | | b, a & b"),
        ];
        for (sql, want) in cases {
            assert_eq!(rw(sql), want, "{sql}");
        }
    }

    #[test]
    fn like_escapes_with_a_backslash_as_mysql() {
        let cases = [
            (
                r"select 'a_b' like 'a\_b'",
                r"select 'a_b' like 'a\_b' ESCAPE '\'",
            ),
            (
                "select a from t where a like ?",
                r"select a from t where a like ? ESCAPE '\'",
            ),
            (
                "select a not like concat('%', b) from t",
                r"select a not like concat('%', b) ESCAPE '\' from t",
            ),
            ("select a like 'x%' from t", "select a like 'x%' from t"),
            (
                r"select a like 'x\%' escape '|'",
                r"select a like 'x\%' escape '|'",
            ),
        ];
        for (sql, want) in cases {
            assert_eq!(rw(sql), want, "{sql}");
        }
    }

    #[test]
    fn stored_sql_is_rewritten_and_keeps_the_text_as_written() {
        assert_eq!(
            rw("create table t (a int default (7/2), check (a || 0))"),
            "create table t (a int default (xrpc_div(7, 2, 2)), check (a  OR  0))"
        );
        let view = "create view v as select a/2, a % 2 m, '*/\\x' from t";
        let stored = rw(view);
        assert_eq!(
            stored,
            "create view v as /*xrpc_text:create view v as select a/2, a % 2 m, '*\\/\\\\x' \
             from t*/ select xrpc_div(a, 2, 2) AS \"a/2\", xrpc_mod(a, 2, 2) m, '*/\\x' from t"
        );
        assert_eq!(original_text(&stored).as_deref(), Some(view));
        assert_eq!(original_text("create view v as select 1"), None);
        let trigger =
            "create trigger tr after insert on t begin insert into l values (new.a / 2); end";
        let stored = rw(trigger);
        assert!(stored.contains("xrpc_div(new.a, 2, 2)"), "{stored}");
        assert_eq!(original_text(&stored).as_deref(), Some(trigger));
        assert_eq!(
            shown_sql("(xrpc_div(7, xrpc_mod(a, 2, 2), 2))"),
            "(7 / (a % 2))"
        );
        assert_eq!(
            shown_sql("xrpc_num('1x', 2) + xrpc_real('0.5')"),
            "'1x' + 0.5"
        );
        assert_eq!(shown_sql("'xrpc_div'"), "'xrpc_div'");
    }

    #[test]
    fn literal_divisions_are_typed_as_mysql_types_them() {
        let kind = |sql: &str| {
            let toks = tokens(sql).unwrap();
            literal_kind(sql, &toks)
        };
        assert!(matches!(
            kind("1/0"),
            Some(DeclKind::Decimal { scale: 4, .. })
        ));
        assert!(matches!(
            kind("1.50/2"),
            Some(DeclKind::Decimal { scale: 6, .. })
        ));
        assert!(matches!(kind("5 % 0"), Some(DeclKind::Int { .. })));
        assert!(matches!(kind("MOD(5, 0)"), Some(DeclKind::Int { .. })));
        assert!(matches!(kind("7 DIV 2"), Some(DeclKind::Int { .. })));
        assert!(matches!(kind("1e0/2"), Some(DeclKind::Double)));
        assert!(matches!(
            kind("5.5 % 2"),
            Some(DeclKind::Decimal { scale: 1, .. })
        ));
        assert_eq!(kind("a/2"), None);
        assert_eq!(kind("1/2/3"), None);
    }
}
