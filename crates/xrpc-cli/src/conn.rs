//! The connection flags shared by `shell`, `exec` and `status`, and opening the connection.

use std::time::Duration;

use xrpc_client::ClientError;
use xrpc_client::ConnectOptions;
use xrpc_client::blocking::{Connection, Session};

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

    /// Connects, authenticates and opens one session.
    pub fn session(&self) -> Result<Session, ClientError> {
        let mut options = ConnectOptions::new(self.user.clone(), self.password.clone())
            .connect_timeout(Duration::from_secs_f64(self.connect_timeout.max(0.001)));
        if let Some(db) = &self.database {
            options = options.schema(db.clone());
        }
        Connection::connect(self.addr(), options)?.session()
    }
}
