//! Admin SQL: the statements the node answers itself, before any engine sees them.
//!
//! [`try_admin`] recognises, case-insensitively, with any whitespace, comments and trailing `;`:
//!
//! - `SHOW [GLOBAL|SESSION|LOCAL] VARIABLES [LIKE 'pat' | WHERE cond]`: every variable of
//!   [`Variables`], sorted by name, as two text columns `Variable_name` and `Value` (collation
//!   utf8mb4, never binary: the Java client decodes only non-binary columns as text).
//! - `SHOW [GLOBAL|SESSION|LOCAL] STATUS [LIKE 'pat' | WHERE cond]`: the node's status from a
//!   [`StatusSource`], plus the framework's counters as `xrpc_net_<name>`, in the same two columns.
//! - `SET GLOBAL name = value [, …]` and `SET @@global.name = value`: every assignment is checked
//!   (name, access, kind, range) before any is stored, so a statement changes all its variables or
//!   none. A session-scope SET of an `xrpc_` tunable gets 1229; other session SETs (`SET
//!   autocommit = 0`, `SET NAMES …`) are the engine's.
//! - `SELECT @@[global.|session.|local.]name [[AS] alias] [, …] [FROM DUAL] [LIMIT n]`: one row;
//!   integers and ON/OFF values as BIGINT (MySQL gives `SELECT @@autocommit` as 1), the rest as
//!   text. The values are the node's global ones: session overrides live in the engine.
//! - `CALL xrpc.perf_hist('all' | '<stage>' | 'reset')`: the stage histograms' non-empty buckets,
//!   or a reset.
//!
//! LIKE patterns take `%`, `_` and `\` escapes and match case-insensitively, as MySQL's default
//! collation does. WHERE takes `Variable_name` or `Value` compared with `=`, `<>`/`!=`,
//! `[NOT] LIKE` or `[NOT] IN (…)`, combined with AND, OR, NOT and parentheses.
//!
//! # Cost for other statements
//!
//! `try_admin` runs before every statement, so it first looks at the leading keyword without
//! allocating, and lexes only statements that start like admin SQL (`SHOW VARIABLES`, `SELECT @@`,
//! a `SET` that mentions `global` or `xrpc_`, a `CALL` of `perf_hist`). Everything else returns
//! `None` at once.

use bytes::Bytes;
use xrpc_net::hist::{PerfHistograms, Stage, format_duration};
use xrpc_net::stats::NetStats;
use xrpc_proto::codes;
use xrpc_proto::value::Value;

use crate::result::{ColumnInfo, ExecSummary, ResultSink, SqlError};
use crate::vars::{SetValue, VarId, VarKind, VarValue, Variables, unknown_variable};

/// Where `SHOW STATUS` and the metrics endpoint get the node's status. The node implements it.
pub trait StatusSource: Send + Sync {
    /// The node's status variables, each `(name, value)`: `xrpc_inited` (`ON`/`OFF`),
    /// `xrpc_tcp_connections`, `xrpc_tcp_closing`, `xrpc_worker_sessions`, `xrpc_total_sessions`,
    /// `xrpc_threads`, `xrpc_sql_hit`, `xrpc_sql_miss`, `xrpc_sql_evict`, ….
    fn status(&self) -> Vec<(String, String)>;

    /// The framework's counters; `SHOW STATUS` lists them as `xrpc_net_<name>`, and the metrics
    /// endpoint exports them with their gauge or counter types.
    fn net_stats(&self) -> NetStats;
}

/// What admin SQL reads and changes.
#[derive(Clone, Copy)]
pub struct AdminContext<'a> {
    /// The live variables.
    pub vars: &'a Variables,
    /// The node's status.
    pub status: &'a dyn StatusSource,
    /// The framework's stage histograms (`xrpc_enable_perf_hist` switches them).
    pub hist: &'a PerfHistograms,
}

impl std::fmt::Debug for AdminContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminContext").finish_non_exhaustive()
    }
}

