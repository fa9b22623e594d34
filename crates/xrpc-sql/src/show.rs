//! The SHOW and DESCRIBE forms sqlparser reads wrongly, read by the token pass.
//!
//! sqlparser reads a `SHOW` of a subject it has no statement for as a list of words
//! (`Statement::ShowVariable`), dropping every other token: `SHOW INDEX FROM db.t` and the
//! malformed `SHOW INDEX FROM db t` are the same tree, `SHOW COUNT(*) WARNINGS` loses its
//! `(*)`, `SHOW WARNINGS LIMIT 2, 3` its numbers. It does not read `SHOW CREATE DATABASE`
//! nor `DESCRIBE t column` at all. These forms are read here from their tokens into [`Show`];
//! the SHOW statements sqlparser has a tree for (`SHOW TABLES`, `SHOW COLUMNS`, `SHOW CREATE
//! TABLE`, `DESCRIBE t`, …) stay sqlparser's.
//!
//! A statement whose leading words are one of these forms and whose rest is not is a syntax
//! error at the first token that does not fit, as MySQL's is.

use sqlparser::ast::Expr;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::dialect;
use crate::lex::{word_is, word_named};

/// A SHOW or DESCRIBE statement read by the token pass (module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum Show {
    /// `SHOW [EXTENDED] INDEX | INDEXES | KEYS FROM | IN t [FROM | IN db] [WHERE expr]`.
    Index {
        /// `EXTENDED`: InnoDB's hidden key parts too.
        extended: bool,
        /// The database, from `db.t` or the second `FROM`; the current one when `None`.
        database: Option<String>,
        /// The table.
        table: String,
        /// The `WHERE` condition on the result's columns.
        filter: Option<Box<Expr>>,
    },
    /// `SHOW [STORAGE] ENGINES`.
    Engines,
    /// `SHOW TABLE STATUS [FROM | IN db] [LIKE 'pattern' | WHERE expr]`.
    TableStatus(InDatabase),
    /// `SHOW TRIGGERS [FROM | IN db] [LIKE 'pattern' | WHERE expr]`.
    Triggers(InDatabase),
    /// `SHOW WARNINGS | ERRORS [LIMIT [offset,] count | LIMIT count OFFSET offset]`: the last
    /// statement's conditions
    /// (`errors`: its errors only).
    Conditions {
        /// `SHOW ERRORS`.
        errors: bool,
        /// The rows skipped and the rows shown at most.
        limit: Option<(u64, u64)>,
    },
    /// `SHOW COUNT(*) WARNINGS | ERRORS`.
    ConditionCount {
        /// `ERRORS`.
        errors: bool,
    },
    /// `SHOW CREATE DATABASE | SCHEMA [IF NOT EXISTS] db`.
    CreateDatabase {
        /// The database.
        name: String,
    },
    /// `DESCRIBE | DESC | EXPLAIN t column`: the columns of `t` whose names match `pattern`
    /// (a name, or a string with LIKE's wildcards). `DESCRIBE t` alone is sqlparser's
    /// `ExplainTable`.
    DescribeColumns {
        /// The database, from `db.t`.
        database: Option<String>,
        /// The table.
        table: String,
        /// The LIKE pattern of column names.
        pattern: String,
    },
}

/// The tail of a SHOW of a database's objects: `[FROM | IN db] [LIKE 'pattern' | WHERE expr]`.
#[derive(Debug, Clone, PartialEq)]
pub struct InDatabase {
    /// The database; the current one when `None`.
    pub database: Option<String>,
    /// The LIKE pattern of the objects' names.
    pub like: Option<String>,
    /// The `WHERE` condition on the result's columns.
    pub filter: Option<Box<Expr>>,
}

/// What [`Show::from_tokens`] made of a statement.
pub(crate) enum Read {
    /// Not one of the forms: sqlparser's to read.
    Other,
    /// One of the forms.
    Show(Show),
    /// One of the forms by its leading words, wrong at this significant token (or at the end
    /// when past the last).
    WrongAt(usize),
}

/// The words after DESCRIBE that start an explained statement rather than name a table.
const EXPLAINED: &[Keyword] = &[
    Keyword::SELECT,
    Keyword::INSERT,
    Keyword::UPDATE,
    Keyword::DELETE,
    Keyword::REPLACE,
    Keyword::WITH,
    Keyword::VALUES,
    Keyword::TABLE,
    Keyword::ANALYZE,
    Keyword::EXTENDED,
    Keyword::FORMAT,
    Keyword::PARTITIONS,
    Keyword::QUERY,
    Keyword::FOR,
];

