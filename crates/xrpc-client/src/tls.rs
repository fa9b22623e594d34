//! TLS to a data node, the X Protocol way: CapabilitiesSet `tls = true` on sid 0 before
//! authenticating, the node's OK in the clear, then a TLS handshake on the same socket.
//!
//! [`TlsOptions`] says whom to trust and which name to check. The server's certificate is always
//! verified, against its name: by default the host the caller connected to (the CLI passes the
//! host of `--host`), or the peer's IP address when only an address is known. There is no
//! switch to turn verification off; a test or a private deployment gives its own authority with
//! [`TlsOptions::with_ca_file`].
//!
//! The switch happens in the transport, before the connection's core ([`crate::proto`]) sends its
//! first frame: the core never knows whether its bytes are encrypted.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{IpAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore};
use xrpc_proto::FrameConfig;
use xrpc_proto::frame::{CONNECTION_SID, FrameHeader, encode_message_frame};
use xrpc_proto::messages::{ClientType, ServerType, pb};

use crate::error::{ClientError, ServerError};

/// Whom to trust, which name to check, and the client's own certificate if the node asks for one.
#[derive(Clone)]
pub struct TlsOptions {
    roots: Arc<RootCertStore>,
    client_auth: Option<(Vec<CertificateDer<'static>>, Arc<PrivateKeyDer<'static>>)>,
    server_name: Option<ServerName<'static>>,
}

impl TlsOptions {
    /// Trusts the system's certificate authorities (as `rustls-native-certs` finds them).
    pub fn system_roots() -> Result<Self, ClientError> {
        let found = rustls_native_certs::load_native_certs();
        let mut roots = RootCertStore::empty();
        let (added, _ignored) = roots.add_parsable_certificates(found.certs);
        if added == 0 {
            let why = found
                .errors
                .first()
                .map_or_else(|| "none found".to_owned(), ToString::to_string);
            return Err(ClientError::tls(
                format!(
                    "no system certificate authority could be loaded ({why}); name one with --tls-ca"
                ),
                None,
            ));
        }
        Ok(Self::with_roots(roots))
    }

    /// Trusts only the authorities in a PEM file.
    pub fn with_ca_file(path: impl AsRef<Path>) -> Result<Self, ClientError> {
        let path = path.as_ref();
        let mut roots = RootCertStore::empty();
        for cert in read_certs(path)? {
            roots
                .add(cert)
                .map_err(|e| ClientError::tls(format!("{}: {e}", path.display()), None))?;
        }
        Ok(Self::with_roots(roots))
    }

    /// Trusts the authorities of `roots`.
    pub fn with_roots(roots: RootCertStore) -> Self {
        Self {
            roots: Arc::new(roots),
            client_auth: None,
            server_name: None,
        }
    }

    /// Presents this certificate chain and key when the node asks for a client certificate.
    pub fn client_cert_files(
        mut self,
        cert: impl AsRef<Path>,
        key: impl AsRef<Path>,
    ) -> Result<Self, ClientError> {
        let certs = read_certs(cert.as_ref())?;
        let key = PrivateKeyDer::from_pem_file(key.as_ref())
            .map_err(|e| ClientError::tls(format!("{}: {e}", key.as_ref().display()), None))?;
        self.client_auth = Some((certs, Arc::new(key)));
        Ok(self)
    }

    /// Checks the server's certificate against `name` (a DNS name or an IP address) instead of
    /// the address connected to.
    pub fn server_name(mut self, name: &str) -> Result<Self, ClientError> {
        let name = ServerName::try_from(name.to_owned())
            .map_err(|e| ClientError::usage(format!("invalid TLS server name '{name}': {e}")))?;
        self.server_name = Some(name);
        Ok(self)
    }

    fn client_config(&self) -> Result<Arc<ClientConfig>, ClientError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| ClientError::tls(e.to_string(), None))?
            .with_root_certificates(Arc::clone(&self.roots));
        let config = match &self.client_auth {
            None => builder.with_no_client_auth(),
            Some((certs, key)) => builder
                .with_client_auth_cert(certs.clone(), key.clone_key())
                .map_err(|e| ClientError::tls(e.to_string(), None))?,
        };
        Ok(Arc::new(config))
    }
}

impl fmt::Debug for TlsOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsOptions")
            .field("roots", &self.roots.len())
            .field("client_cert", &self.client_auth.is_some())
            .field("server_name", &self.server_name)
            .finish()
    }
}

fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, ClientError> {
    let fail = |e: String| ClientError::tls(format!("{}: {e}", path.display()), None);
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| fail(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(e.to_string()))?;
    if certs.is_empty() {
        return Err(fail("no CERTIFICATE block in the file".into()));
    }
    Ok(certs)
}

