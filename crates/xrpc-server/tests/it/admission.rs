//! End-to-end: what an unauthenticated or excess client may hold, and how the node says no
//! (docs/PROTOCOL.md, "Authentication" and "Connection limits").

use crate::common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{Client, ServerProcess, TestNode, sql_stmt};
use xrpc_proto::auth::{Challenge, mysql41_client_response};
use xrpc_proto::codes;
use xrpc_proto::frame::{HeaderFormat, encode_message_frame};
use xrpc_proto::messages::{ClientType, ServerMessage, pb};
use xrpc_proto::value::Value;

const AUTO: u64 = 0x8000_0000_0000_0000;

fn expect_fatal_on_sid_0_and_close(client: &mut Client) -> pb::Error {
    let reply = client
        .recv()
        .expect("a FATAL error before the connection is closed");
    assert_eq!(reply.sid, 0, "a connection-ending error goes on sid 0");
    let ServerMessage::Error(err) = reply.message else {
        panic!("expected an error, got {reply:?}");
    };
    assert_eq!(err.severity, Some(1), "{err:?}");
    assert!(client.is_closed_by_server(Duration::from_secs(5)));
    err
}

#[test]
fn a_connection_that_does_not_authenticate_is_closed_at_connect_timeout() {
    let node = TestNode::start_with(|_, shared| {
        common::set_var(shared, "connect_timeout", 2);
    });
    let mut authenticated = node.client();
    let mut silent = Client::connect(node.addr());
    let started = Instant::now();
    let err = expect_fatal_on_sid_0_and_close(&mut silent);
    let waited = started.elapsed();
    assert_eq!(
        (err.code, err.sql_state.as_str()),
        (codes::HANDSHAKE_TIMEOUT.code, "08S01")
    );
    assert!(err.msg.contains("connect_timeout"), "{}", err.msg);
    assert!(
        waited >= Duration::from_millis(1500) && waited < Duration::from_secs(10),
        "closed after {waited:?}"
    );
    // A connection that authenticated in time is not touched.
    authenticated.new_session(1);
    assert_eq!(authenticated.query(1, "select 1").scalar(), &Value::Sint(1));
}

#[test]
fn a_large_frame_before_authentication_is_refused_from_its_header() {
    let node = TestNode::start();
    let mut client = Client::connect(node.addr());
    // A header announcing 32 MiB, and no body: the node must answer without waiting for it.
    let mut header = Vec::new();
    header.extend_from_slice(&0u64.to_le_bytes());
    header.extend_from_slice(&(32u32 << 20).to_le_bytes());
    header.push(ClientType::AuthenticateStart.id());
    client.send_raw(&header);
    client.set_read_timeout(Duration::from_secs(5));
    let err = expect_fatal_on_sid_0_and_close(&mut client);
    assert_eq!(err.code, codes::PACKET_TOO_LARGE.code);
    assert!(err.msg.contains("before authentication"), "{}", err.msg);
}

#[test]
fn large_frames_are_accepted_once_authenticated_even_right_behind_the_authentication() {
    let node = TestNode::start();
    let mut client = Client::connect(node.addr());
    client.send(
        0,
        ClientType::AuthenticateStart,
        &pb::session::AuthenticateStart {
            mech_name: "MYSQL41".into(),
            ..Default::default()
        },
    );
    let Some(ServerMessage::AuthenticateContinue(challenge)) = client.recv_on(0) else {
        panic!("expected a challenge");
    };
    let challenge = Challenge::from_bytes(challenge.auth_data.as_ref().try_into().unwrap());
    // The answer and a 64 KiB statement in one write: the statement's header is read in the same
    // pass as the answer that lifts the pre-authentication limit.
    let long = format!("select '{}'", "x".repeat(64 * 1024));
    let mut bytes = Vec::new();
    encode_message_frame(
        &mut bytes,
        HeaderFormat::Standard,
        0,
        ClientType::AuthenticateContinue.id(),
        &pb::session::AuthenticateContinue {
            auth_data: Bytes::from(mysql41_client_response("", "root", b"", &challenge)),
        },
    );
    encode_message_frame(
        &mut bytes,
        HeaderFormat::Standard,
        AUTO | 1,
        ClientType::ExecSql.id(),
        &sql_stmt(&long),
    );
    client.send_raw(&bytes);
    assert!(matches!(
        client.recv_on(0),
        Some(ServerMessage::AuthenticateOk(_))
    ));
    let outcome = client.read_outcome(AUTO | 1);
    assert_eq!(common::text(outcome.scalar()).len(), 64 * 1024);
}

