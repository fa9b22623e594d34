//! A statement's text without its comments, for an engine whose own lexer reads comments
//! otherwise than MySQL does.
//!
//! SQLite starts a comment at any `--`, so MySQL's `5--2` (five minus minus two: `-- ` opens a
//! comment only before whitespace) would lose its end there; and it has no `#` comments. The
//! text is re-emitted from MySQL's tokens: every comment (`#`, `-- `, `/* */`, optimizer hints)
//! becomes one space, every other token keeps its spelling, and a space goes between two tokens
//! that would otherwise join into a comment start (`-` `-`, `/` `*`). [`Parsed::text`] stays as
//! the client sent it (the `mysql` engine sends it to the server, hints included).

use std::borrow::Cow;

use sqlparser::tokenizer::{Token, Whitespace};

use crate::{Parsed, lex};

impl Parsed {
    /// The statement's text with its comments dropped (module docs): the text itself when it
    /// holds no comment.
    pub fn text_without_comments(&self) -> Cow<'_, str> {
        without_comments(&self.text)
    }
}

/// `text` (one statement that tokenized before) with its comments dropped.
fn without_comments(text: &str) -> Cow<'_, str> {
    // Only such a text can hold a comment or two `-` tokens that SQLite would read as one.
    if !(text.contains("--") || text.contains('#') || text.contains("/*")) {
        return Cow::Borrowed(text);
    }
    let Ok(tokens) = lex::tokenize(text) else {
        return Cow::Borrowed(text);
    };
    let lines = lex::Lines::new(text);
    let mut out = String::with_capacity(text.len());
    for token in &tokens {
        if token.token == Token::EOF {
            break;
        }
        if is_comment(&token.token) {
            out.push(' ');
            continue;
        }
        let start = lines.offset(token.span.start.line, token.span.start.column);
        let end = lines
            .offset(token.span.end.line, token.span.end.column)
            .max(start);
        let spelling = &text[start..end];
        let joins = matches!(
            (out.chars().last(), spelling.chars().next()),
            (Some('-'), Some('-')) | (Some('/'), Some('*'))
        );
        if joins {
            out.push(' ');
        }
        out.push_str(spelling);
    }
    let out = out.trim();
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out.to_owned())
    }
}

fn is_comment(token: &Token) -> bool {
    matches!(
        token,
        Token::Whitespace(Whitespace::SingleLineComment { .. } | Whitespace::MultiLineComment(_))
    )
}

#[cfg(test)]
mod tests {
    use super::without_comments;

    #[test]
    fn a_minus_before_a_negative_number_is_not_a_comment_start() {
        assert_eq!(
            without_comments("SELECT 5--2, 7 DIV 2"),
            "SELECT 5- -2, 7 DIV 2"
        );
    }

    #[test]
    fn a_hash_comment_in_the_middle_becomes_a_space() {
        assert_eq!(without_comments("SELECT 1 # one\n+ 2"), "SELECT 1  \n+ 2");
    }

    #[test]
    fn dash_and_block_comments_become_spaces() {
        assert_eq!(
            without_comments("SELECT /*+ hint */ a -- why\n FROM t"),
            "SELECT   a  \n FROM t"
        );
    }

    #[test]
    fn comment_characters_inside_literals_stay() {
        let text = "SELECT '--x', \"#y\", `/*z*/` FROM t";
        assert_eq!(without_comments(text), text);
    }

    #[test]
    fn a_comment_between_a_division_and_a_multiplication_keeps_them_apart() {
        assert_eq!(without_comments("SELECT 4/ /*x*/*2"), "SELECT 4/  *2");
    }
}
