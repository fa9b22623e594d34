//! A blocking exchange with the backend on one connection of its own, for start-up: the
//! [`xrpc_mysql_proto::Connection`] state machine driven by a [`TcpStream`], one command at a
//! time. The engine checks the backend and the account with it and reads its version and
//! global settings before the node (and with it the event-loop driver) starts.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use xrpc_mysql_proto::{CloseReason, Config, ConnectError, Connection, Event, StatementError, Tag};

/// Why the probe failed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The TCP connect or the transport failed, or the server did not answer in time.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The handshake failed (a refusal keeps the server's code: 1040, 1045, 1049, …).
    #[error("{0}")]
    Connect(ConnectError),
    /// The server failed a statement.
    #[error("{}", .0.message)]
    Statement(StatementError),
}

/// A logged-in connection.
pub struct Probe {
    conn: Connection,
    stream: TcpStream,
    buf: Box<[u8]>,
    next_tag: u64,
}

impl std::fmt::Debug for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("thread_id", &self.conn.thread_id())
            .finish_non_exhaustive()
    }
}

impl Probe {
    /// Connects to `addr` and logs in, within `config.connect_timeout` for the connect and
    /// as much again for each read.
    pub fn connect(addr: SocketAddr, config: Config) -> Result<Self, ProbeError> {
        let timeout = config.connect_timeout.max(Duration::from_millis(1));
        let stream = TcpStream::connect_timeout(&addr, timeout)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        stream.set_nodelay(true)?;
        let mut probe = Self {
            conn: Connection::new(config, Instant::now()),
            stream,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            next_tag: 1,
        };
        loop {
            match probe.next_event()? {
                Event::Connected { .. } => return Ok(probe),
                Event::Closed {
                    reason: CloseReason::Connect(err),
                } => return Err(ProbeError::Connect(err)),
                Event::Closed { .. } => {
                    return Err(ProbeError::Connect(ConnectError::TransportClosed));
                }
                _ => {}
            }
        }
    }

    /// Runs `sql` and returns the rows of its first result as text (`None` for NULL).
    pub fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, ProbeError> {
        let tag = Tag(self.next_tag);
        self.next_tag += 1;
        self.conn
            .submit_query(tag, sql.as_bytes(), None)
            .map_err(|err| ProbeError::Io(std::io::Error::other(err.to_string())))?;
        let mut rows = Vec::new();
        let mut first_result = true;
        loop {
            match self.next_event()? {
                Event::Row { row, .. } if first_result => rows.push(
                    row.values()
                        .map(|v| v.map(|b| String::from_utf8_lossy(b).into_owned()))
                        .collect(),
                ),
                Event::ResultEnd { .. } => first_result = false,
                Event::Done { .. } => return Ok(rows),
                Event::Failed { error, .. } => return Err(ProbeError::Statement(error)),
                Event::Closed { .. } => {
                    return Err(ProbeError::Statement(StatementError::connection_lost()));
                }
                _ => {}
            }
        }
    }

    /// The state machine's next event; while it has none, writes what it has to send
    /// (submitted commands, and what polling produced: the login's answers) and reads.
    fn next_event(&mut self) -> Result<Event, ProbeError> {
        loop {
            if let Some(event) = self.conn.poll_event() {
                return Ok(event);
            }
            while !self.conn.pending_output().is_empty() {
                let n = self.stream.write(self.conn.pending_output())?;
                self.conn.consume_output(n);
            }
            match self.stream.read(&mut self.buf) {
                Ok(0) => self.conn.handle_close(),
                Ok(n) => self.conn.handle_input(&self.buf[..n]),
                Err(err) if err.kind() == ErrorKind::Interrupted => {}
                Err(err) if matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return Err(ProbeError::Io(std::io::Error::new(
                        ErrorKind::TimedOut,
                        "the server did not answer in time",
                    )));
                }
                Err(err) => return Err(err.into()),
            }
        }
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        // COM_QUIT, so the server does not log an aborted connection.
        if self.conn.quit().is_ok() {
            let _ = self.stream.write_all(self.conn.pending_output());
        }
    }
}