/// A name: an unquoted or backquoted word.
fn name(token: Option<&&TokenWithSpan>) -> Option<String> {
    match token.map(|t| &t.token) {
        Some(Token::Word(word)) if matches!(word.quote_style, None | Some('`')) => {
            Some(word.value.clone())
        }
        _ => None,
    }
}

/// A LIMIT's number.
fn number(token: Option<&&TokenWithSpan>) -> Option<u64> {
    match token.map(|t| &t.token) {
        Some(Token::Number(digits, false)) => digits.parse().ok(),
        _ => None,
    }
}

impl Show {
    /// Reads a statement's significant tokens (module docs).
    pub(crate) fn from_tokens(tokens: &[&TokenWithSpan]) -> Read {
        let Some(first) = tokens.first() else {
            return Read::Other;
        };
        let read = if word_is(&first.token, Keyword::SHOW) {
            Self::after_show(tokens)
        } else if word_is(&first.token, Keyword::DESCRIBE)
            || word_is(&first.token, Keyword::DESC)
            || word_is(&first.token, Keyword::EXPLAIN)
        {
            Self::describe(tokens)
        } else {
            return Read::Other;
        };
        match read {
            Some(Ok(show)) => Read::Show(show),
            Some(Err(at)) => Read::WrongAt(at),
            None => Read::Other,
        }
    }

    /// `DESCRIBE t column`: `None` for any other DESCRIBE or EXPLAIN.
    fn describe(tokens: &[&TokenWithSpan]) -> Option<Result<Self, usize>> {
        let table_word = tokens.get(1)?;
        if EXPLAINED.iter().any(|&k| word_is(&table_word.token, k)) {
            return None;
        }
        let (database, table, at) = match tokens.get(2).map(|t| &t.token) {
            Some(Token::Period) => (Some(name(tokens.get(1))?), name(tokens.get(3))?, 4),
            _ => (None, name(tokens.get(1))?, 2),
        };
        let pattern = match tokens.get(at).map(|t| &t.token) {
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => s.clone(),
            Some(Token::Word(word)) if matches!(word.quote_style, None | Some('`')) => {
                word.value.clone()
            }
            _ => return None,
        };
        if tokens.len() > at + 1 {
            return Some(Err(at + 1));
        }
        Some(Ok(Self::DescribeColumns {
            database,
            table,
            pattern,
        }))
    }

    fn after_show(tokens: &[&TokenWithSpan]) -> Option<Result<Self, usize>> {
        let word = |n: usize| tokens.get(n).map(|t| &t.token);
        let is = |n: usize, keyword: Keyword| word(n).is_some_and(|t| word_is(t, keyword));
        let named = |n: usize, name: &str| word(n).is_some_and(|t| word_named(t, name));
        let end = |n: usize, show: Self| {
            if tokens.len() > n { Err(n) } else { Ok(show) }
        };
        let extended = is(1, Keyword::EXTENDED);
        let at = 1 + usize::from(extended);
        if named(at, "INDEX") || named(at, "INDEXES") || is(at, Keyword::KEYS) {
            // Positions in the tail are one word further for EXTENDED.
            let tail = &tokens[at - 1..];
            return Some(Self::index(tail, extended).map_err(|n| n + at - 1));
        }
        if named(1, "ENGINES") {
            return Some(end(2, Self::Engines));
        }
        if is(1, Keyword::TABLE) && named(2, "STATUS") {
            return Some(in_database(tokens, 3).map(Self::TableStatus));
        }
        if named(1, "TRIGGERS") {
            return Some(in_database(tokens, 2).map(Self::Triggers));
        }
        if is(1, Keyword::STORAGE) && named(2, "ENGINES") {
            return Some(end(3, Self::Engines));
        }
        if named(1, "WARNINGS") || named(1, "ERRORS") {
            let errors = named(1, "ERRORS");
            if !is(2, Keyword::LIMIT) {
                return Some(end(
                    2,
                    Self::Conditions {
                        errors,
                        limit: None,
                    },
                ));
            }
            let Some(first) = number(tokens.get(3)) else {
                return Some(Err(3));
            };
            // LIMIT [offset,] count, or LIMIT count OFFSET offset.
            let (limit, after) = if word(4) == Some(&Token::Comma) {
                match number(tokens.get(5)) {
                    Some(count) => ((first, count), 6),
                    None => return Some(Err(5)),
                }
            } else if is(4, Keyword::OFFSET) {
                match number(tokens.get(5)) {
                    Some(offset) => ((offset, first), 6),
                    None => return Some(Err(5)),
                }
            } else {
                ((0, first), 4)
            };
            let limit = Some(limit);
            return Some(end(after, Self::Conditions { errors, limit }));
        }
        if named(1, "COUNT") && word(2) == Some(&Token::LParen) {
            if word(3) != Some(&Token::Mul) {
                return Some(Err(3));
            }
            if word(4) != Some(&Token::RParen) {
                return Some(Err(4));
            }
            let errors = named(5, "ERRORS");
            if !errors && !named(5, "WARNINGS") {
                return Some(Err(5));
            }
            return Some(end(6, Self::ConditionCount { errors }));
        }
        if is(1, Keyword::CREATE) && (is(2, Keyword::DATABASE) || is(2, Keyword::SCHEMA)) {
            let mut at = 3;
            if is(at, Keyword::IF) {
                if !is(at + 1, Keyword::NOT) {
                    return Some(Err(at + 1));
                }
                if !is(at + 2, Keyword::EXISTS) {
                    return Some(Err(at + 2));
                }
                at += 3;
            }
            let Some(name) = name(tokens.get(at)) else {
                return Some(Err(at));
            };
            return Some(end(at + 1, Self::CreateDatabase { name }));
        }
        None
    }