/// Asks the node to switch `stream` to TLS and completes the handshake, within `timeout` for each
/// read and write. `peer` names the server when the options name none.
///
/// The blocking transport calls it, and so can a transport of the caller's own (the `xrpc
/// bench` load driver does): afterwards every byte goes through the returned rustls session, and
/// the caller's core must not have sent anything before.
pub fn negotiate(
    stream: &mut TcpStream,
    options: &TlsOptions,
    frame: &FrameConfig,
    peer: IpAddr,
    timeout: Duration,
) -> Result<ClientConnection, ClientError> {
    let config = options.client_config()?;
    let name = options.name_for(peer);
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;

    stream
        .write_all(&switch_request(frame))
        .map_err(|e| io_failure(e, timeout))?;
    // The node sends nothing else before its answer, and nothing after it until our handshake:
    // read exactly one frame.
    let mut header = vec![0u8; frame.format.header_len()];
    stream
        .read_exact(&mut header)
        .map_err(|e| io_failure(e, timeout))?;
    let answer = answer_header(&header, frame)?;
    let mut body = vec![0u8; answer.body_len as usize];
    stream
        .read_exact(&mut body)
        .map_err(|e| io_failure(e, timeout))?;
    check_switch_answer(answer.type_id, &body)?;

    let mut session =
        ClientConnection::new(config, name).map_err(|e| ClientError::tls(e.to_string(), None))?;
    while session.is_handshaking() {
        session
            .complete_io(stream)
            .map_err(|e| handshake_failure(e, timeout))?;
    }
    // TLS 1.3 sends the client's Finished after the handshake state ends.
    while session.wants_write() {
        session
            .write_tls(stream)
            .map_err(|e| handshake_failure(e, timeout))?;
    }
    // The socket's timeouts are shared with the transport's clones of it: leave them as found.
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)?;
    Ok(session)
}

/// [`negotiate`] for the tokio transport: the same exchange, then `tokio-rustls` carries the
/// handshake and, afterwards, every frame. `timeout` bounds the whole negotiation.
#[cfg(feature = "async")]
pub(crate) async fn negotiate_async(
    mut stream: tokio::net::TcpStream,
    options: &TlsOptions,
    frame: &FrameConfig,
    peer: IpAddr,
    timeout: Duration,
) -> Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>, ClientError> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let config = options.client_config()?;
    let name = options.name_for(peer);
    let exchange = async move {
        stream
            .write_all(&switch_request(frame))
            .await
            .map_err(|e| io_failure(e, timeout))?;
        let mut header = vec![0u8; frame.format.header_len()];
        stream
            .read_exact(&mut header)
            .await
            .map_err(|e| io_failure(e, timeout))?;
        let answer = answer_header(&header, frame)?;
        let mut body = vec![0u8; answer.body_len as usize];
        stream
            .read_exact(&mut body)
            .await
            .map_err(|e| io_failure(e, timeout))?;
        check_switch_answer(answer.type_id, &body)?;
        tokio_rustls::TlsConnector::from(config)
            .connect(name, stream)
            .await
            .map_err(|e| handshake_failure(e, timeout))
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(result) => result,
        Err(_) => Err(ClientError::timeout("TLS negotiation", timeout)),
    }
}

impl TlsOptions {
    /// The name the server's certificate must carry: the one configured, else the peer's address.
    fn name_for(&self, peer: IpAddr) -> ServerName<'static> {
        self.server_name
            .clone()
            .unwrap_or(ServerName::IpAddress(peer.into()))
    }
}

/// The CapabilitiesSet `tls = true` frame on sid 0.
fn switch_request(frame: &FrameConfig) -> Vec<u8> {
    let request = pb::connection::CapabilitiesSet {
        capabilities: pb::connection::Capabilities {
            capabilities: vec![pb::connection::Capability {
                name: "tls".into(),
                value: bool_any(true),
            }],
        },
    };
    let mut out = Vec::with_capacity(64);
    encode_message_frame(
        &mut out,
        frame.format,
        CONNECTION_SID,
        ClientType::CapabilitiesSet.id(),
        &request,
    );
    out
}

/// The header of the answer to CapabilitiesSet.
fn answer_header(header: &[u8], frame: &FrameConfig) -> Result<FrameHeader, ClientError> {
    FrameHeader::parse(header, frame)
        .map_err(|e| ClientError::protocol(format!("answer to CapabilitiesSet: {e}")))?
        .ok_or_else(|| ClientError::protocol("short frame header"))
}

/// Whether the node agreed to switch: its OK, or the Error it refused with.
fn check_switch_answer(type_id: u8, body: &[u8]) -> Result<(), ClientError> {
    if type_id == ServerType::Error.id() {
        let err = pb::Error::decode(body)
            .map_err(|e| ClientError::protocol(format!("undecodable Error: {e}")))?;
        let err = ServerError::from_pb(&err);
        return Err(ClientError::tls(
            format!("the server refused to switch to TLS: {err}"),
            Some(err),
        ));
    }
    if type_id != ServerType::Ok.id() {
        return Err(ClientError::protocol(format!(
            "answer to CapabilitiesSet of type {type_id} instead of OK"
        )));
    }
    Ok(())
}

fn io_failure(err: io::Error, timeout: Duration) -> ClientError {
    match err.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            ClientError::timeout("TLS negotiation", timeout)
        }
        _ => err.into(),
    }
}

fn handshake_failure(err: io::Error, timeout: Duration) -> ClientError {
    match err.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            ClientError::timeout("TLS handshake", timeout)
        }
        // rustls reports its own errors (a bad certificate, an alert from the node) as InvalidData;
        // a node that closes the socket is a failed handshake too.
        _ => ClientError::tls(format!("handshake failed: {err}"), None),
    }
}

fn bool_any(value: bool) -> pb::datatypes::Any {
    pb::datatypes::Any {
        r#type: pb::datatypes::any::Type::Scalar as i32,
        scalar: Some(pb::datatypes::Scalar {
            r#type: pb::datatypes::scalar::Type::VBool as i32,
            v_bool: Some(value),
            ..Default::default()
        }),
        ..Default::default()
    }
}
