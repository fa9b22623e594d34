//! Fault tests: each is named after what it proves, runs on loopback only, and is bounded in time
//! and count.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Client, Outcome, TestNode, sql_stmt};
use rand::Rng;
use xrpc_proto::codes;
use xrpc_proto::frame::{HeaderFormat, encode_message_frame};
use xrpc_proto::messages::{ClientType, ServerMessage, pb};
use xrpc_proto::value::Value;
use xrpc_server::engine::mysql::{MysqlEngine, PoolOptions};
use xrpc_testkit::MariaDb;

/// Kill rounds to run; the loop also stops at [`KILL_ROUNDS_BUDGET`].
const KILL_ROUNDS: u32 = 3000;
/// Kill rounds on the `mysql` engine, where a kill that lands mid-statement opens a connection
/// to the backend.
const MYSQL_KILL_ROUNDS: u32 = 500;
/// Wall-clock bound of the kill loop, so a node that loses kills (each lost kill costs a whole
/// statement) still ends the test in time.
const KILL_ROUNDS_BUDGET: Duration = Duration::from_secs(40);
/// The latest a kill is sent after its statement.
const MAX_KILL_DELAY: Duration = Duration::from_micros(1500);

/// A statement that never ends by itself (the count has no bound), so only a kill ends it: any
/// answer but 1317 is a kill the node lost, however late a loaded machine lets the kill leave
/// the client. A lost kill leaves the statement running, and the round's read times out.
fn endless_count() -> pb::sql::StmtExecute {
    sql_stmt(
        "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n",
    )
}

fn kill_query() -> pb::session::KillSession {
    pb::session::KillSession {
        r#type: pb::session::kill_session::KillType::Query as i32,
        x_session_id: 0,
    }
}

/// Waits `delay`: spinning below a scheduler tick, so short delays really are short.
fn pause(delay: Duration) {
    if delay >= Duration::from_micros(300) {
        std::thread::sleep(delay);
    } else {
        let until = Instant::now() + delay;
        while Instant::now() < until {
            std::hint::spin_loop();
        }
    }
}

/// What a run of kills found.
#[derive(Debug, Default)]
struct KillReport {
    rounds: u32,
    lost: u32,
    stray_kills: u32,
    /// The delays of the first lost kills (`None`: in the same write as the statement).
    lost_delays: Vec<Option<Duration>>,
}

/// Runs up to `rounds` statements `stmt` on session 1 of `client`, each followed by a
/// `SESS_KILL QUERY` at a random moment around its start: in the same write as the statement
/// (the request is still queued), a few microseconds later (the worker is registering it), or
/// up to [`MAX_KILL_DELAY`] later (it runs). `was_killed` tells a killed statement's outcome from
/// a completed one's. Now and then it also sends a kill while the session is idle, and checks that
/// the next statement is not stopped by it.
fn kill_rounds(
    client: &mut Client,
    stmt: &pb::sql::StmtExecute,
    rounds: u32,
    budget: Duration,
    was_killed: impl Fn(&Outcome) -> bool,
) -> KillReport {
    let mut rng = xrpc_testkit::rng::seeded_rng();
    let deadline = Instant::now() + budget;
    let mut report = KillReport::default();
    while report.rounds < rounds && Instant::now() < deadline {
        report.rounds += 1;
        let round = report.rounds;
        let delay = match rng.gen_range(0..3) {
            0 => None,
            1 => Some(Duration::from_micros(rng.gen_range(0..50))),
            _ => Some(Duration::from_micros(
                rng.gen_range(0..MAX_KILL_DELAY.as_micros() as u64),
            )),
        };
        match delay {
            None => {
                let mut frames = Vec::new();
                encode_message_frame(
                    &mut frames,
                    HeaderFormat::Standard,
                    1,
                    ClientType::ExecSql.id(),
                    stmt,
                );
                encode_message_frame(
                    &mut frames,
                    HeaderFormat::Standard,
                    1,
                    ClientType::KillSession.id(),
                    &kill_query(),
                );
                client.send_raw(&frames);
            }
            Some(delay) => {
                client.send_sql(1, stmt.clone());
                pause(delay);
                client.send(1, ClientType::KillSession, &kill_query());
            }
        }
        // The client's read gives up after 20 s: the statement is still running, its kill lost.
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| client.read_outcome(1)))
                .unwrap_or_else(|_| {
                    panic!("round {round}: no answer; the kill (delay {delay:?}) was lost")
                });
        if let Some(err) = &outcome.error {
            assert_eq!(
                (err.code, err.sql_state.as_str()),
                (codes::QUERY_INTERRUPTED.code, "70100"),
                "round {round}: a kill ends the statement with 1317, not {err:?}"
            );
        } else if !was_killed(&outcome) {
            report.lost += 1;
            if report.lost_delays.len() < 20 {
                report.lost_delays.push(delay);
            }
        }
        if rng.gen_ratio(1, 8) {
            report.stray_kills += 1;
            client.send(1, ClientType::KillSession, &kill_query());
            let outcome = client.query(1, &format!("select {round}"));
            assert!(
                outcome.error.is_none(),
                "round {round}: a kill sent while the session was idle stopped the next statement: {:?}",
                outcome.error
            );
            assert_eq!(outcome.scalar(), &Value::Sint(i64::from(round)));
        }
    }
    report
}

