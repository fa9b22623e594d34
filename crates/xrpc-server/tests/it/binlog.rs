//! End-to-end: the binary log records what was said, byte for byte, and never a secret
//! (docs/PROTOCOL.md, "Binary log").
//!
//! The log is one per process, so the tests of this file share it and run one at a time under
//! `SERIAL`; each switches it on with `SET GLOBAL xrpc_binlog` and reads back only the entries of
//! its own connections.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{TestNode, sql_stmt};
use parking_lot::Mutex;
use prost::Message;
use xrpc_proto::auth::{Challenge, mysql41_client_response};
use xrpc_proto::binlog::{BinlogEntry, EntryKind};
use xrpc_proto::frame::{FrameConfig, FrameDecoder, HeaderFormat, encode_frame};
use xrpc_proto::messages::{ClientType, ServerMessage, ServerType, pb};
use xrpc_server::binlog;
use xrpc_server::vars::SetValue;

static SERIAL: Mutex<()> = Mutex::new(());

/// A frame as (sid, type id, body).
type RawFrame = (u64, u8, Vec<u8>);

/// A client that keeps every frame it sends and receives, as bytes.
struct RecordingClient {
    stream: TcpStream,
    decoder: FrameDecoder,
    sent: Vec<RawFrame>,
    received: Vec<RawFrame>,
}

impl RecordingClient {
    fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Self {
            stream,
            decoder: FrameDecoder::new(FrameConfig::default()),
            sent: Vec::new(),
            received: Vec::new(),
        }
    }

    fn local_addr(&self) -> String {
        self.stream.local_addr().unwrap().to_string()
    }

    /// Sends several frames in one write (pipelined).
    fn send_all(&mut self, frames: &[(u64, ClientType, Vec<u8>)]) {
        let mut buf = Vec::new();
        for (sid, kind, body) in frames {
            encode_frame(&mut buf, HeaderFormat::Standard, *sid, kind.id(), body);
            self.sent.push((*sid, kind.id(), body.clone()));
        }
        self.stream.write_all(&buf).unwrap();
    }

    fn send(&mut self, sid: u64, kind: ClientType, message: &impl Message) {
        self.send_all(&[(sid, kind, message.encode_to_vec())]);
    }

    fn recv(&mut self) -> (u64, ServerMessage) {
        loop {
            if let Some(frame) = self.decoder.next_frame().unwrap() {
                self.received
                    .push((frame.sid, frame.type_id, frame.body.to_vec()));
                let message = ServerMessage::decode(frame.type_id, frame.body).unwrap();
                return (frame.sid, message);
            }
            let mut buf = [0u8; 65536];
            let n = self.stream.read(&mut buf).unwrap();
            assert!(n > 0, "the node closed the connection");
            self.decoder.feed(&buf[..n]);
        }
    }

    /// Reads until the answer of one request on `sid` ends (StmtExecuteOk or an error).
    fn outcome(&mut self, sid: u64) -> ServerMessage {
        loop {
            let (got_sid, message) = self.recv();
            assert_eq!(got_sid, sid, "{message:?}");
            if matches!(
                message,
                ServerMessage::StmtExecuteOk(_) | ServerMessage::Error(_)
            ) {
                return message;
            }
        }
    }

    /// MYSQL41 authentication; returns the scramble and the client's answer (the secrets).
    fn authenticate(&mut self, user: &str, password: &str) -> (Vec<u8>, Vec<u8>, bool) {
        self.send(
            0,
            ClientType::AuthenticateStart,
            &pb::session::AuthenticateStart {
                mech_name: "MYSQL41".into(),
                ..Default::default()
            },
        );
        let (_, ServerMessage::AuthenticateContinue(challenge)) = self.recv() else {
            panic!("expected a challenge");
        };
        let scramble = challenge.auth_data.to_vec();
        let answer = mysql41_client_response(
            "",
            user,
            password.as_bytes(),
            &Challenge::from_bytes(scramble.as_slice().try_into().unwrap()),
        );
        self.send(
            0,
            ClientType::AuthenticateContinue,
            &pb::session::AuthenticateContinue {
                auth_data: Bytes::from(answer.clone()),
            },
        );
        let ok = match self.recv().1 {
            ServerMessage::AuthenticateOk(_) => true,
            ServerMessage::Error(_) => false,
            other => panic!("unexpected auth reply {other:?}"),
        };
        (scramble, answer, ok)
    }
}

