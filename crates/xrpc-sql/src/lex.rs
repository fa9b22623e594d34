//! The token pass in front of the parser: MySQL's versioned comments, the few MySQL forms
//! `sqlparser` lacks, and the split of a script into statements.
//!
//! Every step works on `sqlparser`'s own tokens (its MySQL tokenizer decides what is a string, a
//! quoted name or a comment), so there is one lexer in the node. What this pass adds:
//!
//! - **Versioned comments.** MySQL runs the text of `/*!NNNNN … */` when the server's version is
//!   at least `NNNNN` (and of `/*! … */` always) and ignores it otherwise; `sqlparser` keeps every
//!   such text whatever the version. When the text holds `/*!`, it is tokenized once more with
//!   [`CommentDialect`] (MySQL's lexical rules, comment hints off) to find those comments, and
//!   each is blanked in a copy of the text: the `/*!NNNNN` and `*/` marks when the comment runs,
//!   the whole comment when it does not. Blanking keeps every line and column, so positions in
//!   errors stay those of the client's text.
//! - **`a MOD b`**: the keyword `MOD` after a complete operand becomes the `%` token (MySQL gives
//!   both one meaning and one precedence); `MOD(a, b)` stays a function call.
//! - **`SET @a := 1`**: in a `SET` statement, `:=` outside parentheses becomes `=`.
//! - **`LOCK IN SHARE MODE`** becomes `FOR SHARE`, its MySQL 8 spelling.
//! - **Compound bodies.** A `;` inside `BEGIN … END` (or `CASE … END`) of a `CREATE TRIGGER`,
//!   `PROCEDURE`, `FUNCTION` or `EVENT` statement belongs to that statement, as the MySQL server reads one statement
//!   per query without a client's `DELIMITER`.
//! - **`START TRANSACTION WITH CONSISTENT SNAPSHOT`**: the characteristic (and the comma that
//!   joins it to another) is dropped; it asks for the snapshot at the start rather than at the
//!   first read, which no caller of the front end distinguishes.
//! - **`KILL HARD | SOFT …`**: MariaDB's mode word after `KILL` is dropped (both modes end the
//!   statement or the connection alike for the node).
//! - **`SHOW LOCAL VARIABLES | STATUS`** becomes `SHOW SESSION …`, its synonym; **`LOCK TABLE`**
//!   becomes `LOCK TABLES`.
//! - **`DELETE [LOW_PRIORITY] [QUICK]`, `UPDATE [LOW_PRIORITY]`**: the modifiers are dropped
//!   (they only matter to engines with table locks, MyISAM's kind; sqlparser would read either
//!   word as a table's name). `DELETE IGNORE` and `UPDATE IGNORE`, whose IGNORE sqlparser takes
//!   for a table's name too, are refused by kind ([`misread`]).
//! - **`CREATE SCHEMA`** becomes `CREATE DATABASE`, its MySQL synonym (sqlparser reads the
//!   former as the SQL standard's schema, without MySQL's character set options).
//! - **`CREATE | ALTER DATABASE … [DEFAULT] ENCRYPTION [=] 'N'`**: the option is dropped (it
//!   asks for the default, an unencrypted schema); `'Y'` is left for the parser to refuse.
//!
//! Statements are split at top-level `;` tokens; `XA` statements and `ALTER INSTANCE`, which
//! `sqlparser` does not know, are read here from their tokens ([`crate::Xa`],
//! [`crate::Instance`]).

use sqlparser::dialect::{Dialect, MySqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Whitespace};

use crate::ParseError;

/// MySQL's lexical rules with comment hints off, so that `/*! … */` comes back as a comment
/// token. It answers the tokenizer's every question as [`MySqlDialect`] does (the list is the
/// tokenizer's, checked by a test against MySqlDialect on texts without `/*!`).
#[derive(Debug)]
pub(crate) struct CommentDialect;

/// MySQL's lexical rules under `NO_BACKSLASH_ESCAPES`, comment hints off: a backslash in a
/// string is itself.
#[derive(Debug)]
pub(crate) struct NoBackslashDialect;

