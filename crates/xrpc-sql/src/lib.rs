//! The node's MySQL front end: statement text in, parsed and classified statements out.
//!
//! # Design
//!
//! Every client statement is read once, by [`sqlparser`]'s MySQL dialect; nothing else in the
//! node lexes SQL. [`parse`] takes a script (one or more statements separated by `;`, as a
//! client's multi-statement query sends them) and returns each statement as a [`Parsed`]: its
//! text, its [`Kind`] (what the node's counters, admin SQL and engines dispatch on) and its body,
//! a [`sqlparser::ast::Statement`] or, for the forms sqlparser lacks, a typed value of this
//! crate ([`Xa`], [`Instance`], [`Show`]). The session statements are typed once more by [`Session::of`]: `SET` with
//! its scopes and user variables, `SET NAMES`, transactions, `USE`.
//!
//! Parsing costs microseconds per statement, so every part of the node parses through
//! [`parse_cached`], one process-wide cache keyed by text (the `cache` module): a repeated
//! statement, or one with `?` arguments, is parsed once, whichever part asks first. The cache is
//! the crate's only state.
//!
//! MySQL's lexical rules are the tokenizer's: `#` and `-- ` comments (`5--2` is `5 - -2`),
//! backslash escapes in strings, backquoted names. The token pass (the `lex` module) applies MySQL's
//! versioned comments (`/*!40101 … */` runs on a server of that version or later), adds the few
//! MySQL forms sqlparser does not parse (`a MOD b`, `SET @a := 1`, `LOCK IN SHARE MODE`,
//! `XA …`, `ALTER INSTANCE …`, `KILL HARD | SOFT`, `SHOW LOCAL …`) and splits the script; each
//! extension is narrow and documented there. The parser reads with MySqlDialect plus the forms
//! that need the parser itself (the `dialect` module): `!`, `CAST(… AS CHAR CHARACTER SET …)`,
//! `ALTER TABLE … DISABLE | ENABLE KEYS`.
//!
//! A statement that does not parse is MySQL's error 1064 with MySQL's message: the text from
//! the offending token (80 characters at most) and its line within the statement. One of the
//! MySQL statements sqlparser's tree cannot hold (stored routines and events, `HANDLER`, `DO`,
//! `PREPARE … FROM`, table maintenance: the token pass knows them by their leading words) is
//! [`ParseError::Unsupported`] instead, MySQL's 1235 naming it; so is one sqlparser would read
//! as another (`DELETE IGNORE`). Statements
//! before it in the script are returned as parsed, so a caller runs them first, as MySQL does.

mod cache;
mod dialect;
mod error;
mod lex;
mod like;
mod session;
mod show;
mod written;

pub use cache::{MAX_CACHED_TEXT, Script, cached_texts, parse_cached};

pub use error::ParseError;
pub use lex::{Lines, Unparsed, empty_arguments_end, unparsed};
pub use like::like_matches;
pub use session::{
    Access, Assignment, Instance, Scope, Session, SystemVariable, Transaction, Xa, system_variable,
};
pub use show::{InDatabase, Show};
pub use sqlparser;
pub use sqlparser::ast;

use sqlparser::ast::Statement;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Span, TokenWithSpan};

/// How to read statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The MySQL version the node reports, as MySQL writes it in versioned comments: 8.0.32 is
    /// 80032. A `/*!NNNNN … */` comment runs when `NNNNN` is at most this.
    pub version: u32,
}

/// The MySQL version the node reports (`SELECT VERSION()` is `8.0.32-xrpc-…`), in the form of
/// versioned comments; the default [`Options::version`], so that a `/*!NNNNN … */` comment runs on
/// the node exactly when it would on the MySQL server the node says it is.
pub const MYSQL_VERSION: u32 = 80032;

impl Default for Options {
    fn default() -> Self {
        Self {
            version: MYSQL_VERSION,
        }
    }
}

