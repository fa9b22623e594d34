//! Select items as written. MySQL names a result column that is neither a column reference nor
//! aliased by the item's text as the client wrote it (`1/0`, `count( * )`, `CAST(x AS CHAR)`),
//! which the tree no longer holds: sqlparser prints `1 / 0` back, and its spans do not cover
//! every expression's end. So the text is cut from the statement's own tokens.
//!
//! The select list starts after the SELECT keyword (and its modifiers, `DISTINCT`,
//! `SQL_NO_CACHE`, …) and ends, outside parentheses, at the first of the clause keywords that
//! may follow it (`FROM`, `INTO`, `WHERE`, …, `UNION`, `FOR`, `LOCK`), at the `)` closing a
//! subquery, or at the statement's end. Its items are split at the commas outside
//! parentheses; each item's text runs from its first token to its last, so the spaces and
//! comments around it are not part of it. When the count of items found is not the tree's,
//! there is no answer (the caller names the column otherwise) rather than a misaligned one.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Span, Token};

use crate::{Parsed, lex};

/// Words that may come between SELECT and its first item.
const MODIFIERS: &[&str] = &[
    "ALL",
    "DISTINCT",
    "DISTINCTROW",
    "HIGH_PRIORITY",
    "STRAIGHT_JOIN",
    "SQL_SMALL_RESULT",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
    "SQL_CACHE",
    "SQL_NO_CACHE",
    "SQL_CALC_FOUND_ROWS",
];

/// Keywords that end a select list outside parentheses.
const LIST_END: &[Keyword] = &[
    Keyword::FROM,
    Keyword::INTO,
    Keyword::WHERE,
    Keyword::GROUP,
    Keyword::HAVING,
    Keyword::WINDOW,
    Keyword::ORDER,
    Keyword::LIMIT,
    Keyword::UNION,
    Keyword::EXCEPT,
    Keyword::INTERSECT,
    Keyword::FOR,
    Keyword::LOCK,
    Keyword::PROCEDURE,
];

impl Parsed {
    /// The text of each select item of the SELECT whose keyword the tree places at
    /// `select_keyword` (`Select::select_token`), as written. `items` are the tree's spans of
    /// the items (empty where the tree has none): `None` when the statement's tokens show
    /// another count of items there, or an item whose span does not start within the text
    /// found for it (a tree that was not parsed from this text).
    pub fn select_items_written(&self, select_keyword: Span, items: &[Span]) -> Option<Vec<&str>> {
        let keyword = self.local(select_keyword.start)?;
        let tokens = lex::tokenize(&self.text).ok()?;
        let at = tokens.iter().position(|t| t.span.start == keyword)?;
        if !lex::word_is(&tokens[at].token, Keyword::SELECT) {
            return None;
        }
        let mut rest = tokens[at + 1..]
            .iter()
            .filter(|t| !lex::is_space(&t.token))
            .peekable();
        while rest.next_if(|t| is_modifier(&t.token)).is_some() {}
        let mut spans: Vec<Span> = Vec::new();
        let mut item: Option<Span> = None;
        let mut depth = 0usize;
        for t in rest {
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => break,
                Token::RParen => depth -= 1,
                Token::Comma if depth == 0 => {
                    spans.push(item.take()?);
                    continue;
                }
                Token::SemiColon => break,
                Token::Word(w)
                    if depth == 0 && w.quote_style.is_none() && LIST_END.contains(&w.keyword) =>
                {
                    break;
                }
                _ => {}
            }
            item = Some(match item {
                None => t.span,
                Some(span) => Span::new(span.start, t.span.end),
            });
        }
        spans.push(item?);
        if spans.len() != items.len() {
            return None;
        }
        for (found, tree) in spans.iter().zip(items) {
            if *tree == Span::empty() {
                continue;
            }
            let start = self.local(tree.start)?;
            if start < found.start || start > found.end {
                return None;
            }
        }
        let lines = lex::Lines::new(&self.text);
        Some(
            spans
                .iter()
                .map(|s| &self.text[lines.at(s.start)..lines.at(s.end).max(lines.at(s.start))])
                .collect(),
        )
    }

    /// A location in the script (as the tree's spans give it) as a location in `text`.
    fn local(&self, at: Location) -> Option<Location> {
        let origin = self.origin;
        if at.line < origin.line || (at.line == origin.line && at.column < origin.column) {
            return None;
        }
        Some(if at.line == origin.line {
            Location::new(1, at.column - origin.column + 1)
        } else {
            Location::new(at.line - origin.line + 1, at.column)
        })
    }
}

