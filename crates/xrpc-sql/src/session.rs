//! The session statements, typed: variables, character set, transactions, database, XA.

use sqlparser::ast::{
    ContextModifier, Expr, Ident, ObjectName, ObjectNamePart, Set, SetAssignment, Statement,
    TransactionAccessMode, TransactionIsolationLevel, TransactionMode, Use,
};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Span, Token, TokenWithSpan};

use crate::lex::{word_is, word_named};

/// A session statement: what the node does itself rather than send to an engine as SQL.
#[derive(Debug, Clone, PartialEq)]
pub enum Session {
    /// `SET a = 1, @b := 2, GLOBAL c = 3, @@session.d = 4`.
    Set(Vec<Assignment>),
    /// `SET NAMES charset [COLLATE collation]`.
    Names {
        /// The character set, lower case.
        charset: String,
        /// The collation, lower case.
        collation: Option<String>,
    },
    /// A transaction statement.
    Transaction(Transaction),
    /// `USE db`.
    Use(String),
}

/// The scope of a system variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `SESSION`, `LOCAL`, `@@session.`, `@@local.`, or no scope.
    Session,
    /// `GLOBAL` or `@@global.`.
    Global,
}

/// One assignment of a `SET`.
#[derive(Debug, Clone, PartialEq)]
pub enum Assignment {
    /// `@name = value`: a user variable (the name without `@`, as written).
    User {
        /// The variable's name.
        name: String,
        /// The value.
        value: Expr,
    },
    /// A system variable (the name lower case).
    System {
        /// Its scope.
        scope: Scope,
        /// The variable's name.
        name: String,
        /// The value; `DEFAULT` is the identifier `DEFAULT`.
        value: Expr,
    },
}

/// A transaction statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transaction {
    /// `BEGIN`, `START TRANSACTION [READ ONLY | READ WRITE]`.
    Begin {
        /// The access mode given, if any (the session's otherwise).
        access: Option<Access>,
    },
    /// `COMMIT`.
    Commit,
    /// `ROLLBACK`.
    Rollback,
    /// `SAVEPOINT name`.
    Savepoint(String),
    /// `ROLLBACK TO [SAVEPOINT] name`.
    RollbackTo(String),
    /// `RELEASE SAVEPOINT name`.
    Release(String),
    /// `SET [GLOBAL | SESSION] TRANSACTION …`.
    Characteristics {
        /// `SESSION` or `LOCAL` was given: the session's characteristics change. Without a
        /// scope they hold for the next transaction only, with `GLOBAL` for later sessions.
        session: bool,
        /// The isolation level it sets, as `@@tx_isolation` shows it (`READ-COMMITTED`).
        isolation: Option<&'static str>,
        /// The access mode it sets.
        access: Option<Access>,
    },
}

/// A transaction's access mode, as `READ ONLY` or `READ WRITE` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `READ ONLY`.
    ReadOnly,
    /// `READ WRITE`.
    ReadWrite,
}

/// The access mode of a transaction statement's modes: the last one given.
fn access_of(modes: &[TransactionMode]) -> Option<Access> {
    modes.iter().rev().find_map(|mode| match mode {
        TransactionMode::AccessMode(TransactionAccessMode::ReadOnly) => Some(Access::ReadOnly),
        TransactionMode::AccessMode(TransactionAccessMode::ReadWrite) => Some(Access::ReadWrite),
        TransactionMode::IsolationLevel(_) => None,
    })
}

/// An isolation level as `@@tx_isolation` shows it.
fn isolation_name(level: &TransactionIsolationLevel) -> &'static str {
    match level {
        TransactionIsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
        TransactionIsolationLevel::ReadCommitted => "READ-COMMITTED",
        TransactionIsolationLevel::RepeatableRead => "REPEATABLE-READ",
        TransactionIsolationLevel::Serializable => "SERIALIZABLE",
        // Not MySQL's (SQL Server's SNAPSHOT); MySQL refuses it when it parses.
        TransactionIsolationLevel::Snapshot => "SNAPSHOT",
    }
}