macro_rules! like_mysql {
    ($dialect:ident, hints: $hints:expr, backslash: $backslash:expr;
     $($name:ident),* ; $($char_name:ident),*) => {
        impl Dialect for $dialect {
            fn dialect(&self) -> std::any::TypeId {
                MySqlDialect {}.dialect()
            }
            fn supports_multiline_comment_hints(&self) -> bool {
                $hints
            }
            fn supports_string_literal_backslash_escape(&self) -> bool {
                $backslash
            }
            $(fn $name(&self) -> bool {
                MySqlDialect {}.$name()
            })*
            $(fn $char_name(&self, ch: char) -> bool {
                MySqlDialect {}.$char_name(ch)
            })*
        }
    };
    ($($dialect:ident, hints: $hints:expr, backslash: $backslash:expr);*) => {
        $(like_mysql!(
            $dialect, hints: $hints, backslash: $backslash;
            ignores_wildcard_escapes, requires_hash_comment_space,
            requires_single_line_comment_whitespace, supports_copy_from_stdin_data,
            supports_dollar_as_money_prefix, supports_dollar_placeholder,
            supports_geometric_types, supports_hash_comment,
            supports_literal_prefix_in_qualified_name, supports_national_string_literal,
            supports_nested_comments, supports_non_decimal_integer_literals,
            supports_numeric_literal_underscores, supports_numeric_prefix,
            supports_pipe_operator, supports_quote_delimited_string,
            supports_string_escape_constant, supports_tilde_like_match_operator,
            supports_triple_quoted_string, supports_tuple_element_access,
            supports_unicode_string_literal, supports_unterminated_block_comments;
            is_custom_operator_part, is_delimited_identifier_start, is_identifier_part,
            is_identifier_start
        );)*
    };
}

like_mysql!(
    CommentDialect, hints: false, backslash: MySqlDialect {}.supports_string_literal_backslash_escape();
    NoBackslashDialect, hints: false, backslash: false
);

/// Maps sqlparser's line and column (from 1, columns in characters) to byte offsets of the
/// text they were read from; the spans of a [`crate::Parsed`] tree are locations in the text
/// given to [`crate::parse`] (versioned comments keep every position).
#[derive(Debug)]
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// The positions of `text`.
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        Self { text, starts }
    }

    /// The byte offset of a location; the end of the text for one beyond it.
    pub fn at(&self, location: sqlparser::tokenizer::Location) -> usize {
        self.offset(location.line, location.column)
    }

    /// The byte offset of `line:column`; past the end for a location beyond the text.
    pub(crate) fn offset(&self, line: u64, column: u64) -> usize {
        let Some(&start) = usize::try_from(line)
            .ok()
            .and_then(|line| self.starts.get(line.saturating_sub(1)))
        else {
            return self.text.len();
        };
        let skip = usize::try_from(column.saturating_sub(1)).unwrap_or(usize::MAX);
        self.text[start..]
            .char_indices()
            .nth(skip)
            .map_or(self.text.len(), |(at, _)| start + at)
    }
}

/// The text with MySQL's versioned comments applied for a server of `version` (e.g. 80036),
/// byte for byte the same length, lines and columns.
pub(crate) fn apply_versioned_comments(text: &str, version: u32) -> Result<String, ParseError> {
    apply_versioned_comments_as(text, version, &CommentDialect)
}

/// [`apply_versioned_comments`] with the lexical rules of `dialect` (comment hints off).
fn apply_versioned_comments_as(
    text: &str,
    version: u32,
    dialect: &dyn Dialect,
) -> Result<String, ParseError> {
    let tokens = Tokenizer::new(dialect, text)
        .tokenize_with_location()
        .map_err(|err| tokenizer_error(text, err.location.line, err.location.column))?;
    let lines = Lines::new(text);
    let mut out = text.as_bytes().to_vec();
    for token in tokens {
        let Token::Whitespace(Whitespace::MultiLineComment(body)) = &token.token else {
            continue;
        };
        let Some(content) = body.strip_prefix('!') else {
            continue;
        };
        let start = lines.offset(token.span.start.line, token.span.start.column);
        let end = lines.offset(token.span.end.line, token.span.end.column);
        let digits = content.bytes().take_while(u8::is_ascii_digit).count();
        let (runs, mark) = match digits {
            5 | 6 => (
                content[..digits].parse::<u32>().is_ok_and(|v| v <= version),
                3 + digits,
            ),
            _ => (true, 3),
        };
        if runs {
            blank(&mut out[start..start + mark]);
            blank(&mut out[end.saturating_sub(2)..end]);
        } else {
            blank(&mut out[start..end]);
        }
    }
    // Whole characters (comments start and end on character boundaries) became spaces.
    Ok(String::from_utf8(out).expect("whole characters replaced by spaces"))
}

