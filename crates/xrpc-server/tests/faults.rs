//! Fault tests: each is named after what it proves, runs on loopback only, and is bounded in time
//! and count.

mod common;

use std::time::{Duration, Instant};

use common::{TestNode, sql_stmt};
use rand::Rng;
use xrpc_proto::codes;
use xrpc_proto::messages::{ClientType, pb};
use xrpc_proto::value::Value;

/// Kill rounds to run; the loop also stops at [`KILL_ROUNDS_BUDGET`].
const KILL_ROUNDS: u32 = 3000;
/// Wall-clock bound of the kill loop, so a node that loses kills (each lost kill costs a whole
/// statement) still ends the test in time.
const KILL_ROUNDS_BUDGET: Duration = Duration::from_secs(40);
/// The latest a kill is sent after its statement; the statement runs far longer than this, so a
/// statement that ends with OK lost its kill.
const MAX_KILL_DELAY: Duration = Duration::from_micros(1500);
/// Rows the statement counts: enough for a run well over [`MAX_KILL_DELAY`] (checked first).
const SLOW_ROWS: u32 = 200_000;

fn slow_count() -> pb::sql::StmtExecute {
    sql_stmt(&format!(
        "with recursive n(i) as (select 1 union all select i + 1 from n where i < {SLOW_ROWS}) \
         select count(*) from n"
    ))
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

/// A `SESS_KILL QUERY` sent at any moment around a statement's start — in the same write as the
/// statement (the request is still queued), a few microseconds later (the worker is registering
/// it), or up to 1.5 ms later (it runs) — always ends that statement with 1317. A kill sent while
/// the session is idle is a no-op: it never reaches the statement sent after it.
#[test]
fn kill_is_never_lost() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);

    // The statement must outlast every kill delay by far, or an OK would not prove a lost kill.
    let started = Instant::now();
    client.send_sql(1, slow_count());
    assert_eq!(
        client.read_outcome(1).scalar(),
        &Value::Sint(i64::from(SLOW_ROWS))
    );
    let uninterrupted = started.elapsed();
    assert!(
        uninterrupted >= MAX_KILL_DELAY * 20,
        "the statement takes {uninterrupted:?}, too short to tell a lost kill from a late one"
    );

    let mut rng = rand::thread_rng();
    let deadline = Instant::now() + KILL_ROUNDS_BUDGET;
    let (mut rounds, mut lost, mut stray_kills) = (0u32, 0u32, 0u32);
    let mut lost_delays = Vec::new();
    while rounds < KILL_ROUNDS && Instant::now() < deadline {
        rounds += 1;
        // A third of the kills go out in the same write as the statement; the others after a
        // delay that is mostly tiny (registration) and sometimes long enough to land mid-run.
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
                xrpc_proto::frame::encode_message_frame(
                    &mut frames,
                    xrpc_proto::frame::HeaderFormat::Standard,
                    1,
                    ClientType::ExecSql.id(),
                    &slow_count(),
                );
                xrpc_proto::frame::encode_message_frame(
                    &mut frames,
                    xrpc_proto::frame::HeaderFormat::Standard,
                    1,
                    ClientType::KillSession.id(),
                    &kill_query(),
                );
                client.send_raw(&frames);
            }
            Some(delay) => {
                client.send_sql(1, slow_count());
                pause(delay);
                client.send(1, ClientType::KillSession, &kill_query());
            }
        }
        let outcome = client.read_outcome(1);
        match outcome.error {
            Some(err) => assert_eq!(
                (err.code, err.sql_state.as_str()),
                (codes::QUERY_INTERRUPTED.code, "70100"),
                "round {rounds}: the kill must end the statement with 1317, not {err:?}"
            ),
            None => {
                lost += 1;
                lost_delays.push(delay);
            }
        }
        // Now and then a kill while the session is idle: it must not stop the next statement.
        if rng.gen_ratio(1, 8) {
            stray_kills += 1;
            client.send(1, ClientType::KillSession, &kill_query());
            let outcome = client.query(1, &format!("select {rounds}"));
            assert!(
                outcome.error.is_none(),
                "round {rounds}: a kill sent while the session was idle stopped the next statement: {:?}",
                outcome.error
            );
            assert_eq!(outcome.scalar(), &Value::Sint(i64::from(rounds)));
        }
    }
    eprintln!(
        "kill_is_never_lost: {rounds} kills ({stray_kills} stray ones while idle), {lost} lost; \
         an uninterrupted statement takes {uninterrupted:?}"
    );
    assert_eq!(
        lost,
        0,
        "{lost} of {rounds} kills were lost (kill delays, None = same write: {:?})",
        &lost_delays[..lost_delays.len().min(20)]
    );
    assert!(
        rounds >= 1000,
        "only {rounds} rounds ran within {KILL_ROUNDS_BUDGET:?}; too few to mean anything"
    );
}

/// A kill stops one request, the oldest one not answered: requests pipelined behind it run.
#[test]
fn a_kill_stops_one_request_and_those_queued_behind_it_run() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    client.send_sql(1, slow_count());
    client.send_sql(1, sql_stmt("select 7"));
    client.send(1, ClientType::KillSession, &kill_query());
    let killed = client.read_outcome(1);
    assert_eq!(
        killed.error.map(|err| err.code),
        Some(codes::QUERY_INTERRUPTED.code)
    );
    assert_eq!(client.read_outcome(1).scalar(), &Value::Sint(7));
}