/// A `SESS_KILL QUERY` sent at any moment around a statement's start always ends that statement
/// with 1317 (see [`kill_rounds`]), on the SQLite engine; a kill sent while the session is idle is
/// a no-op.
#[test]
fn kill_is_never_lost() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    // The statement cannot end by itself: any answer but an error is a lost kill.
    let report = kill_rounds(
        &mut client,
        &endless_count(),
        KILL_ROUNDS,
        KILL_ROUNDS_BUDGET,
        |_| false,
    );
    eprintln!("kill_is_never_lost: {report:?}");
    assert_eq!(
        report.lost, 0,
        "{} of {} kills were lost; delays of the first ones (None = same write): {:?}",
        report.lost, report.rounds, report.lost_delays
    );
    assert!(
        report.rounds >= 1000,
        "only {} rounds ran within {KILL_ROUNDS_BUDGET:?}; too few to mean anything",
        report.rounds
    );
}

/// The same on the `mysql` engine in front of a MariaDB started for the test: a kill before the
/// statement reaches the backend fails it there, one after goes to the backend as `KILL QUERY`.
/// `SELECT SLEEP(…)` answers 1 when a kill interrupts it; it sleeps far longer than the client's
/// read waits, so a lost kill cannot pass as a statement that ended on its own.
#[test]
fn kill_is_never_lost_on_the_mysql_engine() {
    let db = MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
    let engine = Arc::new(MysqlEngine::connect(&db.url(), PoolOptions::default()).unwrap());
    let node = TestNode::start_with_engine(engine, |_, _| {});
    let mut client = node.client();
    client.new_session(1);
    let report = kill_rounds(
        &mut client,
        &sql_stmt("SELECT SLEEP(3600)"),
        MYSQL_KILL_ROUNDS,
        KILL_ROUNDS_BUDGET,
        |outcome| outcome.scalar() == &Value::Sint(1),
    );
    eprintln!("kill_is_never_lost_on_the_mysql_engine: {report:?}");
    assert_eq!(
        report.lost, 0,
        "{} of {} kills were lost; delays of the first ones (None = same write): {:?}",
        report.lost, report.rounds, report.lost_delays
    );
    assert!(
        report.rounds >= 100,
        "only {} rounds ran within {KILL_ROUNDS_BUDGET:?}; too few to mean anything",
        report.rounds
    );
}

/// A kill stops one request, the oldest one not answered: requests pipelined behind it run.
#[test]
fn a_kill_stops_one_request_and_those_queued_behind_it_run() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    client.send_sql(1, endless_count());
    client.send_sql(1, sql_stmt("select 7"));
    client.send(1, ClientType::KillSession, &kill_query());
    let killed = client.read_outcome(1);
    assert_eq!(
        killed.error.map(|err| err.code),
        Some(codes::QUERY_INTERRUPTED.code)
    );
    assert_eq!(client.read_outcome(1).scalar(), &Value::Sint(7));
}