/// What a statement does, for dispatch and counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `SELECT`, `WITH … SELECT`, `VALUES`, `TABLE`.
    Select,
    /// `INSERT` and `REPLACE`.
    Insert,
    /// `UPDATE`.
    Update,
    /// `DELETE`.
    Delete,
    /// Schema changes: `CREATE`, `ALTER`, `DROP`, `TRUNCATE`, `RENAME`.
    Ddl,
    /// `BEGIN`, `START TRANSACTION`, `COMMIT`, `ROLLBACK`, savepoints, `SET TRANSACTION`.
    Transaction,
    /// `XA …`.
    Xa,
    /// `SET` of variables and `SET NAMES`.
    Set,
    /// `SHOW …`, `DESCRIBE t`.
    Show,
    /// `USE db`.
    Use,
    /// `EXPLAIN` of a statement.
    Plan,
    /// Accounts, privileges, `FLUSH`, `KILL`, `LOCK TABLES`, `ANALYZE`, and the rest.
    Admin,
}

/// The body of a parsed statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A statement sqlparser reads.
    Statement(Box<Statement>),
    /// An `XA` statement, read by the token pass.
    Xa(Xa),
    /// `ALTER INSTANCE …`, read by the token pass.
    Instance(Instance),
    /// A SHOW or DESCRIBE form sqlparser misreads, read by the token pass.
    Show(Show),
}

/// One statement of a script, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The statement's text as run: versioned comments applied, without the `;`.
    pub text: String,
    /// Where `text` starts in the script, in bytes (the script's text and the applied one have
    /// the same positions).
    pub start: usize,
    /// Where `text` starts in the script as a line and column, the coordinates of the tree's
    /// spans.
    pub origin: sqlparser::tokenizer::Location,
    /// What it does.
    pub kind: Kind,
    /// The tree.
    pub body: Body,
}

impl Parsed {
    /// The sqlparser statement, unless the token pass read this one.
    pub fn statement(&self) -> Option<&Statement> {
        match &self.body {
            Body::Statement(statement) => Some(statement),
            Body::Xa(_) | Body::Instance(_) | Body::Show(_) => None,
        }
    }
}

/// Parses a script of one or more statements. The statements that parse come first; the first
/// that does not ends the list as its error (MySQL runs the statements before it). A script of
/// only comments and `;` is [`ParseError::Empty`].
pub fn parse(text: &str, options: &Options) -> Vec<Result<Parsed, ParseError>> {
    let applied;
    let text = if text.contains("/*!") {
        match lex::apply_versioned_comments(text, options.version) {
            Ok(done) => {
                applied = done;
                applied.as_str()
            }
            Err(err) => return vec![Err(err)],
        }
    } else {
        text
    };
    let tokens = match lex::tokenize(text) {
        Ok(tokens) => tokens,
        Err(err) => return vec![Err(err)],
    };
    let lines = lex::Lines::new(text);
    let mut out = Vec::new();
    for mut statement in lex::split(tokens) {
        lex::extend(&mut statement);
        let parsed = parse_one(text, &lines, statement);
        let failed = parsed.is_err();
        out.push(parsed);
        if failed {
            break;
        }
    }
    if out.is_empty() {
        out.push(Err(ParseError::Empty));
    }
    out
}

/// Parses a text that must hold exactly one statement (a prepared statement's text).
pub fn parse_one_statement(text: &str, options: &Options) -> Result<Parsed, ParseError> {
    let mut all = parse(text, options).into_iter();
    let first = all.next().unwrap_or(Err(ParseError::Empty))?;
    match all.next() {
        None => Ok(first),
        Some(Err(err)) => Err(err),
        // MySQL's prepare reads one statement; a second is a syntax error at its start.
        Some(Ok(second)) => Err(lex::syntax_error(&second.text, 1)),
    }
}

