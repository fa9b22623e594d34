//! Text scans the SQLite engine still makes: a leading-keyword check, the case-blind search its
//! rewrites gate on, and the tokenizer of its catalog statements. Nothing else in the node uses
//! them: statements are read through the MySQL front end (`xrpc-sql`).

/// The first word of `sql` after whitespace and comments, and the text after it.
pub fn leading_word(sql: &str) -> Option<(&str, &str)> {
    let s = skip_space_and_comments(sql);
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (end > 0).then(|| (&s[..end], &s[end..]))
}

/// `s` without leading whitespace and comments.
pub fn skip_space_and_comments(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        if let Some(rest) = s.strip_prefix("/*") {
            s = rest.find("*/").map_or("", |end| &rest[end + 2..]);
        } else if s.starts_with('#')
            || (s.starts_with("--") && s[2..].chars().next().is_none_or(char::is_whitespace))
        {
            s = s.find('\n').map_or("", |end| &s[end + 1..]);
        } else {
            return s;
        }
    }
}

///
/// Statements can be tens of megabytes (a long string literal), and this runs on every one of
/// them in several places, so it compares only where the needle's first byte appears (found
/// with `memchr`'s vectorised search, which stays fast in unoptimised test builds too), rather
/// than at every window.
pub fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    let (haystack, needle) = (haystack.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return true;
    };
    if haystack.len() < needle.len() {
        return false;
    }
    let last_start = haystack.len() - needle.len();
    memchr::memchr2_iter(
        first.to_ascii_lowercase(),
        first.to_ascii_uppercase(),
        &haystack[..=last_start],
    )
    .any(|at| haystack[at..at + needle.len()].eq_ignore_ascii_case(needle))
}

/// A token of admin SQL.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok<'a> {
    /// A keyword, identifier or number.
    Word(&'a str),
    /// A `'…'` or `"…"` string, escapes resolved.
    Str(String),
    /// A `` `…` `` identifier.
    Ident(String),
    /// Punctuation.
    Sym(&'static str),
}

/// Splits `sql` into tokens, skipping whitespace and comments.
pub fn lex(sql: &str) -> Result<Vec<Tok<'_>>, String> {
    const SYMS: &[&str] = &[
        "@@", ":=", "<>", "!=", "@", "=", ",", ".", "(", ")", ";", "*", "+", "-",
    ];
    let mut toks = Vec::new();
    let mut s = sql;
    loop {
        s = skip_space_and_comments(s);
        let Some(c) = s.chars().next() else {
            return Ok(toks);
        };
        if c == '\'' || c == '"' {
            let (value, rest) = quoted(s, c)?;
            toks.push(Tok::Str(value));
            s = rest;
        } else if c == '`' {
            let (value, rest) = quoted(s, '`')?;
            toks.push(Tok::Ident(value));
            s = rest;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let end = s
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(s.len());
            toks.push(Tok::Word(&s[..end]));
            s = &s[end..];
        } else if let Some(sym) = SYMS.iter().find(|sym| s.starts_with(**sym)) {
            toks.push(Tok::Sym(sym));
            s = &s[sym.len()..];
        } else {
            return Err(format!("unexpected '{c}'"));
        }
    }
}

/// Reads a quoted string or identifier starting at `s[0] == quote`; a doubled quote stands for
/// itself, and in strings backslash escapes follow MySQL (`\%` and `\_` keep their backslash for
/// LIKE).
fn quoted(s: &str, quote: char) -> Result<(String, &str), String> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if c == quote {
            if chars.peek().is_some_and(|&(_, n)| n == quote) {
                chars.next();
                out.push(quote);
                continue;
            }
            return Ok((out, &s[i + c.len_utf8()..]));
        }
        if c == '\\' && quote != '`' {
            let Some((_, e)) = chars.next() else { break };
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                'b' => out.push('\u{8}'),
                'Z' => out.push('\u{1a}'),
                '%' | '_' => {
                    out.push('\\');
                    out.push(e);
                }
                other => out.push(other),
            }
            continue;
        }
        out.push(c);
    }
    Err(format!("unterminated {quote}…{quote}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_ignore_case_finds_the_needle_anywhere() {
        assert!(contains_ignore_case(
            "select * from Information_Schema.tables",
            "INFORMATION_SCHEMA"
        ));
        assert!(contains_ignore_case("cast", "CAST"));
        assert!(!contains_ignore_case("cas", "cast"));
        assert!(!contains_ignore_case("select 'cas t'", "cast"));
        assert!(contains_ignore_case("anything", ""));
    }

    #[test]
    fn lexer_handles_comments_quotes_and_escapes() {
        let toks = lex("/* c */ SET -- note\n @@global.`a``b` = 'it''s\\n' # end").unwrap();
        assert_eq!(
            toks,
            vec![
                Tok::Word("SET"),
                Tok::Sym("@@"),
                Tok::Word("global"),
                Tok::Sym("."),
                Tok::Ident("a`b".into()),
                Tok::Sym("="),
                Tok::Str("it's\n".into()),
            ]
        );
        assert!(lex("'open").is_err());
    }
}
