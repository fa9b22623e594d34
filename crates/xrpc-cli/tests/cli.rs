//! The `xrpc` binary against a real node started in this process: `exec` in every format, the
//! shell reading stdin, `status`, `bench prepare`, and `bench` runs whose JSON and PNG are checked.
//! What depends on the engine (DECIMAL text, error messages) runs on SQLite and on the mysql
//! engine in front of the binary's shared MariaDB.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use xrpc_server::engine::sqlite::SqliteOptions;
use xrpc_server::server::{Node, NodeBuilder};
use xrpc_server::tls::{TlsContext, TlsFiles};

/// A node on an ephemeral loopback port with its data in a temporary directory (root, no
/// password).
struct TestNode {
    node: Option<Node>,
    _dir: tempfile::TempDir,
}

impl TestNode {
    fn start() -> Self {
        Self::start_with_tls(TlsContext::disabled())
    }

    /// A node on the mysql engine, on a fresh database of the binary's shared MariaDB.
    fn start_mysql() -> Self {
        let url = xrpc_testkit::shared_database().unwrap_or_else(|err| panic!("{err}"));
        let options = xrpc_server::engine::mysql::PoolOptions {
            size: 2,
            ..Default::default()
        };
        let engine = xrpc_server::engine::mysql::MysqlEngine::connect(&url, options)
            .unwrap_or_else(|err| panic!("{err:?}"));
        let node = NodeBuilder::new(Arc::new(engine))
            .loopback("127.0.0.1:0".parse().unwrap())
            .start()
            .unwrap();
        Self {
            node: Some(node),
            _dir: tempfile::tempdir().unwrap(),
        }
    }

    fn start_on(engine: Engine) -> Self {
        match engine {
            Engine::Sqlite => Self::start(),
            Engine::Mysql => Self::start_mysql(),
        }
    }

    fn start_with_tls(tls: TlsContext) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let node = NodeBuilder::sqlite(&dir.path().join("xrpc.db"), SqliteOptions::default())
            .unwrap()
            .loopback("127.0.0.1:0".parse().unwrap())
            .tls(tls)
            .start()
            .unwrap();
        Self {
            node: Some(node),
            _dir: dir,
        }
    }

    fn port(&self) -> String {
        self.node.as_ref().unwrap().local_addr().port().to_string()
    }

    fn target(&self) -> String {
        format!("xrpc://{}", self.node.as_ref().unwrap().local_addr())
    }

    /// Runs `xrpc <args>` with `--port` appended where the command takes one.
    fn xrpc(&self, args: &[&str]) -> Output {
        let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        if matches!(args.first(), Some(&"exec" | &"status" | &"shell")) {
            all.extend(["--port".to_owned(), self.port()]);
        }
        Command::new(env!("CARGO_BIN_EXE_xrpc"))
            .args(&all)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// Runs `xrpc shell` with `input` on stdin.
    fn shell(&self, input: &str, extra: &[&str]) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_xrpc"))
            .args(["shell", "--port", &self.port()])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }
}

/// The engine behind a test's node.
#[derive(Debug, Clone, Copy)]
enum Engine {
    Sqlite,
    Mysql,
}

/// Runs each named `fn(Engine)` once per engine, as the tests `NAME::on_sqlite` and
/// `NAME::on_mysql`.
macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        $(mod $name {
            #[test]
            fn on_sqlite() {
                super::$name(super::Engine::Sqlite)
            }
            #[test]
            fn on_mysql() {
                super::$name(super::Engine::Mysql)
            }
        })*
    };
}

on_both_engines!(
    exec_json_keeps_decimal_digits_and_large_integers,
    a_missing_table_is_reported_in_the_mysql_form,
    status_shows_the_connection_first_like_the_mysql_client,
);

impl Drop for TestNode {
    fn drop(&mut self) {
        if let Some(node) = self.node.take() {
            node.shutdown();
        }
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        stdout(out),
        stderr(out)
    );
    stdout(out)
}

fn people(node: &TestNode) {
    ok(&node.xrpc(&[
        "exec",
        "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, score DOUBLE); \
         INSERT INTO people VALUES (1, 'alice', 1.5), (2, NULL, NULL), (3, 'b,\"c\"', -2)",
    ]));
}