/// Client hosts for the throttling test: distinct loopback addresses.
const ATTACKER: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));
const NEIGHBOUR: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 3));

/// The first frame on sid 0, which must be an error.
fn connection_error(client: &mut Client) -> pb::Error {
    match client.recv_on(0) {
        Some(ServerMessage::Error(err)) => err,
        other => panic!("expected an error on sid 0, got {other:?}"),
    }
}

/// Wrong passwords from one address block it (1129, FATAL, before any password is tried, on new
/// connections and at the next AuthenticateStart of one it already has); the right password from
/// another address works at once, and from the blocked one only after `FLUSH HOSTS`.
#[test]
fn auth_bruteforce_is_throttled() {
    const MAX_CONNECT_ERRORS: i64 = 6;
    let node = TestNode::start_with(|_, shared| {
        common::set_var(shared, "max_connect_errors", MAX_CONNECT_ERRORS);
    });
    let mut admin = node.client();
    admin.new_session(1);

    // A connection opened before the block, authenticated later.
    let mut early = Client::connect_with(node.addr(), Some(ATTACKER), None);
    // Two wrong passwords per connection, over three connections: six in a row.
    for _ in 0..MAX_CONNECT_ERRORS / 2 {
        let mut attacker = Client::connect_with(node.addr(), Some(ATTACKER), None);
        for _ in 0..2 {
            let err = attacker.authenticate("app", "guess").unwrap_err();
            assert_eq!(
                (err.code, err.sql_state.as_str()),
                (1045, "28000"),
                "{err:?}"
            );
        }
    }
    assert_eq!(
        common::status_value(&mut admin, 1, "xrpc_blocked_hosts"),
        "1"
    );

    // Blocked: refused at once with FATAL 1129 on sid 0, then closed; the right password no
    // longer gets a chance from there.
    let mut blocked = Client::connect_with(node.addr(), Some(ATTACKER), None);
    let err = connection_error(&mut blocked);
    assert_eq!(
        (err.code, err.sql_state.as_str(), err.severity),
        (codes::HOST_BLOCKED.code, "HY000", Some(1)),
        "{err:?}"
    );
    assert_eq!(
        err.msg,
        "Host '127.0.0.2' is blocked because of many connection errors; unblock with 'FLUSH HOSTS'"
    );
    assert!(blocked.is_closed_by_server(Duration::from_secs(5)));
    early.send(
        0,
        ClientType::AuthenticateStart,
        &pb::session::AuthenticateStart {
            mech_name: "MYSQL41".into(),
            ..Default::default()
        },
    );
    assert_eq!(connection_error(&mut early).code, codes::HOST_BLOCKED.code);
    assert!(early.is_closed_by_server(Duration::from_secs(5)));

    // Another address is not affected: the right password works at once.
    let started = Instant::now();
    let mut neighbour = Client::connect_with(node.addr(), Some(NEIGHBOUR), None);
    neighbour
        .authenticate("app", "s3cret")
        .expect("another host authenticates");
    neighbour.new_session(1);
    assert_eq!(neighbour.query(1, "select 1").scalar(), &Value::Sint(1));
    assert!(started.elapsed() < Duration::from_secs(5));

    // FLUSH HOSTS unblocks; the right password then works from the attacker's address too.
    let flushed = admin.query(1, "FLUSH HOSTS");
    assert!(flushed.error.is_none(), "{:?}", flushed.error);
    assert_eq!(
        common::status_value(&mut admin, 1, "xrpc_blocked_hosts"),
        "0"
    );
    let mut forgiven = Client::connect_with(node.addr(), Some(ATTACKER), None);
    forgiven.authenticate("app", "s3cret").expect("unblocked");

    // A success resets the count: five more failures do not block, the sixth does.
    for _ in 0..MAX_CONNECT_ERRORS - 1 {
        let mut attacker = Client::connect_with(node.addr(), Some(ATTACKER), None);
        attacker.authenticate("app", "guess").unwrap_err();
    }
    let mut still_allowed = Client::connect_with(node.addr(), Some(ATTACKER), None);
    still_allowed.authenticate("app", "guess").unwrap_err();
    let mut blocked = Client::connect_with(node.addr(), Some(ATTACKER), None);
    assert_eq!(
        connection_error(&mut blocked).code,
        codes::HOST_BLOCKED.code
    );
}

