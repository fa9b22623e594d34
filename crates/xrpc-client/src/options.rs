//! [`ConnectOptions`]: how to reach and log in to a data node, and the connection's limits, shared
//! by both transports ([`crate::blocking`], `crate::aio`) and the [pool](crate::pool).

use std::fmt;
use std::time::Duration;

use xrpc_proto::FrameConfig;
use xrpc_proto::HeaderFormat;
use xrpc_proto::frame::DEFAULT_MAX_PACKET;

use crate::error::ClientError;
use crate::proto::ClientConfig;

/// How to reach and log in to a data node, and the connection's limits.
///
/// ```
/// use std::time::Duration;
/// use xrpc_client::ConnectOptions;
///
/// let opts = ConnectOptions::new("app", "secret")
///     .schema("shop")
///     .query_timeout(Duration::from_secs(5));
/// assert_eq!(opts.connect_timeout, Duration::from_secs(5));
/// ```
#[derive(Clone)]
pub struct ConnectOptions {
    /// Account name.
    pub user: String,
    /// Password; empty sends no scramble.
    pub password: String,
    /// Default schema, sent in the authentication data: every session of the connection starts
    /// in it (the node answers 1049 to each statement while it names no database the node has).
    /// Empty: the node's default database.
    pub schema: String,
    /// Limit for the TCP connect and, separately, for the handshake.
    pub connect_timeout: Duration,
    /// Default per-query timeout of sessions; `None` waits for ever.
    pub query_timeout: Option<Duration>,
    /// Header format; must match the server's.
    pub header_format: HeaderFormat,
    /// `max_allowed_packet`; must match the server's (4 KiB–1 GiB).
    pub max_packet: u32,
    /// Heartbeat after this much silence; `None` disables it.
    pub heartbeat_interval: Option<Duration>,
    /// How long a heartbeat may go unanswered.
    pub heartbeat_timeout: Duration,
    /// Unanswered heartbeats in a row that declare the connection lost.
    pub heartbeat_max_failures: u32,
    /// Use the digest cache.
    pub digest_cache: bool,
    /// Switch to TLS before authenticating (blocking transport and pool only); `None` stays in
    /// the clear.
    pub tls: Option<crate::tls::TlsOptions>,
}

impl ConnectOptions {
    /// Options with the defaults: 5 s connect timeout, no query timeout, standard header, 64 MiB
    /// packets, heartbeat every 10 s with 5 failures allowed, digest cache on.
    pub fn new(user: impl Into<String>, password: impl Into<String>) -> Self {
        Self {
            user: user.into(),
            password: password.into(),
            schema: String::new(),
            connect_timeout: Duration::from_secs(5),
            query_timeout: None,
            header_format: HeaderFormat::Standard,
            max_packet: DEFAULT_MAX_PACKET,
            heartbeat_interval: Some(Duration::from_secs(10)),
            heartbeat_timeout: Duration::from_secs(10),
            heartbeat_max_failures: 5,
            digest_cache: true,
            tls: None,
        }
    }

    /// Switches every connection to TLS before authenticating, trusting and checking as `tls`
    /// says ([`crate::tls`]).
    pub fn tls(mut self, tls: crate::tls::TlsOptions) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Sets the default schema.
    pub fn schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = schema.into();
        self
    }

    /// Sets the default per-query timeout.
    pub fn query_timeout(mut self, timeout: Duration) -> Self {
        self.query_timeout = Some(timeout);
        self
    }

    /// Sets the connect and handshake timeout.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the header format.
    pub fn header_format(mut self, format: HeaderFormat) -> Self {
        self.header_format = format;
        self
    }

    /// Sets `max_allowed_packet`.
    pub fn max_packet(mut self, max_packet: u32) -> Self {
        self.max_packet = max_packet;
        self
    }

    /// Sets the heartbeat interval (`None` disables it).
    pub fn heartbeat_interval(mut self, interval: Option<Duration>) -> Self {
        self.heartbeat_interval = interval;
        self
    }

    /// The core's configuration.
    pub fn client_config(&self) -> Result<ClientConfig, ClientError> {
        let frame = FrameConfig::new(self.header_format, self.max_packet)
            .map_err(|err| ClientError::usage(err.to_string()))?;
        let mut config = ClientConfig::new(self.user.clone(), self.password.clone());
        config.schema = self.schema.clone();
        config.frame = frame;
        config.heartbeat_interval = self.heartbeat_interval;
        config.heartbeat_timeout = self.heartbeat_timeout;
        config.heartbeat_max_failures = self.heartbeat_max_failures;
        config.handshake_timeout = Some(self.connect_timeout);
        config.digest_cache = self.digest_cache;
        Ok(config)
    }
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .field("schema", &self.schema)
            .field("connect_timeout", &self.connect_timeout)
            .field("query_timeout", &self.query_timeout)
            .field("header_format", &self.header_format)
            .field("max_packet", &self.max_packet)
            .field("heartbeat_interval", &self.heartbeat_interval)
            .finish_non_exhaustive()
    }
}