/// An `XA` statement with its transaction id (`gtrid[, bqual[, formatID]]` as written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Xa {
    /// `XA START | BEGIN xid`.
    Start(String),
    /// `XA END xid`.
    End(String),
    /// `XA PREPARE xid`.
    Prepare(String),
    /// `XA COMMIT xid [ONE PHASE]`.
    Commit {
        /// The transaction id.
        xid: String,
        /// `ONE PHASE` was given.
        one_phase: bool,
    },
    /// `XA ROLLBACK xid`.
    Rollback(String),
    /// `XA RECOVER`.
    Recover,
}

/// A system variable read in an expression: `@@name`, or `@@global.name` (`session`, `local`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemVariable<'a> {
    /// The name as written, without `@@` and scope.
    pub name: &'a str,
    /// The scope as written (`@@GLOBAL`), when one is.
    pub scope: Option<&'a str>,
    /// Where the whole reference is in the text.
    pub span: Span,
}

/// The system variable `expr` reads, if it is one.
pub fn system_variable(expr: &Expr) -> Option<SystemVariable<'_>> {
    match expr {
        Expr::Identifier(ident) if ident.quote_style.is_none() => Some(SystemVariable {
            name: ident.value.strip_prefix("@@")?,
            scope: None,
            span: ident.span,
        }),
        Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [scope, name]
                if scope.quote_style.is_none()
                    && ["@@global", "@@session", "@@local"]
                        .iter()
                        .any(|s| scope.value.eq_ignore_ascii_case(s)) =>
            {
                Some(SystemVariable {
                    name: &name.value,
                    scope: Some(&scope.value),
                    span: scope.span.union(&name.span),
                })
            }
            _ => None,
        },
        _ => None,
    }
}

/// `ALTER INSTANCE …`, read by the token pass: the forms the node knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instance {
    /// `ALTER INSTANCE RELOAD TLS [NO ROLLBACK ON ERROR]`.
    ReloadTls {
        /// `NO ROLLBACK ON ERROR` was given.
        no_rollback_on_error: bool,
    },
}