    /// `SHOW [EXTENDED] INDEX …`: `tokens` from the word before INDEX, positions in them.
    fn index(tokens: &[&TokenWithSpan], extended: bool) -> Result<Self, usize> {
        let from = |n: usize| {
            tokens
                .get(n)
                .is_some_and(|t| word_is(&t.token, Keyword::FROM) || word_is(&t.token, Keyword::IN))
        };
        if !from(2) {
            return Err(2);
        }
        let first = name(tokens.get(3)).ok_or(3usize)?;
        let (mut database, table, mut at) = match tokens.get(4).map(|t| &t.token) {
            Some(Token::Period) => (Some(first), name(tokens.get(5)).ok_or(5usize)?, 6),
            _ => (None, first, 4),
        };
        if from(at) {
            database = Some(name(tokens.get(at + 1)).ok_or(at + 1)?);
            at += 2;
        }
        let filter = match tokens.get(at) {
            None => None,
            Some(t) if word_is(&t.token, Keyword::WHERE) => {
                Some(where_condition(&tokens[at + 1..]).map_err(|n| n + at + 1)?)
            }
            Some(_) => return Err(at),
        };
        Ok(Self::Index {
            extended,
            database,
            table,
            filter,
        })
    }
}

/// [`InDatabase`] from `tokens[at..]`.
fn in_database(tokens: &[&TokenWithSpan], mut at: usize) -> Result<InDatabase, usize> {
    let mut database = None;
    if tokens
        .get(at)
        .is_some_and(|t| word_is(&t.token, Keyword::FROM) || word_is(&t.token, Keyword::IN))
    {
        database = Some(name(tokens.get(at + 1)).ok_or(at + 1)?);
        at += 2;
    }
    let (mut like, mut filter) = (None, None);
    match tokens.get(at) {
        None => {}
        Some(t) if word_is(&t.token, Keyword::LIKE) => {
            match tokens.get(at + 1).map(|t| &t.token) {
                Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => {
                    like = Some(s.clone());
                }
                _ => return Err(at + 1),
            }
            if tokens.len() > at + 2 {
                return Err(at + 2);
            }
        }
        Some(t) if word_is(&t.token, Keyword::WHERE) => {
            filter = Some(where_condition(&tokens[at + 1..]).map_err(|n| n + at + 1)?);
        }
        Some(_) => return Err(at),
    }
    Ok(InDatabase {
        database,
        like,
        filter,
    })
}

/// A SHOW's `WHERE` condition, `tokens` after WHERE; an error at 0 when they are no expression.
fn where_condition(tokens: &[&TokenWithSpan]) -> Result<Box<Expr>, usize> {
    let rest: Vec<TokenWithSpan> = tokens.iter().map(|&t| t.clone()).collect();
    if rest.is_empty() {
        return Err(0);
    }
    let mut parser = Parser::new(&dialect::Front).with_tokens_with_locations(rest);
    let expr = parser.parse_expr().map_err(|_| 0usize)?;
    if parser.peek_token().token != Token::EOF {
        return Err(0);
    }
    Ok(Box::new(expr))
}

#[cfg(test)]
mod tests {
    use super::InDatabase;
    use crate::{Body, Kind, Options, ParseError, Show, parse_one_statement};

