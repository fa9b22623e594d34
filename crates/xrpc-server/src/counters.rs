//! What the node has done, for an operator: statements by kind, errors by code class, rows sent,
//! sessions opened and closed, in `SHOW STATUS` and on the metrics endpoint.
//!
//! # Statement kinds
//!
//! A statement's kind is the front end's [`xrpc_sql::Kind`] of the request's first statement
//! ([`StatementKind::of_script`], on the parse the session already holds): a script counts as
//! its first statement, and a text the front end cannot read (or that holds no statement) as
//! `other`. EXEC_PLAN_READ is `plan`, AUTO_SP is `transaction`. A request counts once it is taken to run:
//! a digest-only request that misses the cache, a cascaded error (`reset_error = false`) and a
//! request refused before its text is read count as errors only.
//!
//! # Error classes
//!
//! Every error a session answers a request with, or ends with, counts once in the class of its
//! code ([`ErrorClass::of`]), after MySQL's ranges: `server` (below 2000 and 3000–4999: MySQL's
//! server errors, the statement or request failed), `client` (2000–2999: MySQL's client errors,
//! the `mysql` engine lost or could not reach its backend), `xprotocol` (5000–5999: the X
//! Protocol's), `cache_miss` (6000–6999 and 8000–8999: PolarDB-X's digest misses, the client
//! resends), `node` (7000–7999: the node's own, such as session and queue limits), `other`.
//! Errors of the connection itself are not a session's and have a class of their own,
//! `connection` (whatever their code): each refused authentication, and each error that ends a
//! connection (a frame that cannot be decoded or is too large, a refused or blocked connection,
//! no authentication within `connect_timeout`, a failed TLS session). Other answers outside a
//! session (a sid without a session) are not counted.
//!
//! # Cost
//!
//! Each request adds to the counters once, when its answer is written: a few `Relaxed` adds on
//! the worker thread's own stripe ([`xrpc_net::StripedCounters`]), never a cache line shared by
//! every request. Rows are counted in the request's output as they are encoded.

use xrpc_net::StripedCounters;
use xrpc_net::metrics::Exposition;

/// What a statement does; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementKind {
    /// `SELECT`, `WITH … SELECT`, `TABLE`, `VALUES`.
    Select,
    /// `INSERT`, `REPLACE`.
    Insert,
    /// `UPDATE`.
    Update,
    /// `DELETE`.
    Delete,
    /// Schema changes: `CREATE`, `ALTER` (but `ALTER INSTANCE`), `DROP`, `RENAME`, `TRUNCATE`.
    Ddl,
    /// `BEGIN`, `START TRANSACTION`, `COMMIT`, `ROLLBACK`, savepoints, `SET TRANSACTION`,
    /// `XA …`, and AUTO_SP requests.
    Transaction,
    /// `SHOW`, `DESCRIBE`, `SET`, `USE`, `EXPLAIN`, and the statements of the front end's
    /// [`xrpc_sql::Kind::Admin`]: `KILL`, `FLUSH`, `LOCK TABLES`, `ANALYZE`, `GRANT`, `CALL`,
    /// `ALTER INSTANCE`, ….
    Admin,
    /// EXEC_PLAN_READ requests.
    Plan,
    /// A text the front end cannot read, or one without a statement.
    Other,
}

impl StatementKind {
    /// Every kind, in the order of `SHOW STATUS` and the metrics.
    pub const ALL: [Self; 9] = [
        Self::Select,
        Self::Insert,
        Self::Update,
        Self::Delete,
        Self::Ddl,
        Self::Transaction,
        Self::Admin,
        Self::Plan,
        Self::Other,
    ];

