//! TLS between the blocking client and a real node: the X Protocol switch (CapabilitiesSet `tls`
//! before authenticating), certificate checks on both sides, `require_secure_transport`, and
//! reloading the node's certificate while it runs. Certificates are made per test
//! (`xrpc_testkit::tls`).

use std::path::Path;

use xrpc_client::blocking::Connection;
use xrpc_client::{ClientError, ConnectOptions, TlsOptions, Value};
use xrpc_server::engine::sqlite::SqliteOptions;
use xrpc_server::server::{Node, NodeBuilder};
use xrpc_server::tls::{TlsContext, TlsFiles};
use xrpc_server::users::{HostRule, UserConfig};
use xrpc_testkit::tls::{CertFiles, TestPki};

const PASSWORD: &str = "s3cret";

struct TlsNode {
    node: Option<Node>,
    _dir: tempfile::TempDir,
}

impl TlsNode {
    /// A node on a loopback port that offers TLS with `cert`, requiring client certificates
    /// signed by `client_ca` when given.
    fn start(cert: &CertFiles, client_ca: Option<&Path>) -> Self {
        let files = TlsFiles {
            cert: cert.cert.clone(),
            key: cert.key.clone(),
            ca: client_ca.map(Path::to_owned),
        };
        Self::start_with(Some(TlsContext::load(files).unwrap()))
    }

    fn start_with(tls: Option<TlsContext>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let node = NodeBuilder::sqlite(&dir.path().join("xrpc.db"), SqliteOptions::default())
            .unwrap()
            .loopback("127.0.0.1:0".parse().unwrap())
            .users(vec![UserConfig::with_password(
                "app",
                PASSWORD,
                vec![HostRule::Localhost],
            )])
            .tls(tls.unwrap_or_else(TlsContext::disabled))
            .start()
            .unwrap();
        Self {
            node: Some(node),
            _dir: dir,
        }
    }

    fn node(&self) -> &Node {
        self.node.as_ref().unwrap()
    }

    fn addr(&self) -> std::net::SocketAddr {
        self.node().local_addr()
    }
}

impl Drop for TlsNode {
    fn drop(&mut self) {
        if let Some(node) = self.node.take() {
            node.shutdown();
        }
    }
}

fn options() -> ConnectOptions {
    ConnectOptions::new("app", PASSWORD)
}

fn trusting(ca: &Path) -> ConnectOptions {
    options().tls(TlsOptions::with_ca_file(ca).unwrap())
}

fn connect(node: &TlsNode, options: ConnectOptions) -> Result<Connection, ClientError> {
    Connection::connect(node.addr(), options)
}

fn int(value: &Value) -> i64 {
    match value {
        Value::Sint(n) => *n,
        other => panic!("not a SINT: {other:?}"),
    }
}

/// The client error of a connect that must fail.
fn refused(result: Result<Connection, ClientError>) -> ClientError {
    match result {
        Ok(_) => panic!("the connection was expected to fail"),
        Err(err) => err,
    }
}

#[test]
fn sql_round_trips_over_tls() {
    let pki = TestPki::new();
    let ca = pki.ca("node");
    let node = TlsNode::start(&pki.server_cert(&ca, "node"), None);
    let conn = connect(&node, trusting(&ca.cert_file)).unwrap();

    let mut session = conn.session().unwrap();
    session
        .execute("create table t (id integer primary key, v text)", &[])
        .unwrap();
    for i in 0..50i64 {
        let done = session
            .execute(
                "insert into t values (?, ?)",
                &[i.into(), format!("row {i}").into()],
            )
            .unwrap();
        assert_eq!(done.rows_affected, 1);
    }
    let rs = session.query("select count(*), sum(id) from t").unwrap();
    assert_eq!(int(&rs.rows[0][0]), 50);
    assert_eq!(int(&rs.rows[0][1]), (0..50).sum::<i64>());

    // A result of several MiB: many TLS records, and a socket that fills up on the node's side.
    let big = session
        .query(
            "with recursive c(i) as (select 1 union all select i + 1 from c where i < 100000) \
             select i, lpad(i, 50, '0') from c",
        )
        .unwrap();
    assert_eq!(big.rows.len(), 100_000);
    assert_eq!(int(&big.rows[99_999][0]), 100_000);

    // Several sessions on the one TLS connection, from several threads.
    std::thread::scope(|scope| {
        for t in 0..4i64 {
            let conn = conn.clone();
            scope.spawn(move || {
                let mut s = conn.session().unwrap();
                for i in 0..20i64 {
                    let rs = s.query(&format!("select {t} * 1000 + {i}")).unwrap();
                    assert_eq!(int(&rs.rows[0][0]), t * 1000 + i);
                }
            });
        }
    });
    assert!(!conn.is_broken());
}

