//! Lock waits: sessions blocked on SQLite's write lock do not starve the node.
//!
//! SQLite has one writer at a time. One session holds the write lock in an open transaction;
//! five more sessions — more than the group's two base workers — try to write, and each blocks
//! in SQLite's busy handler on a worker, inside the framework's `enter_wait` guard. The node must
//! grow extra workers rather than deadlock: readers (WAL readers never wait for the writer) keep
//! being answered, the holder's COMMIT still gets a worker, and then every waiter completes.

use crate::common;

use std::time::{Duration, Instant};

use common::{Client, TestNode, arg_sint, sql_stmt};
use xrpc_net::stats::NetStats;
use xrpc_proto::value::Value;

/// Base workers of the node's single group.
const BASE_WORKERS: usize = 2;
/// Sessions that wait for the write lock.
const WAITERS: u64 = 5;
/// Bound for anything that must not hang.
const BOUND: Duration = Duration::from_secs(10);

fn stats(node: &TestNode) -> NetStats {
    node.node().server().stats()
}

fn count(client: &mut Client, sid: u64) -> i64 {
    match client.query(sid, "select count(*) from w").scalar() {
        Value::Sint(n) => *n,
        other => panic!("count(*) returned {other:?}"),
    }
}

fn assert_ok(client: &mut Client, sid: u64, what: &str) {
    let outcome = client.read_outcome(sid);
    assert!(
        outcome.error.is_none(),
        "{what} on session {sid} failed: {:?}",
        outcome.error
    );
}

#[test]
fn writers_waiting_for_the_lock_grow_the_pool_while_reads_are_served() {
    let node = TestNode::start_with(|net, _| {
        net.groups = 1;
        net.threads_per_group = BASE_WORKERS;
    });
    let mut setup = node.client();
    setup.new_session(1);
    let created = setup.query(1, "create table w (id integer primary key, who text)");
    assert!(created.error.is_none(), "{:?}", created.error);
    let before = stats(&node);
    assert_eq!(before.threads_by_stall, 0, "no stall yet: {before:?}");

    // The holder takes the write lock and keeps its transaction open.
    let mut holder = node.client();
    holder.new_session(1);
    for sql in ["begin", "insert into w (id, who) values (0, 'holder')"] {
        let outcome = holder.query(1, sql);
        assert!(outcome.error.is_none(), "holder {sql}: {:?}", outcome.error);
    }

    // Five sessions on one connection each send a whole write transaction at once; each blocks
    // on its INSERT.
    let mut waiters = node.client();
    for sid in 1..=WAITERS {
        waiters.new_session(sid);
    }
    for sid in 1..=WAITERS {
        waiters.send_sql(sid, sql_stmt("begin"));
        let mut insert = sql_stmt("insert into w (id, who) values (?, 'waiter')");
        insert.args = vec![arg_sint(sid as i64)];
        waiters.send_sql(sid, insert);
        waiters.send_sql(sid, sql_stmt("commit"));
    }
    let deadline = Instant::now() + BOUND;
    while stats(&node).stalled_threads < WAITERS {
        assert!(
            Instant::now() < deadline,
            "the {WAITERS} writers never all waited for the lock: {:?}",
            stats(&node)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let waiting = stats(&node);
    assert!(
        waiting.base_threads as usize == BASE_WORKERS && waiting.extra_threads > 0,
        "{WAITERS} workers blocked on a lock, but the group did not grow beyond its {BASE_WORKERS} base workers: {waiting:?}"
    );
    assert!(
        waiting.threads_by_stall > 0,
        "extra workers were started because of stalls: {waiting:?}"
    );

    // Readers on other sessions are served while the writers wait, and see only committed data.
    let mut reader = node.client();
    for sid in 1..=3 {
        reader.new_session(sid);
    }
    for round in 0..10 {
        for sid in 1..=3 {
            let started = Instant::now();
            assert_eq!(
                count(&mut reader, sid),
                0,
                "round {round}: a reader sees no uncommitted row"
            );
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "round {round}: a read took {:?} while writers waited",
                started.elapsed()
            );
        }
    }
    let still = stats(&node);
    assert_eq!(
        still.stalled_threads, WAITERS,
        "the writers were still waiting during the reads: {still:?}"
    );

    // The holder commits; every waiter then gets the lock in turn and commits.
    let started = Instant::now();
    let commit = holder.query(1, "commit");
    assert!(commit.error.is_none(), "holder commit: {:?}", commit.error);
    for sid in 1..=WAITERS {
        assert_ok(&mut waiters, sid, "begin");
        assert_ok(&mut waiters, sid, "insert after the wait");
        assert_ok(&mut waiters, sid, "commit");
    }
    let drained = started.elapsed();
    assert!(
        drained < BOUND,
        "the waiters took {drained:?} to finish after the holder's commit"
    );
    assert_eq!(count(&mut reader, 1), 1 + WAITERS as i64);
    let after = stats(&node);
    assert_eq!(after.stalled_threads, 0, "nobody waits any more: {after:?}");
    eprintln!(
        "lock wait: {WAITERS} writers waited on {BASE_WORKERS} base workers; extra workers {} \
         (started by stall {}); 30 reads served meanwhile; waiters done {drained:?} after the commit",
        waiting.extra_threads, waiting.threads_by_stall
    );
}