/// Spaces over a byte range, keeping its line breaks (so lines stay where they were). Every
/// byte of a multi-byte character becomes a space, so a dropped comment with such characters
/// shifts the columns after it on its line (error positions only).
fn blank(bytes: &mut [u8]) {
    for byte in bytes {
        if *byte != b'\n' && *byte != b'\r' {
            *byte = b' ';
        }
    }
}

/// A 1064 for a tokenizer failure at `line:column` of `text`.
fn tokenizer_error(text: &str, line: u64, column: u64) -> ParseError {
    let at = Lines::new(text).offset(line, column);
    syntax_error(&text[at..], line)
}

/// MySQL's 1064 with the text from the error on (80 characters at most).
pub(crate) fn syntax_error(rest: &str, line: u64) -> ParseError {
    ParseError::Syntax {
        near: rest.chars().take(80).collect(),
        line: line.max(1),
    }
}

/// Tokenizes the (comment-applied) text with MySQL's rules.
pub(crate) fn tokenize(text: &str) -> Result<Vec<TokenWithSpan>, ParseError> {
    Tokenizer::new(&MySqlDialect {}, text)
        .tokenize_with_location()
        .map_err(|err| tokenizer_error(text, err.location.line, err.location.column))
}

/// What the tokens of a text the parser cannot read show, for a caller that must still send it
/// on (see [`unparsed`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unparsed {
    /// The byte offsets of the `?` placeholders.
    pub placeholders: Vec<usize>,
    /// A user variable (`@name`, not `@@name`) is named.
    pub user_variables: bool,
    /// The names of the words followed by `(` (possible function calls), lower case.
    pub calls: Vec<String>,
}