/// Points the process's log at a file sink in `dir` (the writer outlives each test's node).
fn use_dir(dir: &Path) {
    let sink = binlog::FileSink::new(dir, 1 << 20, 64).unwrap();
    binlog::global().install_sink(Box::new(sink));
}

fn set_binlog(node: &TestNode, config: &str) {
    node.node()
        .shared()
        .vars
        .set_global("xrpc_binlog", &SetValue::Text(config.into()))
        .unwrap();
}

fn read_dir(dir: &Path) -> Vec<BinlogEntry> {
    binlog::sink::files_in(dir)
        .unwrap()
        .iter()
        .flat_map(|(_, path)| binlog::sink::read_file(path).unwrap())
        .collect()
}

/// The entries of connection `peer`, once its close has been written.
fn entries_of(dir: &Path, peer: &str) -> Vec<BinlogEntry> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        binlog::global().flush();
        let entries: Vec<BinlogEntry> = read_dir(dir)
            .into_iter()
            .filter(|e| e.peer == peer)
            .collect();
        if entries
            .iter()
            .any(|e| e.kind() == EntryKind::ConnectionClose)
        {
            return entries;
        }
        assert!(Instant::now() < deadline, "no close entry for {peer}");
        // The close is reported by the node's event loop after the socket ends; poll for it.
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn frames(entries: &[BinlogEntry], kind: EntryKind) -> Vec<RawFrame> {
    entries
        .iter()
        .filter(|e| e.kind() == kind)
        .map(|e| (e.sid, e.type_id as u8, e.payload.clone()))
        .collect()
}

/// Authentication payloads are withheld: compare them by length, the rest byte for byte.
fn withhold_auth(frames: &[RawFrame], direction: binlog::Direction) -> Vec<RawFrame> {
    frames
        .iter()
        .map(|(sid, ty, body)| {
            if binlog::entry::carries_secrets(direction, *ty) {
                (*sid, *ty, Vec::new())
            } else {
                (*sid, *ty, body.clone())
            }
        })
        .collect()
}

