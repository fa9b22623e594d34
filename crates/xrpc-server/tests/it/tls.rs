//! The node's side of TLS, frame by frame: the CapabilitiesSet switch and its refusals, the `tls`
//! capability, PLAIN authentication only over TLS, and a client that does not wait for the
//! switch's OK. (The blocking client's TLS against a node, certificates and reload included, is
//! tested in `xrpc-client/tests/tls.rs`.)

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::TestNode;
use xrpc_net::rustls::pki_types::ServerName;
use xrpc_net::rustls::{self, ClientConfig, RootCertStore};
use xrpc_proto::frame::{FrameConfig, FrameDecoder, HeaderFormat, encode_message_frame};
use xrpc_proto::messages::{ClientType, ServerMessage, pb};
use xrpc_server::tls::{TlsContext, TlsFiles};
use xrpc_testkit::tls::{TestCa, TestPki};

/// Frames over any byte stream: a plain socket, or a TLS one.
struct Framed<S> {
    stream: S,
    decoder: FrameDecoder,
}

impl<S: Read + Write> Framed<S> {
    fn new(stream: S) -> Self {
        Self {
            stream,
            decoder: FrameDecoder::new(FrameConfig::default()),
        }
    }

    fn send<M: prost::Message>(&mut self, sid: u64, kind: ClientType, message: &M) {
        let mut buf = Vec::new();
        encode_message_frame(&mut buf, HeaderFormat::Standard, sid, kind.id(), message);
        self.stream.write_all(&buf).unwrap();
        self.stream.flush().unwrap();
    }

    /// The next message, or `None` at the end of the stream.
    fn recv(&mut self) -> Option<(u64, ServerMessage)> {
        loop {
            if let Some(frame) = self.decoder.next_frame().unwrap() {
                let message = ServerMessage::decode(frame.type_id, frame.body).unwrap();
                return Some((frame.sid, message));
            }
            let mut buf = [0u8; 16 * 1024];
            match self.stream.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => self.decoder.feed(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::UnexpectedEof
                    ) =>
                {
                    return None;
                }
                Err(e) => panic!("read failed: {e}"),
            }
        }
    }

    fn recv_error(&mut self) -> pb::Error {
        match self.recv() {
            Some((0, ServerMessage::Error(err))) => err,
            other => panic!("expected an error on sid 0, got {other:?}"),
        }
    }

    fn capabilities(&mut self) -> Vec<(String, Option<bool>)> {
        self.send(
            0,
            ClientType::CapabilitiesGet,
            &pb::connection::CapabilitiesGet {},
        );
        match self.recv() {
            Some((0, ServerMessage::Capabilities(caps))) => caps
                .capabilities
                .into_iter()
                .map(|c| (c.name, c.value.scalar.and_then(|s| s.v_bool)))
                .collect(),
            other => panic!("expected capabilities, got {other:?}"),
        }
    }

    fn plain_auth(&mut self, user: &str, password: &str) -> Option<(u64, ServerMessage)> {
        let credentials = xrpc_proto::auth::PlainCredentials {
            schema: String::new(),
            user: user.into(),
            password: password.as_bytes().to_vec(),
        };
        self.send(
            0,
            ClientType::AuthenticateStart,
            &pb::session::AuthenticateStart {
                mech_name: "PLAIN".into(),
                auth_data: Some(Bytes::from(credentials.encode())),
                ..Default::default()
            },
        );
        self.recv()
    }
}

fn tls_capability(value: bool) -> pb::connection::CapabilitiesSet {
    capability("tls", value)
}

fn capability(name: &str, value: bool) -> pb::connection::CapabilitiesSet {
    pb::connection::CapabilitiesSet {
        capabilities: pb::connection::Capabilities {
            capabilities: vec![pb::connection::Capability {
                name: name.into(),
                value: pb::datatypes::Any {
                    r#type: pb::datatypes::any::Type::Scalar as i32,
                    scalar: Some(pb::datatypes::Scalar {
                        r#type: pb::datatypes::scalar::Type::VBool as i32,
                        v_bool: Some(value),
                        ..Default::default()
                    }),
                    ..Default::default()
                },
            }],
        },
    }
}

