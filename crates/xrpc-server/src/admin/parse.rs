//! The admin statements' syntax tree and the recursive-descent parser that builds it from tokens.

use xrpc_proto::codes;

use super::lex::{Tok, contains_ignore_case, leading_word, lex, skip_space_and_comments};
use crate::result::SqlError;
use crate::vars::{SetValue, VarId};

/// A parsed admin statement.
#[derive(Debug, PartialEq)]
pub(super) enum Stmt {
    ShowVariables(Option<Filter>),
    ShowStatus(Option<Filter>),
    SetGlobal(Vec<(String, SetValue)>),
    SelectVars {
        items: Vec<SelectItem>,
        limit: Option<u64>,
    },
    PerfHist(String),
    /// `KILL [HARD | SOFT] [QUERY | CONNECTION] n`.
    Kill {
        scope: KillScope,
        id: u64,
    },
    /// `ALTER INSTANCE RELOAD TLS [NO ROLLBACK ON ERROR]`.
    ReloadTls,
    /// `FLUSH HOSTS`: unblocks every client address blocked by `xrpc_max_connect_errors`.
    FlushHosts,
}

/// What SQL `KILL` stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillScope {
    /// `KILL QUERY n`: the session's running statement; the session stays.
    Query,
    /// `KILL [CONNECTION] n`: the session itself.
    Connection,
}

/// `LIKE 'pat'` or `WHERE cond` of a SHOW.
#[derive(Debug, PartialEq)]
pub(super) enum Filter {
    Like(String),
    Where(Cond),
}

/// One `@@name` of a SELECT.
#[derive(Debug, PartialEq)]
pub(super) struct SelectItem {
    /// The variable name as written.
    pub(super) name: String,
    /// The column name: the alias, or the item as written (`@@global.version`).
    pub(super) label: String,
}

/// A column of SHOW output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Col {
    Name,
    Value,
}

/// A WHERE condition over SHOW output.
#[derive(Debug, PartialEq)]
pub(super) enum Cond {
    Or(Box<Cond>, Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    Eq(Col, String),
    Like(Col, String),
    In(Col, Vec<String>),
}

/// Parses `sql` if it is admin SQL: `None` when it is not, an error when it is but is malformed.
pub(super) fn parse(sql: &str) -> Option<Result<Stmt, SqlError>> {
    let (first, rest) = leading_word(sql)?;
    let kind = if first.eq_ignore_ascii_case("show") {
        let (second, _) = leading_word(rest)?;
        let admin = ["global", "session", "local", "variables", "status"]
            .iter()
            .any(|w| second.eq_ignore_ascii_case(w));
        if !admin {
            return None;
        }
        Kind::Show
    } else if first.eq_ignore_ascii_case("select") {
        if !skip_space_and_comments(rest).starts_with("@@") {
            return None;
        }
        Kind::Select
    } else if first.eq_ignore_ascii_case("set") {
        if !["global", "xrpc_", "rpc_port"]
            .iter()
            .any(|w| contains_ignore_case(rest, w))
        {
            return None;
        }
        Kind::Set
    } else if first.eq_ignore_ascii_case("kill") {
        Kind::Kill
    } else if first.eq_ignore_ascii_case("alter") {
        let (second, _) = leading_word(rest)?;
        if !second.eq_ignore_ascii_case("instance") {
            return None;
        }
        Kind::AlterInstance
    } else if first.eq_ignore_ascii_case("flush") {
        // Only FLUSH HOSTS is the node's; the other FLUSH forms are the engine's.
        let (second, _) = leading_word(rest)?;
        if !second.eq_ignore_ascii_case("hosts") {
            return None;
        }
        Kind::Flush
    } else if first.eq_ignore_ascii_case("call") {
        if !contains_ignore_case(rest, "perf_hist") {
            return None;
        }
        Kind::Call
    } else {
        return None;
    };
    let tokens = match lex(sql) {
        Ok(tokens) => tokens,
        Err(detail) => return Some(Err(syntax_error(&detail))),
    };
    let mut p = Parser {
        toks: tokens,
        pos: 1,
    };
    match kind {
        Kind::Show => Some(p.show()),
        Kind::Select => p.select(),
        Kind::Set => p.set(),
        Kind::Call => p.call(),
        Kind::Kill => p.kill(),
        Kind::AlterInstance => Some(p.alter_instance()),
        Kind::Flush => Some(p.flush_hosts()),
    }
}

/// Which statement the leading keyword announces.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Show,
    Select,
    Set,
    Call,
    Kill,
    AlterInstance,
    Flush,
}

