//! Durability: a commit the node acknowledged survives `kill -9` of the node.
//!
//! Each trial runs the real `xrpc-server` binary on a temporary data directory with its defaults
//! (`synchronous = FULL`), writes from four client threads, kills the process with SIGKILL after
//! a random short time, restarts it on the same directory and reads everything back.
//!
//! - A write is *acknowledged* when its StmtExecuteOk (for a transaction: the COMMIT's) arrived.
//!   Every acknowledged write must be there after the restart.
//! - A write in flight at the kill may or may not be there, but a transaction is all or nothing,
//!   and nothing that was never sent appears.
//!
//! `kill -9` ends the process, not the machine: what the process handed to the kernel survives
//! even without fsync. These trials therefore show that the node acknowledges a commit only after
//! SQLite has written it and that WAL recovery on restart keeps it; power-loss durability is what
//! `synchronous = FULL` adds on top, and is not something a test can simulate here.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use common::{Client, Outcome, ServerProcess, arg_sint, sql_stmt};
use rand::Rng;
use xrpc_proto::messages::{ServerMessage, pb};
use xrpc_proto::value::Value;

/// Writer threads per trial.
const WRITERS: i64 = 4;
/// Rows per transaction in the transaction trials.
const ROWS_PER_TXN: i64 = 5;
/// No trial writes for longer than this, whatever happens to the kill.
const WRITE_BOUND: Duration = Duration::from_secs(30);

/// How one request ended, as a client sees it.
enum Answer {
    Ok,
    Error(pb::Error),
    /// The connection closed before the answer was complete.
    Closed,
}

/// Reads one request's answer on `sid`, tolerating the server's death.
fn read_answer(client: &mut Client, sid: u64) -> Answer {
    loop {
        match client.recv_on(sid) {
            Some(ServerMessage::StmtExecuteOk(_)) => return Answer::Ok,
            Some(ServerMessage::Error(err)) => return Answer::Error(err),
            Some(_) => continue,
            None => return Answer::Closed,
        }
    }
}

fn start(data_dir: &Path) -> ServerProcess {
    ServerProcess::spawn(data_dir, &data_dir.join("server.log"), &["--log", "warn"])
}

fn stmt_with(sql: &str, args: &[i64]) -> pb::sql::StmtExecute {
    let mut stmt = sql_stmt(sql);
    stmt.args = args.iter().map(|&v| arg_sint(v)).collect();
    stmt
}

fn sint(value: &Value) -> i64 {
    match value {
        Value::Sint(v) => *v,
        other => panic!("expected an integer, got {other:?}"),
    }
}

/// Waits a random 300–1500 ms, then kills the node with SIGKILL.
fn kill_after_random_delay(server: &mut ServerProcess) -> Duration {
    let delay = Duration::from_millis(xrpc_testkit::rng::seeded_rng().gen_range(300..=1500));
    thread::sleep(delay);
    server.kill9();
    delay
}

/// What one writer thread sent and what the node acknowledged.
#[derive(Default)]
struct Written {
    sent: Vec<i64>,
    acked: Vec<i64>,
}

/// Everything sent and acknowledged so far, over all trials.
#[derive(Default)]
struct Ledger {
    sent: BTreeSet<i64>,
    acked: BTreeSet<i64>,
}

/// Starts a node on `data_dir` and runs `ddl` on it.
fn create_table(data_dir: &Path, ddl: &str) {
    let (_server, _client, created) = start_and_query(data_dir, ddl);
    assert!(created.error.is_none(), "{ddl}: {:?}", created.error);
}

/// Starts a node on `data_dir` and runs `sql` on a new session; the node and the client stay up
/// for more queries.
fn start_and_query(data_dir: &Path, sql: &str) -> (ServerProcess, Client, Outcome) {
    let server = start(data_dir);
    let mut client = server.client();
    client.new_session(1);
    let outcome = client.query(1, sql);
    (server, client, outcome)
}

/// A client authenticated as root with session 1 open, for a writer thread.
fn writer_session(addr: SocketAddr) -> Client {
    let mut client = Client::connect(addr);
    client.authenticate("root", "").expect("root authenticates");
    client.new_session(1);
    client
}

/// One trial's writing half: starts the node, runs [`WRITERS`] threads of `write` (each given its
/// own first id) until the node is killed after a random delay, and records what they sent and
/// what was acknowledged. Returns the delay and how many writes this trial acknowledged (at least
/// one).
fn write_until_killed(
    data_dir: &Path,
    trial: i64,
    ledger: &mut Ledger,
    write: fn(SocketAddr, i64) -> Written,
) -> (Duration, usize) {
    let mut server = start(data_dir);
    let addr = server.addr;
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let first = (trial * WRITERS + w) * 1_000_000;
            thread::spawn(move || write(addr, first))
        })
        .collect();
    let delay = kill_after_random_delay(&mut server);
    let mut trial_acked = 0;
    for writer in writers {
        let written = writer.join().expect("writer thread");
        trial_acked += written.acked.len();
        ledger.acked.extend(written.acked);
        ledger.sent.extend(written.sent);
    }
    assert!(
        trial_acked > 0,
        "trial {trial}: nothing was acknowledged in {delay:?}"
    );
    (delay, trial_acked)
}

/// Inserts rows `first, first + 1, …` one auto-commit statement at a time until the connection
/// dies; a row counts as acknowledged once its StmtExecuteOk is read.
fn insert_until_killed(addr: SocketAddr, first: i64) -> Written {
    let mut client = writer_session(addr);
    let mut written = Written::default();
    let started = Instant::now();
    for id in first.. {
        assert!(started.elapsed() < WRITE_BOUND, "the node was never killed");
        let stmt = stmt_with("insert into acked (id, at) values (?, ?)", &[id, id * 7]);
        if client.try_send_sql(1, &stmt).is_err() {
            break;
        }
        written.sent.push(id);
        match read_answer(&mut client, 1) {
            Answer::Ok => written.acked.push(id),
            Answer::Error(err) => panic!("insert {id} failed while the node was up: {err:?}"),
            Answer::Closed => break,
        }
    }
    written
}

