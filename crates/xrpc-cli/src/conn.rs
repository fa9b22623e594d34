//! The connection flags shared by `shell`, `exec` and `status`, and opening the connection.

use std::time::Duration;

use xrpc_client::ClientError;
use xrpc_client::blocking::{Connection, Session};
use xrpc_client::{ConnectOptions, TlsOptions};

/// Where and as whom to connect.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnArgs {
    /// The node's host.
    #[arg(long, short = 'H', default_value = "127.0.0.1", env = "XRPC_HOST")]
    pub host: String,
    /// The node's RPC port.
    #[arg(long, short = 'P', default_value_t = 33660, env = "XRPC_PORT")]
    pub port: u16,
    /// Account name.
    #[arg(long, short = 'u', default_value = "root", env = "XRPC_USER")]
    pub user: String,
    /// Password (empty: none).
    #[arg(long, short = 'p', default_value = "", env = "XRPC_PASSWORD")]
    pub password: String,
    /// Default database (schema).
    #[arg(long, short = 'D')]
    pub database: Option<String>,
    /// Connect and handshake timeout, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub connect_timeout: f64,
    /// TLS.
    #[command(flatten)]
    pub tls: TlsArgs,
}

impl ConnArgs {
    /// `host:port`.
    pub fn addr(&self) -> String {
        if self.host.contains(':') && !self.host.starts_with('[') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The client options the flags ask for.
    pub fn options(&self) -> Result<ConnectOptions, ClientError> {
        let mut options = ConnectOptions::new(self.user.clone(), self.password.clone())
            .connect_timeout(Duration::from_secs_f64(self.connect_timeout.max(0.001)));
        if let Some(db) = &self.database {
            options = options.schema(db.clone());
        }
        if let Some(tls) = self.tls.options(&self.host)? {
            options = options.tls(tls);
        }
        Ok(options)
    }

    /// Connects, authenticates and opens one session.
    pub fn session(&self) -> Result<Session, ClientError> {
        Connection::connect(self.addr(), self.options()?)?.session()
    }
}

/// The TLS flags, shared by the connecting commands and `xrpc bench`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TlsArgs {
    /// Switch to TLS before authenticating, verifying the node's certificate against the
    /// system's authorities (or --tls-ca) and its name against the host connected to
    #[arg(long, env = "XRPC_TLS")]
    pub tls: bool,
    /// PEM file of the authorities to trust instead of the system's (implies --tls)
    #[arg(long, value_name = "PATH", env = "XRPC_TLS_CA")]
    pub tls_ca: Option<String>,
    /// PEM certificate to present when the node requires client certificates (implies --tls;
    /// needs --tls-key)
    #[arg(long, value_name = "PATH", requires = "tls_key")]
    pub tls_cert: Option<String>,
    /// PEM private key of --tls-cert
    #[arg(long, value_name = "PATH", requires = "tls_cert")]
    pub tls_key: Option<String>,
    /// Name to check the node's certificate against [default: the host connected to]
    #[arg(long, value_name = "NAME")]
    pub tls_server_name: Option<String>,
}

impl TlsArgs {
    /// Whether any flag asks for TLS.
    pub fn wanted(&self) -> bool {
        self.tls || self.tls_ca.is_some() || self.tls_cert.is_some()
    }

    /// The TLS options the flags ask for, if any, checking the name `host` (brackets of an IPv6
    /// address are dropped) unless --tls-server-name names another.
    pub fn options(&self, host: &str) -> Result<Option<TlsOptions>, ClientError> {
        if !self.wanted() {
            return Ok(None);
        }
        let mut tls = match &self.tls_ca {
            Some(ca) => TlsOptions::with_ca_file(ca)?,
            None => TlsOptions::system_roots()?,
        };
        if let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) {
            tls = tls.client_cert_files(cert, key)?;
        }
        let name = match &self.tls_server_name {
            Some(name) => name.as_str(),
            None => host.trim_start_matches('[').trim_end_matches(']'),
        };
        Ok(Some(tls.server_name(name)?))
    }
}