fn syntax_error(detail: &str) -> SqlError {
    SqlError::new(
        &codes::PARSE_ERROR,
        format!("You have an error in your SQL syntax: {detail}"),
    )
}

/// A cursor over the tokens; position 0 is the leading keyword, already recognised.
struct Parser<'a> {
    toks: Vec<Tok<'a>>,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.toks.get(self.pos)
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw))
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        let hit = self.is_kw(kw);
        self.pos += usize::from(hit);
        hit
    }

    fn eat_sym(&mut self, sym: &str) -> bool {
        let hit = matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym);
        self.pos += usize::from(hit);
        hit
    }

    /// Whether only `;`s remain.
    fn at_end(&mut self) -> bool {
        while self.eat_sym(";") {}
        self.pos >= self.toks.len()
    }

    /// A name: a word or a backquoted identifier.
    fn name(&mut self) -> Option<String> {
        let name = match self.peek()? {
            Tok::Word(w) => (*w).to_owned(),
            Tok::Ident(s) => s.clone(),
            _ => return None,
        };
        self.pos += 1;
        Some(name)
    }

    fn string(&mut self) -> Option<String> {
        let Some(Tok::Str(s)) = self.peek() else {
            return None;
        };
        let s = s.clone();
        self.pos += 1;
        Some(s)
    }

    fn near(&self) -> String {
        match self.peek() {
            None => "at the end".to_owned(),
            Some(Tok::Word(w)) => format!("near '{w}'"),
            Some(Tok::Str(s)) => format!("near '{s}'"),
            Some(Tok::Ident(s)) => format!("near `{s}`"),
            Some(Tok::Sym(s)) => format!("near '{s}'"),
        }
    }

    /// `KILL [HARD | SOFT] [QUERY | CONNECTION] n`; `None` for MariaDB's other forms (`KILL
    /// QUERY ID n`, `KILL USER name`), which are the engine's.
    /// `ALTER INSTANCE RELOAD TLS [NO ROLLBACK ON ERROR]`, the one ALTER INSTANCE the node has.
    /// Without the option a failed reload keeps the old certificate (MySQL's default); with it,
    /// MySQL would switch TLS off, which the node never does, so the option is refused.
    fn alter_instance(&mut self) -> Result<Stmt, SqlError> {
        let _ = self.eat_kw("instance");
        if !(self.eat_kw("reload") && self.eat_kw("tls")) {
            return Err(syntax_error(&format!(
                "only ALTER INSTANCE RELOAD TLS is supported {}",
                self.near()
            )));
        }
        if !self.at_end() {
            return Err(syntax_error(&format!(
                "unexpected text {} (a failed reload always keeps the previous certificate)",
                self.near()
            )));
        }
        Ok(Stmt::ReloadTls)
    }

    fn kill(&mut self) -> Option<Result<Stmt, SqlError>> {
        let _mariadb_mode = self.eat_kw("hard") || self.eat_kw("soft");
        let scope = if self.eat_kw("query") {
            KillScope::Query
        } else {
            let _ = self.eat_kw("connection");
            KillScope::Connection
        };
        if self.is_kw("id") || self.is_kw("user") {
            return None;
        }
        let id = match self.peek() {
            Some(Tok::Word(w)) => match w.parse::<u64>() {
                Ok(id) => id,
                Err(_) => {
                    let err = syntax_error(&format!("expected a thread id {}", self.near()));
                    return Some(Err(err));
                }
            },
            _ => {
                let err = syntax_error(&format!("expected a thread id {}", self.near()));
                return Some(Err(err));
            }
        };
        self.pos += 1;
        if !self.at_end() {
            return Some(Err(syntax_error(&format!(
                "unexpected text {}",
                self.near()
            ))));
        }
        Some(Ok(Stmt::Kill { scope, id }))
    }

    /// `FLUSH HOSTS` (the keyword `HOSTS` was checked before lexing).
    fn flush_hosts(&mut self) -> Result<Stmt, SqlError> {
        self.pos += 1;
        if !self.at_end() {
            return Err(syntax_error(&format!("unexpected text {}", self.near())));
        }
        Ok(Stmt::FlushHosts)
    }

    /// `SHOW [GLOBAL|SESSION|LOCAL] VARIABLES|STATUS [LIKE 'pat' | WHERE cond]`.
    fn show(&mut self) -> Result<Stmt, SqlError> {
        let _scope = self.eat_kw("global") || self.eat_kw("session") || self.eat_kw("local");
        let variables = if self.eat_kw("variables") {
            true
        } else if self.eat_kw("status") {
            false
        } else {
            return Err(syntax_error(&format!(
                "expected VARIABLES or STATUS {}",
                self.near()
            )));
        };
        let filter = if self.eat_kw("like") {
            let pattern = self.string().ok_or_else(|| {
                syntax_error(&format!("expected a quoted pattern {}", self.near()))
            })?;
            Some(Filter::Like(pattern))
        } else if self.eat_kw("where") {
            Some(Filter::Where(self.or()?))
        } else {
            None
        };
        if !self.at_end() {
            return Err(syntax_error(&format!("unexpected text {}", self.near())));
        }
        Ok(if variables {
            Stmt::ShowVariables(filter)
        } else {
            Stmt::ShowStatus(filter)
        })
    }

    fn or(&mut self) -> Result<Cond, SqlError> {
        let mut left = self.and()?;
        while self.eat_kw("or") {
            left = Cond::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Cond, SqlError> {
        let mut left = self.not()?;
        while self.eat_kw("and") {
            left = Cond::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Cond, SqlError> {
        if self.eat_kw("not") {
            return Ok(Cond::Not(Box::new(self.not()?)));
        }
        if self.eat_sym("(") {
            let inner = self.or()?;
            if !self.eat_sym(")") {
                return Err(syntax_error(&format!("expected ')' {}", self.near())));
            }
            return Ok(inner);
        }
        self.predicate()
    }

    /// `col = 's'`, `col <> 's'`, `col [NOT] LIKE 'p'`, `col [NOT] IN ('a', …)`.
    fn predicate(&mut self) -> Result<Cond, SqlError> {
        let near = self.near();
        let column = self
            .name()
            .ok_or_else(|| syntax_error(&format!("expected a column {near}")))?;
        let col = if column.eq_ignore_ascii_case("variable_name") {
            Col::Name
        } else if column.eq_ignore_ascii_case("value") {
            Col::Value
        } else {
            return Err(SqlError::new(
                &codes::BAD_FIELD,
                format!("Unknown column '{column}' in 'where clause'"),
            ));
        };
        let expect_string = |p: &mut Self| {
            p.string()
                .ok_or_else(|| syntax_error(&format!("expected a quoted string {}", p.near())))
        };
        if self.eat_sym("=") {
            return Ok(Cond::Eq(col, expect_string(self)?));
        }
        if self.eat_sym("<>") || self.eat_sym("!=") {
            return Ok(Cond::Not(Box::new(Cond::Eq(col, expect_string(self)?))));
        }
        let negated = self.eat_kw("not");
        let cond = if self.eat_kw("like") {
            Cond::Like(col, expect_string(self)?)
        } else if self.eat_kw("in") {
            if !self.eat_sym("(") {
                return Err(syntax_error(&format!("expected '(' {}", self.near())));
            }
            let mut list = vec![expect_string(self)?];
            while self.eat_sym(",") {
                list.push(expect_string(self)?);
            }
            if !self.eat_sym(")") {
                return Err(syntax_error(&format!("expected ')' {}", self.near())));
            }
            Cond::In(col, list)
        } else {
            return Err(syntax_error(&format!(
                "expected =, <>, LIKE or IN {}",
                self.near()
            )));
        };
        Ok(if negated {
            Cond::Not(Box::new(cond))
        } else {
            cond
        })
    }

    /// `SELECT @@… [, …] [FROM DUAL] [LIMIT n]`; `None` for any other SELECT.
    fn select(&mut self) -> Option<Result<Stmt, SqlError>> {
        let mut items = Vec::new();
        loop {
            if !self.eat_sym("@@") {
                return None;
            }
            let mut label = String::from("@@");
            let mut name = self.name()?;
            if ["global", "session", "local"]
                .iter()
                .any(|s| name.eq_ignore_ascii_case(s))
                && self.eat_sym(".")
            {
                label.push_str(&name);
                label.push('.');
                name = self.name()?;
            }
            label.push_str(&name);
            if self.eat_kw("as") {
                label = self.name().or_else(|| self.string())?;
            } else if let Some(Tok::Ident(alias) | Tok::Str(alias)) = self.peek() {
                label = alias.clone();
                self.pos += 1;
            } else if matches!(self.peek(), Some(Tok::Word(w))
                if !["from", "limit"].iter().any(|k| w.eq_ignore_ascii_case(k)))
            {
                label = self.name()?;
            }
            items.push(SelectItem { name, label });
            if !self.eat_sym(",") {
                break;
            }
        }
        if self.eat_kw("from") && !self.eat_kw("dual") {
            return None;
        }
        let limit = if self.eat_kw("limit") {
            match self.peek() {
                Some(Tok::Word(w)) => {
                    let n = w.parse().ok()?;
                    self.pos += 1;
                    Some(n)
                }
                _ => return None,
            }
        } else {
            None
        };
        if !self.at_end() {
            return None;
        }
        Some(Ok(Stmt::SelectVars { items, limit }))
    }

    /// `SET [GLOBAL|SESSION] name = value, …` and `SET @@scope.name = value`; `None` for a SET
    /// that is the engine's.
    fn set(&mut self) -> Option<Result<Stmt, SqlError>> {
        // The latest explicit scope applies to the assignments after it, as in MySQL.
        let mut global = false;
        let mut any_global = false;
        let mut assignments: Vec<(bool, String, Option<SetValue>)> = Vec::new();
        loop {
            if self.eat_kw("global") {
                global = true;
            } else if self.eat_kw("session") || self.eat_kw("local") {
                global = false;
            }
            let this_global;
            if self.eat_sym("@@") {
                let first = self.name()?;
                if self.eat_sym(".") {
                    this_global = first.eq_ignore_ascii_case("global");
                    if !this_global
                        && !["session", "local"]
                            .iter()
                            .any(|s| first.eq_ignore_ascii_case(s))
                    {
                        return None;
                    }
                    let name = self.name()?;
                    assignments.push((this_global, name, None));
                } else {
                    this_global = global;
                    assignments.push((this_global, first, None));
                }
            } else {
                // `SET NAMES`, `SET @user = …`, `SET TRANSACTION …` and the like are not ours.
                if self.is_kw("names")
                    || self.is_kw("character")
                    || self.is_kw("charset")
                    || self.is_kw("transaction")
                    || self.is_kw("password")
                    || matches!(self.peek(), Some(Tok::Sym(_)))
                {
                    return None;
                }
                this_global = global;
                let name = self.name()?;
                assignments.push((this_global, name, None));
            }
            any_global |= this_global;
            if !(self.eat_sym("=") || self.eat_sym(":=")) {
                return any_global
                    .then(|| Err(syntax_error(&format!("expected = {}", self.near()))));
            }
            let value = self.set_value();
            if let Some(last) = assignments.last_mut() {
                last.2 = value;
            }
            if !self.eat_sym(",") {
                break;
            }
        }
        let at_end = self.at_end();
        if !any_global {
            // A session SET of one of the node's global tunables is a mistake worth naming; any
            // other session SET is the engine's business.
            let tunable = assignments.iter().find_map(|(_, name, _)| {
                VarId::lookup(name).filter(|id| id.def().config_key().is_some())
            })?;
            return Some(Err(SqlError::new(
                &codes::GLOBAL_VARIABLE,
                format!(
                    "Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL",
                    tunable.def().name
                ),
            )));
        }
        if !at_end {
            return Some(Err(syntax_error(&format!(
                "unexpected text {}",
                self.near()
            ))));
        }
        if assignments.iter().any(|(g, _, _)| !g) {
            return Some(Err(syntax_error(
                "a SET that mixes GLOBAL and session assignments is not supported; split it",
            )));
        }
        let mut out = Vec::with_capacity(assignments.len());
        for (_, name, value) in assignments {
            let Some(value) = value else {
                return Some(Err(syntax_error(&format!(
                    "the value of {name} must be a number, a quoted string, ON, OFF or DEFAULT"
                ))));
            };
            out.push((name, value));
        }
        Some(Ok(Stmt::SetGlobal(out)))
    }

    /// A SET value: `DEFAULT`, a signed integer or product of integers, a word, a string. `None`
    /// (after skipping to the next `,` or the end) for anything else.
    fn set_value(&mut self) -> Option<SetValue> {
        let start = self.pos;
        let value = self.set_value_inner();
        let complete = matches!(self.peek(), None | Some(Tok::Sym(",") | Tok::Sym(";")));
        if value.is_some() && complete {
            return value;
        }
        self.pos = start;
        while !matches!(self.peek(), None | Some(Tok::Sym(",") | Tok::Sym(";"))) {
            self.pos += 1;
        }
        None
    }

    fn set_value_inner(&mut self) -> Option<SetValue> {
        match self.peek()?.clone() {
            Tok::Str(s) => {
                self.pos += 1;
                Some(SetValue::Text(s))
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("default") => {
                self.pos += 1;
                Some(SetValue::Default)
            }
            Tok::Word(w) if !w.starts_with(|c: char| c.is_ascii_digit()) => {
                self.pos += 1;
                Some(SetValue::Word(w.to_owned()))
            }
            Tok::Word(_) | Tok::Sym("-") | Tok::Sym("+") => {
                let mut product = self.signed_int()?;
                while self.eat_sym("*") {
                    product = product.checked_mul(self.signed_int()?)?;
                }
                Some(SetValue::Int(product))
            }
            _ => None,
        }
    }

    fn signed_int(&mut self) -> Option<i64> {
        let negative = if self.eat_sym("-") {
            true
        } else {
            self.eat_sym("+");
            false
        };
        let Some(Tok::Word(w)) = self.peek() else {
            return None;
        };
        let n: i64 = w.parse().ok()?;
        self.pos += 1;
        Some(if negative { -n } else { n })
    }

    /// `CALL xrpc.perf_hist('arg')`; `None` for any other procedure.
    fn call(&mut self) -> Option<Result<Stmt, SqlError>> {
        let schema = self.name()?;
        if !schema.eq_ignore_ascii_case("xrpc") || !self.eat_sym(".") {
            return None;
        }
        let proc_name = self.name()?;
        if !proc_name.eq_ignore_ascii_case("perf_hist") {
            return None;
        }
        let usage = || {
            SqlError::new(
                &codes::WRONG_ARGUMENTS,
                "CALL xrpc.perf_hist takes one argument: 'all', 'reset' or a stage name",
            )
        };
        if !self.eat_sym("(") {
            return Some(Err(usage()));
        }
        let Some(arg) = self.string().or_else(|| self.name()) else {
            return Some(Err(usage()));
        };
        if !self.eat_sym(")") || !self.at_end() {
            return Some(Err(usage()));
        }
        Some(Ok(Stmt::PerfHist(arg)))
    }
}