const QUERY: &str = "SELECT id, name, score FROM people ORDER BY id";

#[test]
fn exec_prints_tables_like_the_mysql_client() {
    let node = TestNode::start();
    people(&node);
    assert_eq!(
        ok(&node.xrpc(&["exec", QUERY])),
        "+----+-------+-------+\n\
         | id | name  | score |\n\
         +----+-------+-------+\n\
         |  1 | alice |   1.5 |\n\
         |  2 | NULL  |  NULL |\n\
         |  3 | b,\"c\" |    -2 |\n\
         +----+-------+-------+\n"
    );
    assert_eq!(
        ok(&node.xrpc(&["exec", "UPDATE people SET score = 0 WHERE id > 1"])),
        "Query OK, 2 rows affected\n"
    );
}

#[test]
fn exec_prints_csv_and_json() {
    let node = TestNode::start();
    people(&node);
    assert_eq!(
        ok(&node.xrpc(&["exec", "--format", "csv", QUERY])),
        "id,name,score\n1,alice,1.5\n2,,\n3,\"b,\"\"c\"\"\",-2\n"
    );
    assert_eq!(
        ok(&node.xrpc(&["exec", "--format", "json", QUERY])),
        "[\n{\"statement\":\"SELECT id, name, score FROM people ORDER BY id\",\
         \"columns\":[{\"name\":\"id\",\"type\":\"SINT\"},{\"name\":\"name\",\"type\":\"BYTES\"},\
         {\"name\":\"score\",\"type\":\"DOUBLE\"}],\
         \"rows\":[[1,\"alice\",1.5],[2,null,null],[3,\"b,\\\"c\\\"\",-2.0]],\"warnings\":[]}\n]\n"
    );
}

/// Parses `--format json` output as one document.
fn json_document(text: &str) -> Vec<serde_json::Value> {
    let doc: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: not one document:\n{text}"));
    doc.as_array()
        .unwrap_or_else(|| panic!("not an array: {text}"))
        .clone()
}

#[test]
fn exec_json_is_one_document_for_many_statements_with_columns_in_order() {
    let node = TestNode::start();
    let out = ok(&node.xrpc(&[
        "exec",
        "--format",
        "json",
        "SELECT NULL AS y, '' AS z, 2 AS a; CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v TEXT); \
         INSERT INTO t (v) VALUES ('x'), ('y'); SELECT 2",
    ]));
    let doc = json_document(&out);
    assert_eq!(doc.len(), 4, "{out}");
    let names: Vec<&str> = doc[0]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["y", "z", "a"], "{out}");
    assert_eq!(doc[0]["rows"], serde_json::json!([[null, "", 2]]), "{out}");
    assert_eq!(doc[2]["rows_affected"], 2, "{out}");
    // As on MySQL, the id generated for the first row of a multi-row insert.
    assert_eq!(doc[2]["last_insert_id"], 1, "{out}");
    assert_eq!(doc[3]["statement"], "SELECT 2", "{out}");
}

#[test]
fn exec_json_ends_the_document_with_the_error_that_stopped_the_run() {
    let node = TestNode::start();
    let out = node.xrpc(&["exec", "--format", "json", "SELECT 1; SELEC 2; SELECT 3"]);
    assert_eq!(out.status.code(), Some(1));
    let doc = json_document(&stdout(&out));
    assert_eq!(doc.len(), 2, "{}", stdout(&out));
    assert_eq!(doc[1]["statement"], "SELEC 2");
    assert_eq!(doc[1]["error"]["code"], 1064);
    assert_eq!(doc[1]["error"]["sql_state"], "42000");
    assert!(
        stderr(&out).starts_with("ERROR 1064 (42000): "),
        "{}",
        stderr(&out)
    );
}