/// Parses one statement's tokens (no `;`).
fn parse_one(
    text: &str,
    lines: &lex::Lines<'_>,
    tokens: Vec<TokenWithSpan>,
) -> Result<Parsed, ParseError> {
    let significant: Vec<&TokenWithSpan> =
        tokens.iter().filter(|t| !lex::is_space(&t.token)).collect();
    let first = significant
        .first()
        .expect("split drops empty statements")
        .span;
    let last = significant
        .last()
        .expect("split drops empty statements")
        .span;
    let start = lines.offset(first.start.line, first.start.column);
    let end = lines.offset(last.end.line, last.end.column).max(start);
    let statement_text = text[start..end].to_string();
    let first_line = first.start.line;
    // A statement the token pass reads: a syntax error at its `n`th significant token (at the
    // statement's end when there is none).
    let error_at_span = |at: Span| {
        let offset = lines
            .offset(at.start.line, at.start.column)
            .clamp(start, end);
        lex::syntax_error(&text[offset..end], at.start.line - first_line + 1)
    };
    let error_at = |n: usize| error_at_span(significant.get(n).map_or(last, |t| t.span));
    if lex::word_named(&significant[0].token, "XA") {
        let xa = Xa::from_tokens(&significant[1..]).ok_or_else(|| error_at(1))?;
        return Ok(Parsed {
            text: statement_text,
            start,
            origin: first.start,
            kind: Kind::Xa,
            body: Body::Xa(xa),
        });
    }
    if lex::word_is(&significant[0].token, Keyword::ALTER)
        && significant
            .get(1)
            .is_some_and(|t| lex::word_named(&t.token, "INSTANCE"))
    {
        let instance = Instance::from_tokens(&significant[2..]).ok_or_else(|| error_at(2))?;
        return Ok(Parsed {
            text: statement_text,
            start,
            origin: first.start,
            kind: Kind::Admin,
            body: Body::Instance(instance),
        });
    }
    match Show::from_tokens(&significant) {
        show::Read::Other => {}
        show::Read::Show(show) => {
            return Ok(Parsed {
                text: statement_text,
                start,
                origin: first.start,
                kind: Kind::Show,
                body: Body::Show(show),
            });
        }
        show::Read::WrongAt(n) => return Err(error_at(n)),
    }
    if let Some(what) = lex::misread(&significant) {
        return Err(ParseError::Unsupported { what });
    }
    let unrepresented = lex::unrepresented(&significant);
    let set_words =
        lex::word_is(&significant[0].token, Keyword::SET).then(|| SetWords::of(&significant));
    let mut parser = Parser::new(&dialect::Front).with_tokens_with_locations(tokens);
    let statement = parser
        .parse_statement()
        .and_then(|statement| {
            let next = parser.peek_token();
            if lex::is_space(&next.token) {
                Ok(statement)
            } else {
                Err(ParserError::ParserError(format!(
                    "Expected: end of statement, found: {}{}",
                    next.token, next.span.start
                )))
            }
        })
        .map_err(|err| {
            if let Some(what) = unrepresented {
                return ParseError::Unsupported { what };
            }
            let (line, column) = error_location(&err).unwrap_or((last.end.line, last.end.column));
            let offset = lines.offset(line, column).clamp(start, end);
            lex::syntax_error(&text[offset..end], line.saturating_sub(first_line) + 1)
        })?;
    let statement = match set_words {
        Some(words) => words.transaction_scope(statement).map_err(error_at_span)?,
        None => statement,
    };
    // `END [TRANSACTION]` is another SQL's COMMIT; MySQL reads no such statement.
    if matches!(statement, Statement::Commit { end: true, .. }) {
        return Err(lex::syntax_error(&text[start..end], 1));
    }
    Ok(Parsed {
        text: statement_text,
        start,
        origin: first.start,
        kind: classify(&statement),
        body: Body::Statement(Box::new(statement)),
    })
}