impl Instance {
    /// Reads the tokens after `ALTER INSTANCE`; `None` for any other form.
    pub(crate) fn from_tokens(tokens: &[&TokenWithSpan]) -> Option<Self> {
        let words: Vec<&Token> = tokens.iter().map(|t| &t.token).collect();
        match words.as_slice() {
            [reload, tls, rest @ ..] if word_named(reload, "RELOAD") && word_named(tls, "TLS") => {
                match rest {
                    [] => Some(Self::ReloadTls {
                        no_rollback_on_error: false,
                    }),
                    [no, rollback, on, error]
                        if word_is(no, Keyword::NO)
                            && word_is(rollback, Keyword::ROLLBACK)
                            && word_is(on, Keyword::ON)
                            && word_is(error, Keyword::ERROR) =>
                    {
                        Some(Self::ReloadTls {
                            no_rollback_on_error: true,
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

impl Session {
    /// The typed form of a session statement; `None` for any other statement.
    pub fn of(statement: &Statement) -> Option<Self> {
        Some(match statement {
            Statement::Set(Set::SetNames {
                charset_name,
                collation_name,
            }) => Self::Names {
                charset: charset_name.value.to_lowercase(),
                collation: collation_name.as_ref().map(|c| c.to_lowercase()),
            },
            Statement::Set(Set::SetTransaction { modes, session, .. }) => {
                Self::Transaction(Transaction::Characteristics {
                    session: *session,
                    isolation: modes.iter().rev().find_map(|mode| match mode {
                        TransactionMode::IsolationLevel(level) => Some(isolation_name(level)),
                        TransactionMode::AccessMode(_) => None,
                    }),
                    access: access_of(modes),
                })
            }
            Statement::Set(Set::SingleAssignment {
                scope,
                variable,
                values,
                ..
            }) if values.len() == 1 => {
                Self::Set(vec![assignment(*scope, variable, values[0].clone())])
            }
            // A scope keyword applies to the assignments after it until the next one, as in
            // MySQL: `SET GLOBAL a = 1, b = 2` sets both globally.
            Statement::Set(Set::MultipleAssignments { assignments }) => {
                let mut current = None;
                Self::Set(
                    assignments
                        .iter()
                        .map(|SetAssignment { scope, name, value }| {
                            current = scope.or(current);
                            assignment(current, name, value.clone())
                        })
                        .collect(),
                )
            }
            Statement::StartTransaction { modes, .. } => Self::Transaction(Transaction::Begin {
                access: access_of(modes),
            }),
            Statement::Commit { .. } => Self::Transaction(Transaction::Commit),
            Statement::Rollback {
                savepoint: Some(name),
                ..
            } => Self::Transaction(Transaction::RollbackTo(name.value.clone())),
            Statement::Rollback { .. } => Self::Transaction(Transaction::Rollback),
            Statement::Savepoint { name } => {
                Self::Transaction(Transaction::Savepoint(name.value.clone()))
            }
            Statement::ReleaseSavepoint { name } => {
                Self::Transaction(Transaction::Release(name.value.clone()))
            }
            Statement::Use(Use::Object(name) | Use::Database(name) | Use::Schema(name)) => {
                Self::Use(last_ident(name)?.value.clone())
            }
            _ => return None,
        })
    }
}

/// One assignment: `@x`, `@@[scope.]x`, `[scope] x`.
fn assignment(scope: Option<ContextModifier>, name: &ObjectName, value: Expr) -> Assignment {
    let parts: Vec<&str> = name
        .0
        .iter()
        .filter_map(|part| match part {
            ObjectNamePart::Identifier(ident) => Some(ident.value.as_str()),
            _ => None,
        })
        .collect();
    let written = parts.join(".");
    if let Some(user) = written.strip_prefix('@').filter(|n| !n.starts_with('@')) {
        return Assignment::User {
            name: user.to_string(),
            value,
        };
    }
    let mut scope = match scope {
        Some(ContextModifier::Global) => Scope::Global,
        _ => Scope::Session,
    };
    let mut name = written.trim_start_matches('@').to_lowercase();
    for (prefix, named) in [
        ("global.", Scope::Global),
        ("session.", Scope::Session),
        ("local.", Scope::Session),
    ] {
        if let Some(rest) = name.strip_prefix(prefix) {
            scope = named;
            name = rest.to_string();
            break;
        }
    }
    Assignment::System { scope, name, value }
}

fn last_ident(name: &ObjectName) -> Option<&Ident> {
    match name.0.last()? {
        ObjectNamePart::Identifier(ident) => Some(ident),
        _ => None,
    }
}

impl Xa {
    /// Reads the tokens after `XA`; `None` when they are not an XA statement.
    pub(crate) fn from_tokens(tokens: &[&TokenWithSpan]) -> Option<Self> {
        let (verb, rest) = tokens.split_first()?;
        let verb = &verb.token;
        if word_named(verb, "RECOVER") {
            return rest.is_empty().then_some(Self::Recover);
        }
        let mut xid = Vec::new();
        let mut tail = rest;
        // gtrid [, bqual [, formatID]]
        while let Some((token, after)) = tail.split_first() {
            match &token.token {
                Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) if xid.len() < 3 => {
                    xid.push(format!("'{}'", s.replace('\'', "''")));
                }
                Token::HexStringLiteral(s) if xid.len() < 3 => xid.push(format!("X'{s}'")),
                Token::Number(n, _) if !xid.is_empty() && xid.len() < 3 => xid.push(n.clone()),
                _ => break,
            }
            tail = after;
            match tail.split_first() {
                Some((comma, after)) if comma.token == Token::Comma => tail = after,
                _ => break,
            }
        }
        if xid.is_empty() {
            return None;
        }
        let xid = xid.join(",");
        let words: Vec<&Token> = tail.iter().map(|t| &t.token).collect();
        let word = |k| move |t: &&Token| word_is(t, k);
        match words.as_slice() {
            [] if word_is(verb, Keyword::START) || word_is(verb, Keyword::BEGIN) => {
                Some(Self::Start(xid))
            }
            [j] if (word_is(verb, Keyword::START) || word_is(verb, Keyword::BEGIN))
                && (word(Keyword::JOIN)(j) || word(Keyword::RESUME)(j)) =>
            {
                Some(Self::Start(xid))
            }
            [] if word_is(verb, Keyword::END) => Some(Self::End(xid)),
            [] if word_is(verb, Keyword::PREPARE) => Some(Self::Prepare(xid)),
            [] if word_is(verb, Keyword::ROLLBACK) => Some(Self::Rollback(xid)),
            [] if word_is(verb, Keyword::COMMIT) => Some(Self::Commit {
                xid,
                one_phase: false,
            }),
            [one, phase]
                if word_is(verb, Keyword::COMMIT)
                    && word_named(one, "ONE")
                    && word_named(phase, "PHASE") =>
            {
                Some(Self::Commit {
                    xid,
                    one_phase: true,
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Body, Options, parse_one_statement};

    fn session(text: &str) -> Session {
        let parsed = parse_one_statement(text, &Options::default()).unwrap();
        Session::of(parsed.statement().unwrap()).unwrap()
    }

    fn number(n: &str) -> Expr {
        Expr::value(sqlparser::ast::Value::Number(n.into(), false))
    }

    #[test]
    fn set_reads_user_and_system_variables_with_their_scopes() {
        let Session::Set(assignments) =
            session("SET @a := 1, GLOBAL max_connections = 2, @@session.sql_mode = 3, x = 4")
        else {
            panic!("not a SET")
        };
        assert_eq!(
            assignments,
            vec![
                Assignment::User {
                    name: "a".into(),
                    value: number("1")
                },
                Assignment::System {
                    scope: Scope::Global,
                    name: "max_connections".into(),
                    value: number("2")
                },
                Assignment::System {
                    scope: Scope::Session,
                    name: "sql_mode".into(),
                    value: number("3")
                },
                // The latest scope keyword applies (MySQL's rule).
                Assignment::System {
                    scope: Scope::Global,
                    name: "x".into(),
                    value: number("4")
                },
            ]
        );
    }

    #[test]
    fn a_scope_keyword_carries_to_the_assignments_after_it() {
        let Session::Set(assignments) =
            session("SET GLOBAL a = 1, b = 2, @@session.c = 3, d = 4, SESSION e = 5, f = 6")
        else {
            panic!("not a SET")
        };
        let scopes: Vec<Scope> = assignments
            .iter()
            .map(|a| match a {
                Assignment::System { scope, .. } => *scope,
                Assignment::User { .. } => panic!("no user variables here"),
            })
            .collect();
        assert_eq!(
            scopes,
            [
                Scope::Global,
                Scope::Global,
                Scope::Session,
                Scope::Global,
                Scope::Session,
                Scope::Session
            ]
        );
    }

    #[test]
    fn transactions_and_use_are_typed() {
        assert_eq!(
            session("START TRANSACTION READ ONLY"),
            Session::Transaction(Transaction::Begin {
                access: Some(Access::ReadOnly)
            })
        );
        assert_eq!(
            session("BEGIN"),
            Session::Transaction(Transaction::Begin { access: None })
        );
        assert_eq!(
            session("ROLLBACK TO SAVEPOINT s1"),
            Session::Transaction(Transaction::RollbackTo("s1".into()))
        );
        assert_eq!(session("USE `my db`"), Session::Use("my db".into()));
    }

    #[test]
    fn xa_statements_are_read_from_tokens() {
        let xa = |text: &str| match parse_one_statement(text, &Options::default()).unwrap().body {
            Body::Xa(xa) => xa,
            _ => panic!("not XA"),
        };
        assert_eq!(xa("XA START 'g', 'b', 1"), Xa::Start("'g','b',1".into()));
        assert_eq!(
            xa("xa commit 'g' one phase"),
            Xa::Commit {
                xid: "'g'".into(),
                one_phase: true
            }
        );
        assert_eq!(xa("XA RECOVER"), Xa::Recover);
        let err = parse_one_statement("XA START", &Options::default()).unwrap_err();
        assert_eq!(err.code(), 1064);
    }

    #[test]
    fn alter_instance_reload_tls_is_read_from_tokens() {
        let instance = |text: &str| {
            let parsed = parse_one_statement(text, &Options::default()).unwrap();
            assert_eq!(parsed.kind, crate::Kind::Admin);
            match parsed.body {
                Body::Instance(instance) => instance,
                _ => panic!("not ALTER INSTANCE"),
            }
        };
        assert_eq!(
            instance("alter instance reload tls"),
            Instance::ReloadTls {
                no_rollback_on_error: false
            }
        );
        assert_eq!(
            instance("ALTER INSTANCE RELOAD TLS NO ROLLBACK ON ERROR"),
            Instance::ReloadTls {
                no_rollback_on_error: true
            }
        );
        let err = parse_one_statement(
            "ALTER INSTANCE ROTATE INNODB MASTER KEY",
            &Options::default(),
        )
        .unwrap_err();
        assert_eq!(err.code(), 1064);
    }
}