fn is_modifier(token: &Token) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none()
        && MODIFIERS.iter().any(|m| w.value.eq_ignore_ascii_case(m)))
}

#[cfg(test)]
mod tests {
    use sqlparser::ast::{SetExpr, Spanned, Statement};

    use crate::{Options, parse};

    /// The items of the outermost SELECT of the first statement of `script` that is one.
    fn written(script: &str) -> Option<Vec<String>> {
        let parsed = parse(script, &Options::default())
            .into_iter()
            .map(Result::unwrap)
            .find(|p| matches!(p.statement(), Some(Statement::Query(_))))
            .unwrap();
        let Some(Statement::Query(q)) = parsed.statement() else {
            unreachable!()
        };
        let SetExpr::Select(s) = q.body.as_ref() else {
            panic!("{script}")
        };
        let items: Vec<_> = s.projection.iter().map(Spanned::span).collect();
        parsed
            .select_items_written(s.select_token.0.span, &items)
            .map(|items| items.into_iter().map(str::to_owned).collect())
    }

    #[test]
    fn items_are_cut_from_the_text_as_written() {
        let cases: &[(&str, &[&str])] = &[
            ("select 1/0, count( * )", &["1/0", "count( * )"]),
            ("SELECT  1   +   2  ,x", &["1   +   2", "x"]),
            ("select 1 /*c*/ , 2 -- x\n, 3", &["1", "2", "3"]),
            ("select distinct sql_no_cache 1+1 from t", &["1+1"]),
            (
                "select cast(n as char), a as b from t where x",
                &["cast(n as char)", "a as b"],
            ),
            (
                "select concat('a',\n'b'), f(1, (2, 3))",
                &["concat('a',\n'b')", "f(1, (2, 3))"],
            ),
            ("select 1+1 into @a", &["1+1"]),
            ("select 1 + 1 from t for update", &["1 + 1"]),
            ("select sum(id)  over ()  from t", &["sum(id)  over ()"]),
            ("select 'é' ,  'x'", &["'é'", "'x'"]),
        ];
        for (script, expected) in cases {
            assert_eq!(
                written(script),
                Some(expected.iter().map(|s| s.to_string()).collect()),
                "{script}"
            );
        }
    }

    #[test]
    fn a_tree_of_another_text_gets_no_answer() {
        let parsed = parse("select 1 + 2, 3", &Options::default())
            .remove(0)
            .unwrap();
        let other = parse("select   4 + 5", &Options::default())
            .remove(0)
            .unwrap();
        let Some(Statement::Query(q)) = other.statement() else {
            unreachable!()
        };
        let SetExpr::Select(s) = q.body.as_ref() else {
            unreachable!()
        };
        let items: Vec<_> = s.projection.iter().map(Spanned::span).collect();
        assert_eq!(
            parsed.select_items_written(s.select_token.0.span, &items),
            None
        );
    }

    #[test]
    fn a_statement_after_others_in_a_script_is_cut_from_its_own_text() {
        assert_eq!(
            written("set @a = 1;\n  select 2 *  3, @a"),
            Some(vec!["2 *  3".to_owned(), "@a".to_owned()])
        );
        assert_eq!(
            written("set @b = 2; select 2 *  3"),
            Some(vec!["2 *  3".to_owned()])
        );
    }
}
