//! The tokio transport against the fake server behind real sockets (feature `async`).

#![cfg(feature = "async")]

mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::PASSWORD;
use common::tcp::TcpFake;
use xrpc_client::ConnectOptions;
use xrpc_client::aio::Connection;
use xrpc_client::{ExecOptions, Value};

fn options() -> ConnectOptions {
    ConnectOptions::new("app", PASSWORD)
}

#[tokio::test]
async fn async_query_execute_and_query_once() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).await.unwrap();
    let mut session = conn.session().unwrap();
    assert_eq!(
        session.query("select 5").await.unwrap().rows,
        vec![vec![Value::Sint(5)]]
    );
    let done = session
        .execute("insert into t values (?)", &[1i64.into()])
        .await
        .unwrap();
    assert_eq!(done.last_insert_id, Some(7));
    assert_eq!(
        conn.query_once("select 6").await.unwrap().rows[0][0],
        Value::Sint(6)
    );
    assert!(session.is_clean());
}

#[tokio::test]
async fn async_wrong_password_is_an_auth_error() {
    let server = TcpFake::start();
    let err = Connection::connect(server.addr, ConnectOptions::new("app", "no"))
        .await
        .unwrap_err();
    assert!(err.is_auth(), "{err}");
}

#[tokio::test]
async fn async_pipeline_and_stream() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).await.unwrap();
    let mut session = conn.session().unwrap();
    let mut results = session
        .pipeline()
        .fire_and_forget("set names utf8mb4")
        .push("select 1")
        .push("select 2")
        .send()
        .unwrap();
    let mut values = Vec::new();
    while let Some(result) = results.next_result().await {
        values.push(result.unwrap().into_result_set().rows[0][0].clone());
    }
    assert_eq!(values, vec![Value::Sint(1), Value::Sint(2)]);
    let mut rows = session.query_stream("rows 2500").unwrap();
    let mut n = 0;
    while let Some(row) = rows.next().await {
        assert_eq!(row.unwrap(), vec![Value::Sint(n)]);
        n += 1;
    }
    assert_eq!(n, 2500);
    drop(rows);
    let mut owned = session
        .query_stream_owned("rows 10", &[], &ExecOptions::default())
        .unwrap();
    let mut n = 0;
    while let Some(row) = owned.next().await {
        assert_eq!(row.unwrap(), vec![Value::Sint(n)]);
        n += 1;
    }
    assert_eq!(n, 10);
    assert!(owned.is_ready(), "an ended stream answers at once");
    assert!(owned.outcome().is_some());
    assert_eq!(owned.columns().unwrap()[0].name, "i");
}

#[tokio::test]
async fn async_timeout_kills_the_query() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).await.unwrap();
    let mut session = conn.session().unwrap();
    session.set_timeout(Some(Duration::from_millis(100)));
    let err = session.query("sleep").await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert_eq!(
        session.query("select 3").await.unwrap().rows[0][0],
        Value::Sint(3)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_many_tasks_share_one_connection() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).await.unwrap();
    let tasks: Vec<_> = (0..16i64)
        .map(|t| {
            let conn = conn.clone();
            tokio::spawn(async move {
                let mut session = conn.session().unwrap();
                for i in 0..50 {
                    let n = t * 100 + i;
                    let rs = session.query(&format!("select {n}")).await.unwrap();
                    assert_eq!(rs.rows[0][0], Value::Sint(n));
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(server.shared.accepted.load(Ordering::Acquire), 1);
}

#[tokio::test]
async fn async_broken_connection_fails_sessions() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).await.unwrap();
    let mut session = conn.session().unwrap();
    session.query("select 1").await.unwrap();
    server.kill_connections();
    let err = session.query("select 1").await.unwrap_err();
    assert!(err.is_connection_lost(), "{err}");
    assert!(conn.is_broken());
}