    /// The kind's name: the metric label and the suffix of `xrpc_com_<name>`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Select => "select",
            Self::Insert => "insert",
            Self::Update => "update",
            Self::Delete => "delete",
            Self::Ddl => "ddl",
            Self::Transaction => "transaction",
            Self::Admin => "admin",
            Self::Plan => "plan",
            Self::Other => "other",
        }
    }

    /// The kind of a statement text as the front end read it: its first statement's.
    pub fn of_script(script: &xrpc_sql::Script) -> Self {
        let Some(Ok(first)) = script.first() else {
            return Self::Other;
        };
        match first.kind {
            xrpc_sql::Kind::Select => Self::Select,
            xrpc_sql::Kind::Insert => Self::Insert,
            xrpc_sql::Kind::Update => Self::Update,
            xrpc_sql::Kind::Delete => Self::Delete,
            xrpc_sql::Kind::Ddl => Self::Ddl,
            xrpc_sql::Kind::Transaction | xrpc_sql::Kind::Xa => Self::Transaction,
            xrpc_sql::Kind::Set
            | xrpc_sql::Kind::Show
            | xrpc_sql::Kind::Use
            | xrpc_sql::Kind::Plan
            | xrpc_sql::Kind::Admin => Self::Admin,
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// The class of an error code; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Below 2000, and 3000–4999: MySQL's server errors.
    Server,
    /// 2000–2999: MySQL's client errors (the `mysql` engine's backend link).
    Client,
    /// 5000–5999: the X Protocol's errors.
    XProtocol,
    /// 6000–6999 and 8000–8999: digest-cache misses.
    CacheMiss,
    /// 7000–7999: the node's own errors.
    Node,
    /// 9000 and above.
    Other,
}

impl ErrorClass {
    /// Every class, in the order of `SHOW STATUS` and the metrics.
    pub const ALL: [Self; 6] = [
        Self::Server,
        Self::Client,
        Self::XProtocol,
        Self::CacheMiss,
        Self::Node,
        Self::Other,
    ];

    /// The class of error `code`.
    pub const fn of(code: u32) -> Self {
        match code {
            0..=1999 | 3000..=4999 => Self::Server,
            2000..=2999 => Self::Client,
            5000..=5999 => Self::XProtocol,
            6000..=6999 | 8000..=8999 => Self::CacheMiss,
            7000..=7999 => Self::Node,
            _ => Self::Other,
        }
    }

    /// The class's name: the metric label and the suffix of `xrpc_errors_<name>`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Server => "server",
            Self::Client => "client",
            Self::XProtocol => "xprotocol",
            Self::CacheMiss => "cache_miss",
            Self::Node => "node",
            Self::Other => "other",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

const KINDS: usize = StatementKind::ALL.len();
const CLASSES: usize = ErrorClass::ALL.len();
const ERRORS_AT: usize = KINDS;
const ROWS_SENT: usize = ERRORS_AT + CLASSES;
const SESSIONS_OPENED: usize = ROWS_SENT + 1;
const SESSIONS_CLOSED: usize = SESSIONS_OPENED + 1;
const CONNECTION_ERRORS: usize = SESSIONS_CLOSED + 1;
const FIELDS: usize = CONNECTION_ERRORS + 1;
/// The class of [`RequestCounters::connection_error`]: `xrpc_errors_connection`, and the label of
/// `xrpc_errors_total`.
const CONNECTION_CLASS: &str = "connection";

/// The node's request counters; see the [module docs](self).
#[derive(Debug, Default)]
pub struct RequestCounters {
    counts: StripedCounters<FIELDS>,
}

impl RequestCounters {
    /// Counts one answered request: its kind if it ran a statement, the rows its answer
    /// carried, and the code of the error it ended with, if any.
    #[inline]
    pub fn request_done(&self, kind: Option<StatementKind>, rows: u64, error: Option<u32>) {
        let stripe = self.counts.stripe();
        let add = |index: usize, n: u64| {
            stripe[index].fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        };
        if let Some(kind) = kind {
            add(kind.index(), 1);
        }
        if rows > 0 {
            add(ROWS_SENT, rows);
        }
        if let Some(code) = error {
            add(ERRORS_AT + ErrorClass::of(code).index(), 1);
        }
    }

    /// Counts an error a session ended with (a FATAL that is its last frame).
    pub fn error(&self, code: u32) {
        self.request_done(None, 0, Some(code));
    }

    /// Counts an error of a connection rather than a session: a refused authentication, or an
    /// error that ends the connection (see the [module docs](self)).
    pub fn connection_error(&self) {
        self.counts.add(CONNECTION_ERRORS, 1);
    }

    /// Counts a session opened with SESS_NEW.
    pub fn session_opened(&self) {
        self.counts.add(SESSIONS_OPENED, 1);
    }

    /// Counts a session opened with SESS_NEW that ended (closed, killed, failed, or with its
    /// connection).
    pub fn session_closed(&self) {
        self.counts.add(SESSIONS_CLOSED, 1);
    }

    /// The totals now.
    pub fn totals(&self) -> RequestTotals {
        RequestTotals {
            counts: self.counts.sum(),
        }
    }
}

/// The totals of [`RequestCounters`] at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestTotals {
    counts: [u64; FIELDS],
}

impl Default for RequestTotals {
    fn default() -> Self {
        Self {
            counts: [0; FIELDS],
        }
    }
}

impl RequestTotals {
    /// Statements of `kind` run.
    pub fn statements(&self, kind: StatementKind) -> u64 {
        self.counts[kind.index()]
    }

    /// Errors of `class` answered.
    pub fn errors(&self, class: ErrorClass) -> u64 {
        self.counts[ERRORS_AT + class.index()]
    }

    /// Errors of connections: refused authentications and errors that ended a connection.
    pub fn connection_errors(&self) -> u64 {
        self.counts[CONNECTION_ERRORS]
    }

    /// The `SHOW STATUS` rows: `xrpc_com_<kind>` per kind and `xrpc_questions` (their sum, as
    /// MySQL's `Com_*` and `Questions`), `xrpc_errors_<class>` per class and `xrpc_errors`,
    /// `xrpc_rows_sent`, `xrpc_sessions_opened` and `xrpc_sessions_closed`. The classes include
    /// `connection` (`xrpc_errors_connection`).
    pub fn status_rows(&self) -> Vec<(String, String)> {
        let mut rows = Vec::with_capacity(FIELDS + 2);
        for kind in StatementKind::ALL {
            rows.push((
                format!("xrpc_com_{}", kind.name()),
                self.statements(kind).to_string(),
            ));
        }
        let questions: u64 = StatementKind::ALL.iter().map(|&k| self.statements(k)).sum();
        rows.push(("xrpc_questions".to_owned(), questions.to_string()));
        for class in ErrorClass::ALL {
            rows.push((
                format!("xrpc_errors_{}", class.name()),
                self.errors(class).to_string(),
            ));
        }
        rows.push((
            format!("xrpc_errors_{CONNECTION_CLASS}"),
            self.connection_errors().to_string(),
        ));
        let errors: u64 =
            ErrorClass::ALL.iter().map(|&c| self.errors(c)).sum::<u64>() + self.connection_errors();
        rows.push(("xrpc_errors".to_owned(), errors.to_string()));
        for (name, index) in [
            ("xrpc_rows_sent", ROWS_SENT),
            ("xrpc_sessions_opened", SESSIONS_OPENED),
            ("xrpc_sessions_closed", SESSIONS_CLOSED),
        ] {
            rows.push((name.to_owned(), self.counts[index].to_string()));
        }
        rows
    }

    /// The metrics: `xrpc_statements_total{kind}`, `xrpc_errors_total{class}`,
    /// `xrpc_rows_sent_total`, `xrpc_sessions_opened_total`, `xrpc_sessions_closed_total`.
    pub fn write_metrics(&self, exp: &mut Exposition) {
        let kinds: Vec<(&str, f64)> = StatementKind::ALL
            .iter()
            .map(|&k| (k.name(), self.statements(k) as f64))
            .collect();
        exp.labeled_counter(
            "xrpc_statements",
            "Statements run, by the kind of their first keyword (plan: EXEC_PLAN_READ). \
             SHOW STATUS: xrpc_com_<kind>.",
            "kind",
            &kinds,
        );
        let mut classes: Vec<(&str, f64)> = ErrorClass::ALL
            .iter()
            .map(|&c| (c.name(), self.errors(c) as f64))
            .collect();
        classes.push((CONNECTION_CLASS, self.connection_errors() as f64));
        exp.labeled_counter(
            "xrpc_errors",
            "Errors sessions answered or ended with, by code class: server (<2000, 3000-4999), \
             client (2000-2999), xprotocol (5000-5999), cache_miss (6000-6999, 8000-8999), \
             node (7000-7999), other; and connection: refused authentications and errors that \
             ended a connection.",
            "class",
            &classes,
        );
        exp.counter(
            "xrpc_rows_sent",
            "Result rows encoded for clients.",
            self.counts[ROWS_SENT] as f64,
        );
        exp.counter(
            "xrpc_sessions_opened",
            "Sessions opened with SESS_NEW.",
            self.counts[SESSIONS_OPENED] as f64,
        );
        exp.counter(
            "xrpc_sessions_closed",
            "Sessions opened with SESS_NEW that ended.",
            self.counts[SESSIONS_CLOSED] as f64,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_the_front_ends_kind() {
        for (sql, kind) in [
            ("select 1", StatementKind::Select),
            ("  /* c */ SELECT @@version", StatementKind::Select),
            (
                "with t as (select 1) select * from t",
                StatementKind::Select,
            ),
            ("insert into t values (1)", StatementKind::Insert),
            ("REPLACE into t values (1)", StatementKind::Insert),
            ("update t set a = 1", StatementKind::Update),
            ("delete from t", StatementKind::Delete),
            ("create table t (a int)", StatementKind::Ddl),
            ("alter table t add b int", StatementKind::Ddl),
            ("alter instance reload tls", StatementKind::Admin),
            ("drop table t", StatementKind::Ddl),
            ("truncate t", StatementKind::Ddl),
            ("begin", StatementKind::Transaction),
            ("start transaction", StatementKind::Transaction),
            ("commit", StatementKind::Transaction),
            ("rollback to savepoint a", StatementKind::Transaction),
            ("SAVEPOINT a", StatementKind::Transaction),
            ("show status", StatementKind::Admin),
            ("set global xrpc_max_sessions = 5", StatementKind::Admin),
            ("use db", StatementKind::Admin),
            ("kill 5", StatementKind::Admin),
            ("explain select 1", StatementKind::Admin),
            ("call xrpc.perf_hist('all')", StatementKind::Admin),
            ("xa start 'x'", StatementKind::Transaction),
            ("(select 1)", StatementKind::Select),
            ("select 1; delete from t", StatementKind::Select),
            ("selec 1", StatementKind::Other),
            ("", StatementKind::Other),
            ("-- only a comment\n", StatementKind::Other),
        ] {
            let script = xrpc_sql::parse_cached(sql, &xrpc_sql::Options::default());
            assert_eq!(StatementKind::of_script(&script), kind, "{sql}");
        }
    }

    #[test]
    fn error_classes_follow_the_code_ranges() {
        for (code, class) in [
            (167, ErrorClass::Server),
            (1064, ErrorClass::Server),
            (1999, ErrorClass::Server),
            (2003, ErrorClass::Client),
            (2013, ErrorClass::Client),
            (3140, ErrorClass::Server),
            (5000, ErrorClass::XProtocol),
            (6000, ErrorClass::CacheMiss),
            (7003, ErrorClass::Node),
            (8000, ErrorClass::CacheMiss),
            (9000, ErrorClass::Other),
        ] {
            assert_eq!(ErrorClass::of(code), class, "{code}");
        }
    }

    #[test]
    fn totals_add_up_in_rows_and_metrics() {
        let counters = RequestCounters::default();
        counters.request_done(Some(StatementKind::Select), 3, None);
        counters.request_done(Some(StatementKind::Select), 1, Some(1146));
        counters.request_done(Some(StatementKind::Plan), 0, None);
        counters.error(7003);
        counters.connection_error();
        counters.session_opened();
        let totals = counters.totals();
        assert_eq!(totals.statements(StatementKind::Select), 2);
        assert_eq!(totals.errors(ErrorClass::Server), 1);
        let rows = totals.status_rows();
        let value = |name: &str| {
            rows.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
                .unwrap_or_else(|| panic!("{name} missing"))
        };
        assert_eq!(value("xrpc_com_select"), "2");
        assert_eq!(value("xrpc_com_plan"), "1");
        assert_eq!(value("xrpc_questions"), "3");
        assert_eq!(value("xrpc_errors_server"), "1");
        assert_eq!(value("xrpc_errors_node"), "1");
        assert_eq!(value("xrpc_errors_connection"), "1");
        assert_eq!(value("xrpc_errors"), "3");
        assert_eq!(value("xrpc_rows_sent"), "4");
        assert_eq!(value("xrpc_sessions_opened"), "1");
        assert_eq!(value("xrpc_sessions_closed"), "0");
        let mut exp = Exposition::new();
        totals.write_metrics(&mut exp);
        let text = exp.render();
        assert!(
            text.contains("xrpc_statements_total{kind=\"select\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("xrpc_errors_total{class=\"node\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("xrpc_errors_total{class=\"connection\"} 1\n"),
            "{text}"
        );
        assert!(text.contains("xrpc_rows_sent_total 4\n"), "{text}");
    }
}
