//! Admin SQL: the statements the node answers itself, before any engine sees them.
//!
//! [`try_admin`] recognises, from the front end's parse tree ([`xrpc_sql::parse_cached`]), a
//! script of one statement that is one of:
//!
//! - `SHOW [GLOBAL|SESSION|LOCAL] VARIABLES [LIKE 'pat' | WHERE cond]`: every variable of
//!   [`Variables`](crate::var_store::Variables), sorted by name, as two text columns `Variable_name` and `Value` (collation
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
//!
//! # Engines with their own variables
//!
//! A MySQL or MariaDB backend has its own system variables and status
//! ([`crate::engine::Engine::owns_system_variables`], passed in as
//! [`AdminContext::engine_owns_variables`]). The node then never shadows them: it answers only
//! its own names ([`crate::vars::is_node_own`]: `xrpc_…`, `new_rpc`, `rpc_port`).
//! `SELECT @@…` is the node's only when every item is its own, and otherwise runs on the backend
//! whole; `SET GLOBAL` likewise (a statement mixing both is refused, as it could not be atomic);
//! `SHOW VARIABLES` and `SHOW STATUS` run on the backend and the node's own rows that pass the
//! same filter follow the backend's ([`AdminOutcome::EngineThenRows`]). `CALL xrpc.perf_hist` is
//! always the node's.
//! - `CALL xrpc.perf_hist('all' | '<stage>' | 'reset')`: the stage histograms' non-empty buckets,
//!   or a reset.
//! - `KILL [HARD | SOFT] [QUERY | CONNECTION] n`: `n` is a session's `connection_id()`, on every
//!   engine (a backend's own thread ids are never exposed, so they cannot be named); QUERY
//!   interrupts its running statement, CONNECTION ends the session as SESS_KILL does, through a
//!   [`SessionKiller`]; an unknown `n` is 1094 "Unknown thread id: n". MariaDB's `KILL QUERY ID`
//!   and `KILL USER` are left to the engine.
//! - `FLUSH HOSTS`: unblocks every client address blocked by `xrpc_max_connect_errors`; the
//!   other FLUSH forms are the engine's.
//! - `ALTER INSTANCE RELOAD TLS`: reads the node's `tls_cert`, `tls_key` and `tls_ca` files again
//!   ([`crate::tls::TlsContext::reload`]); new handshakes use them. A failure (3889) keeps the
//!   previous certificate. Always the node's, whatever the engine: it is the node's TLS.
//!
//! LIKE patterns take `%`, `_` and `\` escapes and match case-insensitively, as MySQL's default
//! collation does. WHERE takes `Variable_name` or `Value` compared with `=`, `<>`/`!=`,
//! `[NOT] LIKE` or `[NOT] IN (…)`, combined with AND, OR, NOT and parentheses.
//!
//! A text the front end cannot read, or a script of several statements, is never admin SQL: it
//! goes to the engine unchanged, which answers it or gives its own error (the `mysql` engine's
//! backend reads more of MySQL's grammar than the front end does, such as MariaDB's `KILL QUERY
//! ID n`).
//!
//! # Cost for other statements
//!
//! `try_admin` runs before every statement on the parse the session already holds (one lookup
//! in the front end's cache per request), and looks first at the statement's
//! [`xrpc_sql::Kind`]: an INSERT or UPDATE is turned away by one comparison, a SELECT by a look
//! at its first item. Nothing allocates until a statement is known to be admin SQL.
//!
//! # Layout
//!
//! - `parse`: the admin statements, read from the parse tree.
//! - `like`: MySQL's case-insensitive LIKE (the front end's `xrpc_sql::like_matches`), for
//!   `SHOW … LIKE` and `WHERE … LIKE`.
//! - `exec`: the entry point [`try_admin`] with its [`AdminContext`] and [`StatusSource`]; runs a
//!   parsed statement against the variables and the status source.
//! - `perf_hist`: `CALL xrpc.perf_hist`, the stage histograms as a result set.
//! - `row`: building result rows (text values).
//!
//! Imports point one way: `mod.rs` → `exec` → `parse`, and `exec` → `like`, `perf_hist` →
//! `row`.

mod exec;
mod like;
mod parse;
mod perf_hist;

mod row;