struct Setup {
    node: TestNode,
    ca: TestCa,
    _pki: TestPki,
}

/// A node (with the common accounts: `app` / `s3cret`) offering TLS.
fn node_with_tls() -> Setup {
    let pki = TestPki::new();
    let ca = pki.ca("node");
    let cert = pki.server_cert(&ca, "node");
    let files = TlsFiles {
        cert: cert.cert,
        key: cert.key,
        ca: None,
    };
    let node = TestNode::start_with(move |_, shared| {
        shared.tls = TlsContext::load(files).unwrap();
    });
    Setup {
        node,
        ca,
        _pki: pki,
    }
}

fn plain(node: &TestNode) -> Framed<TcpStream> {
    let stream = TcpStream::connect(node.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    Framed::new(stream)
}

type TlsStream = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// Switches a plain connection to TLS: CapabilitiesSet, the OK in the clear, the handshake.
fn switch(conn: Framed<TcpStream>, ca: &TestCa) -> Framed<TlsStream> {
    try_switch(conn, ca).expect("TLS handshake")
}

/// [`switch`], returning the handshake's error.
fn try_switch(
    mut conn: Framed<TcpStream>,
    ca: &TestCa,
) -> Result<Framed<TlsStream>, std::io::Error> {
    conn.send(0, ClientType::CapabilitiesSet, &tls_capability(true));
    match conn.recv() {
        Some((0, ServerMessage::Ok(_))) => {}
        other => panic!("expected the switch's OK, got {other:?}"),
    }
    let mut roots = RootCertStore::empty();
    let pem = std::fs::read(&ca.cert_file).unwrap();
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(&pem) {
        roots.add(cert.unwrap()).unwrap();
    }
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let session =
        rustls::ClientConnection::new(Arc::new(config), ServerName::try_from("localhost").unwrap())
            .unwrap();
    let mut stream = rustls::StreamOwned::new(session, conn.stream);
    while stream.conn.is_handshaking() {
        stream.conn.complete_io(&mut stream.sock)?;
    }
    Ok(Framed::new(stream))
}

use rustls::pki_types::pem::PemObject;

#[test]
fn plain_auth_is_refused_without_tls_and_accepted_over_it() {
    let setup = node_with_tls();
    let mut conn = plain(&setup.node);
    match conn.plain_auth("app", "s3cret") {
        Some((0, ServerMessage::Error(err))) => {
            assert_eq!(err.code, 1251, "{err:?}");
            assert!(err.msg.contains("only after switching to TLS"), "{err:?}");
        }
        other => panic!("PLAIN without TLS must be refused, got {other:?}"),
    }

    let mut conn = switch(plain(&setup.node), &setup.ca);
    match conn.plain_auth("app", "wrong") {
        Some((0, ServerMessage::Error(err))) => assert_eq!(err.code, 1045, "{err:?}"),
        other => panic!("a wrong PLAIN password must be refused, got {other:?}"),
    }
    match conn.plain_auth("app", "s3cret") {
        Some((0, ServerMessage::AuthenticateOk(_))) => {}
        other => panic!("PLAIN over TLS must authenticate, got {other:?}"),
    }
    // And the connection serves SQL.
    conn.send(
        1,
        ClientType::NewSession,
        &pb::session::NewSession::default(),
    );
    assert!(matches!(conn.recv(), Some((1, ServerMessage::Ok(_)))));
    conn.send(1, ClientType::ExecSql, &common::sql_stmt("select 41 + 1"));
    let mut saw_row = false;
    loop {
        match conn.recv() {
            Some((1, ServerMessage::Row(_))) => saw_row = true,
            Some((1, ServerMessage::StmtExecuteOk(_))) => break,
            Some((1, _)) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(saw_row);
}

#[test]
fn the_tls_capability_says_whether_the_connection_switched() {
    let setup = node_with_tls();
    let mut conn = plain(&setup.node);
    let caps = conn.capabilities();
    assert!(caps.contains(&("polarx_rpc".into(), None)), "{caps:?}");
    assert!(caps.contains(&("tls".into(), Some(false))), "{caps:?}");
    let mut conn = switch(conn, &setup.ca);
    let caps = conn.capabilities();
    assert!(caps.contains(&("tls".into(), Some(true))), "{caps:?}");

    // A node without a certificate does not mention tls at all (the PolarDB-X client sees
    // exactly what it always saw).
    let bare = TestNode::start();
    let caps = plain(&bare).capabilities();
    assert_eq!(caps, vec![("polarx_rpc".to_owned(), None)]);
}

#[test]
fn switches_that_cannot_be_honoured_are_refused_and_the_connection_stays() {
    let setup = node_with_tls();
    let mut conn = plain(&setup.node);
    conn.send(
        0,
        ClientType::CapabilitiesSet,
        &capability("compression", true),
    );
    let err = conn.recv_error();
    assert_eq!(err.code, 5002, "{err:?}");
    conn.send(0, ClientType::CapabilitiesSet, &tls_capability(false));
    assert_eq!(conn.recv_error().code, 5001);

    // After authentication it is too late.
    let mut client = setup.node.client();
    client.send(0, ClientType::CapabilitiesSet, &tls_capability(true));
    match client.recv_on(0) {
        Some(ServerMessage::Error(err)) => {
            assert_eq!(err.code, 5001, "{err:?}");
            assert!(err.msg.contains("before authentication"), "{err:?}");
        }
        other => panic!("expected 5001, got {other:?}"),
    }

    // Already switched.
    let mut conn = switch(conn, &setup.ca);
    conn.send(0, ClientType::CapabilitiesSet, &tls_capability(true));
    let err = conn.recv_error();
    assert!(err.msg.contains("already uses TLS"), "{err:?}");
    // Each refusal left the connection usable.
    assert!(matches!(
        conn.plain_auth("app", "s3cret"),
        Some((0, ServerMessage::AuthenticateOk(_)))
    ));
}

#[test]
fn a_client_that_does_not_wait_for_the_ok_is_refused() {
    let setup = node_with_tls();
    let mut conn = plain(&setup.node);
    // CapabilitiesSet and another frame in one write: one segment on loopback, one read.
    let mut bytes = Vec::new();
    encode_message_frame(
        &mut bytes,
        HeaderFormat::Standard,
        0,
        ClientType::CapabilitiesSet.id(),
        &tls_capability(true),
    );
    encode_message_frame(
        &mut bytes,
        HeaderFormat::Standard,
        0,
        ClientType::CapabilitiesGet.id(),
        &pb::connection::CapabilitiesGet {},
    );
    conn.stream.write_all(&bytes).unwrap();
    let err = conn.recv_error();
    assert_eq!(err.code, 5001, "{err:?}");
    assert!(err.msg.contains("wait for the answer"), "{err:?}");
    // The frame behind it was served in the clear, and the connection stays plain.
    let caps = match conn.recv() {
        Some((0, ServerMessage::Capabilities(caps))) => caps,
        other => panic!("expected capabilities, got {other:?}"),
    };
    assert!(caps.capabilities.iter().any(|c| c.name == "tls"));
}

#[test]
fn garbage_instead_of_a_handshake_closes_only_that_connection() {
    let setup = node_with_tls();
    let mut conn = plain(&setup.node);
    conn.send(0, ClientType::CapabilitiesSet, &tls_capability(true));
    assert!(matches!(conn.recv(), Some((0, ServerMessage::Ok(_)))));
    conn.stream
        .write_all(b"this is not a TLS ClientHello, just bytes\r\n")
        .unwrap();
    // rustls answers with an alert record, then the node closes the socket.
    let mut rest = Vec::new();
    let _ = conn.stream.read_to_end(&mut rest);
    assert!(
        rest.len() < 64,
        "only an alert is expected, got {} bytes",
        rest.len()
    );

    // Another connection is served as usual.
    let mut other = common::Client::connect(setup.node.addr());
    other.authenticate("app", "s3cret").unwrap();
}

#[test]
fn handshake_bytes_sent_before_the_ok_close_the_connection() {
    let setup = node_with_tls();
    let mut conn = plain(&setup.node);
    // CapabilitiesSet and the start of a TLS record in one write: the record's first bytes were
    // read in the clear, before the switch, so the node cannot hand them to TLS.
    let mut bytes = Vec::new();
    encode_message_frame(
        &mut bytes,
        HeaderFormat::Standard,
        0,
        ClientType::CapabilitiesSet.id(),
        &tls_capability(true),
    );
    bytes.extend_from_slice(&[0x16, 0x03, 0x01, 0x00, 0x80]);
    conn.stream.write_all(&bytes).unwrap();
    assert!(matches!(conn.recv(), Some((0, ServerMessage::Ok(_)))));
    assert!(conn.recv().is_none(), "the node must close the connection");
}

#[test]
fn sighup_reloads_the_certificate_of_a_running_node() {
    let pki = TestPki::new();
    let first_ca = pki.ca("first");
    let second_ca = pki.ca("second");
    let cert = pki.server_cert(&first_ca, "node");
    let data = tempfile::tempdir().unwrap();
    let log = data.path().join("node.log");
    let (cert_path, key_path) = (cert.cert.to_str().unwrap(), cert.key.to_str().unwrap());
    let mut server = common::ServerProcess::spawn(
        &data.path().join("data"),
        &log,
        &["--tls-cert", cert_path, "--tls-key", key_path],
    );
    let connect = || {
        let stream = TcpStream::connect(server.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Framed::new(stream)
    };
    let mut conn = switch(connect(), &first_ca);
    assert!(conn.capabilities().contains(&("tls".into(), Some(true))));

    let hup = |expect: &str, count: usize| {
        let status = std::process::Command::new("kill")
            .arg("-HUP")
            .arg(server.pid().to_string())
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while server.log_text().matches(expect).count() < count {
            assert!(
                std::time::Instant::now() < deadline,
                "no '{expect}' in the log:\n{}",
                server.log_text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // New files at the same paths, then SIGHUP.
    let next = pki.server_cert(&second_ca, "node-next");
    std::fs::copy(&next.cert, &cert.cert).unwrap();
    std::fs::copy(&next.key, &cert.key).unwrap();
    hup("TLS certificate, key and client CA reloaded", 1);
    assert!(try_switch(connect(), &first_ca).is_err());
    switch(connect(), &second_ca);
    // The connection from before the reload still works.
    assert!(conn.capabilities().contains(&("tls".into(), Some(true))));

    // A broken key: the node says so and keeps the second certificate.
    std::fs::write(&cert.key, "not a key").unwrap();
    hup("TLS not reloaded", 1);
    switch(connect(), &second_ca);

    server.sigterm();
    assert!(
        server
            .wait_exit(Duration::from_secs(20))
            .is_some_and(|s| s.success())
    );
}

#[test]
fn unusable_tls_files_stop_start_up_with_one_line() {
    let pki = TestPki::new();
    let data = tempfile::tempdir().unwrap();
    let key = pki.write("key.pem", "not a key");
    let missing = pki.dir().join("missing.pem");
    let mut cmd = common::server_command();
    cmd.arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--data-dir")
        .arg(data.path())
        .arg("--tls-cert")
        .arg(&missing)
        .arg("--tls-key")
        .arg(&key);
    let out = cmd.output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = format!(
        "error: cannot read the TLS certificate from {}",
        missing.display()
    );
    assert!(stderr.contains(&line), "{stderr}");
    // A key without a certificate is a configuration error, before any file is read.
    let out = common::server_command()
        .arg("--data-dir")
        .arg(data.path())
        .arg("--tls-key")
        .arg(&key)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("tls_cert must be set too, since tls_key is set"),
        "{stderr}"
    );
}
