//! The node's TLS: certificates from PEM files, reloadable while the node runs.
//!
//! A client switches a connection to TLS the X Protocol way: CapabilitiesSet `tls = true` on sid 0
//! before it authenticates; the node answers OK in the clear and the connection continues over TLS
//! on the same socket (`xrpc_net::tls`). [`TlsContext`] holds the rustls configuration that new
//! handshakes use. [`TlsContext::reload`] reads the files again and swaps the configuration in
//! whole, or keeps the old one and reports why: a connection in the middle of its handshake keeps
//! the configuration it started with, and no connection ever sees a half-loaded one.
//!
//! With `tls_ca`, every client must present a certificate signed by one of its authorities; a
//! handshake without one fails (rustls sends the alert) and the connection is closed.
//!
//! The crypto provider is rustls's `ring`, named explicitly, so the process never depends on which
//! providers other crates happen to enable.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::RwLock;
use xrpc_net::rustls::pki_types::pem::PemObject;
use xrpc_net::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use xrpc_net::rustls::server::WebPkiClientVerifier;
use xrpc_net::rustls::{self, RootCertStore, ServerConfig};

/// Where the node's certificate, key and (optional) client authorities are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// PEM certificate chain, the node's own certificate first.
    pub cert: PathBuf,
    /// PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// PEM certificates of the authorities that sign client certificates; when set, clients must
    /// present one.
    pub ca: Option<PathBuf>,
}

/// Why the TLS files could not be turned into a configuration.
#[derive(Debug, thiserror::Error)]
pub enum TlsLoadError {
    /// A file could not be read or holds no usable PEM item of the kind needed.
    #[error("cannot read the TLS {what} from {path}: {reason}")]
    File {
        /// Which file: "certificate", "private key" or "client CA".
        what: &'static str,
        /// Its path.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// rustls refused the certificate, key or authorities (a key that does not match the
    /// certificate, say).
    #[error("invalid TLS configuration: {0}")]
    Invalid(String),
}

impl TlsFiles {
    /// Reads the files and builds the server configuration.
    pub fn load(&self) -> Result<Arc<ServerConfig>, TlsLoadError> {
        let certs = read_certs(&self.cert, "certificate")?;
        let key = PrivateKeyDer::from_pem_file(&self.key).map_err(|e| TlsLoadError::File {
            what: "private key",
            path: self.key.clone(),
            reason: e.to_string(),
        })?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsLoadError::Invalid(e.to_string()))?;
        let builder = match &self.ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let mut roots = RootCertStore::empty();
                for cert in read_certs(ca, "client CA")? {
                    roots.add(cert).map_err(|e| {
                        TlsLoadError::Invalid(format!("client CA {}: {e}", ca.display()))
                    })?;
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .build()
                        .map_err(|e| TlsLoadError::Invalid(e.to_string()))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder
            .with_single_cert(certs, key)
            .map_err(|e| TlsLoadError::Invalid(e.to_string()))?;
        Ok(Arc::new(config))
    }
}

fn read_certs(
    path: &Path,
    what: &'static str,
) -> Result<Vec<CertificateDer<'static>>, TlsLoadError> {
    let file_error = |reason: String| TlsLoadError::File {
        what,
        path: path.to_owned(),
        reason,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| file_error(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_error(e.to_string()))?;
    if certs.is_empty() {
        return Err(file_error("no CERTIFICATE block in the file".into()));
    }
    Ok(certs)
}

/// The configuration new TLS handshakes use, and the files it came from.
#[derive(Debug, Default)]
pub struct TlsContext {
    files: Option<TlsFiles>,
    config: RwLock<Option<Arc<ServerConfig>>>,
}

impl TlsContext {
    /// No TLS: CapabilitiesSet `tls` is refused.
    pub fn disabled() -> Self {
        Self::default()
    }

    /// Loads `files` now; start-up fails if they are unusable.
    pub fn load(files: TlsFiles) -> Result<Self, TlsLoadError> {
        let config = files.load()?;
        Ok(Self {
            files: Some(files),
            config: RwLock::new(Some(config)),
        })
    }

    /// Whether the node offers TLS.
    pub fn is_enabled(&self) -> bool {
        self.files.is_some()
    }

    /// Whether clients must present a certificate.
    pub fn requires_client_certificates(&self) -> bool {
        self.files.as_ref().is_some_and(|f| f.ca.is_some())
    }

    /// The configuration for a new handshake, if TLS is on.
    pub fn server_config(&self) -> Option<Arc<ServerConfig>> {
        self.config.read().clone()
    }

    /// Reads the files again and, if they make a valid configuration, uses it for every handshake
    /// from now on. On error the previous configuration stays in force.
    pub fn reload(&self) -> Result<(), TlsReloadError> {
        let files = self.files.as_ref().ok_or(TlsReloadError::Disabled)?;
        let config = files.load()?;
        *self.config.write() = Some(config);
        Ok(())
    }
}

/// Why [`TlsContext::reload`] kept the previous configuration.
#[derive(Debug, thiserror::Error)]
pub enum TlsReloadError {
    /// The node was started without `tls_cert` and `tls_key`.
    #[error("TLS is not configured (start the node with --tls-cert and --tls-key)")]
    Disabled,
    /// The files no longer make a valid configuration.
    #[error(transparent)]
    Load(#[from] TlsLoadError),
}