pub use exec::{AdminContext, AdminOutcome, KillOutcome, SessionKiller, StatusSource, try_admin};
pub use parse::KillScope;

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use xrpc_proto::value::ColumnType;

    use xrpc_net::hist::{PerfHistograms, Stage};
    use xrpc_net::stats::NetStats;
    use xrpc_proto::value::Value;

    use super::row::text;
    use super::*;
    use crate::result::{COLLATION_UTF8MB4, CollectedResult, SqlError};
    use crate::settings::Settings;
    use crate::var_store::Variables;
    use crate::vars::VarId;

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

        fn engine_status(&self) -> Vec<(String, String)> {
            vec![("xrpc_backend_connections".into(), "2".into())]
        }

        fn net_stats(&self) -> NetStats {
            NetStats {
                connections: 3,
                tasks_queued: 11,
                ..NetStats::default()
            }
        }
    }

    /// Knows sessions 7 and 8; records the kills.
    #[derive(Default)]
    struct FakeSessions {
        killed: parking_lot::Mutex<Vec<(u64, KillScope)>>,
    }

    impl SessionKiller for FakeSessions {
        fn kill(&self, number: u64, scope: KillScope, requester: Option<&str>) -> KillOutcome {
            // The node checks ownership (tests/: `check_sql_kill`); here session 9 stands for
            // one the requester may not kill.
            let _ = requester;
            match number {
                7 | 8 => {
                    self.killed.lock().push((number, scope));
                    KillOutcome::Done
                }
                9 => KillOutcome::NotOwner,
                _ => KillOutcome::Unknown,
            }
        }
    }

    struct Node {
        vars: Variables,
        hist: PerfHistograms,
        sessions: FakeSessions,
        hosts: crate::host_block::HostBlocker,
    }

    impl Node {
        fn new() -> Self {
            Self {
                vars: Variables::new(),
                hist: PerfHistograms::new(false),
                sessions: FakeSessions::default(),
                hosts: crate::host_block::HostBlocker::default(),
            }
        }

        fn outcome(
            &self,
            sql: &str,
            engine_owns_variables: bool,
            sink: &mut CollectedResult,
        ) -> AdminOutcome {
            let ctx = AdminContext {
                vars: &self.vars,
                status: &FakeStatus,
                hist: &self.hist,
                sessions: &self.sessions,
                user: None,
                hosts: &self.hosts,
                engine_owns_variables,
                tls: &crate::tls::TlsContext::disabled(),
            };
            let script = xrpc_sql::parse_cached(sql, &xrpc_sql::Options::default());
            try_admin(&script, &ctx, sink)
        }

        fn run(&self, sql: &str) -> Option<Result<CollectedResult, SqlError>> {
            let mut sink = CollectedResult::default();
            match self.outcome(sql, false, &mut sink) {
                AdminOutcome::Engine => None,
                AdminOutcome::EngineThenRows(_) => panic!("{sql}: SQLite-style node deferred"),
                AdminOutcome::Answered(result) => Some(result.map(|summary| {
                    assert_eq!(summary.has_result_set, sink.columns.is_some());
                    sink
                })),
            }
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
            // The session's values, which the engine keeps.
            "select @@autocommit",
            "select @@session.tx_isolation, @@version",
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
            Some("REPEATABLE-READ")
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
        let err = n.err("show variables where value + 1 = 2");
        assert_eq!(err.code, 1064);
        // A text the front end cannot read is the engine's, which gives its own syntax error.
        for sql in [
            "show variables where variable_name = ",
            "show variables like",
            "show variables like 'x' extra",
        ] {
            assert!(n.run(sql).is_none(), "{sql}");
        }
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
        assert!(rows.contains(&("xrpc_backend_connections".to_owned(), "2".to_owned())));
        assert!(rows.contains(&("xrpc_com_select".to_owned(), "0".to_owned())));
        let request_rows = crate::counters::RequestTotals::default()
            .status_rows()
            .len();
        assert_eq!(
            rows.len(),
            4 + 1 + request_rows + NetStats::DESCRIPTORS.len()
        );
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
            "select @@global.new_rpc, @@session.opt_flashback_area AS ac, @@max_allowed_packet, @@system_time_zone tz",
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
                Value::Sint(0),
                Value::Sint(64 << 20),
                text("UTC")
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

    /// On an engine with its own variables the node answers only its own names.
    #[test]
    fn engine_with_own_variables_gets_everything_but_the_nodes_names() {
        let n = Node::new();
        let on_backend = |sql: &str| {
            let mut sink = CollectedResult::default();
            let outcome = n.outcome(sql, true, &mut sink);
            if !matches!(outcome, AdminOutcome::Answered(_)) {
                assert!(sink.columns.is_none(), "{sql}: the engine's to answer");
            }
            outcome
        };
        for sql in [
            "select @@version",
            "SELECT @@sql_mode, @@xrpc_max_sessions",
            "select @@global.max_connections",
            "set global max_connections = 10",
            "select 1",
        ] {
            assert!(
                matches!(on_backend(sql), AdminOutcome::Engine),
                "{sql} should reach the engine"
            );
        }
        for sql in [
            "select @@xrpc_max_sessions, @@global.new_rpc",
            "SET GLOBAL xrpc_max_queued_messages = 64",
            "CALL xrpc.perf_hist('all')",
        ] {
            assert!(
                matches!(on_backend(sql), AdminOutcome::Answered(Ok(_))),
                "{sql} should be the node's"
            );
        }
        assert_eq!(n.vars.max_queued_messages(), 64);
        let AdminOutcome::Answered(Err(err)) =
            on_backend("set global xrpc_max_sessions = 5, max_connections = 5")
        else {
            panic!("a mixed SET GLOBAL must fail");
        };
        assert_eq!(err.code, 1210);
        assert_eq!(n.vars.max_sessions(), 100_000, "nothing was stored");

        let AdminOutcome::EngineThenRows(rows) = on_backend("show variables like '%rpc%'") else {
            panic!("SHOW VARIABLES must reach the engine");
        };
        let names: Vec<_> = rows.iter().map(|r| s(&r[0])).collect();
        assert!(names.contains(&"new_rpc".to_owned()));
        assert!(
            names
                .iter()
                .all(|n| n == "new_rpc" || n == "rpc_port" || n.starts_with("xrpc_"))
        );
        let AdminOutcome::EngineThenRows(rows) = on_backend("show variables like 'version%'")
        else {
            panic!("SHOW VARIABLES must reach the engine");
        };
        assert!(rows.is_empty(), "the backend's version is its own");
        let AdminOutcome::EngineThenRows(rows) =
            on_backend("show global status where variable_name = 'xrpc_sql_hit'")
        else {
            panic!("SHOW STATUS must reach the engine");
        };
        assert_eq!(rows, vec![[text("xrpc_sql_hit"), text("42")]]);
    }

    #[test]
    fn kill_names_sessions_by_number() {
        let n = Node::new();
        assert!(n.ok("KILL 7").columns.is_none());
        n.ok("kill query 8;");
        n.ok("KILL HARD CONNECTION 7");
        n.ok("kill soft query 7");
        assert_eq!(
            *n.sessions.killed.lock(),
            [
                (7, KillScope::Connection),
                (8, KillScope::Query),
                (7, KillScope::Connection),
                (7, KillScope::Query)
            ]
        );
        let err = n.err("KILL QUERY 99");
        assert_eq!(
            (err.code, err.sql_state.as_str(), err.message.as_str()),
            (1094, "HY000", "Unknown thread id: 99")
        );
        let err = n.err("KILL CONNECTION 9");
        assert_eq!(
            (err.code, err.sql_state.as_str(), err.message.as_str()),
            (1095, "HY000", "You are not owner of thread 9")
        );
        // MariaDB's other forms, and texts the front end cannot read, are the engine's.
        for sql in [
            "KILL QUERY ID 5",
            "kill user bob",
            "KILL",
            "KILL CONNECTION x",
            "KILL 7 8",
        ] {
            assert!(n.run(sql).is_none(), "{sql}");
        }
        assert_eq!(n.sessions.killed.lock().len(), 4);
    }

    #[test]
    fn alter_instance_reload_tls_is_the_nodes() {
        let n = Node::new();
        // No TLS configured: the reload fails and says so.
        let err = n.err("alter instance reload tls");
        assert_eq!(err.code, 3889);
        let err = n.err("ALTER INSTANCE RELOAD TLS NO ROLLBACK ON ERROR");
        assert_eq!(err.code, 1064);
    }

    #[test]
    fn scripts_of_several_statements_are_the_engines() {
        let n = Node::new();
        assert!(
            n.run("SET GLOBAL xrpc_max_sessions = 10; select 1")
                .is_none()
        );
        assert!(n.run("show variables; show status").is_none());
        assert_eq!(n.vars.max_sessions(), 100_000);
    }

    #[test]
    fn show_local_and_mariadbs_kill_modes_are_read() {
        let n = Node::new();
        assert_eq!(n.pairs("show local variables like 'new_rpc'").len(), 1);
        n.ok("KILL HARD QUERY 7");
        assert_eq!(*n.sessions.killed.lock(), [(7, KillScope::Query)]);
    }

    #[test]
    fn flush_hosts_unblocks_every_address_and_other_flushes_are_the_engines() {
        let n = Node::new();
        let ip = std::net::IpAddr::from([10, 1, 2, 3]);
        n.hosts.failed(ip, 1);
        assert!(n.hosts.is_blocked(ip, None));
        assert!(n.ok("flush hosts;").columns.is_none());
        assert!(!n.hosts.is_blocked(ip, None));
        assert!(n.run("FLUSH HOSTS now").is_none());
        assert!(n.run("FLUSH TABLES").is_none());
        assert!(n.run("FLUSH PRIVILEGES").is_none());
    }

    #[test]
    fn comments_and_unterminated_strings_through_try_admin() {
        let n = Node::new();
        assert!(n.run("SET GLOBAL xrpc_max_sessions = 'open").is_none());
        assert_eq!(
            n.ok("/* hint */ show /* x */ variables like 'new_rpc'")
                .rows
                .len(),
            1
        );
    }
}