#[test]
fn a_logged_conversation_reads_back_byte_for_byte() {
    let _serial = SERIAL.lock();
    let dir = tempfile::tempdir().unwrap();
    use_dir(dir.path());
    let node = TestNode::start();
    set_binlog(&node, "*");

    let mut client = RecordingClient::connect(node.addr());
    let peer = client.local_addr();
    // A refused attempt, then the real one.
    let (_, _, ok) = client.authenticate("app", "wrong");
    assert!(!ok);
    let (_, _, ok) = client.authenticate("app", "s3cret");
    assert!(ok);
    client.send(
        1,
        ClientType::NewSession,
        &pb::session::NewSession::default(),
    );
    assert!(matches!(client.recv(), (1, ServerMessage::Ok(_))));
    // Three pipelined statements; the last one's result comes as a chunk.
    let mut chunked = sql_stmt("SELECT a, b FROM t ORDER BY a");
    chunked.chunk_result = Some(true);
    client.send_all(&[
        (
            1,
            ClientType::ExecSql,
            sql_stmt("CREATE TABLE t (a INTEGER, b TEXT)").encode_to_vec(),
        ),
        (
            1,
            ClientType::ExecSql,
            sql_stmt("INSERT INTO t VALUES (1, 'x'), (2, 'y')").encode_to_vec(),
        ),
        (1, ClientType::ExecSql, chunked.encode_to_vec()),
    ]);
    for _ in 0..3 {
        assert!(matches!(client.outcome(1), ServerMessage::StmtExecuteOk(_)));
    }
    assert!(
        client
            .received
            .iter()
            .any(|(_, ty, _)| *ty == ServerType::Chunk.id()),
        "the select answered with a chunk"
    );
    // An error.
    client.send(1, ClientType::ExecSql, &sql_stmt("SELECT * FROM missing"));
    assert!(matches!(client.outcome(1), ServerMessage::Error(_)));
    // A kill of a second session.
    client.send(
        2,
        ClientType::NewSession,
        &pb::session::NewSession::default(),
    );
    assert!(matches!(client.recv(), (2, ServerMessage::Ok(_))));
    client.send(
        2,
        ClientType::KillSession,
        &pb::session::KillSession {
            r#type: pb::session::kill_session::KillType::Connection as i32,
            ..Default::default()
        },
    );
    assert!(matches!(client.recv(), (2, ServerMessage::Error(_))));
    let RecordingClient {
        sent,
        received,
        stream,
        ..
    } = client;
    drop(stream);

    let entries = entries_of(dir.path(), &peer);
    let kinds: Vec<EntryKind> = entries.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds.first(), Some(&EntryKind::ConnectionOpen));
    assert_eq!(kinds.last(), Some(&EntryKind::ConnectionClose));
    assert_eq!(
        kinds
            .iter()
            .filter(|k| matches!(k, EntryKind::AuthOk | EntryKind::AuthFailed))
            .collect::<Vec<_>>(),
        vec![&EntryKind::AuthFailed, &EntryKind::AuthOk]
    );
    let auth_ok = entries
        .iter()
        .find(|e| e.kind() == EntryKind::AuthOk)
        .unwrap();
    assert_eq!(auth_ok.user, "app");
    let failed = entries
        .iter()
        .find(|e| e.kind() == EntryKind::AuthFailed)
        .unwrap();
    assert!(failed.detail.contains("Access denied"), "{failed:?}");
    assert_eq!(
        frames(&entries, EntryKind::Received),
        withhold_auth(&sent, binlog::Direction::Received)
    );
    assert_eq!(
        frames(&entries, EntryKind::Sent),
        withhold_auth(&received, binlog::Direction::Sent)
    );
    for entry in &entries {
        assert!(
            !entry.truncated
                || binlog::entry::carries_secrets(
                    if entry.kind() == EntryKind::Sent {
                        binlog::Direction::Sent
                    } else {
                        binlog::Direction::Received
                    },
                    entry.type_id as u8,
                ),
            "{entry:?}"
        );
        assert_eq!(entry.connection_id, entries[0].connection_id);
        assert!(entry.timestamp_ns > 0);
    }
    assert!(
        entries.windows(2).all(|w| w[0].sequence < w[1].sequence),
        "sequence numbers increase"
    );
    // Entries after authentication carry the user.
    assert!(
        entries
            .iter()
            .filter(|e| e.sid == 1)
            .all(|e| e.user == "app")
    );

    // Headers only: lengths stay, payloads go.
    set_binlog(&node, "*{h}");
    let mut client = RecordingClient::connect(node.addr());
    let peer = client.local_addr();
    let (_, _, ok) = client.authenticate("app", "s3cret");
    assert!(ok);
    client.send(
        1,
        ClientType::NewSession,
        &pb::session::NewSession::default(),
    );
    client.recv();
    drop(client);
    let entries = entries_of(dir.path(), &peer);
    let new_session = entries
        .iter()
        .find(|e| e.kind() == EntryKind::Sent && e.sid == 1)
        .unwrap();
    assert!(new_session.payload.is_empty());
    set_binlog(&node, "");
    assert!(!binlog::enabled());
}

#[test]
fn no_entry_holds_the_password_the_scramble_or_the_hash() {
    let _serial = SERIAL.lock();
    for config in [
        "*",
        "SESS_AUTHENTICATE_START,SESS_AUTHENTICATE_CONTINUE",
        "SESS_AUTHENTICATE_CONTINUE{m:4096},user=app",
    ] {
        let dir = tempfile::tempdir().unwrap();
        use_dir(dir.path());
        let node = TestNode::start();
        set_binlog(&node, config);
        let mut client = RecordingClient::connect(node.addr());
        let peer = client.local_addr();
        let (scramble_1, answer_1, ok) = client.authenticate("app", "wrong-pass");
        assert!(!ok);
        let (scramble_2, answer_2, ok) = client.authenticate("app", "s3cret");
        assert!(ok);
        drop(client);
        let entries = entries_of(dir.path(), &peer);
        assert!(!entries.is_empty());
        // The whole directory, not just the decoded fields: no byte string of a secret anywhere.
        let mut bytes = Vec::new();
        for (_, path) in binlog::sink::files_in(dir.path()).unwrap() {
            bytes.extend(std::fs::read(path).unwrap());
        }
        let hash_of = |answer: &[u8]| answer[answer.len() - 41..].to_vec();
        for secret in [
            b"s3cret".to_vec(),
            b"wrong-pass".to_vec(),
            scramble_1,
            scramble_2,
            hash_of(&answer_1),
            hash_of(&answer_2),
        ] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_slice()),
                "{config}: a secret is in the log"
            );
        }
        set_binlog(&node, "");
        drop(node);
    }
}