/// Reads `text` by MySQL's lexical rules only (with `backslash_escapes` false, as under
/// `NO_BACKSLASH_ESCAPES`), every versioned comment's text included (a backend of any version
/// may run it): for a text the parser cannot read that must still get its arguments and be
/// judged. What a parsed statement holds is in its tree.
pub fn unparsed(text: &str, backslash_escapes: bool) -> Result<Unparsed, ParseError> {
    let dialect: &dyn Dialect = if backslash_escapes {
        &CommentDialect
    } else {
        &NoBackslashDialect
    };
    let applied;
    let text = if text.contains("/*!") {
        applied = apply_versioned_comments_as(text, u32::MAX, dialect)?;
        applied.as_str()
    } else {
        text
    };
    let tokens = Tokenizer::new(dialect, text)
        .tokenize_with_location()
        .map_err(|err| tokenizer_error(text, err.location.line, err.location.column))?;
    let lines = Lines::new(text);
    let mut out = Unparsed::default();
    let mut significant = tokens.iter().filter(|t| !is_space(&t.token)).peekable();
    while let Some(token) = significant.next() {
        match &token.token {
            Token::Placeholder(p) if p == "?" => out.placeholders.push(lines.at(token.span.start)),
            // `@'name'`, `` @`name` ``: the sign before a quoted name.
            Token::AtSign => out.user_variables = true,
            Token::Word(word) if word.quote_style.is_none() => {
                if word.value.starts_with('@') && !word.value.starts_with("@@") {
                    out.user_variables = true;
                } else if significant.peek().is_some_and(|t| t.token == Token::LParen) {
                    out.calls.push(word.value.to_ascii_lowercase());
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Where the empty argument list `( )` that starts `text` (after any spaces and comments)
/// ends: the byte offset after its `)`. For the end of a call without arguments, whose tree
/// records only the name. A versioned comment before the `)` is not read through (what it
/// holds depends on the server's version): `None`, as for any list that is not empty.
pub fn empty_arguments_end(text: &str) -> Option<usize> {
    let tokens = Tokenizer::new(&CommentDialect, text)
        .tokenize_with_location()
        .ok()?;
    let mut significant = tokens.iter().filter(|t| match &t.token {
        Token::Whitespace(Whitespace::MultiLineComment(comment)) => comment.starts_with('!'),
        token => !is_space(token),
    });
    match (significant.next(), significant.next()) {
        (Some(open), Some(close))
            if open.token == Token::LParen && close.token == Token::RParen =>
        {
            Some(Lines::new(text).at(close.span.end))
        }
        _ => None,
    }
}

/// Splits tokens into statements at top-level `;`, dropping statements of only whitespace.
pub(crate) fn split(tokens: Vec<TokenWithSpan>) -> Vec<Vec<TokenWithSpan>> {
    let mut out = Vec::new();
    let mut current: Vec<TokenWithSpan> = Vec::new();
    // Inside a CREATE TRIGGER, PROCEDURE, FUNCTION or EVENT, `BEGIN … END` and `CASE … END`
    // hold statements of their own: a `;` in them does not end the statement.
    let mut creates = None;
    let mut compound = false;
    let mut depth = 0usize;
    for token in tokens {
        if token.token == Token::SemiColon && depth == 0 {
            push_statement(&mut out, std::mem::take(&mut current));
            creates = None;
            compound = false;
            continue;
        }
        if !is_space(&token.token) {
            let creating = *creates.get_or_insert_with(|| word_is(&token.token, Keyword::CREATE));
            let word = |k| word_is(&token.token, k);
            if creating && !compound {
                compound = [
                    Keyword::TRIGGER,
                    Keyword::PROCEDURE,
                    Keyword::FUNCTION,
                    Keyword::EVENT,
                ]
                .into_iter()
                .any(word);
            } else if compound {
                if word(Keyword::BEGIN) || word(Keyword::CASE) {
                    depth += 1;
                } else if word(Keyword::END) {
                    depth = depth.saturating_sub(1);
                }
            }
        }
        current.push(token);
    }
    push_statement(&mut out, current);
    out
}

fn push_statement(out: &mut Vec<Vec<TokenWithSpan>>, tokens: Vec<TokenWithSpan>) {
    if tokens.iter().any(|t| !is_space(&t.token)) {
        out.push(tokens);
    }
}

pub(crate) fn is_space(token: &Token) -> bool {
    matches!(token, Token::Whitespace(_) | Token::EOF)
}

/// Keywords after which `MOD` starts an operand (the function `MOD(…)`) rather than joining
/// two: `SELECT MOD(7, 2)`, `WHERE MOD(a, 2) = 1`.
const OPERAND_START: &[Keyword] = &[
    Keyword::SELECT,
    Keyword::WHERE,
    Keyword::AND,
    Keyword::OR,
    Keyword::XOR,
    Keyword::NOT,
    Keyword::ON,
    Keyword::BY,
    Keyword::HAVING,
    Keyword::WHEN,
    Keyword::THEN,
    Keyword::ELSE,
    Keyword::SET,
    Keyword::VALUES,
    Keyword::IN,
    Keyword::LIKE,
    Keyword::REGEXP,
    Keyword::RLIKE,
    Keyword::BETWEEN,
    Keyword::DIV,
    Keyword::MOD,
    Keyword::IS,
    Keyword::CASE,
    Keyword::DISTINCT,
    Keyword::ALL,
    Keyword::LIMIT,
    Keyword::OFFSET,
    Keyword::INTERVAL,
    Keyword::RETURN,
    Keyword::DEFAULT,
    Keyword::UPDATE,
];

/// The MySQL forms `sqlparser` lacks, rewritten on one statement's tokens (module docs).
pub(crate) fn extend(tokens: &mut [TokenWithSpan]) {
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !is_space(&tokens[i].token))
        .collect();
    let is_set = significant
        .first()
        .is_some_and(|&i| word_is(&tokens[i].token, Keyword::SET));
    if let [first, second, ..] = significant[..] {
        let (leading, next) = (&tokens[first].token, &tokens[second].token);
        if word_is(leading, Keyword::KILL) && (word_named(next, "HARD") || word_named(next, "SOFT"))
        {
            tokens[second].token = Token::Whitespace(Whitespace::Space);
        } else if word_is(leading, Keyword::SHOW) && word_is(next, Keyword::LOCAL) {
            tokens[second].token = Token::make_keyword("SESSION");
        } else if word_is(leading, Keyword::LOCK) && word_is(next, Keyword::TABLE) {
            tokens[second].token = Token::make_keyword("TABLES");
        } else if word_is(leading, Keyword::DELETE) || word_is(leading, Keyword::UPDATE) {
            // `DELETE [LOW_PRIORITY] [QUICK] [IGNORE]`, `UPDATE [LOW_PRIORITY] [IGNORE]`.
            for &i in &significant[1..] {
                let token = &tokens[i].token;
                if word_is(token, Keyword::LOW_PRIORITY) || word_named(token, "QUICK") {
                    tokens[i].token = Token::Whitespace(Whitespace::Space);
                } else if !word_is(token, Keyword::IGNORE) {
                    break;
                }
            }
        } else if (word_is(leading, Keyword::CREATE) || word_is(leading, Keyword::ALTER))
            && (word_is(next, Keyword::DATABASE) || word_is(next, Keyword::SCHEMA))
        {
            if word_is(leading, Keyword::CREATE) && word_is(next, Keyword::SCHEMA) {
                tokens[second].token = Token::make_keyword("DATABASE");
            }
            drop_unencrypted(tokens, &significant);
        } else if word_is(leading, Keyword::CREATE) {
            current_user_definer(tokens, &significant);
        }
    }
    let mut depth = 0i32;
    for (n, &i) in significant.iter().enumerate() {
        let prev = n.checked_sub(1).map(|p| &tokens[significant[p]].token);
        match &tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Assignment if is_set && depth == 0 => tokens[i].token = Token::Eq,
            token if word_is(token, Keyword::MOD) && prev.is_some_and(ends_operand) => {
                tokens[i].token = Token::Mod;
            }
            token if word_is(token, Keyword::WITH) && starts_transaction(tokens, &significant) => {
                let following: Vec<usize> = significant[n + 1..].iter().copied().take(2).collect();
                let spelled = following.len() == 2
                    && word_named(&tokens[following[0]].token, "CONSISTENT")
                    && word_is(&tokens[following[1]].token, Keyword::SNAPSHOT);
                if spelled {
                    let comma = |at: Option<usize>| {
                        at.and_then(|p| significant.get(p).copied())
                            .filter(|&c| tokens[c].token == Token::Comma)
                    };
                    let joined = comma(n.checked_sub(1)).or_else(|| comma(Some(n + 3)));
                    for blank in [i, following[0], following[1]].into_iter().chain(joined) {
                        tokens[blank].token = Token::Whitespace(Whitespace::Space);
                    }
                }
            }
            token if word_is(token, Keyword::LOCK) => {
                let following: Vec<usize> = significant[n + 1..].iter().copied().take(3).collect();
                let spelled = following.len() == 3
                    && word_is(&tokens[following[0]].token, Keyword::IN)
                    && word_is(&tokens[following[1]].token, Keyword::SHARE)
                    && word_is(&tokens[following[2]].token, Keyword::MODE);
                if spelled {
                    tokens[i].token = Token::make_keyword("FOR");
                    tokens[following[0]].token = Token::Whitespace(Whitespace::Space);
                    tokens[following[2]].token = Token::Whitespace(Whitespace::Space);
                }
            }
            _ => {}
        }
    }
}

/// The kind of a MySQL statement sqlparser reads as another, refused before it is parsed:
/// `DELETE IGNORE` and `UPDATE IGNORE` (sqlparser takes IGNORE for a table's name; MySQL's
/// IGNORE turns the row errors into warnings, which no tree would say).
pub(crate) fn misread(significant: &[&TokenWithSpan]) -> Option<&'static str> {
    let [first, second, ..] = significant else {
        return None;
    };
    if !word_is(&second.token, Keyword::IGNORE) {
        return None;
    }
    if word_is(&first.token, Keyword::DELETE) {
        Some("DELETE IGNORE")
    } else if word_is(&first.token, Keyword::UPDATE) {
        Some("UPDATE IGNORE")
    } else {
        None
    }
}

/// The kind of a MySQL statement sqlparser's tree cannot hold, by its leading words, for the
/// 1235 that names it when the parser fails on it: `CREATE [OR REPLACE] [DEFINER = user]
/// [AGGREGATE] FUNCTION | PROCEDURE | EVENT | TRIGGER`, `ALTER FUNCTION | PROCEDURE | EVENT`,
/// `DROP EVENT`, `HANDLER`, `DO`, `PREPARE name FROM …`, `CHECK | CHECKSUM | OPTIMIZE | REPAIR
/// TABLE`, the server-administration statements of [`server_administration`], a view's `WITH [CASCADED | LOCAL] CHECK OPTION`, and `ALTER ALGORITHM | DEFINER |
/// SQL SECURITY … VIEW`.
pub(crate) fn unrepresented(significant: &[&TokenWithSpan]) -> Option<&'static str> {
    let word = |n: usize| significant.get(n).map(|t| &t.token);
    let first = word(0)?;
    let second = word(1)?;
    if word_is(first, Keyword::CREATE) || word_is(first, Keyword::ALTER) {
        let view = significant
            .iter()
            .take(16)
            .position(|t| word_is(&t.token, Keyword::VIEW));
        let ends_with_check_option = significant.len() >= 2
            && word_is(&significant[significant.len() - 2].token, Keyword::CHECK)
            && word_is(&significant[significant.len() - 1].token, Keyword::OPTION);
        if view.is_some() && ends_with_check_option {
            return Some("VIEW … WITH CHECK OPTION");
        }
        if word_is(first, Keyword::ALTER) && view.is_some_and(|at| at > 1) {
            return Some("ALTER ALGORITHM | DEFINER | SQL SECURITY … VIEW");
        }
    }
    if word_named(first, "HANDLER") {
        return Some("HANDLER");
    }
    if let Some(what) = server_administration(first, second) {
        return Some(what);
    }
    if word_is(first, Keyword::SHOW)
        && word_is(second, Keyword::CREATE)
        && word(2).is_some_and(|third| word_is(third, Keyword::USER))
    {
        return Some("SHOW CREATE USER");
    }
    if word_named(first, "DO") {
        return Some("DO");
    }
    if word_is(first, Keyword::PREPARE) && word(2).is_some_and(|t| word_is(t, Keyword::FROM)) {
        return Some("PREPARE FROM");
    }
    let table_maintenance = [
        (Keyword::CHECK, "CHECK TABLE"),
        (Keyword::CHECKSUM, "CHECKSUM TABLE"),
        (Keyword::OPTIMIZE, "OPTIMIZE TABLE"),
        (Keyword::REPAIR, "REPAIR TABLE"),
    ];
    if let Some(what) = table_maintenance
        .into_iter()
        .find_map(|(keyword, what)| word_is(first, keyword).then_some(what))
    {
        let tables = [Keyword::TABLE, Keyword::TABLES, Keyword::LOCAL];
        return (tables.into_iter().any(|keyword| word_is(second, keyword))
            || word_named(second, "NO_WRITE_TO_BINLOG"))
        .then_some(what);
    }
    if word_is(first, Keyword::ALTER) {
        return [
            (Keyword::FUNCTION, "ALTER FUNCTION"),
            (Keyword::PROCEDURE, "ALTER PROCEDURE"),
            (Keyword::EVENT, "ALTER EVENT"),
        ]
        .into_iter()
        .find_map(|(keyword, what)| word_is(second, keyword).then_some(what));
    }
    if word_is(first, Keyword::DROP) {
        return word_is(second, Keyword::EVENT).then_some("DROP EVENT");
    }
    if !word_is(first, Keyword::CREATE) {
        return None;
    }
    // The object keyword follows OR REPLACE, a DEFINER (a name, `@` and a host, or
    // CURRENT_USER()) and AGGREGATE; any other word before it is another statement's.
    let mut after_sign = false;
    for token in significant.iter().skip(1).take(12) {
        let token = &token.token;
        let what = [
            (Keyword::FUNCTION, "CREATE FUNCTION"),
            (Keyword::PROCEDURE, "CREATE PROCEDURE"),
            (Keyword::EVENT, "CREATE EVENT"),
            (Keyword::TRIGGER, "CREATE TRIGGER"),
        ]
        .into_iter()
        .find_map(|(keyword, what)| word_is(token, keyword).then_some(what));
        if what.is_some() {
            return what;
        }
        let prefix = match token {
            Token::Word(word) => {
                word.quote_style.is_some()
                    || after_sign
                    || word.value.starts_with('@')
                    || [
                        Keyword::OR,
                        Keyword::REPLACE,
                        Keyword::DEFINER,
                        Keyword::CURRENT_USER,
                        Keyword::AGGREGATE,
                    ]
                    .contains(&word.keyword)
            }
            Token::Eq
            | Token::AtSign
            | Token::LParen
            | Token::RParen
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_) => true,
            _ => false,
        };
        if !prefix {
            return None;
        }
        after_sign = matches!(token, Token::Eq | Token::AtSign);
    }
    None
}