    fn show(text: &str) -> Show {
        let parsed = parse_one_statement(text, &Options::default()).unwrap();
        assert_eq!(parsed.kind, Kind::Show, "{text}");
        match parsed.body {
            Body::Show(show) => show,
            other => panic!("{text}: {other:?}"),
        }
    }

    fn near(text: &str) -> String {
        match parse_one_statement(text, &Options::default()) {
            Err(ParseError::Syntax { near, .. }) => near,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn show_table_status_and_triggers_read_their_database_and_pattern_or_condition() {
        let in_database = |database: Option<&str>, like: Option<&str>| InDatabase {
            database: database.map(str::to_owned),
            like: like.map(str::to_owned),
            filter: None,
        };
        assert_eq!(
            show("SHOW TABLE STATUS"),
            Show::TableStatus(in_database(None, None))
        );
        assert_eq!(
            show("show table status from app like 't%'"),
            Show::TableStatus(in_database(Some("app"), Some("t%")))
        );
        assert_eq!(
            show("SHOW TRIGGERS IN app"),
            Show::Triggers(in_database(Some("app"), None))
        );
        assert!(matches!(
            show("SHOW TABLE STATUS IN app WHERE Rows > 1"),
            Show::TableStatus(InDatabase {
                filter: Some(_),
                ..
            })
        ));
        assert_eq!(near("SHOW TABLE STATUS LIKE x"), "x");
        assert_eq!(near("SHOW TABLE STATUS FROM app app"), "app");
    }

    #[test]
    fn show_index_keeps_the_qualified_name_and_the_second_from() {
        let index = |database: Option<&str>| Show::Index {
            extended: false,
            database: database.map(str::to_owned),
            table: "t".into(),
            filter: None,
        };
        assert_eq!(show("SHOW INDEX FROM t"), index(None));
        assert_eq!(show("show keys in `d`.`t`"), index(Some("d")));
        assert_eq!(show("SHOW INDEXES FROM t IN d"), index(Some("d")));
        assert!(matches!(
            show("SHOW EXTENDED KEYS IN t"),
            Show::Index { extended: true, .. }
        ));
        assert!(matches!(
            show("SHOW INDEX FROM t WHERE Key_name = 'PRIMARY'"),
            Show::Index {
                filter: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn a_malformed_rest_is_a_syntax_error_at_the_token_that_does_not_fit() {
        assert_eq!(near("SHOW INDEX FROM d t"), "t");
        assert_eq!(near("SHOW EXTENDED INDEX FROM d t"), "t");
        assert_eq!(near("SHOW COUNT(x) WARNINGS"), "x) WARNINGS");
        assert_eq!(near("SHOW WARNINGS LIMIT 1, x"), "x");
        assert_eq!(near("SHOW CREATE DATABASE IF EXISTS d"), "EXISTS d");
        assert_eq!(near("DESCRIBE t a b"), "b");
        assert_eq!(near("SHOW ENGINES x"), "x");
    }

    #[test]
    fn conditions_counts_engines_and_create_database() {
        assert_eq!(
            show("SHOW ERRORS LIMIT 2, 3"),
            Show::Conditions {
                errors: true,
                limit: Some((2, 3))
            }
        );
        assert_eq!(
            show("SHOW WARNINGS LIMIT 3 OFFSET 2"),
            Show::Conditions {
                errors: false,
                limit: Some((2, 3))
            }
        );
        assert_eq!(
            show("SHOW WARNINGS LIMIT 5"),
            Show::Conditions {
                errors: false,
                limit: Some((0, 5))
            }
        );
        assert_eq!(
            show("SHOW COUNT(*) WARNINGS"),
            Show::ConditionCount { errors: false }
        );
        assert_eq!(show("SHOW STORAGE ENGINES"), Show::Engines);
        assert_eq!(
            show("SHOW CREATE SCHEMA IF NOT EXISTS `d`"),
            Show::CreateDatabase { name: "d".into() }
        );
    }

    #[test]
    fn describe_with_a_column_pattern_but_not_an_explained_statement() {
        assert_eq!(
            show("DESC d.t 'a%'"),
            Show::DescribeColumns {
                database: Some("d".into()),
                table: "t".into(),
                pattern: "a%".into()
            }
        );
        for explained in ["DESCRIBE SELECT 1", "EXPLAIN t", "DESCRIBE d.t"] {
            let parsed = parse_one_statement(explained, &Options::default()).unwrap();
            assert!(matches!(parsed.body, Body::Statement(_)), "{explained}");
        }
    }
}
