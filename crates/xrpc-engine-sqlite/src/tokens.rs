//! SQL as tokens: the tokenizer every rewrite pass works on (strings, quoted identifiers and
//! comments are single tokens, so no pass looks inside them), and the select-list scans the
//! passes that type result columns share.

/// A token's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    Word,
    Number,
    String,
    QuotedIdent,
    Punct(u8),
}

/// A token and its byte range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// Splits SQL into tokens, without whitespace and comments. `None` for an unterminated string
/// or comment.
pub(crate) fn tokens(sql: &str) -> Option<Vec<Token>> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let tok = match c {
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = sql[i..].find('\n').map_or(b.len(), |n| i + n + 1);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = i + 2 + sql[i + 2..].find("*/")? + 2;
                continue;
            }
            b'\'' | b'"' | b'`' | b'[' => {
                let close = if c == b'[' { b']' } else { c };
                i += 1;
                loop {
                    let at = i + b[i..].iter().position(|&x| x == close)?;
                    i = at + 1;
                    // A doubled quote is an escaped quote, not the end.
                    if close != b']' && b.get(i) == Some(&close) {
                        i += 1;
                    } else {
                        break;
                    }
                }
                if c == b'\'' {
                    Tok::String
                } else {
                    Tok::QuotedIdent
                }
            }
            b'0'..=b'9' | b'.' if c != b'.' || b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                if c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
                    i += 2;
                    while i < b.len() && b[i].is_ascii_hexdigit() {
                        i += 1;
                    }
                } else {
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    if b.get(i) == Some(&b'.') {
                        i += 1;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                    if matches!(b.get(i), Some(b'e' | b'E')) {
                        let mut j = i + 1;
                        if matches!(b.get(j), Some(b'+' | b'-')) {
                            j += 1;
                        }
                        if b.get(j).is_some_and(u8::is_ascii_digit) {
                            i = j;
                            while i < b.len() && b[i].is_ascii_digit() {
                                i += 1;
                            }
                        }
                    }
                }
                if i < b.len() && ident(b[i]) {
                    // `1abc` is not a number SQLite would read; leave the word alone.
                    while i < b.len() && ident(b[i]) {
                        i += 1;
                    }
                    Tok::Word
                } else {
                    Tok::Number
                }
            }
            _ if ident(c) => {
                while i < b.len() && ident(b[i]) {
                    i += 1;
                }
                Tok::Word
            }
            _ => {
                i += 1;
                Tok::Punct(c)
            }
        };
        out.push(Token { tok, start, end: i });
    }
    Some(out)
}

/// Words that start or join clauses: never a function name before `(`, and never an operand
/// (so a `-` after one is unary). `cast` and `arith` (which adds its own operators) read them.
pub(crate) const CLAUSE_WORDS: &[&str] = &[
    "SELECT",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "ON",
    "WHEN",
    "THEN",
    "ELSE",
    "BY",
    "HAVING",
    "DISTINCT",
    "ALL",
    "CASE",
    "IN",
    "VALUES",
    "SET",
    "RETURNING",
    "LIMIT",
    "OFFSET",
    "IS",
    "LIKE",
    "BETWEEN",
];

/// A SELECT's select-list items (token ranges, split at depth-0 commas) and the index of the
/// token that ends the list (FROM, WHERE, …, or the end). `None` without a SELECT.
pub(crate) fn select_items(sql: &str, toks: &[Token]) -> Option<(Vec<(usize, usize)>, usize)> {
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    // Depth-0 token indexes.
    let mut depth = 0i32;
    let mut top = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::Punct(b'(') => depth += 1,
            Tok::Punct(b')') => depth -= 1,
            _ if depth == 0 => top.push(i),
            _ => {}
        }
    }
    let select = top.iter().copied().find(|&i| word(&toks[i], "SELECT"))?;
    let mut start = select + 1;
    while start < toks.len() && (word(&toks[start], "DISTINCT") || word(&toks[start], "ALL")) {
        start += 1;
    }
    const END: &[&str] = &[
        "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW",
    ];
    let end = top
        .iter()
        .copied()
        .find(|&i| {
            i >= start && (END.iter().any(|w| word(&toks[i], w)) || toks[i].tok == Tok::Punct(b';'))
        })
        .unwrap_or(toks.len());
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut item_start = start;
    for &i in top.iter().filter(|&&i| i >= start && i < end) {
        if toks[i].tok == Tok::Punct(b',') {
            items.push((item_start, i));
            item_start = i + 1;
        }
    }
    items.push((item_start, end));
    Some((items, end))
}

/// Whether a select-list item ends with an alias (`… AS x`, or `… x` after an operand).
pub(crate) fn has_alias(sql: &str, item: &[Token]) -> bool {
    let [.., before, last] = item else {
        return false;
    };
    if !matches!(last.tok, Tok::Word | Tok::QuotedIdent) {
        return false;
    }
    (before.tok == Tok::Word && sql[before.start..before.end].eq_ignore_ascii_case("AS"))
        || matches!(
            before.tok,
            Tok::Punct(b')') | Tok::Word | Tok::QuotedIdent | Tok::Number | Tok::String
        )
}