#[test]
fn a_certificate_from_another_authority_fails_the_handshake() {
    let pki = TestPki::new();
    let node_ca = pki.ca("node");
    let other_ca = pki.ca("other");
    let node = TlsNode::start(&pki.server_cert(&node_ca, "node"), None);

    let err = refused(connect(&node, trusting(&other_ca.cert_file)));
    assert!(err.is_tls(), "{err}");
    assert!(err.to_string().contains("UnknownIssuer"), "{err}");
    // The node is unharmed.
    connect(&node, trusting(&node_ca.cert_file)).unwrap();
}

#[test]
fn an_expired_certificate_fails_the_handshake() {
    let pki = TestPki::new();
    let ca = pki.ca("node");
    let node = TlsNode::start(&pki.expired_server_cert(&ca, "old"), None);

    let err = refused(connect(&node, trusting(&ca.cert_file)));
    assert!(err.is_tls(), "{err}");
    assert!(err.to_string().contains("certificate expired"), "{err}");
}

#[test]
fn the_server_name_is_checked() {
    let pki = TestPki::new();
    let ca = pki.ca("node");
    let node = TlsNode::start(&pki.server_cert(&ca, "node"), None);

    let wrong = TlsOptions::with_ca_file(&ca.cert_file)
        .unwrap()
        .server_name("db.example.com")
        .unwrap();
    let err = refused(connect(&node, options().tls(wrong)));
    assert!(err.is_tls(), "{err}");
    assert!(err.to_string().contains("not valid for name"), "{err}");

    let right = TlsOptions::with_ca_file(&ca.cert_file)
        .unwrap()
        .server_name("localhost")
        .unwrap();
    connect(&node, options().tls(right)).unwrap();
}

#[test]
fn a_node_with_a_client_ca_requires_a_client_certificate() {
    let pki = TestPki::new();
    let node_ca = pki.ca("node");
    let client_ca = pki.ca("clients");
    let rogue_ca = pki.ca("rogue");
    let node = TlsNode::start(
        &pki.server_cert(&node_ca, "node"),
        Some(&client_ca.cert_file),
    );

    // No certificate: the node's alert fails the handshake (TLS 1.3 reports it at the first
    // read, which the connect's authentication does).
    let err = refused(connect(&node, trusting(&node_ca.cert_file)));
    assert!(err.is_tls() || err.is_connection_lost(), "{err}");
    assert!(err.to_string().contains("CertificateRequired"), "{err}");

    // A certificate from an authority the node does not know.
    let rogue = pki.client_cert(&rogue_ca, "rogue-client");
    let options_with = |cert: &CertFiles| {
        options().tls(
            TlsOptions::with_ca_file(&node_ca.cert_file)
                .unwrap()
                .client_cert_files(&cert.cert, &cert.key)
                .unwrap(),
        )
    };
    let err = refused(connect(&node, options_with(&rogue)));
    assert!(err.is_tls() || err.is_connection_lost(), "{err}");
    assert!(err.to_string().contains("UnknownCA"), "{err}");

    // The right one.
    let good = pki.client_cert(&client_ca, "app-client");
    let conn = connect(&node, options_with(&good)).unwrap();
    assert_eq!(int(&conn.query_once("select 7").unwrap().rows[0][0]), 7);
}