/// The server-administration statements the parser fails on, by their first two words:
/// `FLUSH` (of what sqlparser does not know), plugins, replication, binary logs, key caches,
/// `LOAD DATA | XML`, `RENAME USER`, `ALTER SEQUENCE`.
fn server_administration(first: &Token, second: &Token) -> Option<&'static str> {
    let named = |token: &Token, names: &[&str]| names.iter().any(|n| word_named(token, n));
    let replication = [
        "SLAVE",
        "SLAVES",
        "REPLICA",
        "REPLICAS",
        "ALL",
        "GROUP_REPLICATION",
    ];
    Some(if named(first, &["FLUSH"]) {
        "FLUSH"
    } else if named(first, &["INSTALL"]) {
        "INSTALL"
    } else if named(first, &["UNINSTALL"]) {
        "UNINSTALL"
    } else if named(first, &["CHANGE"]) && named(second, &["MASTER", "REPLICATION"]) {
        "CHANGE MASTER"
    } else if named(first, &["START"]) && named(second, &replication) {
        "START SLAVE"
    } else if named(first, &["STOP"]) && named(second, &replication) {
        "STOP SLAVE"
    } else if named(first, &["PURGE"]) {
        "PURGE"
    } else if named(first, &["CACHE"]) && named(second, &["INDEX"]) {
        "CACHE INDEX"
    } else if named(first, &["LOAD"]) && named(second, &["DATA", "XML", "INDEX"]) {
        "LOAD"
    } else if named(first, &["RENAME"]) && named(second, &["USER"]) {
        "RENAME USER"
    } else if named(first, &["ALTER"]) && named(second, &["SEQUENCE"]) {
        "ALTER SEQUENCE"
    } else {
        return None;
    })
}