#[test]
fn invalid_config_strings_are_refused_by_set_global() {
    let _serial = SERIAL.lock();
    let node = TestNode::start();
    let err = node
        .node()
        .shared()
        .vars
        .set_global("xrpc_binlog", &SetValue::Text("*,EXEC_SQLL{h}".into()))
        .unwrap_err();
    assert_eq!(
        err.message,
        "Variable 'xrpc_binlog' can't be set to the value of '*,EXEC_SQLL{h}': item 2 `EXEC_SQLL{h}` (at byte 2): `EXEC_SQLL` is not a message type name (such as EXEC_SQL, RESULTSET_ROW or ERROR)"
    );
    assert_eq!(err.code, 1231);
    assert!(!binlog::enabled());
}

/// A node started with small limits (its own process, so its own log) rotates and prunes its
/// files by them: at most `--binlog-max-files` files, each closed before it would pass
/// `--binlog-max-file-size`, and the oldest gone.
#[test]
fn rotation_follows_the_configured_file_size_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("binlog");
    let server = common::ServerProcess::spawn(
        dir.path(),
        &dir.path().join("server.log"),
        &[
            "--binlog",
            "*",
            "--binlog-max-file-size",
            "4096",
            "--binlog-max-files",
            "2",
        ],
    );
    let mut client = server.client();
    client.new_session(1);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        for _ in 0..20 {
            client.query(
                1,
                "select 'a statement long enough to fill a few kilobytes of log'",
            );
        }
        let files = binlog::sink::files_in(&logs).unwrap();
        // File numbers go up from 1: the first files were deleted once later ones came.
        if files.first().is_some_and(|(number, _)| *number > 2) {
            // A rotation opens the new file, then removes the oldest beyond the count.
            let mut files = files;
            common::wait_until(
                Duration::from_secs(10),
                "the rotation removes old files",
                || {
                    files = binlog::sink::files_in(&logs).unwrap();
                    files.len() <= 2
                },
            );
            for (_, path) in &files {
                let size = std::fs::metadata(path).unwrap().len();
                assert!(size <= 4096, "{} has {size} bytes", path.display());
            }
            break;
        }
        assert!(Instant::now() < deadline, "no rotation: {files:?}");
    }
}

/// `SET GLOBAL xrpc_binlog` switching the log on with a directory the node cannot create is
/// refused with 1231, and the variable keeps the value in force (the log stays off); once the
/// directory can be created, the same statement switches the log on. A node process of its own,
/// so the log's writer has not started yet; the directory is a path under a regular file, which
/// fails even for root.
#[test]
fn set_global_refuses_a_binlog_directory_that_cannot_be_created() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-directory");
    std::fs::write(&blocker, b"a regular file").unwrap();
    let logs = blocker.join("binlog");
    let server = common::ServerProcess::spawn(
        dir.path(),
        &dir.path().join("server.log"),
        &["--binlog-dir", logs.to_str().unwrap()],
    );
    let mut client = server.client();
    client.new_session(1);

    let refused = client.query(1, "SET GLOBAL xrpc_binlog = '*'");
    let error = refused.error.expect("the SET must fail");
    assert_eq!((error.code, error.sql_state.as_str()), (1231, "42000"));
    assert!(
        error.msg.starts_with(
            "Variable 'xrpc_binlog' can't be set to the value of '*': cannot open the binlog directory"
        ) && error.msg.contains(logs.to_str().unwrap()),
        "{}",
        error.msg
    );
    assert_eq!(
        common::text(client.query(1, "SELECT @@xrpc_binlog").scalar()),
        ""
    );
    assert_eq!(
        common::status_value(&mut client, 1, "xrpc_binlog_written"),
        "0"
    );
    // Switching it off (the value in force) is still accepted.
    let off = client.query(1, "SET GLOBAL xrpc_binlog = ''");
    assert!(off.error.is_none(), "{:?}", off.error);

    std::fs::remove_file(&blocker).unwrap();
    let on = client.query(1, "SET GLOBAL xrpc_binlog = '*'");
    assert!(on.error.is_none(), "{:?}", on.error);
    assert_eq!(
        common::text(client.query(1, "SELECT @@xrpc_binlog").scalar()),
        "*"
    );
    common::wait_until(Duration::from_secs(20), "an entry in the new log", || {
        client.query(1, "SELECT 1");
        common::status_value(&mut client, 1, "xrpc_binlog_written") != "0"
    });
    assert!(!binlog::sink::files_in(&logs).unwrap().is_empty());
}
