//! The errors of reading statement text, with MySQL's codes, SQL states and messages.

/// Why statement text could not be read as MySQL statements.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The text does not parse: MySQL's `ER_PARSE_ERROR` (1064, 42000). `near` is the text
    /// from the offending token to the end of the statement (at most 80 characters, as MySQL
    /// cuts it) and `line` the token's line within the statement.
    #[error(
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL \
         server version for the right syntax to use near '{near}' at line {line}"
    )]
    Syntax {
        /// The statement's text from the error on, cut at 80 characters.
        near: String,
        /// The line of the error, counted from 1 within the statement.
        line: u64,
    },
    /// The text holds no statement: MySQL's `ER_EMPTY_QUERY` (1065, 42000).
    #[error("Query was empty")]
    Empty,
    /// A MySQL statement of a kind the parser's tree cannot hold (stored routines and events,
    /// `HANDLER`, `DO`): MySQL's `ER_NOT_SUPPORTED_YET` (1235, 42000) naming the kind, so that
    /// a caller that cannot run it refuses it as unsupported rather than as a syntax error. A
    /// caller that forwards text (a MySQL backend) still sends it as written.
    #[error("This version of MySQL doesn't yet support '{what}'")]
    Unsupported {
        /// The kind of statement, as MySQL spells it: `CREATE PROCEDURE`.
        what: &'static str,
    },
}

impl ParseError {
    /// MySQL's error number.
    pub fn code(&self) -> u16 {
        match self {
            Self::Syntax { .. } => 1064,
            Self::Empty => 1065,
            Self::Unsupported { .. } => 1235,
        }
    }

    /// MySQL's SQL state.
    pub fn sql_state(&self) -> &'static str {
        "42000"
    }
}
