//! A tiny blocking driver: one `std::net::TcpStream` per [`Connection`], the simplest loop that
//! follows the crate's call order. For tests and the pipelining benchmark only.

#![allow(dead_code, unreachable_pub)]

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use xrpc_mysql_proto::{Config, Connection, Event, StatementError, Tag};

/// The parts of a `mysql://user:password@host:port/db` URL.
pub fn config_from_url(url: &str) -> (String, Config) {
    let rest = url.strip_prefix("mysql://").expect("a mysql:// URL");
    let (credentials, rest) = rest.split_once('@').expect("user:password@");
    let (user, password) = credentials.split_once(':').unwrap_or((credentials, ""));
    let (address, database) = rest.split_once('/').unwrap_or((rest, ""));
    let mut config = Config::new(user, password);
    config.database = (!database.is_empty()).then(|| database.to_owned());
    (address.to_owned(), config)
}

/// What one statement produced: each result's rows (values as text, NULL as `None`), then its
/// terminal event.
#[derive(Debug, Default)]
pub struct Answer {
    pub results: Vec<Vec<Vec<Option<String>>>>,
    pub outcome: Option<Result<xrpc_mysql_proto::OkInfo, StatementError>>,
}

impl Answer {
    /// The first value of the first row of the first result.
    pub fn scalar(&self) -> Option<&str> {
        self.results.first()?.first()?.first()?.as_deref()
    }

    /// The OK data, panicking with the error if the statement failed.
    pub fn expect_ok(&self) -> &xrpc_mysql_proto::OkInfo {
        match self.outcome.as_ref().expect("answered") {
            Ok(ok) => ok,
            Err(err) => panic!("the statement failed: {err}"),
        }
    }

    /// The error, panicking if the statement succeeded.
    pub fn expect_error(&self) -> &StatementError {
        match self.outcome.as_ref().expect("answered") {
            Ok(ok) => panic!("the statement succeeded: {ok:?}"),
            Err(err) => err,
        }
    }
}

#[derive(Debug)]
pub struct Driver {
    pub stream: TcpStream,
    pub conn: Connection,
    buf: Vec<u8>,
}

impl Driver {
    /// Connects the transport; the login is still to come ([`Driver::next_event`]).
    pub fn open(address: &str, config: Config) -> Self {
        let stream = TcpStream::connect(address).expect("connect to MariaDB");
        stream.set_nodelay(true).unwrap();
        Self {
            stream,
            conn: Connection::new(config, Instant::now()),
            buf: vec![0; 64 * 1024],
        }
    }

    /// Connects and logs in; panics with the reason if it cannot.
    pub fn connect(address: &str, config: Config) -> Self {
        let mut driver = Self::open(address, config);
        match driver.next_event() {
            Event::Connected { .. } => driver,
            other => panic!("login failed: {other:?}"),
        }
    }

    /// Connects with the URL's account and database.
    pub fn connect_url(url: &str) -> Self {
        let (address, config) = config_from_url(url);
        Self::connect(&address, config)
    }

    /// Writes everything pending.
    pub fn flush(&mut self) {
        while !self.conn.pending_output().is_empty() {
            match self.stream.write(self.conn.pending_output()) {
                Ok(n) => self.conn.consume_output(n),
                Err(err) if err.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    self.conn.handle_close();
                    return;
                }
            }
        }
    }

    /// The next event, writing, reading and passing time as needed.
    pub fn next_event(&mut self) -> Event {
        loop {
            if let Some(event) = self.conn.poll_event() {
                return event;
            }
            // Submits since the last call, and what polling produced (auth answers).
            self.flush();
            let wait = self
                .conn
                .poll_timeout()
                .map(|at| at.saturating_duration_since(Instant::now()));
            if wait == Some(Duration::ZERO) {
                self.conn.handle_timeout(Instant::now());
                continue;
            }
            self.stream.set_read_timeout(wait).unwrap();
            match self.stream.read(&mut self.buf) {
                Ok(0) => self.conn.handle_close(),
                Ok(n) => self.conn.handle_input(&self.buf[..n]),
                Err(err) if matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    self.conn.handle_timeout(Instant::now());
                }
                Err(err) if err.kind() == ErrorKind::Interrupted => {}
                Err(_) => self.conn.handle_close(),
            }
        }
    }

    /// Collects the events of `tag` up to its terminal one; events of other statements on the
    /// way are an error (the caller reads answers in order).
    pub fn answer(&mut self, tag: Tag) -> Answer {
        let mut answer = Answer::default();
        loop {
            match self.next_event() {
                Event::Columns { tag: of, .. } if of == tag => answer.results.push(Vec::new()),
                Event::Row { tag: of, row } if of == tag => {
                    answer.results.last_mut().expect("rows after columns").push(
                        row.values()
                            .map(|v| v.map(|v| String::from_utf8_lossy(v).into_owned()))
                            .collect(),
                    )
                }
                Event::ResultEnd { tag: of, .. } | Event::LargeResult { tag: of } if of == tag => {}
                Event::Done { tag: of, ok } if of == tag => {
                    answer.outcome = Some(Ok(ok));
                    return answer;
                }
                Event::Failed { tag: of, error } if of == tag => {
                    answer.outcome = Some(Err(error));
                    return answer;
                }
                other => panic!("waiting for {tag}'s answer, got {other:?}"),
            }
        }
    }

    /// Runs one statement and returns its answer.
    pub fn query(&mut self, tag: u64, sql: &str) -> Answer {
        self.conn
            .submit_query(Tag(tag), sql.as_bytes(), None)
            .expect("submit");
        self.answer(Tag(tag))
    }
}