/// Runs `sql` if it is admin SQL, pushing any result set into `sink`; `None` when it is not, and
/// the engine should run it.
pub fn try_admin(
    sql: &str,
    ctx: &AdminContext<'_>,
    sink: &mut dyn ResultSink,
) -> Option<Result<ExecSummary, SqlError>> {
    let stmt = match parse(sql)? {
        Ok(stmt) => stmt,
        Err(err) => return Some(Err(err)),
    };
    Some(execute(stmt, ctx, sink))
}

/// The two columns of `SHOW VARIABLES` and `SHOW STATUS`.
fn name_value_columns() -> [ColumnInfo; 2] {
    [ColumnInfo::text("Variable_name"), ColumnInfo::text("Value")]
}

fn text(s: impl Into<String>) -> Value {
    Value::Bytes(Bytes::from(s.into()))
}

fn execute(
    stmt: Stmt,
    ctx: &AdminContext<'_>,
    sink: &mut dyn ResultSink,
) -> Result<ExecSummary, SqlError> {
    let result_set = ExecSummary {
        has_result_set: true,
        ..ExecSummary::default()
    };
    match stmt {
        Stmt::ShowVariables(filter) => {
            let rows = ctx
                .vars
                .snapshot()
                .into_iter()
                .map(|(name, value)| (name.to_owned(), value.to_string()));
            show(rows, filter.as_ref(), sink)?;
            Ok(result_set)
        }
        Stmt::ShowStatus(filter) => {
            let mut rows = ctx.status.status();
            rows.extend(
                ctx.status
                    .net_stats()
                    .rows()
                    .into_iter()
                    .map(|(name, value)| (format!("xrpc_net_{name}"), value.to_string())),
            );
            rows.sort_by_cached_key(|(name, _)| name.to_ascii_lowercase());
            show(rows.into_iter(), filter.as_ref(), sink)?;
            Ok(result_set)
        }
        Stmt::SetGlobal(assignments) => {
            let prepared = assignments
                .iter()
                .map(|(name, value)| ctx.vars.prepare_set(name, value))
                .collect::<Result<Vec<_>, _>>()?;
            for (id, value) in prepared {
                if id == VarId::EnablePerfHist {
                    ctx.hist.set_enabled(value.as_bool().unwrap_or(false));
                }
                ctx.vars.commit_set(id, value);
            }
            Ok(ExecSummary::default())
        }
        Stmt::SelectVars { items, limit } => {
            let mut columns = Vec::with_capacity(items.len());
            let mut row = Vec::with_capacity(items.len());
            for item in &items {
                let id = VarId::lookup(&item.name).ok_or_else(|| unknown_variable(&item.name))?;
                let (column, value) = match (id.target().def().kind, ctx.vars.get(id)) {
                    (_, VarValue::Bool(b)) => {
                        (ColumnInfo::bigint(&item.label), Value::Sint(i64::from(b)))
                    }
                    (VarKind::Int { .. }, VarValue::Int(n)) => {
                        (ColumnInfo::bigint(&item.label), Value::Sint(n))
                    }
                    (_, other) => (ColumnInfo::text(&item.label), text(other.to_string())),
                };
                columns.push(column);
                row.push(value);
            }
            sink.metadata(&columns)?;
            if limit != Some(0) {
                sink.row(&row)?;
            }
            Ok(result_set)
        }
        Stmt::PerfHist(arg) => perf_hist(&arg, ctx.hist, sink),
    }
}

/// Sends the `(name, value)` rows that pass `filter`.
fn show(
    rows: impl Iterator<Item = (String, String)>,
    filter: Option<&Filter>,
    sink: &mut dyn ResultSink,
) -> Result<(), SqlError> {
    sink.metadata(&name_value_columns())?;
    for (name, value) in rows {
        let keep = match filter {
            None => true,
            Some(Filter::Like(pattern)) => like(pattern, &name),
            Some(Filter::Where(cond)) => cond.eval(&name, &value),
        };
        if keep {
            sink.row(&[text(name), text(value)])?;
        }
    }
    Ok(())
}