/// The words of a SET statement sqlparser's tree loses: sqlparser reads MySQL's `SET [GLOBAL |
/// SESSION | LOCAL] TRANSACTION …` but drops the scope, and reads PostgreSQL's forms MySQL does
/// not have.
struct SetWords {
    /// The scope is `SESSION` or `LOCAL`.
    session: bool,
    /// Where the second word is, and `CHARACTERISTICS` and `SNAPSHOT` if anywhere.
    second: Span,
    characteristics: Option<Span>,
    snapshot: Option<Span>,
}

impl SetWords {
    fn of(significant: &[&TokenWithSpan]) -> Self {
        let word_at = |word: Keyword| {
            significant
                .iter()
                .find(|t| lex::word_is(&t.token, word))
                .map(|t| t.span)
        };
        Self {
            session: significant.get(1).is_some_and(|scope| {
                lex::word_is(&scope.token, Keyword::SESSION)
                    || lex::word_is(&scope.token, Keyword::LOCAL)
            }),
            second: significant.get(1).unwrap_or(&significant[0]).span,
            characteristics: word_at(Keyword::CHARACTERISTICS),
            snapshot: word_at(Keyword::SNAPSHOT),
        }
    }

    /// A `SESSION` or `LOCAL` scope of `SET TRANSACTION` is kept as the tree's `session` flag
    /// (which stands for PostgreSQL's `SET SESSION CHARACTERISTICS AS TRANSACTION`, the same
    /// meaning); `SET … CHARACTERISTICS …`, `SET TRANSACTION SNAPSHOT …` and the SNAPSHOT
    /// isolation level are syntax errors at that word, as in MySQL.
    fn transaction_scope(&self, mut statement: Statement) -> Result<Statement, Span> {
        use sqlparser::ast::{Set, TransactionIsolationLevel, TransactionMode};
        let Statement::Set(Set::SetTransaction {
            modes,
            snapshot,
            session,
        }) = &mut statement
        else {
            return Ok(statement);
        };
        if *session {
            return Err(self.characteristics.unwrap_or(self.second));
        }
        let snapshot_level = modes.iter().any(|mode| {
            matches!(
                mode,
                TransactionMode::IsolationLevel(TransactionIsolationLevel::Snapshot)
            )
        });
        if snapshot.is_some() || snapshot_level {
            return Err(self.snapshot.unwrap_or(self.second));
        }
        *session = self.session;
        Ok(statement)
    }
}

/// The `Line: L, Column: C` sqlparser ends its errors with.
fn error_location(err: &ParserError) -> Option<(u64, u64)> {
    let message = match err {
        ParserError::ParserError(message) | ParserError::TokenizerError(message) => message,
        ParserError::RecursionLimitExceeded => return None,
    };
    let at = message.rfind(" at Line: ")?;
    let (line, column) = message[at + " at Line: ".len()..].split_once(", Column: ")?;
    Some((line.trim().parse().ok()?, column.trim().parse().ok()?))
}