/// `DEFINER = CURRENT_USER()` (as dumps and ORMs write a view's definer) read as
/// `DEFINER = CURRENT_USER`, the same user, which the parser takes.
fn current_user_definer(tokens: &mut [TokenWithSpan], significant: &[usize]) {
    let at = significant
        .iter()
        .take(8)
        .position(|&i| word_is(&tokens[i].token, Keyword::DEFINER));
    let Some(at) = at else {
        return;
    };
    let [eq, user, open, close] = [at + 1, at + 2, at + 3, at + 4].map(|n| significant.get(n));
    if let (Some(&eq), Some(&user), Some(&open), Some(&close)) = (eq, user, open, close)
        && tokens[eq].token == Token::Eq
        && word_is(&tokens[user].token, Keyword::CURRENT_USER)
        && tokens[open].token == Token::LParen
        && tokens[close].token == Token::RParen
    {
        tokens[open].token = Token::Whitespace(Whitespace::Space);
        tokens[close].token = Token::Whitespace(Whitespace::Space);
    }
}

/// `[DEFAULT] ENCRYPTION [=] 'N'` of a `CREATE | ALTER DATABASE` (MySQL 8's dumps write it):
/// the default, no encryption, which is what the node's engines have. `'Y'` stays, and stays
/// unread.
fn drop_unencrypted(tokens: &mut [TokenWithSpan], significant: &[usize]) {
    for (n, &i) in significant.iter().enumerate() {
        if !word_named(&tokens[i].token, "ENCRYPTION") {
            continue;
        }
        let mut end = n + 1;
        if significant
            .get(end)
            .is_some_and(|&e| tokens[e].token == Token::Eq)
        {
            end += 1;
        }
        let unencrypted = significant.get(end).is_some_and(
            |&v| matches!(&tokens[v].token, Token::SingleQuotedString(v) if v.eq_ignore_ascii_case("n")),
        );
        if !unencrypted {
            continue;
        }
        let start = match n.checked_sub(1) {
            Some(d) if word_is(&tokens[significant[d]].token, Keyword::DEFAULT) => d,
            _ => n,
        };
        for &blank in &significant[start..=end] {
            tokens[blank].token = Token::Whitespace(Whitespace::Space);
        }
    }
}