/// `CALL xrpc.perf_hist(arg)`.
fn perf_hist(
    arg: &str,
    hist: &PerfHistograms,
    sink: &mut dyn ResultSink,
) -> Result<ExecSummary, SqlError> {
    let stage = match arg.trim() {
        a if a.eq_ignore_ascii_case("reset") => {
            hist.reset();
            return Ok(ExecSummary::default());
        }
        a if a.eq_ignore_ascii_case("all") => None,
        a => Some(Stage::from_name(a).ok_or_else(|| {
            let names: Vec<_> = Stage::ALL.iter().map(|s| s.name()).collect();
            SqlError::new(
                &codes::WRONG_ARGUMENTS,
                format!(
                    "Unknown perf_hist stage '{a}'; expected 'all', 'reset' or one of {}",
                    names.join(", ")
                ),
            )
        })?),
    };
    let columns = [
        ColumnInfo::text("stage"),
        ColumnInfo::text("lower"),
        ColumnInfo::text("upper"),
        ColumnInfo::bigint_unsigned("count"),
        ColumnInfo::double("percent"),
        ColumnInfo::double("cumulative_percent"),
    ];
    sink.metadata(&columns)?;
    // Percentages keep three decimals: the buckets are 25% wide, more digits mean nothing.
    let round = |p: f64| (p * 1000.0).round() / 1000.0;
    for row in hist.render_table(stage) {
        sink.row(&[
            text(row.stage),
            text(format_duration(row.lower)),
            text(format_duration(row.upper)),
            Value::Uint(row.count),
            Value::Double(round(row.percent)),
            Value::Double(round(row.cumulative_percent)),
        ])?;
    }
    Ok(ExecSummary {
        has_result_set: true,
        ..ExecSummary::default()
    })
}

/// MySQL LIKE: `%` any run, `_` one character, `\` takes the next character literally;
/// case-insensitive.
fn like(pattern: &str, text: &str) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum P {
        Any,
        One,
        Lit(char),
    }
    let mut pat = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        pat.push(match c {
            '%' => P::Any,
            '_' => P::One,
            '\\' => P::Lit(chars.next().unwrap_or('\\')),
            c => P::Lit(c),
        });
    }
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let text: Vec<char> = text.chars().map(fold).collect();
    // Greedy match with one backtrack point: the last `%` and where its run started.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pat.get(p) {
            Some(P::Any) => {
                star = Some((p, t));
                p += 1;
            }
            Some(P::One) => {
                p += 1;
                t += 1;
            }
            Some(P::Lit(c)) if fold(*c) == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pat[p..].iter().all(|x| *x == P::Any)
}

/// A parsed admin statement.
#[derive(Debug, PartialEq)]
enum Stmt {
    ShowVariables(Option<Filter>),
    ShowStatus(Option<Filter>),
    SetGlobal(Vec<(String, SetValue)>),
    SelectVars {
        items: Vec<SelectItem>,
        limit: Option<u64>,
    },
    PerfHist(String),
}

/// `LIKE 'pat'` or `WHERE cond` of a SHOW.
#[derive(Debug, PartialEq)]
enum Filter {
    Like(String),
    Where(Cond),
}

/// One `@@name` of a SELECT.
#[derive(Debug, PartialEq)]
struct SelectItem {
    /// The variable name as written.
    name: String,
    /// The column name: the alias, or the item as written (`@@global.version`).
    label: String,
}

/// A column of SHOW output.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Col {
    Name,
    Value,
}