#[test]
fn a_plain_client_is_refused_when_secure_transport_is_required() {
    let pki = TestPki::new();
    let ca = pki.ca("node");
    let node = TlsNode::start(&pki.server_cert(&ca, "node"), None);

    // Off by default: a plain client (as the PolarDB-X client is) works.
    connect(&node, options()).unwrap();

    let admin = connect(&node, trusting(&ca.cert_file)).unwrap();
    admin
        .execute_once("set global require_secure_transport = ON", &[])
        .unwrap();
    let err = refused(connect(&node, options()));
    assert_eq!(err.code(), Some(3159), "{err}");
    assert!(
        err.to_string().contains("require_secure_transport"),
        "{err}"
    );
    // Over TLS it still works.
    connect(&node, trusting(&ca.cert_file)).unwrap();

    admin
        .execute_once("set global require_secure_transport = OFF", &[])
        .unwrap();
    connect(&node, options()).unwrap();
}

#[test]
fn a_node_without_a_certificate_refuses_the_switch() {
    let pki = TestPki::new();
    let ca = pki.ca("node");
    let node = TlsNode::start_with(None);
    let err = refused(connect(&node, trusting(&ca.cert_file)));
    assert!(err.is_tls(), "{err}");
    assert_eq!(err.code(), Some(5001), "{err}");
}

#[test]
fn the_certificate_reloads_without_a_restart() {
    let pki = TestPki::new();
    let first_ca = pki.ca("first");
    let second_ca = pki.ca("second");
    let first = pki.server_cert(&first_ca, "node");
    let node = TlsNode::start(&first, None);
    let admin = connect(&node, trusting(&first_ca.cert_file)).unwrap();

    // Replace the files in place (same paths) with a certificate of the second authority.
    let second = pki.server_cert(&second_ca, "node-next");
    std::fs::copy(&second.cert, &first.cert).unwrap();
    std::fs::copy(&second.key, &first.key).unwrap();
    // Not reloaded yet: new handshakes still get the first certificate.
    connect(&node, trusting(&first_ca.cert_file)).unwrap();

    admin
        .execute_once("alter instance reload tls", &[])
        .unwrap();
    let err = refused(connect(&node, trusting(&first_ca.cert_file)));
    assert!(err.is_tls(), "{err}");
    let fresh = connect(&node, trusting(&second_ca.cert_file)).unwrap();
    // The connection that was open before the reload keeps working.
    assert_eq!(int(&admin.query_once("select 1").unwrap().rows[0][0]), 1);

    // A broken file is refused with 3889 and the second certificate stays in force.
    std::fs::write(&first.key, "not a key").unwrap();
    let err = fresh
        .execute_once("alter instance reload tls", &[])
        .unwrap_err();
    assert_eq!(err.code(), Some(3889), "{err}");
    assert!(node.node().reload_tls().is_err());
    connect(&node, trusting(&second_ca.cert_file)).unwrap();
}

/// The tokio transport over TLS (feature `async`): the same switch, checks and refusals.
#[cfg(feature = "async")]
mod async_transport {
    use super::*;
    use xrpc_client::aio;

    async fn connect_async(
        node: &TlsNode,
        options: ConnectOptions,
    ) -> Result<aio::Connection, ClientError> {
        aio::Connection::connect(node.addr(), options).await
    }

    fn refused_async(result: Result<aio::Connection, ClientError>) -> ClientError {
        match result {
            Ok(_) => panic!("the connection was expected to fail"),
            Err(err) => err,
        }
    }

