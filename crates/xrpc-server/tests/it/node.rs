//! The `Node` API in-process: what the binary's `main` no longer has to wire up itself.

use crate::common;

use std::time::{Duration, Instant};

use common::{TestNode, sql_stmt};
use xrpc_proto::messages::ServerMessage;

/// Counts to a billion: minutes of work unless interrupted.
const ENDLESS: &str = "with recursive c(i) as (select 1 union all select i + 1 from c \
                       where i < 1000000000) select count(*) from c";

/// Regression: `Node::shutdown` joined the framework's workers while one still ran a statement,
/// and the connection close that kills it runs only after that join, so the drain waited for the
/// statement to end by itself (minutes here) instead of cutting it short after the grace.
#[test]
fn shutdown_interrupts_a_statement_that_outlives_the_grace() {
    let mut node = TestNode::start_with(|net, _| net.shutdown_grace = Duration::from_millis(300));
    let mut client = node.client();
    client.new_session(1);
    client.send_sql(1, sql_stmt(ENDLESS));
    node.wait_until_a_statement_runs();
    let started = Instant::now();
    let stopper = {
        let node = node.node.take().unwrap();
        std::thread::spawn(move || node.shutdown())
    };
    let mut error = None;
    while let Some(message) = client.recv_on(1) {
        if let ServerMessage::Error(err) = message {
            error = Some(err);
            break;
        }
    }
    stopper.join().unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "the drain took {took:?}");
    let err = error.expect("the running statement is answered before the connection closes");
    assert_eq!(err.code, 1317, "{err:?}");
}

/// Regression: `SET GLOBAL xrpc_request_cache_max_length` was applied to the request cache only by
/// the binary's `main`; a node started through the library accepted it and kept the old limit.
#[test]
fn set_global_request_cache_max_length_reaches_the_cache() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let set = client.query(1, "set global xrpc_request_cache_max_length = 128");
    assert!(set.error.is_none(), "{:?}", set.error);
    assert_eq!(node.node().shared().cache.max_len(), 128);
}