#[test]
fn acknowledged_commits_survive_kill_9_in_every_trial() {
    const TRIALS: i64 = 5;
    let dir = tempfile::tempdir().unwrap();
    create_table(
        dir.path(),
        "create table acked (id integer primary key, at integer not null)",
    );

    let mut ledger = Ledger::default();
    for trial in 0..TRIALS {
        let (delay, trial_acked) =
            write_until_killed(dir.path(), trial, &mut ledger, insert_until_killed);
        let Ledger { sent, acked } = &ledger;

        let (_server, mut client, result) =
            start_and_query(dir.path(), "select id, at from acked order by id");
        assert!(result.error.is_none(), "read back: {:?}", result.error);
        let present: BTreeSet<i64> = result
            .rows
            .iter()
            .map(|row| {
                let (id, at) = (sint(&row[0]), sint(&row[1]));
                assert_eq!(at, id * 7, "row {id} came back with another value");
                id
            })
            .collect();
        let lost: Vec<_> = acked.difference(&present).collect();
        assert!(
            lost.is_empty(),
            "trial {trial} (killed after {delay:?}): {} acknowledged rows are missing after the restart, e.g. {:?}",
            lost.len(),
            &lost[..lost.len().min(10)]
        );
        let phantom: Vec<_> = present.difference(sent).collect();
        assert!(
            phantom.is_empty(),
            "trial {trial}: rows that were never sent appeared: {phantom:?}"
        );
        let in_flight_kept = present.len() - acked.len();
        eprintln!(
            "durability trial {trial}: killed after {delay:?}, {trial_acked} acknowledged inserts this trial, \
             {} acknowledged in total, all present; {in_flight_kept} unacknowledged in-flight rows kept",
            acked.len()
        );
        // The restarted node also agrees on the count.
        let count = client.query(1, "select count(*) from acked");
        assert_eq!(sint(count.scalar()), present.len() as i64);
    }
}

/// Runs transactions `first, first + 1, …` of [`ROWS_PER_TXN`] rows each, every transaction sent
/// as one pipelined burst (BEGIN, the inserts, COMMIT), until the connection dies. A transaction
/// counts as acknowledged once its COMMIT's StmtExecuteOk is read.
fn transactions_until_killed(addr: SocketAddr, first: i64) -> Written {
    let mut client = writer_session(addr);
    let mut written = Written::default();
    let started = Instant::now();
    'txns: for txn in first.. {
        assert!(started.elapsed() < WRITE_BOUND, "the node was never killed");
        let mut burst = vec![sql_stmt("begin")];
        burst.extend(
            (0..ROWS_PER_TXN)
                .map(|k| stmt_with("insert into txn_rows (txn, k) values (?, ?)", &[txn, k])),
        );
        burst.push(sql_stmt("commit"));
        for stmt in &burst {
            if client.try_send_sql(1, stmt).is_err() {
                break 'txns;
            }
        }
        written.sent.push(txn);
        for (index, _) in burst.iter().enumerate() {
            match read_answer(&mut client, 1) {
                Answer::Ok if index == burst.len() - 1 => written.acked.push(txn),
                Answer::Ok => {}
                Answer::Error(err) => {
                    panic!(
                        "transaction {txn}, request {index} failed while the node was up: {err:?}"
                    )
                }
                Answer::Closed => break 'txns,
            }
        }
    }
    written
}

#[test]
fn acknowledged_transactions_survive_kill_9_whole_and_the_rest_all_or_nothing() {
    const TRIALS: i64 = 3;
    let dir = tempfile::tempdir().unwrap();
    create_table(
        dir.path(),
        "create table txn_rows (txn integer not null, k integer not null, primary key (txn, k))",
    );

    let mut ledger = Ledger::default();
    for trial in 0..TRIALS {
        let (delay, trial_acked) =
            write_until_killed(dir.path(), trial, &mut ledger, transactions_until_killed);
        let Ledger { sent, acked } = &ledger;

        let (_server, _client, result) = start_and_query(
            dir.path(),
            "select txn, count(*) from txn_rows group by txn",
        );
        assert!(result.error.is_none(), "read back: {:?}", result.error);
        let rows_per_txn: BTreeMap<i64, i64> = result
            .rows
            .iter()
            .map(|row| (sint(&row[0]), sint(&row[1])))
            .collect();
        for (txn, rows) in &rows_per_txn {
            assert_eq!(
                *rows, ROWS_PER_TXN,
                "trial {trial}: transaction {txn} came back with {rows} of its {ROWS_PER_TXN} rows"
            );
            assert!(
                sent.contains(txn),
                "trial {trial}: transaction {txn} was never sent"
            );
        }
        let lost: Vec<_> = acked
            .iter()
            .filter(|txn| !rows_per_txn.contains_key(txn))
            .collect();
        assert!(
            lost.is_empty(),
            "trial {trial} (killed after {delay:?}): acknowledged transactions missing after the restart: {lost:?}"
        );
        eprintln!(
            "durability transaction trial {trial}: killed after {delay:?}, {trial_acked} acknowledged \
             transactions this trial, {} in total, all present with {ROWS_PER_TXN} rows; {} unacknowledged kept whole",
            acked.len(),
            rows_per_txn.len() - acked.len()
        );
    }
}