/// A database that cannot grow (`max_page_count`, as a full disk): writes fail with 1114 and undo
/// themselves, a transaction that hit it can be rolled back, reads keep working throughout, space
/// freed by a delete is written again, and `PRAGMA integrity_check` is clean afterwards.
#[test]
fn disk_full_keeps_reads() {
    const MAX_PAGES: u32 = 64;
    let options = xrpc_server::engine::sqlite::SqliteOptions {
        max_page_count: Some(MAX_PAGES),
        ..Default::default()
    };
    let node = TestNode::start_with_sqlite(options, |_, _| {});
    let mut client = node.client();
    client.new_session(1);
    client.new_session(2);
    let ok = |outcome: Outcome| assert!(outcome.error.is_none(), "{:?}", outcome.error);
    ok(client.query(
        1,
        "create table t (id int auto_increment primary key, v text)",
    ));
    let filler = "x".repeat(2000);

    let mut written = 0i64;
    let full = loop {
        assert!(written < 1000, "{MAX_PAGES} pages never filled up");
        let outcome = client.query(1, &format!("insert into t (v) values ('{filler}')"));
        match outcome.error {
            None => written += 1,
            Some(err) => break err,
        }
    };
    assert_eq!(
        (full.code, full.sql_state.as_str()),
        (codes::TABLE_FULL.code, "HY000"),
        "{full:?}"
    );
    assert!(full.msg.starts_with("The table is full"), "{}", full.msg);
    // Reads keep working, on this session and another, and see every acknowledged row.
    assert_eq!(
        client.query(1, "select count(*) from t").scalar(),
        &Value::Sint(written)
    );
    assert_eq!(
        client.query(2, "select count(*) from t").scalar(),
        &Value::Sint(written)
    );

    // In a transaction: the failing statement's rows are gone, the earlier ones roll back.
    ok(client.query(2, "begin"));
    ok(client.query(2, "delete from t where id = 1"));
    let err = client
        .query(
            2,
            &format!("insert into t (v) values ('{filler}'), ('{filler}'), ('{filler}')"),
        )
        .error
        .expect("still full");
    assert_eq!(err.code, codes::TABLE_FULL.code);
    ok(client.query(2, "rollback"));
    assert_eq!(
        client.query(1, "select count(*) from t").scalar(),
        &Value::Sint(written)
    );

    // Freed space is used again.
    ok(client.query(1, "delete from t where id <= 5"));
    ok(client.query(1, &format!("insert into t (v) values ('{filler}')")));
    assert_eq!(
        client.query(2, "select count(*) from t").scalar(),
        &Value::Sint(written - 4)
    );
    // PRAGMA is not for clients (the authorizer refuses it): the file is checked directly, as
    // an operator would, while the node still has it open.
    let file = rusqlite::Connection::open_with_flags(
        node.dir.path().join("xrpc.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let check: String = file
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

/// What `xrpc-server` did with a damaged database file: its exit status and its stderr.
fn start_on_damaged(
    damage: impl FnOnce(&std::path::Path),
) -> (std::process::ExitStatus, String, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("xrpc.db");
    damage(&db);
    let port = common::free_port();
    let output = common::server_command()
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--data-dir")
        .arg(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run xrpc-server");
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
        db,
    )
}

/// A database file that is not one, and one whose schema page is damaged: start-up stops with
/// exit status 1 and one line naming the file; no panic, nothing listens.
#[test]
fn corrupt_database_refuses_to_start() {
    let not_a_database = |db: &std::path::Path| {
        std::fs::write(db, vec![0x5a; 64 * 1024]).unwrap();
    };
    let damaged_schema = |db: &std::path::Path| {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.execute_batch(
            "create table t (id integer primary key, v text); insert into t values (1, 'a');",
        )
        .unwrap();
        drop(conn);
        let mut bytes = std::fs::read(db).unwrap();
        // Page 1 holds the schema's b-tree after the 100-byte file header.
        for byte in &mut bytes[100..180] {
            *byte = 0xff;
        }
        std::fs::write(db, bytes).unwrap();
    };
    for (case, damage) in [
        (
            "not a database",
            &not_a_database as &dyn Fn(&std::path::Path),
        ),
        ("damaged schema", &damaged_schema),
    ] {
        let (status, stderr, db) = start_on_damaged(damage);
        assert_eq!(
            status.code(),
            Some(1),
            "{case}: {status}; stderr:\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{case}: {stderr}");
        assert!(!stderr.contains("ready"), "{case}: it started: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{case}: one line expected:\n{stderr}");
        assert!(
            lines[0].contains(&db.display().to_string()),
            "{case}: the line names the file: {}",
            lines[0]
        );
        eprintln!("{case}: {}", lines[0]);
    }
}

/// A statement whose result is `rows` rows of about 500 bytes each.
fn big_result(rows: u32) -> String {
    let pad = "p".repeat(500);
    format!(
        "with recursive n(i) as (select 1 union all select i + 1 from n where i < {rows}) \
         select i, '{pad}' from n"
    )
}

/// Runs `select 1` in a loop on `clients` fresh connections until `stop`, counting completed
/// requests in `done`.
fn steady_load(
    addr: std::net::SocketAddr,
    clients: usize,
    stop: &Arc<std::sync::atomic::AtomicBool>,
    done: &Arc<std::sync::atomic::AtomicU64>,
) -> Vec<std::thread::JoinHandle<()>> {
    use std::sync::atomic::Ordering;
    (0..clients)
        .map(|_| {
            let (stop, done) = (Arc::clone(stop), Arc::clone(done));
            let mut client = Client::connect(addr);
            client.authenticate("root", "").unwrap();
            client.new_session(1);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    assert_eq!(client.query(1, "select 1").scalar(), &Value::Sint(1));
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect()
}

/// Requests the load completed during `window`.
fn completed_during(done: &std::sync::atomic::AtomicU64, window: Duration) -> u64 {
    let before = done.load(std::sync::atomic::Ordering::Relaxed);
    std::thread::sleep(window);
    done.load(std::sync::atomic::Ordering::Relaxed) - before
}

/// A client that stops reading in the middle of a large result: its send blocks one worker, and
/// at `net_write_timeout` its connection (only it) is closed; sessions on other connections are
/// served all along, at a rate compared with the same load without the stuck client.
#[test]
fn slow_reader_only_hurts_itself() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use xrpc_server::admin::StatusSource;
    const WRITE_TIMEOUT: Duration = Duration::from_secs(3);
    const WINDOW: Duration = Duration::from_millis(1500);
    let node = TestNode::start_with(|net, _| net.net_write_timeout = WRITE_TIMEOUT);
    let stats = || node.node().shared().net_stats();

    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let load = steady_load(node.addr(), 3, &stop, &done);
    let unhindered = completed_during(&done, WINDOW);

    // 20 000 rows of 500 bytes: far more than the socket buffers hold.
    let mut slow = Client::connect_with(node.addr(), None, Some(4096));
    slow.authenticate("root", "").unwrap();
    slow.new_session(1);
    let sent = Instant::now();
    slow.send_sql(1, sql_stmt(&big_result(20_000)));
    common::wait_until(
        Duration::from_secs(10),
        "the slow reader's send never blocked",
        || stats().stalled_threads >= 1,
    );
    let stuck_at = sent.elapsed();
    let while_stuck = completed_during(&done, WINDOW);
    assert!(
        stats().stalled_threads >= 1 && stats().write_timeouts == 0,
        "the window must lie inside the stuck send"
    );

    // Closed at net_write_timeout, and counted.
    common::wait_until(
        WRITE_TIMEOUT * 4,
        "net_write_timeout never closed the slow connection",
        || stats().write_timeouts == 1,
    );
    let closed_after = sent.elapsed();
    assert!(slow.is_closed_by_server(Duration::from_secs(10)));
    let after = completed_during(&done, WINDOW);
    stop.store(true, Ordering::Relaxed);
    for thread in load {
        thread.join().expect("a steady client failed");
    }
    eprintln!(
        "slow_reader_only_hurts_itself: select 1 completed per {WINDOW:?}: {unhindered} without \
         the slow reader, {while_stuck} while its send was stuck, {after} after; stuck after \
         {stuck_at:?}, closed after {closed_after:?} (net_write_timeout {WRITE_TIMEOUT:?})"
    );
    assert!(
        closed_after >= WRITE_TIMEOUT && closed_after < stuck_at + WRITE_TIMEOUT * 3,
        "closed after {closed_after:?}"
    );
    // Loose bounds: two cores shared with other jobs make rates noisy (runs measured 15–95 % of
    // the unhindered rate while stuck, most of them 70–80 %), but a node that stopped serving
    // others during the stuck send would complete (almost) none.
    assert!(
        while_stuck * 20 >= unhindered && while_stuck >= 100,
        "others were served {while_stuck} times while the slow reader was stuck, {unhindered} without it"
    );
    assert_eq!(
        stats().write_timeouts,
        1,
        "only the slow connection timed out"
    );
    // The steady clients closed as their threads ended; the node sees it a moment later.
    common::wait_until(Duration::from_secs(10), "connections stay open", || {
        stats().connections == 0
    });
}

/// The node's session, connection and engine-pool counts (`SHOW STATUS`) and its fds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Footprint {
    connections: String,
    worker_sessions: String,
    total_sessions: String,
    engine_borrowed: String,
    engine_opened: String,
    fds: usize,
}

fn footprint(server: &common::ServerProcess, observer: &mut Client) -> Footprint {
    let mut status = |name: &str| common::status_value(observer, 1, name);
    Footprint {
        connections: status("xrpc_tcp_connections"),
        worker_sessions: status("xrpc_worker_sessions"),
        total_sessions: status("xrpc_total_sessions"),
        engine_borrowed: status("xrpc_engine_borrowed"),
        engine_opened: status("xrpc_engine_opened"),
        fds: common::fd_count(server.pid()),
    }
}

/// Clients that reset their connection mid-transaction and mid-result (several sessions each):
/// their transactions roll back (the rows are gone, the write lock is free), their engine
/// connections go back to the pool clean (none is dropped and reopened), and the node's session,
/// connection, borrowed-engine-connection and fd counts return to their baseline.
#[test]
fn vanished_client_frees_everything() {
    const ROUNDS: u64 = 10;
    let dir = tempfile::tempdir().unwrap();
    let server = common::ServerProcess::spawn(dir.path(), &dir.path().join("log"), &[]);
    let mut observer = server.client();
    observer.new_session(1);
    let ok = |outcome: Outcome| assert!(outcome.error.is_none(), "{:?}", outcome.error);
    ok(observer.query(1, "create table t (id integer primary key, v text)"));
    ok(observer.query(1, &format!("insert into t {}", big_result(5000))));

    // One client: session 1 holds a transaction with a write, session 2 a large result it stops
    // reading, session 3 a (read) transaction mid-result; then it resets the connection.
    let vanish = |round: u64, server: &common::ServerProcess, observer: &mut Client| {
        let mut victim = Client::connect_with(server.addr, None, Some(4096));
        victim.authenticate("root", "").unwrap();
        for sid in 1..=3 {
            victim.new_session(sid);
        }
        let id = 100_000 + round * 10;
        ok(victim.query(1, "begin"));
        ok(victim.query(1, &format!("insert into t values ({id}, 'lost')")));
        ok(victim.query(3, "begin"));
        // SQLite has one writer, session 1: this one holds a read snapshot.
        ok(victim.query(3, &format!("select v from t where id = {}", round + 1)));
        victim.send_sql(2, sql_stmt("select * from t"));
        victim.send_sql(3, sql_stmt("select * from t"));
        victim.read_some(64 * 1024);
        victim.reset();
        // The observer then writes where the lost transactions wrote: the locks are free.
        common::wait_until(
            Duration::from_secs(20),
            "the victim's connection stays",
            || common::status_value(observer, 1, "xrpc_tcp_connections") == "1",
        );
        ok(observer.query(1, &format!("insert into t values ({}, 'kept')", id + 1)));
        let lost = observer.query(1, "select count(*) from t where v = 'lost'");
        assert_eq!(
            lost.scalar(),
            &Value::Sint(0),
            "round {round}: a lost transaction committed"
        );
    };

    // The first round warms the engine pool up (it opens the connections the victim's
    // sessions use); the baseline is taken after it.
    vanish(0, &server, &mut observer);
    let settled = |observer: &mut Client, baseline: &Footprint| {
        let mut last = None;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let now = footprint(&server, observer);
            if &now == baseline {
                return now;
            }
            assert!(
                Instant::now() < deadline,
                "the node did not return to its baseline {baseline:?}: {now:?} (before: {last:?})"
            );
            last = Some(now);
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let baseline = footprint(&server, &mut observer);
    assert_eq!(
        (
            baseline.connections.as_str(),
            baseline.worker_sessions.as_str(),
            baseline.engine_borrowed.as_str()
        ),
        ("1", "1", "0"),
        "{baseline:?}"
    );
    for round in 1..=ROUNDS {
        vanish(round, &server, &mut observer);
        settled(&mut observer, &baseline);
    }
    let kept = observer.query(1, "select count(*) from t where v = 'kept'");
    assert_eq!(kept.scalar(), &Value::Sint(ROUNDS as i64 + 1));
    eprintln!("vanished_client_frees_everything: {ROUNDS} rounds, baseline {baseline:?}");
}

/// What the storm measures of the node process.
#[derive(Debug, Clone, Copy)]
struct Resources {
    fds: usize,
    threads: usize,
    rss: u64,
}

fn resources(pid: u32) -> Resources {
    Resources {
        fds: common::fd_count(pid),
        threads: common::thread_count(pid),
        rss: common::rss_bytes(Some(pid)),
    }
}

/// One wave: `count` connections from `threads` threads, each authenticated, all held open at
/// once, then closed.
fn connection_wave(addr: std::net::SocketAddr, count: usize, threads: usize) {
    let barrier = std::sync::Barrier::new(threads);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let held: Vec<Client> = (0..count / threads)
                    .map(|_| {
                        let mut client = Client::connect(addr);
                        client.authenticate("root", "").expect("authenticates");
                        client
                    })
                    .collect();
                barrier.wait();
                drop(held);
            });
        }
    });
}