fn exec_json_keeps_decimal_digits_and_large_integers(engine: Engine) {
    let node = TestNode::start_on(engine);
    let out = ok(&node.xrpc(&[
        "exec",
        "--format",
        "json",
        "CREATE TABLE amounts (d DECIMAL(6,2), n DECIMAL(4,3), u BIGINT UNSIGNED); \
         INSERT INTO amounts VALUES ('1.50', '-0.100', 9223372036854775807); \
         SELECT d, n, u FROM amounts",
    ]));
    let doc = json_document(&out);
    assert_eq!(
        doc[2]["rows"],
        serde_json::json!([["1.50", "-0.100", "9223372036854775807"]]),
        "{out}"
    );
    assert_eq!(doc[2]["columns"][0]["type"], "DECIMAL", "{out}");
}

fn a_missing_table_is_reported_in_the_mysql_form(engine: Engine) {
    let node = TestNode::start_on(engine);
    let out = node.xrpc(&["exec", "SELECT * FROM nosuch"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("ERROR 1146 (42S02): "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("ERROR 1146 (42S02): Table '") && err.ends_with(".nosuch' doesn't exist\n"),
        "{err}"
    );
}

#[test]
fn a_refused_login_prints_the_servers_error_alone() {
    let node = TestNode::start();
    let out = node.xrpc(&["exec", "--user", "nobody", "SELECT 1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("ERROR 1045 (28000): Access denied for user 'nobody'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_node_that_is_not_there_gets_the_mysql_clients_2003() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port().to_string()
    };
    let out = Command::new(env!("CARGO_BIN_EXE_xrpc"))
        .args(["exec", "--port", &port, "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let expected =
        format!("ERROR 2003 (HY000): Can't connect to xrpc node on '127.0.0.1:{port}' (");
    assert!(stderr(&out).starts_with(&expected), "{}", stderr(&out));
}

#[test]
fn exec_fails_with_the_server_error_and_exit_code_1() {
    let node = TestNode::start();
    let out = node.xrpc(&["exec", "SELECT 1; SELEC 2; SELECT 3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("ERROR 1064 (42000): "),
        "{}",
        stderr(&out)
    );
    // The statement before the error ran and printed; the one after did not.
    assert_eq!(stdout(&out), "+---+\n| 1 |\n+---+\n| 1 |\n+---+\n");
}

#[test]
fn exec_over_tls_checks_the_certificate() {
    let pki = xrpc_testkit::tls::TestPki::new();
    let ca = pki.ca("node");
    let other = pki.ca("other");
    let cert = pki.server_cert(&ca, "node");
    let node = TestNode::start_with_tls(
        TlsContext::load(TlsFiles {
            cert: cert.cert,
            key: cert.key,
            ca: None,
        })
        .unwrap(),
    );
    let ca_file = ca.cert_file.to_str().unwrap();
    let out = ok(&node.xrpc(&[
        "exec",
        "--tls-ca",
        ca_file,
        "SELECT @@xrpc_require_secure_transport AS rst",
    ]));
    assert_eq!(out, "+-----+\n| rst |\n+-----+\n|   0 |\n+-----+\n");
    let status = ok(&node.xrpc(&["status", "--tls-ca", ca_file]));
    assert!(
        status.contains("\nTLS:              Cipher in use is TLSv1_3 TLS13_"),
        "{status}"
    );
    // The name checked is --host's; 127.0.0.1 is in the certificate, example.com is not.
    let out = node.xrpc(&[
        "exec",
        "--tls-ca",
        ca_file,
        "--tls-server-name",
        "example.com",
        "SELECT 1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not valid for name"),
        "{}",
        stderr(&out)
    );
    let out = node.xrpc(&[
        "exec",
        "--tls-ca",
        other.cert_file.to_str().unwrap(),
        "SELECT 1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("UnknownIssuer"), "{}", stderr(&out));
}

#[test]
fn shell_reads_statements_from_stdin() {
    let node = TestNode::start();
    people(&node);
    let out = node.shell(
        "SELECT name FROM people WHERE id = 1; SELECT id\n  FROM people WHERE id > 5;\n\
         -- a comment; not a statement\nUPDATE people SET score = 3 WHERE id = 1;\n",
        &[],
    );
    assert_eq!(
        ok(&out),
        "+-------+\n| name  |\n+-------+\n| alice |\n+-------+\n1 row in set\n\n\
         Empty set\n\nQuery OK, 1 row affected\n\n"
    );
}

#[test]
fn shell_stops_at_the_first_error_unless_forced() {
    let node = TestNode::start();
    let input = "SELECT 1 AS a;\nSELEC 2;\nSELECT 3 AS b;\n";
    let out = node.shell(input, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("ERROR 1064 (42000)"));
    assert!(stdout(&out).contains("| a |") && !stdout(&out).contains("| b |"));
    let forced = node.shell(input, &["--force"]);
    assert_eq!(forced.status.code(), Some(1));
    assert!(stdout(&forced).contains("| b |"));
    // \timing adds the elapsed time to footers; \q ends the input early.
    let timed = node.shell("\\timing\nSELECT 1;\n\\q\nSELECT 2;\n", &[]);
    let text = ok(&timed);
    assert!(text.starts_with("Timing is on.\n"), "{text}");
    assert!(text.contains("1 row in set (0.0"), "{text}");
    assert!(!text.contains("| 2 |"), "{text}");
}

/// The value after `label:` in `xrpc status`'s connection part.
fn status_line(text: &str, label: &str) -> String {
    text.lines()
        .find(|l| l.starts_with(&format!("{label}:")))
        .unwrap_or_else(|| panic!("no {label}: in\n{text}"))
        .split_once(':')
        .unwrap()
        .1
        .trim()
        .to_owned()
}

fn status_shows_the_connection_first_like_the_mysql_client(engine: Engine) {
    let node = TestNode::start_on(engine);
    let text = ok(&node.xrpc(&["status"]));
    let line = |label: &str| status_line(&text, label);
    assert!(line("Connection id").parse::<u64>().unwrap() > 0, "{text}");
    let database = ok(&node.xrpc(&["exec", "--format", "csv", "SELECT DATABASE() AS db"]));
    assert_eq!(
        format!("db\n{}\n", line("Current database")),
        database,
        "{text}"
    );
    assert_eq!(line("Current user"), "root", "{text}");
    assert_eq!(line("TLS"), "Not in use", "{text}");
    // 8.0.32-xrpc-… on SQLite, the backend's version then -xrpc-… on the mysql engine.
    assert!(line("Server version").contains("-xrpc-"), "{text}");
    assert!(line("Protocol").starts_with("PolarDB-X RPC"), "{text}");
    assert_eq!(
        line("Connection"),
        format!("127.0.0.1:{} via TCP/IP", node.port()),
        "{text}"
    );
    // The node's own Uptime, in the mysql client's wording ("5 sec", "1 hour 2 min 5 sec").
    assert!(line("Uptime").ends_with("sec"), "{text}");
    let connection = text.find("Connection id:").unwrap();
    assert!(connection < text.find("Node status").unwrap(), "{text}");
}

#[test]
fn status_shows_the_database_chosen_at_connect() {
    let node = TestNode::start();
    let text = ok(&node.xrpc(&["status", "--database", "main"]));
    assert_eq!(status_line(&text, "Current database"), "main", "{text}");
}

#[test]
fn status_right_aligns_every_number_and_left_aligns_words() {
    let node = TestNode::start();
    let text = ok(&node.xrpc(&["status"]));
    // The padded value cell of a variable's row.
    let value = |name: &str| {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {name} ")))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"));
        row.split('|').nth(2).unwrap().to_owned()
    };
    // The node's table holds both words and numbers; the framework's only numbers.
    let inited = value("xrpc_inited");
    assert!(
        inited.starts_with(" ON ") && inited.trim() == "ON",
        "{text}"
    );
    for name in ["xrpc_tcp_connections", "xrpc_net_base_threads"] {
        let cell = value(name);
        assert!(
            cell.starts_with("  ") && cell.trim().parse::<u64>().is_ok() && !cell.ends_with("  "),
            "{name} not right-aligned in\n{text}"
        );
    }
}

#[test]
fn shell_status_shows_the_connection_and_counters() {
    let node = TestNode::start();
    let text = ok(&node.shell("\\status\n", &[]));
    assert!(text.starts_with("--------------\nConnection id:"), "{text}");
    assert!(text.contains("| xrpc_tcp_connections"), "{text}");
}

#[test]
fn status_shows_variables_and_histograms() {
    let node = TestNode::start();
    let text = ok(&node.xrpc(&["status"]));
    assert!(text.contains("| xrpc_tcp_connections"), "{text}");
    assert!(text.contains("xrpc_net_frames_received"), "{text}");
    assert!(
        text.contains("Stage histograms (CALL xrpc.perf_hist('all'))"),
        "{text}"
    );
}

/// Reads a bench JSON file and returns its only result object.
fn single_result(path: &Path) -> serde_json::Value {
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(doc["machine"]["nproc"].as_u64().unwrap() >= 1, "{doc}");
    assert!(doc["versions"]["xrpc-cli"].is_string(), "{doc}");
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{doc}");
    results[0].clone()
}

fn check_measurement(m: &serde_json::Value) {
    let f = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k} in {m}"));
    assert!(f("qps") > 0.0, "{m}");
    assert!(f("p50_us") > 0.0, "{m}");
    assert!(f("p90_us") >= f("p50_us"), "{m}");
    assert!(f("p99_us") >= f("p90_us"), "{m}");
    assert!(f("p999_us") >= f("p99_us"), "{m}");
    assert_eq!(m["errors"].as_u64(), Some(0), "{m}");
    assert!(f("client_cpu") > 0.0 && f("client_cpu") <= 1.0, "{m}");
}

#[test]
fn bench_select1_writes_json_and_a_png() {
    let node = TestNode::start();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let png = dir.path().join("out.png");
    let out = node.xrpc(&[
        "bench",
        "--target",
        &node.target(),
        "--workload",
        "select1",
        "--duration",
        "2",
        "--warmup",
        "0.5",
        "--concurrency",
        "4",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        png.to_str().unwrap(),
    ]);
    let table = ok(&out);
    assert!(table.contains("| p99 µs"), "{table}");
    assert!(
        table.lines().all(|l| l.chars().count() <= 100),
        "wider than 100 columns:\n{table}"
    );
    assert!(
        stderr(&out).contains(&format!("plot written to {}", png.display())),
        "{}",
        stderr(&out)
    );
    let m = single_result(&json);
    check_measurement(&m);
    assert_eq!(m["workload"], "select1");
    assert_eq!(m["concurrency"], 4);
    assert_eq!(m["connections"], 4);
    assert_eq!(m["target"].as_str(), Some(node.target().as_str()));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[8..16], b"\0\0\0\x0dIHDR", "IHDR comes first");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (1280, 520));
}

#[test]
fn bench_prepare_then_point_select_and_point_get() {
    let node = TestNode::start();
    let target = node.target();
    let out = ok(&node.xrpc(&[
        "bench",
        "prepare",
        "--target",
        &target,
        "--table-size",
        "1000",
    ]));
    assert!(out.contains("sbtest1 created with 1000 rows"), "{out}");
    assert_eq!(
        ok(&node.xrpc(&[
            "exec",
            "--format",
            "csv",
            "SELECT COUNT(*) AS n, MIN(LENGTH(c)) AS c, MAX(LENGTH(pad)) AS pad, \
             MIN(k) >= 1 AND MAX(k) <= 1000 AS k_ok FROM sbtest1",
        ])),
        "n,c,pad,k_ok\n1000,119,59,1\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("point.json");
    ok(&node.xrpc(&[
        "bench",
        "--target",
        &target,
        "--workload",
        "point-select",
        "--duration",
        "1",
        "--warmup",
        "0.2",
        "--concurrency",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]));
    let m = single_result(&json);
    check_measurement(&m);
    assert_eq!(m["workload"], "point-select");
    // The same read as a GET plan, over one connection: the driver thread that owns a single
    // plain connection blocks in `recvfrom` instead of epoll (without a timer while a reply is due).
    let json = dir.path().join("point-get.json");
    ok(&node.xrpc(&[
        "bench",
        "--target",
        &target,
        "--workload",
        "point-get",
        "--duration",
        "1",
        "--warmup",
        "0.2",
        "--concurrency",
        "2",
        "--connections",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]));
    let m = single_result(&json);
    check_measurement(&m);
    assert_eq!(m["workload"], "point-get");
}

#[test]
fn bench_runs_over_tls_against_a_node_that_requires_it() {
    let pki = xrpc_testkit::tls::TestPki::new();
    let ca = pki.ca("node");
    let cert = pki.server_cert(&ca, "node");
    let node = TestNode::start_with_tls(
        TlsContext::load(TlsFiles {
            cert: cert.cert,
            key: cert.key,
            ca: None,
        })
        .unwrap(),
    );
    let ca_file = ca.cert_file.to_str().unwrap();
    let target = node.target();
    // From now on a plain connection is refused: whatever succeeds below went over TLS.
    ok(&node.xrpc(&[
        "exec",
        "--tls-ca",
        ca_file,
        "SET GLOBAL require_secure_transport = ON",
    ]));
    let plain = node.xrpc(&[
        "bench",
        "prepare",
        "--target",
        &target,
        "--table-size",
        "10",
    ]);
    assert!(!plain.status.success(), "{}", stdout(&plain));
    assert!(
        stderr(&plain).contains("require_secure_transport")
            || stdout(&plain).contains("require_secure_transport"),
        "{}{}",
        stdout(&plain),
        stderr(&plain)
    );

    let out = ok(&node.xrpc(&[
        "bench",
        "prepare",
        "--target",
        &target,
        "--table-size",
        "300",
        "--tls-ca",
        ca_file,
    ]));
    assert!(out.contains("sbtest1 created with 300 rows"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("tls.json");
    // Several sessions per connection and requests pipelined: many frames per TLS record.
    ok(&node.xrpc(&[
        "bench",
        "--target",
        &target,
        "--tls-ca",
        ca_file,
        "--workload",
        "point-select",
        "--duration",
        "1",
        "--warmup",
        "0.2",
        "--concurrency",
        "6",
        "--connections",
        "2",
        "--pipeline-depth",
        "4",
        "--json",
        json.to_str().unwrap(),
    ]));
    let m = single_result(&json);
    check_measurement(&m);
    assert_eq!(m["lost_clients"].as_u64(), Some(0), "{m}");
    assert!(
        m["target"].as_str().unwrap().starts_with("xrpc+tls://"),
        "{m}"
    );
    // The echo workload has no TLS to offer.
    let out = node.xrpc(&["bench", "--workload", "echo", "--spawn-echo", "--tls"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("speaks no TLS"), "{}", stderr(&out));
}

#[test]
fn bench_point_select_without_the_table_says_to_prepare() {
    let node = TestNode::start();
    let out = node.xrpc(&[
        "bench",
        "--target",
        &node.target(),
        "--workload",
        "point-select",
        "--duration",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("xrpc bench prepare"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bench_echo_against_an_in_process_echo_server() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("echo.json");
    let out = Command::new(env!("CARGO_BIN_EXE_xrpc"))
        .args([
            "bench",
            "--workload",
            "echo",
            "--spawn-echo",
            "--duration",
            "1",
            "--warmup",
            "0.2",
            "--concurrency",
            "8",
            "--connections",
            "2",
            "--json",
            json.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    ok(&out);
    let m = single_result(&json);
    check_measurement(&m);
    assert_eq!(m["inflight"], 8);
    assert_eq!(m["target"], "echo://in-process");
}

#[test]
fn exec_and_shell_run_in_the_database_named_by_d() {
    let node = TestNode::start();
    ok(&node.xrpc(&[
        "exec",
        "CREATE DATABASE shop; CREATE TABLE shop.t (a INT); INSERT INTO shop.t VALUES (7)",
    ]));
    let query = "SELECT database() AS db, a FROM t";
    let exec = ok(&node.xrpc(&["exec", "-D", "shop", "--format", "csv", query]));
    let shell = ok(&node.shell(&format!("{query};\n"), &["-D", "shop"]));
    assert_eq!(
        [exec.as_str(), shell.as_str()],
        [
            "db,a\nshop,7\n",
            "+------+---+\n| db   | a |\n+------+---+\n| shop | 7 |\n+------+---+\n1 row in set\n\n"
        ]
    );
}