/// The kind of a parsed statement.
pub fn classify(statement: &Statement) -> Kind {
    use Statement as S;
    match statement {
        S::Query(_) => Kind::Select,
        S::Insert(_) => Kind::Insert,
        S::Update(_) => Kind::Update,
        S::Delete(_) => Kind::Delete,
        S::CreateTable(_)
        | S::CreateIndex(_)
        | S::CreateView(_)
        | S::CreateDatabase { .. }
        | S::CreateSchema { .. }
        | S::AlterTable(_)
        | S::Drop { .. }
        | S::DropFunction(_)
        | S::DropProcedure { .. }
        | S::DropTrigger(_)
        | S::CreateTrigger(_)
        | S::CreateFunction(_)
        | S::CreateProcedure { .. }
        | S::Truncate(_)
        | S::RenameTable(_)
        | S::AlterView { .. } => Kind::Ddl,
        S::StartTransaction { .. }
        | S::Commit { .. }
        | S::Rollback { .. }
        | S::Savepoint { .. }
        | S::ReleaseSavepoint { .. } => Kind::Transaction,
        S::Set(sqlparser::ast::Set::SetTransaction { .. }) => Kind::Transaction,
        S::Set(_) => Kind::Set,
        S::Use(_) => Kind::Use,
        S::Explain { .. } => Kind::Plan,
        S::ExplainTable { .. } => Kind::Show,
        S::ShowFunctions { .. }
        | S::ShowVariable { .. }
        | S::ShowStatus { .. }
        | S::ShowVariables { .. }
        | S::ShowCreate { .. }
        | S::ShowColumns { .. }
        | S::ShowCatalogs { .. }
        | S::ShowDatabases { .. }
        | S::ShowProcessList { .. }
        | S::ShowSchemas { .. }
        | S::ShowCharset(_)
        | S::ShowObjects(_)
        | S::ShowTables { .. }
        | S::ShowViews { .. }
        | S::ShowCollation { .. } => Kind::Show,
        _ => Kind::Admin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Parsed {
        parse_one_statement(text, &Options::default()).unwrap()
    }

    fn error(text: &str) -> ParseError {
        parse(text, &Options::default()).pop().unwrap().unwrap_err()
    }

    #[test]
    fn end_is_no_mysql_statement() {
        for text in ["END", "end transaction"] {
            assert_eq!(error(text).code(), 1064, "{text}");
        }
        assert!(matches!(one("COMMIT").kind, Kind::Transaction));
    }

    #[test]
    fn double_dash_without_space_is_two_minus_signs() {
        let parsed = one("SELECT 5--2, 7 DIV 2");
        assert_eq!(
            parsed.statement().unwrap().to_string(),
            "SELECT 5 - -2, 7 DIV 2"
        );
    }

    #[test]
    fn hash_and_dash_space_start_comments() {
        let parsed = parse("SELECT 1 # one\n; SELECT 2 -- two", &Options::default());
        let texts: Vec<String> = parsed.into_iter().map(|p| p.unwrap().text).collect();
        assert_eq!(texts, ["SELECT 1", "SELECT 2"]);
    }

    #[test]
    fn a_mysqldump_header_runs_as_set_names() {
        let parsed = one("/*!40101 SET NAMES utf8mb4 */");
        assert_eq!(parsed.kind, Kind::Set);
        assert!(matches!(
            Session::of(parsed.statement().unwrap()),
            Some(Session::Names { ref charset, .. }) if charset == "utf8mb4"
        ));
    }

    #[test]
    fn a_comment_for_a_later_version_is_not_run() {
        assert_eq!(error("/*!99999 SELECT 1 */"), ParseError::Empty);
    }

    #[test]
    fn syntax_errors_are_1064_with_the_rest_of_the_statement() {
        let err = error("SELECT 1;\nSELECT * FRM t");
        assert_eq!(err.code(), 1064);
        assert_eq!(
            err.to_string(),
            "You have an error in your SQL syntax; check the manual that corresponds to your \
             MySQL server version for the right syntax to use near 'FRM t' at line 1"
        );
    }

    #[test]
    fn statements_before_an_error_are_returned() {
        let parsed = parse("SELECT 1; SELEC 2; SELECT 3", &Options::default());
        assert_eq!(parsed.len(), 2);
        assert!(parsed[0].is_ok() && parsed[1].is_err());
    }

    #[test]
    fn only_comments_is_an_empty_query() {
        assert_eq!(error("  -- nothing\n ; "), ParseError::Empty);
        assert_eq!(error("").code(), 1065);
    }

    #[test]
    fn a_trigger_body_is_part_of_its_statement() {
        let parsed = parse(
            "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW BEGIN INSERT INTO u VALUES (1); \
             UPDATE v SET n = CASE WHEN n > 1 THEN 0 ELSE n END; END; SELECT 1",
            &Options::default(),
        );
        let kinds: Vec<Kind> = parsed.into_iter().map(|p| p.unwrap().kind).collect();
        assert_eq!(kinds, [Kind::Ddl, Kind::Select]);
        let parsed = parse("CREATE TABLE t (begin INT); SELECT 1", &Options::default());
        assert_eq!(parsed.len(), 2, "a column named begin opens no body");
    }

    #[test]
    fn with_consistent_snapshot_is_a_plain_start_transaction() {
        for (text, access) in [
            ("START TRANSACTION WITH CONSISTENT SNAPSHOT", None),
            (
                "START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT",
                Some(Access::ReadOnly),
            ),
            (
                "start transaction with consistent snapshot, read only",
                Some(Access::ReadOnly),
            ),
            ("START TRANSACTION READ WRITE", Some(Access::ReadWrite)),
        ] {
            assert_eq!(
                Session::of(one(text).statement().unwrap()),
                Some(Session::Transaction(Transaction::Begin { access })),
                "{text}"
            );
        }
    }

    #[test]
    fn set_transaction_keeps_whether_it_changes_the_session() {
        for (text, session, isolation, access) in [
            (
                "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                true,
                Some("READ-COMMITTED"),
                None,
            ),
            (
                "set local transaction isolation level serializable, read write",
                true,
                Some("SERIALIZABLE"),
                Some(Access::ReadWrite),
            ),
            (
                "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
                false,
                Some("READ-UNCOMMITTED"),
                None,
            ),
            (
                "SET GLOBAL TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                false,
                Some("REPEATABLE-READ"),
                None,
            ),
            (
                "SET SESSION TRANSACTION READ WRITE",
                true,
                None,
                Some(Access::ReadWrite),
            ),
            (
                "SET SESSION TRANSACTION READ ONLY",
                true,
                None,
                Some(Access::ReadOnly),
            ),
        ] {
            assert_eq!(
                Session::of(one(text).statement().unwrap()),
                Some(Session::Transaction(Transaction::Characteristics {
                    session,
                    isolation,
                    access
                })),
                "{text}"
            );
        }
    }

    #[test]
    fn postgresql_transaction_forms_are_syntax_errors() {
        for (text, near) in [
            (
                "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
                "CHARACTERISTICS AS TRANSACTION READ ONLY",
            ),
            ("SET TRANSACTION SNAPSHOT '0001'", "SNAPSHOT '0001'"),
            ("SET TRANSACTION ISOLATION LEVEL SNAPSHOT", "SNAPSHOT"),
        ] {
            let err = error(text);
            assert_eq!(err.code(), 1064, "{text}");
            assert!(
                err.to_string().contains(&format!("near '{near}'")),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn lock_in_share_mode_is_for_share() {
        assert_eq!(
            one("SELECT * FROM t LOCK IN SHARE MODE")
                .statement()
                .unwrap()
                .to_string(),
            "SELECT * FROM t FOR SHARE"
        );
    }

    #[test]
    fn a_view_defined_by_current_user_with_parentheses_is_read() {
        let view = one(
            "CREATE ALGORITHM=UNDEFINED DEFINER=CURRENT_USER() SQL SECURITY DEFINER VIEW v AS \
             SELECT 1",
        );
        assert!(view.statement().is_some(), "{view:?}");
    }

    #[test]
    fn mariadbs_kill_modes_and_show_local_are_read() {
        assert_eq!(
            one("KILL SOFT QUERY 7").statement().unwrap().to_string(),
            "KILL QUERY 7"
        );
        assert_eq!(
            one("kill hard 7").statement().unwrap().to_string(),
            "KILL 7"
        );
        assert_eq!(
            one("SHOW LOCAL STATUS LIKE 'a%'")
                .statement()
                .unwrap()
                .to_string(),
            "SHOW SESSION STATUS LIKE 'a%'"
        );
    }

    #[test]
    fn statements_the_tree_cannot_hold_are_1235_naming_their_kind() {
        for (text, what) in [
            ("DO 1", "DO"),
            ("HANDLER t OPEN", "HANDLER"),
            (
                "CREATE DEFINER=`root`@`localhost` FUNCTION `f`(x INT) RETURNS int \
                 DETERMINISTIC RETURN x * 2",
                "CREATE FUNCTION",
            ),
            (
                "CREATE DEFINER='u'@'%' PROCEDURE p(OUT n INT) BEGIN SELECT 1 INTO n; END",
                "CREATE PROCEDURE",
            ),
            (
                "/*!50106 CREATE*/ /*!50117 DEFINER=CURRENT_USER()*/ /*!50106 EVENT e ON \
                 SCHEDULE EVERY 1 DAY DO DELETE FROM t */",
                "CREATE EVENT",
            ),
            ("/*!50106 DROP EVENT IF EXISTS `e` */", "DROP EVENT"),
            (
                "CREATE TRIGGER tr BEFORE UPDATE ON t FOR EACH ROW SET NEW.a = 1",
                "CREATE TRIGGER",
            ),
            ("DELETE QUICK IGNORE FROM t WHERE a = 1", "DELETE IGNORE"),
            ("UPDATE LOW_PRIORITY IGNORE t SET a = 1", "UPDATE IGNORE"),
            ("PREPARE s FROM 'SELECT 1'", "PREPARE FROM"),
            ("CHECK TABLE t, u FAST", "CHECK TABLE"),
            ("CHECKSUM TABLE t EXTENDED", "CHECKSUM TABLE"),
            ("OPTIMIZE NO_WRITE_TO_BINLOG TABLE t", "OPTIMIZE TABLE"),
            ("REPAIR LOCAL TABLE t QUICK", "REPAIR TABLE"),
            (
                "CREATE VIEW v AS SELECT a FROM t WHERE a > 2 WITH CHECK OPTION",
                "VIEW … WITH CHECK OPTION",
            ),
            (
                "ALTER VIEW v AS SELECT a FROM t WITH LOCAL CHECK OPTION",
                "VIEW … WITH CHECK OPTION",
            ),
            (
                "ALTER ALGORITHM=MERGE VIEW v AS SELECT 1",
                "ALTER ALGORITHM | DEFINER | SQL SECURITY … VIEW",
            ),
        ] {
            let err = error(text);
            assert_eq!(err, ParseError::Unsupported { what }, "{text}");
            assert_eq!(err.code(), 1235);
            assert_eq!(
                err.to_string(),
                format!("This version of MySQL doesn't yet support '{what}'")
            );
        }
        // Other statements that do not parse stay syntax errors.
        for text in [
            "CREATE TABLE t (a INT, event INT,",
            "CREATE TABLE function (",
            "DELETE FROM",
        ] {
            assert_eq!(error(text).code(), 1064, "{text}");
        }
    }

    #[test]
    fn table_lock_modifiers_and_an_unencrypted_schema_are_dropped() {
        for (text, tree) in [
            ("DELETE LOW_PRIORITY QUICK FROM t", "DELETE FROM t"),
            (
                "DELETE QUICK FROM quick WHERE a = 1",
                "DELETE FROM quick WHERE a = 1",
            ),
            ("UPDATE LOW_PRIORITY t SET a = 1", "UPDATE t SET a = 1"),
            (
                "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d` /*!40100 DEFAULT CHARACTER SET \
                 utf8mb4 */ /*!80016 DEFAULT ENCRYPTION='N' */",
                "CREATE DATABASE IF NOT EXISTS `d` DEFAULT CHARACTER SET utf8mb4",
            ),
        ] {
            assert_eq!(one(text).statement().unwrap().to_string(), tree, "{text}");
        }
        assert_eq!(error("CREATE DATABASE d ENCRYPTION 'Y'").code(), 1064);
    }

    #[test]
    fn mysql_forms_applications_send_are_read() {
        for (text, kind) in [
            ("SELECT * FROM a STRAIGHT_JOIN b ON a.x = b.x", Kind::Select),
            (
                "SELECT * FROM t USE INDEX (i) JOIN u FORCE INDEX (j) \
                 IGNORE INDEX FOR JOIN (k) ON t.a = u.a",
                Kind::Select,
            ),
            (
                "INSERT INTO t (a) VALUES (1) AS new ON DUPLICATE KEY UPDATE a = new.a",
                Kind::Insert,
            ),
            ("SELECT * FROM t FOR UPDATE SKIP LOCKED", Kind::Select),
            ("SELECT * FROM t FOR SHARE NOWAIT", Kind::Select),
            (
                "SELECT GROUP_CONCAT(DISTINCT a ORDER BY a DESC SEPARATOR ';') FROM t",
                Kind::Select,
            ),
            ("SELECT CAST(x AS CHAR CHARACTER SET utf8mb4)", Kind::Select),
            (
                "SELECT _utf8mb4'x', X'41', b'01', 0x41, N'x', _binary 'y'",
                Kind::Select,
            ),
            ("INSERT INTO t VALUES (DEFAULT, 1)", Kind::Insert),
            ("SELECT a FROM t LIMIT 1, 2", Kind::Select),
            ("REPLACE INTO t SELECT * FROM u", Kind::Insert),
            ("DELETE QUICK FROM t WHERE a = 1", Kind::Delete),
            ("INSERT DELAYED INTO t VALUES (1)", Kind::Insert),
            (
                "INSERT HIGH_PRIORITY IGNORE INTO t VALUES (1)",
                Kind::Insert,
            ),
            ("SHOW FULL PROCESSLIST", Kind::Show),
            ("SHOW CREATE TABLE t", Kind::Show),
            ("SHOW INDEX FROM t FROM db", Kind::Show),
            ("KILL QUERY 5", Kind::Admin),
            ("SET @a := 1, @b = 2", Kind::Set),
            ("SELECT @a := @a + 1", Kind::Select),
            ("SELECT !0, ! (1 = 2)", Kind::Select),
        ] {
            assert_eq!(one(text).kind, kind, "{text}");
        }
        // MySQL's grammar puts FOR JOIN before the list; MySQL and MariaDB answer 1064 here.
        assert_eq!(
            error("SELECT * FROM t IGNORE INDEX (i) FOR JOIN"),
            ParseError::Syntax {
                near: "JOIN".into(),
                line: 1
            }
        );
    }

    #[test]
    fn statements_are_classified() {
        for (text, kind) in [
            ("SELECT 1", Kind::Select),
            (
                "SELECT STRAIGHT_JOIN * FROM a FORCE INDEX (i) JOIN b USE INDEX (j)",
                Kind::Select,
            ),
            ("WITH a AS (SELECT 1) SELECT * FROM a", Kind::Select),
            ("REPLACE INTO t VALUES (1)", Kind::Insert),
            ("UPDATE t SET a = 1 ORDER BY a LIMIT 1", Kind::Update),
            ("DELETE FROM t LIMIT 1", Kind::Delete),
            ("CREATE TABLE t (a INT, KEY k (a)) ENGINE=InnoDB", Kind::Ddl),
            ("TRUNCATE TABLE t", Kind::Ddl),
            ("RENAME TABLE a TO b", Kind::Ddl),
            ("DROP INDEX i ON t", Kind::Ddl),
            ("START TRANSACTION", Kind::Transaction),
            (
                "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
                Kind::Transaction,
            ),
            ("XA START 'x'", Kind::Xa),
            ("SET @a := 1", Kind::Set),
            ("SHOW TABLES", Kind::Show),
            ("SHOW VARIABLES LIKE 'x%'", Kind::Show),
            ("USE db", Kind::Use),
            ("EXPLAIN SELECT 1", Kind::Plan),
            ("FLUSH TABLES", Kind::Admin),
        ] {
            assert_eq!(one(text).kind, kind, "{text}");
        }
    }
}