/// `per_connection` sessions on each of `connections` connections, opened and closed in
/// pipelined batches (SESS_NEW × n, then SESS_CLOSE × n, each answered with OK).
fn session_churn(addr: std::net::SocketAddr, connections: usize, per_connection: u64) {
    const BATCH: u64 = 64;
    std::thread::scope(|scope| {
        for _ in 0..connections {
            scope.spawn(|| {
                let mut client = Client::connect(addr);
                client.authenticate("root", "").expect("authenticates");
                for batch in 0..per_connection.div_ceil(BATCH) {
                    let sids = batch * BATCH + 1..=((batch + 1) * BATCH).min(per_connection);
                    let mut frames = Vec::new();
                    for sid in sids.clone() {
                        encode_message_frame(
                            &mut frames,
                            HeaderFormat::Standard,
                            sid,
                            ClientType::NewSession.id(),
                            &pb::session::NewSession::default(),
                        );
                    }
                    for sid in sids.clone() {
                        encode_message_frame(
                            &mut frames,
                            HeaderFormat::Standard,
                            sid,
                            ClientType::SessionClose.id(),
                            &pb::session::Close::default(),
                        );
                    }
                    client.send_raw(&frames);
                    for _ in 0..2 * sids.count() {
                        match client.recv() {
                            Some(common::Reply {
                                message: ServerMessage::Ok(_),
                                ..
                            }) => {}
                            other => panic!("expected OK, got {other:?}"),
                        }
                    }
                }
            });
        }
    });
}