/// A WHERE condition over SHOW output.
#[derive(Debug, PartialEq)]
enum Cond {
    Or(Box<Cond>, Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    Eq(Col, String),
    Like(Col, String),
    In(Col, Vec<String>),
}

impl Cond {
    fn eval(&self, name: &str, value: &str) -> bool {
        let col = |c: Col| if c == Col::Name { name } else { value };
        match self {
            Cond::Or(a, b) => a.eval(name, value) || b.eval(name, value),
            Cond::And(a, b) => a.eval(name, value) && b.eval(name, value),
            Cond::Not(c) => !c.eval(name, value),
            Cond::Eq(c, s) => col(*c).to_lowercase() == s.to_lowercase(),
            Cond::Like(c, p) => like(p, col(*c)),
            Cond::In(c, list) => {
                let v = col(*c).to_lowercase();
                list.iter().any(|s| s.to_lowercase() == v)
            }
        }
    }
}

/// Parses `sql` if it is admin SQL: `None` when it is not, an error when it is but is malformed.
fn parse(sql: &str) -> Option<Result<Stmt, SqlError>> {
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
    }
}

/// Which statement the leading keyword announces.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Show,
    Select,
    Set,
    Call,
}

fn syntax_error(detail: &str) -> SqlError {
    SqlError::new(
        &codes::PARSE_ERROR,
        format!("You have an error in your SQL syntax: {detail}"),
    )
}

/// The first word of `sql` after whitespace and comments, and the text after it.
fn leading_word(sql: &str) -> Option<(&str, &str)> {
    let s = skip_space_and_comments(sql);
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (end > 0).then(|| (&s[..end], &s[end..]))
}