    #[tokio::test]
    async fn async_sql_round_trips_over_tls() {
        let pki = TestPki::new();
        let ca = pki.ca("node");
        let node = TlsNode::start(&pki.server_cert(&ca, "node"), None);
        let conn = connect_async(&node, trusting(&ca.cert_file)).await.unwrap();

        let mut session = conn.session().unwrap();
        session
            .execute("create table t (id integer primary key, v text)", &[])
            .await
            .unwrap();
        // Pipelined writes: many requests in one write, hence in few TLS records.
        let mut pipeline = session.pipeline();
        for i in 0..50i64 {
            pipeline = pipeline.push_with_args(
                "insert into t values (?, ?)",
                vec![i.into(), format!("row {i}").into()],
            );
        }
        let mut results = pipeline.send().unwrap();
        while let Some(result) = results.next_result().await {
            assert_eq!(result.unwrap().rows_affected, 1);
        }
        drop(results);
        let rs = session
            .query("select count(*), sum(id) from t")
            .await
            .unwrap();
        assert_eq!(int(&rs.rows[0][0]), 50);
        assert_eq!(int(&rs.rows[0][1]), (0..50).sum::<i64>());

        // A result of several MiB: many records, and a socket that fills up on the node's side.
        let big = session
            .query(
                "with recursive c(i) as (select 1 union all select i + 1 from c where i < 100000) \
                 select i, lpad(i, 50, '0') from c",
            )
            .await
            .unwrap();
        assert_eq!(big.rows.len(), 100_000);
        assert_eq!(int(&big.rows[99_999][0]), 100_000);

        // Several sessions at once on the one TLS connection.
        let mut tasks = Vec::new();
        for t in 0..4i64 {
            let conn = conn.clone();
            tasks.push(tokio::spawn(async move {
                let mut s = conn.session().unwrap();
                for i in 0..20i64 {
                    let rs = s.query(&format!("select {t} * 1000 + {i}")).await.unwrap();
                    assert_eq!(int(&rs.rows[0][0]), t * 1000 + i);
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert!(!conn.is_broken());
    }

    #[tokio::test]
    async fn async_certificate_checks_and_refusals() {
        let pki = TestPki::new();
        let node_ca = pki.ca("node");
        let other_ca = pki.ca("other");
        let node = TlsNode::start(&pki.server_cert(&node_ca, "node"), None);

        let err = refused_async(connect_async(&node, trusting(&other_ca.cert_file)).await);
        assert!(err.is_tls(), "{err}");
        assert!(err.to_string().contains("UnknownIssuer"), "{err}");

        let wrong_name = TlsOptions::with_ca_file(&node_ca.cert_file)
            .unwrap()
            .server_name("db.example.com")
            .unwrap();
        let err = refused_async(connect_async(&node, options().tls(wrong_name)).await);
        assert!(err.to_string().contains("not valid for name"), "{err}");

        // A plain async client is refused once the node requires secure transport.
        let admin = connect_async(&node, trusting(&node_ca.cert_file))
            .await
            .unwrap();
        admin
            .execute_once("set global require_secure_transport = ON", &[])
            .await
            .unwrap();
        let err = refused_async(connect_async(&node, options()).await);
        assert_eq!(err.code(), Some(3159), "{err}");
        connect_async(&node, trusting(&node_ca.cert_file))
            .await
            .unwrap();

        // A node without a certificate refuses the switch with 5001.
        let plain_node = TlsNode::start_with(None);
        let err = refused_async(connect_async(&plain_node, trusting(&node_ca.cert_file)).await);
        assert!(err.is_tls(), "{err}");
        assert_eq!(err.code(), Some(5001), "{err}");
    }

    #[tokio::test]
    async fn async_client_certificate_is_presented() {
        let pki = TestPki::new();
        let node_ca = pki.ca("node");
        let client_ca = pki.ca("clients");
        let node = TlsNode::start(
            &pki.server_cert(&node_ca, "node"),
            Some(&client_ca.cert_file),
        );
        let err = refused_async(connect_async(&node, trusting(&node_ca.cert_file)).await);
        assert!(err.to_string().contains("CertificateRequired"), "{err}");

        let good = pki.client_cert(&client_ca, "app-client");
        let with_cert = options().tls(
            TlsOptions::with_ca_file(&node_ca.cert_file)
                .unwrap()
                .client_cert_files(&good.cert, &good.key)
                .unwrap(),
        );
        let conn = connect_async(&node, with_cert).await.unwrap();
        assert_eq!(
            int(&conn.query_once("select 7").await.unwrap().rows[0][0]),
            7
        );
    }
}