/// Waves of connections that authenticate and close, and many sessions over few connections:
/// afterwards the node's fds, sessions and threads are back at their baseline and its resident
/// memory within 5% of it. The issue asks for waves of 10 000 connections and 100 000 sessions
/// over 32 connections; this runs 4 waves of 1 000 connections held at once (the default
/// `max_connections` is 1 024) and 32 × 1 024 sessions per round, twice (8 000 connections and
/// 65 536 sessions), so it takes 5–11 s in a debug build on two busy cores.
#[test]
fn connection_storm() {
    const WAVES: usize = 4;
    const WAVE: usize = 1000;
    const SESSION_CONNECTIONS: usize = 32;
    const SESSIONS_PER_CONNECTION: u64 = 1024;
    const ROUNDS: usize = 2;
    let dir = tempfile::tempdir().unwrap();
    let server = common::ServerProcess::spawn(
        dir.path(),
        &dir.path().join("log"),
        &["--epoll-group-dynamic-threads-shrink-time", "1000"],
    );
    let pid = server.pid();
    let mut observer = server.client();
    observer.new_session(1);
    let sessions = |observer: &mut Client| {
        (
            common::status_value(observer, 1, "xrpc_tcp_connections"),
            common::status_value(observer, 1, "xrpc_worker_sessions"),
            common::status_value(observer, 1, "xrpc_total_sessions"),
        )
    };
    let at_rest = ("1".to_owned(), "1".to_owned(), "1".to_owned());

    // A warm-up round first: the allocator's arenas and the framework's pools grow to their
    // working size once; the baseline is the node at rest after that.
    let cold = resources(pid);
    let round = |observer: &mut Client| {
        let started = Instant::now();
        connection_wave(server.addr, WAVE, 8);
        session_churn(server.addr, SESSION_CONNECTIONS, SESSIONS_PER_CONNECTION);
        common::wait_until(Duration::from_secs(20), "sessions stay counted", || {
            sessions(observer) == at_rest
        });
        started.elapsed()
    };
    round(&mut observer);
    let settle = |baseline: &Resources| {
        common::wait_until(
            Duration::from_secs(30),
            "fds and threads never came back",
            || {
                let now = resources(pid);
                now.fds <= baseline.fds && now.threads <= baseline.threads
            },
        );
    };
    settle(&cold);
    let baseline = resources(pid);

    let started = Instant::now();
    for _ in 0..ROUNDS {
        for _ in 0..WAVES {
            connection_wave(server.addr, WAVE, 8);
        }
        session_churn(server.addr, SESSION_CONNECTIONS, SESSIONS_PER_CONNECTION);
    }
    let stormed = started.elapsed();
    let peak = resources(pid);
    common::wait_until(Duration::from_secs(20), "sessions stay counted", || {
        sessions(&mut observer) == at_rest
    });
    settle(&baseline);
    // The binary's heap trimmer gives the storm's free heap back once its extra workers exited.
    common::wait_until(
        Duration::from_secs(30),
        "resident memory stays above baseline + 5%",
        || resources(pid).rss * 100 <= baseline.rss * 105,
    );
    let after = resources(pid);
    eprintln!(
        "connection_storm: {} connections in waves of {WAVE} and {} sessions over \
         {SESSION_CONNECTIONS} connections in {stormed:?}; cold {cold:?}, baseline {baseline:?}, \
         right after {peak:?}, settled {after:?}",
        ROUNDS * WAVES * WAVE,
        ROUNDS as u64 * SESSION_CONNECTIONS as u64 * SESSIONS_PER_CONNECTION,
    );
    assert_eq!(after.fds, baseline.fds);
    assert_eq!(after.threads, baseline.threads);
    assert!(
        after.rss * 100 <= baseline.rss * 105,
        "resident memory grew from {} to {} bytes",
        baseline.rss,
        after.rss
    );
    assert_eq!(observer.query(1, "select 42").scalar(), &Value::Sint(42));
}