/// `s` without leading whitespace and comments.
fn skip_space_and_comments(mut s: &str) -> &str {
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

fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// A token of admin SQL.
#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
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
fn lex(sql: &str) -> Result<Vec<Tok<'_>>, String> {
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use xrpc_proto::value::ColumnType;

    use super::*;
    use crate::result::{COLLATION_UTF8MB4, CollectedResult};

    struct FakeStatus;

    impl StatusSource for FakeStatus {
        fn status(&self) -> Vec<(String, String)> {
            vec![
                ("xrpc_tcp_connections".into(), "3".into()),
                ("xrpc_inited".into(), "ON".into()),
                ("xrpc_sql_hit".into(), "42".into()),
                ("xrpc_sql_miss".into(), "7".into()),
            ]
        }

        fn net_stats(&self) -> NetStats {
            NetStats {
                connections: 3,
                tasks_queued: 11,
                ..NetStats::default()
            }
        }
    }

    struct Node {
        vars: Variables,
        hist: PerfHistograms,
    }

    impl Node {
        fn new() -> Self {
            Self {
                vars: Variables::new(),
                hist: PerfHistograms::new(false),
            }
        }

        fn run(&self, sql: &str) -> Option<Result<CollectedResult, SqlError>> {
            let ctx = AdminContext {
                vars: &self.vars,
                status: &FakeStatus,
                hist: &self.hist,
            };
            let mut sink = CollectedResult::default();
            Some(try_admin(sql, &ctx, &mut sink)?.map(|summary| {
                assert_eq!(summary.has_result_set, sink.columns.is_some());
                sink
            }))
        }

        fn ok(&self, sql: &str) -> CollectedResult {
            self.run(sql)
                .unwrap_or_else(|| panic!("{sql} is not admin SQL"))
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
        }

        fn err(&self, sql: &str) -> SqlError {
            self.run(sql)
                .unwrap_or_else(|| panic!("{sql} is not admin SQL"))
                .expect_err(sql)
        }

        /// The `(name, value)` rows of a SHOW.
        fn pairs(&self, sql: &str) -> Vec<(String, String)> {
            self.ok(sql)
                .rows
                .iter()
                .map(|r| (s(&r[0]), s(&r[1])))
                .collect()
        }
    }

    fn s(v: &Value) -> String {
        match v {
            Value::Bytes(b) => String::from_utf8(b.to_vec()).unwrap(),
            other => panic!("not text: {other:?}"),
        }
    }

    #[test]
    fn other_statements_are_not_admin() {
        let n = Node::new();
        for sql in [
            "select 1",
            "select connection_id()",
            "SET autocommit = 0",
            "set names utf8mb4",
            "SET @a = 1",
            "set sql_mode = ''",
            "SET SESSION transaction_isolation = 'SERIALIZABLE'",
            "show tables",
            "SHOW CREATE TABLE t",
            "call other.proc()",
            "insert into t values ('show variables')",
            "begin",
            "",
            "   ;",
            "select @@version, now()",
            "select @@version from t",
        ] {
            assert!(n.run(sql).is_none(), "{sql}");
        }
    }

    #[test]
    fn show_variables_lists_everything_as_text() {
        let n = Node::new();
        let result = n.ok("SHOW VARIABLES");
        let columns = result.columns.unwrap();
        assert_eq!(columns.len(), 2);
        assert_eq!(columns[0].name, "Variable_name");
        assert_eq!(columns[1].name, "Value");
        for c in &columns {
            assert_eq!(c.x_type, ColumnType::Bytes);
            assert_eq!(c.collation, COLLATION_UTF8MB4);
        }
        assert_eq!(result.rows.len(), VarId::ALL.len());
        let all = n.pairs("  show   GLOBAL\n variables ;");
        let get = |name: &str| all.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        assert_eq!(get("new_rpc").as_deref(), Some("ON"));
        assert_eq!(get("xrpc_max_queued_messages").as_deref(), Some("128"));
        assert_eq!(
            get("transaction_isolation").as_deref(),
            Some("SERIALIZABLE")
        );
        assert_eq!(get("innodb_mark_distributed").as_deref(), Some("OFF"));
        assert_eq!(get("character_set_client").as_deref(), Some("utf8mb4"));
        assert!(get("version").unwrap().starts_with("8.0.32-xrpc-"));
    }

    #[test]
    fn show_variables_like_filters_case_insensitively() {
        let n = Node::new();
        assert_eq!(
            n.pairs("show variables like '%PERF_hist%'"),
            vec![("xrpc_enable_perf_hist".to_owned(), "OFF".to_owned())]
        );
        let names: Vec<_> = n
            .pairs("SHOW SESSION VARIABLES LIKE 'character\\_set\\_%'")
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            names,
            [
                "character_set_client",
                "character_set_connection",
                "character_set_database",
                "character_set_results",
                "character_set_server"
            ]
        );
        assert_eq!(n.pairs("show variables like 'xrpc_tcp_send_bu_'").len(), 1);
        assert!(n.pairs("show variables like 'nothing%'").is_empty());
        // The underscore is a wildcard unless escaped.
        assert_eq!(n.pairs("show variables like 'new_rpc'").len(), 1);
        assert!(n.pairs("show variables like 'new\\_rpcx'").is_empty());
    }

    #[test]
    fn show_variables_where() {
        let n = Node::new();
        assert_eq!(
            n.pairs("show global variables where Variable_name = 'NEW_RPC'"),
            vec![("new_rpc".to_owned(), "ON".to_owned())]
        );
        let rows = n.pairs(
            "show variables where `variable_name` in ('time_zone', 'system_time_zone') or (variable_name like 'xrpc_galaxy%' and value <> 'OFF')",
        );
        let names: Vec<_> = rows.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["system_time_zone", "time_zone", "xrpc_galaxy_version"]
        );
        let err = n.err("show variables where nope = 'x'");
        assert_eq!(
            (err.code, err.message.as_str()),
            (1054, "Unknown column 'nope' in 'where clause'")
        );
        let err = n.err("show variables where variable_name = ");
        assert_eq!(err.code, 1064);
        let err = n.err("show variables like");
        assert_eq!(err.code, 1064);
        let err = n.err("show variables like 'x' extra");
        assert_eq!(err.code, 1064);
    }

    #[test]
    fn show_status_merges_node_and_framework_counters() {
        let n = Node::new();
        let rows = n.pairs("SHOW GLOBAL STATUS");
        let names: Vec<_> = rows.iter().map(|(n, _)| n.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(rows.contains(&("xrpc_inited".to_owned(), "ON".to_owned())));
        assert!(rows.contains(&("xrpc_net_tasks_queued".to_owned(), "11".to_owned())));
        assert_eq!(rows.len(), 4 + NetStats::DESCRIPTORS.len());
        assert_eq!(
            n.pairs("show status like 'xrpc_sql%'"),
            vec![
                ("xrpc_sql_hit".to_owned(), "42".to_owned()),
                ("xrpc_sql_miss".to_owned(), "7".to_owned())
            ]
        );
        assert_eq!(
            n.pairs("show status where variable_name = 'xrpc_net_connections'"),
            vec![("xrpc_net_connections".to_owned(), "3".to_owned())]
        );
    }

    #[test]
    fn set_global_in_and_out_of_range() {
        let n = Node::new();
        let r = n.ok("SET GLOBAL xrpc_max_queued_messages = 256");
        assert!(r.columns.is_none());
        assert_eq!(n.vars.max_queued_messages(), 256);
        n.ok("set @@global.xrpc_max_queued_messages:=16*2;");
        assert_eq!(n.vars.max_queued_messages(), 32);
        n.ok("SET GLOBAL xrpc_max_queued_messages = '64'");
        assert_eq!(n.vars.max_queued_messages(), 64);

        let err = n.err("SET GLOBAL xrpc_max_queued_messages = 5");
        assert_eq!((err.code, err.sql_state.as_str()), (1231, "42000"));
        assert_eq!(
            err.message,
            "Variable 'xrpc_max_queued_messages' can't be set to the value of '5' (allowed 16..=4096)"
        );
        let err = n.err("SET GLOBAL xrpc_max_queued_messages = -1");
        assert_eq!(err.code, 1231);
        let err = n.err("SET GLOBAL xrpc_max_queued_messages = ON");
        assert_eq!(err.code, 1231);
        assert_eq!(n.vars.max_queued_messages(), 64);

        n.ok("SET GLOBAL xrpc_max_queued_messages = DEFAULT");
        assert_eq!(n.vars.max_queued_messages(), 128);
    }

    #[test]
    fn set_global_read_only_and_unknown() {
        let n = Node::new();
        let err = n.err("SET GLOBAL xrpc_epoll_threads_per_group = 8");
        assert_eq!((err.code, err.sql_state.as_str()), (1238, "HY000"));
        assert_eq!(
            err.message,
            "Variable 'xrpc_epoll_threads_per_group' is a read only variable"
        );
        let err = n.err("SET GLOBAL version = 'x'");
        assert_eq!(err.code, 1238);
        let err = n.err("set global no_such_var = 1");
        assert_eq!((err.code, err.sql_state.as_str()), (1193, "HY000"));
        assert_eq!(err.message, "Unknown system variable 'no_such_var'");
        let err = n.err("SET xrpc_max_sessions = 10");
        assert_eq!(err.code, 1229);
        let err = n.err("SET SESSION xrpc_max_sessions = 10");
        assert_eq!(err.code, 1229);
        let err = n.err("SET GLOBAL xrpc_max_sessions = now()");
        assert_eq!(err.code, 1064);
        let err = n.err("SET GLOBAL xrpc_max_sessions = 10, SESSION autocommit = 1");
        assert_eq!(err.code, 1064);
    }

    #[test]
    fn set_global_is_all_or_nothing() {
        let n = Node::new();
        let err = n.err("SET GLOBAL xrpc_max_sessions = 10, xrpc_max_queued_messages = 1");
        assert_eq!(err.code, 1231);
        assert_eq!(n.vars.max_sessions(), 100_000, "nothing was stored");
        n.ok("SET GLOBAL xrpc_max_sessions = 10, @@global.xrpc_auth_max_failures = 3");
        assert_eq!(n.vars.max_sessions(), 10);
        assert_eq!(n.vars.auth_max_failures(), 3);
    }

    #[test]
    fn set_global_perf_hist_switches_the_histograms() {
        let n = Node::new();
        n.ok("set global xrpc_enable_perf_hist = 'ON'");
        assert!(n.hist.is_enabled());
        assert!(n.vars.perf_hist_enabled());
        assert_eq!(
            n.pairs("show variables like '%perf_hist%'"),
            vec![("xrpc_enable_perf_hist".to_owned(), "ON".to_owned())]
        );
        n.ok("set global xrpc_enable_perf_hist = OFF");
        assert!(!n.hist.is_enabled());
    }

    #[test]
    fn select_system_variables() {
        let n = Node::new();
        let r = n.ok("SELECT @@version_comment LIMIT 1");
        assert_eq!(r.columns.as_ref().unwrap()[0].name, "@@version_comment");
        assert_eq!(r.rows.len(), 1);

        let r = n.ok(
            "select @@global.new_rpc, @@session.autocommit AS ac, @@max_allowed_packet, @@time_zone tz",
        );
        let cols = r.columns.unwrap();
        let names: Vec<_> = cols.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["@@global.new_rpc", "ac", "@@max_allowed_packet", "tz"]
        );
        assert_eq!(cols[0].x_type, ColumnType::Sint);
        assert_eq!(cols[3].x_type, ColumnType::Bytes);
        assert_eq!(
            r.rows,
            vec![vec![
                Value::Sint(1),
                Value::Sint(1),
                Value::Sint(64 << 20),
                text("SYSTEM")
            ]]
        );
        assert!(n.ok("select @@version limit 0").rows.is_empty());
        let err = n.err("select @@nope");
        assert_eq!(
            (err.code, err.message.as_str()),
            (1193, "Unknown system variable 'nope'")
        );
    }

    #[test]
    fn perf_hist_all_stage_reset_and_unknown() {
        let n = Node::new();
        n.hist.set_enabled(true);
        n.hist.record(Stage::Run, Duration::from_micros(10));
        n.hist.record(Stage::Run, Duration::from_micros(10));
        n.hist.record(Stage::Decode, Duration::from_nanos(300));

        let r = n.ok("CALL xrpc.perf_hist('all')");
        let cols: Vec<_> = r.columns.unwrap().iter().map(|c| c.name.clone()).collect();
        assert_eq!(
            cols,
            [
                "stage",
                "lower",
                "upper",
                "count",
                "percent",
                "cumulative_percent"
            ]
        );
        assert_eq!(r.rows.len(), 2);
        assert_eq!(s(&r.rows[0][0]), "decode");
        assert_eq!(r.rows[1][3], Value::Uint(2));
        assert_eq!(r.rows[1][4], Value::Double(100.0));

        let r = n.ok("call `xrpc`.`perf_hist` ( 'RUN' );");
        assert_eq!(r.rows.len(), 1);
        assert_eq!(s(&r.rows[0][0]), "run");

        let r = n.ok("CALL xrpc.perf_hist('reset')");
        assert!(r.columns.is_none());
        assert!(n.ok("CALL xrpc.perf_hist('all')").rows.is_empty());

        let err = n.err("CALL xrpc.perf_hist('warp')");
        assert_eq!(err.code, 1210);
        assert_eq!(
            err.message,
            "Unknown perf_hist stage 'warp'; expected 'all', 'reset' or one of work_queue, recv_first, recv_all, decode, schedule, run"
        );
        assert_eq!(n.err("CALL xrpc.perf_hist()").code, 1210);
    }

    #[test]
    fn like_matches_mysql() {
        assert!(like("%", ""));
        assert!(like("a%c", "ABBBC"));
        assert!(like("a_c", "abc"));
        assert!(!like("a_c", "abbc"));
        assert!(like("%a%b%", "xxaxxbxx"));
        assert!(!like("%a%b", "xxaxxbxxc"));
        assert!(like("100\\%", "100%"));
        assert!(!like("100\\%", "1000"));
        assert!(like("x\\_y", "x_y"));
        assert!(!like("x\\_y", "xzy"));
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
        let n = Node::new();
        assert_eq!(n.err("SET GLOBAL xrpc_max_sessions = 'open").code, 1064);
        assert_eq!(
            n.ok("/* hint */ show /* x */ variables like 'new_rpc'")
                .rows
                .len(),
            1
        );
    }
}