#[test]
fn max_connections_refuses_with_1040_and_keeps_one_slot_for_root() {
    let node = TestNode::start_with(|_, shared| {
        common::set_var(shared, "max_connections", 2);
    });
    let mut first = node.client();
    let _second = Client::connect(node.addr());
    // The third connection is the reserved slot: an ordinary user is refused after logging in …
    let mut app = Client::connect(node.addr());
    let err = app.authenticate("app", "s3cret").unwrap_err();
    assert_eq!((err.code, err.severity), (1040, Some(1)));
    assert!(err.msg.contains("Too many connections"), "{}", err.msg);
    assert!(app.is_closed_by_server(Duration::from_secs(5)));
    // … (wait until the node counted it out) …
    let handler = node.node().server().handler();
    let deadline = Instant::now() + Duration::from_secs(5);
    while handler.connections() > 2 {
        assert!(
            Instant::now() < deadline,
            "the refused connection was not counted out"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // … while root gets in and works.
    let mut admin = Client::connect(node.addr());
    admin
        .authenticate("root", "")
        .expect("root takes the reserved slot");
    admin.new_session(1);
    assert_eq!(admin.query(1, "select 2").scalar(), &Value::Sint(2));
    // With the reserved slot taken too, a new connection is refused at once, before any login.
    let mut late = Client::connect(node.addr());
    let err = expect_fatal_on_sid_0_and_close(&mut late);
    assert_eq!((err.code, err.sql_state.as_str()), (1040, "08004"));
    // Existing connections are unaffected.
    first.new_session(1);
    assert_eq!(first.query(1, "select 3").scalar(), &Value::Sint(3));
}

#[test]
fn connection_close_on_sid_0_is_answered_with_ok_then_the_node_closes() {
    let node = TestNode::start();
    for authenticated in [false, true] {
        let mut client = if authenticated {
            node.client()
        } else {
            Client::connect(node.addr())
        };
        client.send(
            0,
            ClientType::ConnectionClose,
            &pb::connection::Close::default(),
        );
        let reply = client.recv().expect("an answer before the close");
        assert_eq!(reply.sid, 0);
        assert!(
            matches!(reply.message, ServerMessage::Ok(_)),
            "{:?}",
            reply.message
        );
        assert!(client.is_closed_by_server(Duration::from_secs(5)));
    }
}

#[test]
fn failed_logins_and_bad_frames_are_logged_once_per_interval_per_peer() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(
        &dir.path().join("data"),
        &dir.path().join("server.log"),
        // 200 failures from one address would block it at the default max_connect_errors (100).
        &[
            "--log",
            "info",
            "--auth-max-failures",
            "5",
            "--max-connect-errors",
            "1000000",
        ],
    );
    const LOGINS: usize = 200;
    let mut failed = 0;
    while failed < LOGINS {
        let mut client = Client::connect(server.addr);
        for _ in 0..5 {
            assert!(client.authenticate("root", "wrong").is_err());
            failed += 1;
        }
    }
    for _ in 0..50 {
        let mut client = Client::connect(server.addr);
        client.send_frame(0, 111, b"\xff\xff");
        assert!(client.is_closed_by_server(Duration::from_secs(5)));
    }
    // Every refusal was answered before this point, so everything that would be logged was.
    let log = server.log_text();
    let auth_lines = log
        .lines()
        .filter(|l| l.contains("authentication refused") || l.contains("failed authentications"))
        .count();
    let frame_lines = log
        .lines()
        .filter(|l| l.contains("undecodable frame"))
        .count();
    // The test runs in well under two intervals of 10 s; allow one boundary crossing.
    assert!(
        (1..=2).contains(&auth_lines),
        "{auth_lines} lines for {LOGINS} failed logins:\n{log}"
    );
    assert!(
        (1..=2).contains(&frame_lines),
        "{frame_lines} lines for 50 bad frames:\n{log}"
    );
}

/// Authenticates with the scramble's hex digits in upper case.
fn authenticate_upper_case(client: &mut Client, user: &str, password: &str) -> ServerMessage {
    client.send(
        0,
        ClientType::AuthenticateStart,
        &pb::session::AuthenticateStart {
            mech_name: "MYSQL41".into(),
            ..Default::default()
        },
    );
    let Some(ServerMessage::AuthenticateContinue(challenge)) = client.recv_on(0) else {
        panic!("expected a challenge");
    };
    let challenge = Challenge::from_bytes(challenge.auth_data.as_ref().try_into().unwrap());
    let response = mysql41_client_response("", user, password.as_bytes(), &challenge);
    let star = response.iter().position(|&b| b == b'*').unwrap();
    let mut upper = response[..star].to_vec();
    upper.extend(response[star..].to_ascii_uppercase());
    assert_ne!(upper, response, "the scramble has letters to change");
    client.send(
        0,
        ClientType::AuthenticateContinue,
        &pb::session::AuthenticateContinue {
            auth_data: Bytes::from(upper),
        },
    );
    client.recv_on(0).expect("an answer to the authentication")
}

#[test]
fn upper_case_hex_authenticates_and_a_second_authentication_gets_7001() {
    let node = TestNode::start();
    let mut client = Client::connect(node.addr());
    let reply = authenticate_upper_case(&mut client, "app", "s3cret");
    assert!(
        matches!(reply, ServerMessage::AuthenticateOk(_)),
        "{reply:?}"
    );
    client.send(
        0,
        ClientType::AuthenticateStart,
        &pb::session::AuthenticateStart {
            mech_name: "MYSQL41".into(),
            ..Default::default()
        },
    );
    let Some(ServerMessage::Error(err)) = client.recv_on(0) else {
        panic!("expected an error");
    };
    assert_eq!(
        (err.code, err.severity),
        (codes::UNEXPECTED_MESSAGE.code, Some(0))
    );
    // The connection keeps its user and works.
    client.new_session(1);
    assert_eq!(client.query(1, "select 4").scalar(), &Value::Sint(4));
}

#[test]
fn a_request_before_authentication_is_denied_on_its_own_sid() {
    let node = TestNode::start();
    let mut client = Client::connect(node.addr());
    client.send_sql(AUTO | 9, sql_stmt("select 1"));
    client.send(0, ClientType::ExecSql, &sql_stmt("select 1"));
    let first = client.recv().expect("an answer");
    let second = client.recv().expect("an answer");
    for (reply, sid) in [(first, AUTO | 9), (second, 0)] {
        assert_eq!(reply.sid, sid);
        let ServerMessage::Error(err) = reply.message else {
            panic!("expected access denied, got {reply:?}");
        };
        assert_eq!((err.code, err.severity), (1045, Some(0)));
    }
    // Still open, and a login still works.
    client.authenticate("root", "").unwrap();
}

#[test]
fn running_out_of_file_descriptors_is_logged_once_per_interval() {
    let dir = tempfile::tempdir().unwrap();
    // A node with 64 file descriptors: a few dozen connections exhaust them.
    let data = dir.path().join("data");
    let server = ServerProcess::start_on_a_free_port(
        &dir.path().join("server.log"),
        Duration::from_secs(20),
        |addr| {
            let mut cmd = std::process::Command::new("sh");
            cmd.arg("-c")
                .arg("ulimit -n 64 && exec \"$@\"")
                .arg("sh")
                .arg(env!("CARGO_BIN_EXE_xrpc-server"))
                .arg("--listen")
                .arg(addr.to_string())
                .arg("--data-dir")
                .arg(&data)
                .args(["--log", "info"]);
            cmd
        },
    )
    .unwrap_or_else(|log| panic!("the node did not start: {log}"));
    let addr = server.addr;
    // The kernel completes these handshakes from the listen backlog even when the node cannot
    // accept them.
    let clients: Vec<std::net::TcpStream> = (0..100)
        .map(|_| std::net::TcpStream::connect(addr).unwrap())
        .collect();
    let shortage = |log: &str| {
        log.lines()
            .filter(|l| l.contains("cannot accept connections"))
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while shortage(&server.log_text()) == 0 {
        assert!(
            Instant::now() < deadline,
            "the fd shortage was not logged:\n{}",
            server.log_text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The node retries every 50 ms; for the next second those retries must not add lines.
    let logged_at = Instant::now();
    while logged_at.elapsed() < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = server.log_text();
    assert_eq!(shortage(&log), 1, "{log}");
    drop(clients);
}