/// Whether the statement starts with `START TRANSACTION`.
fn starts_transaction(tokens: &[TokenWithSpan], significant: &[usize]) -> bool {
    significant.len() >= 2
        && word_is(&tokens[significant[0]].token, Keyword::START)
        && word_is(&tokens[significant[1]].token, Keyword::TRANSACTION)
}

/// Whether a token can end an operand, so that a `MOD` after it is the operator.
fn ends_operand(token: &Token) -> bool {
    match token {
        Token::Number(..)
        | Token::SingleQuotedString(_)
        | Token::DoubleQuotedString(_)
        | Token::HexStringLiteral(_)
        | Token::RParen
        | Token::Placeholder(_) => true,
        Token::Word(word) => word.quote_style.is_some() || !OPERAND_START.contains(&word.keyword),
        _ => false,
    }
}

/// Whether a token is the unquoted keyword `keyword`.
pub(crate) fn word_is(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(word) if word.quote_style.is_none() && word.keyword == keyword)
}

/// Whether a token is the unquoted word `name` (for words sqlparser has no keyword for).
pub(crate) fn word_named(token: &Token, name: &str) -> bool {
    matches!(token, Token::Word(word) if word.quote_style.is_none() && word.value.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Token> {
        tokenize(text)
            .unwrap()
            .into_iter()
            .map(|t| t.token)
            .collect()
    }

    #[test]
    fn the_comment_dialect_lexes_as_mysql_does() {
        for text in [
            "SELECT 'a\\'b', \"q\", `id`, 5--2, 1 -- c\n, 2 # c\n, x'41', b'1', @a, @@x, $1, a<=>b",
            "SELECT /* c */ 1.5e3, _utf8mb4'x', N'y', 'a' 'b', a->>'$.x', 0x1F, ~1, a||b, a&&b",
        ] {
            let ours = Tokenizer::new(&CommentDialect, text)
                .tokenize_with_location()
                .unwrap();
            assert_eq!(
                ours,
                Tokenizer::new(&MySqlDialect {}, text)
                    .tokenize_with_location()
                    .unwrap()
            );
        }
    }

    #[test]
    fn placeholders_follow_the_backslash_rule() {
        let text = r"SELECT '\\', ?, '?', `?` -- ?
        , ?";
        assert_eq!(unparsed(text, true).unwrap().placeholders.len(), 2);
        // Without backslash escapes the first string ends at its backslash-quote.
        let text = r"SELECT 'a\', ?";
        assert_eq!(
            unparsed(text, false).unwrap().placeholders,
            [text.len() - 1]
        );
        assert!(unparsed(text, true).is_err());
        let read = unparsed(
            "SELECT GET_LOCK ('a', ?), @@x, `f`(), '@b' /*!99999 , @c */",
            true,
        )
        .unwrap();
        assert_eq!(read.calls, ["get_lock"]);
        assert!(read.user_variables);
        assert_eq!(empty_arguments_end(" ( /* ) */ ) + 1"), Some(12));
        assert_eq!(empty_arguments_end("(1)"), None);
        assert_eq!(empty_arguments_end("(/*!9)*/)"), None);
        assert_eq!(empty_arguments_end("(/*!99999 1 */)"), None);
    }

    #[test]
    fn versioned_comments_run_up_to_the_servers_version() {
        let text = "/*!40101 SET NAMES utf8 */; /*!99999 SELECT 2 */; SELECT /*! 3 */";
        let applied = apply_versioned_comments(text, 80036).unwrap();
        assert_eq!(applied.len(), text.len());
        assert_eq!(
            applied,
            "         SET NAMES utf8   ;                     ; SELECT     3   "
        );
    }

    #[test]
    fn mod_after_an_operand_is_the_operator_and_before_a_paren_the_function() {
        let mut tokens = tokenize("SELECT 7 MOD 2, MOD(7, 2), a MOD (b)").unwrap();
        extend(&mut tokens);
        let mods = tokens.iter().filter(|t| t.token == Token::Mod).count();
        assert_eq!(mods, 2);
        assert!(
            kinds("SELECT MOD(1,2)")
                .iter()
                .any(|t| word_is(t, Keyword::MOD))
        );
    }
}
