//! The DB-API side: a session on the process's shared blocking connections, and the streamed
//! result of each statement.
//!
//! Every call that waits on the network releases the GIL; the session's state sits behind its
//! own lock, taken only with the GIL released, so threads sharing a connection (threadsafety 2)
//! queue on it without blocking the interpreter.
//!
//! A statement's rows are streamed: `execute` waits for the first row (or the end), and each
//! fetch takes what it needs, the node running ahead by at most the flow-control budget. When the
//! session runs another statement while a result is still open, the open result is read to its
//! end into its own buffer first, so every cursor still sees all of its rows.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyList;
use xrpc_client::blocking::{Connection, RowStream, Session as ClientSession};
use xrpc_client::{ClientError, Column, ExecOptions, ExecResult, Param, Value};

use crate::describe;
use crate::errors;
use crate::options::{Settings, Target};
use crate::pool::Registry;

/// The blocking connections of the process, by login.
static CONNECTIONS: Registry<Connection, Mutex<()>> = Registry::new();

/// Live blocking TCP connections of the process.
pub(crate) fn live_connections() -> usize {
    CONNECTIONS.live()
}

/// A session on a shared connection, opening a connection if the pool says so.
fn open_session(target: &Target) -> Result<ClientSession, ClientError> {
    let (set, gate) = CONNECTIONS.set(&target.key, target.limits);
    if let Some(conn) = set.pick() {
        return conn.session();
    }
    let _one_at_a_time = gate.lock();
    if let Some(conn) = set.pick() {
        return conn.session();
    }
    let conn = Connection::connect(target.addr.as_str(), target.connect.clone())?;
    let session = conn.session();
    set.add(conn);
    session
}

/// The rows of one statement, streamed.
pub(crate) struct Results {
    stream: Option<RowStream<'static>>,
    buffered: VecDeque<Vec<Value>>,
    columns: Option<Arc<[Column]>>,
    outcome: Option<ExecResult>,
    /// A failure met while reading ahead for another statement; raised at the next fetch.
    error: Option<ClientError>,
    rows_seen: u64,
}

impl Results {
    fn new(stream: RowStream<'static>) -> Self {
        Self {
            stream: Some(stream),
            buffered: VecDeque::new(),
            columns: None,
            outcome: None,
            error: None,
            rows_seen: 0,
        }
    }

    /// Reads one more row into the buffer; false at the end.
    fn pull(&mut self) -> Result<bool, ClientError> {
        let Some(stream) = self.stream.as_mut() else {
            return Ok(false);
        };
        let next = stream.next();
        if self.columns.is_none() {
            self.columns = stream.columns().map(Arc::from);
        }
        match next {
            Some(Ok(row)) => {
                self.rows_seen += 1;
                self.buffered.push_back(row);
                Ok(true)
            }
            Some(Err(err)) => {
                self.stream = None;
                Err(err)
            }
            None => {
                self.outcome = stream.outcome().cloned();
                if self.columns.is_none() {
                    self.columns = self
                        .outcome
                        .as_ref()
                        .and_then(|o| o.result_set.as_ref())
                        .map(|rs| Arc::from(rs.columns.as_slice()));
                }
                self.stream = None;
                Ok(false)
            }
        }
    }

    /// Up to `n` rows (all that are left for `None`).
    fn take(&mut self, n: Option<usize>) -> Result<Vec<Vec<Value>>, ClientError> {
        if let Some(err) = self.error.take() {
            return Err(err);
        }
        let want = n.unwrap_or(usize::MAX);
        while self.buffered.len() < want && self.pull()? {}
        let count = want.min(self.buffered.len());
        Ok(self.buffered.drain(..count).collect())
    }

    /// Reads everything left into the buffer, keeping a failure for the next fetch.
    fn read_to_end(&mut self) {
        loop {
            match self.pull() {
                Ok(true) => {}
                Ok(false) => return,
                Err(err) => {
                    self.error = Some(err);
                    return;
                }
            }
        }
    }

    /// Stops the statement's stream; the rows still to come are discarded.
    fn abandon(&mut self) {
        self.stream = None;
        self.buffered.clear();
    }
}

struct State {
    session: Option<ClientSession>,
    /// The result still streaming on the session, if any.
    open: Option<Arc<Mutex<Results>>>,
    /// Statements whose outcome nobody reads (`SET autocommit`), sent ahead of the next one; if
    /// one fails, that statement fails with its error instead of running.
    ahead: Vec<String>,
}

/// One DB-API connection: a protocol session.
#[pyclass(frozen, module = "xrpc._xrpc")]
pub(crate) struct Session {
    state: Arc<Mutex<State>>,
    exec: ExecOptions,
}

#[pymethods]
impl Session {
    /// Opens a session on the shared connections of `settings`' node and login.
    #[new]
    fn new(py: Python<'_>, settings: &Settings) -> PyResult<Self> {
        let target = settings.target().clone();
        let session = py
            .detach(|| open_session(&target))
            .map_err(|err| errors::connect_error(py, &target.addr, &err))?;
        Ok(Self {
            state: Arc::new(Mutex::new(State {
                session: Some(session),
                open: None,
                ahead: Vec::new(),
            })),
            exec: target.exec,
        })
    }

    /// Runs a statement with arguments and returns its result, once the first row (or the end)
    /// has arrived.
    #[pyo3(signature = (sql, args=None))]
    fn execute(
        &self,
        py: Python<'_>,
        sql: &str,
        args: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<StatementResult> {
        let params = crate::convert::params(args)?;
        let state = Arc::clone(&self.state);
        let exec = self.exec.clone();
        let sql = sql.to_owned();
        py.detach(move || run(&state, &sql, &params, &exec))
            .map(|results| StatementResult { results })
            .map_err(|err| match err {
                Failure::Client(err) => errors::to_py(py, &err),
                Failure::Closed => errors::interface(py, "the connection is closed"),
            })
    }

    /// Queues a statement to be sent, without waiting, ahead of the next one.
    fn send_ahead(&self, py: Python<'_>, sql: String) {
        py.detach(|| self.state.lock().ahead.push(sql));
    }

    /// Closes the session on the node (which rolls back what it left open). Idempotent.
    fn close(&self, py: Python<'_>) {
        py.detach(|| {
            let mut state = self.state.lock();
            if let Some(open) = state.open.take() {
                open.lock().abandon();
            }
            if let Some(session) = state.session.take() {
                session.close();
            }
        });
    }
}

/// Why `execute` failed before it could return a result.
enum Failure {
    Client(ClientError),
    Closed,
}

fn run(
    state: &Mutex<State>,
    sql: &str,
    params: &[Param],
    exec: &ExecOptions,
) -> Result<Arc<Mutex<Results>>, Failure> {
    let mut state = state.lock();
    if let Some(open) = state.open.take() {
        open.lock().read_to_end();
    }
    let ahead = std::mem::take(&mut state.ahead);
    let session = state.session.as_mut().ok_or(Failure::Closed)?;
    if !ahead.is_empty() {
        let pipeline = ahead.into_iter().fold(session.pipeline(), |p, statement| {
            p.fire_and_forget(statement)
        });
        pipeline.send().map_err(Failure::Client)?;
    }
    let stream = session
        .query_stream_owned(sql, params, exec)
        .map_err(Failure::Client)?;
    let mut results = Results::new(stream);
    // The first row, or the end: errors surface here and the columns are known.
    results.pull().map_err(Failure::Client)?;
    let results = Arc::new(Mutex::new(results));
    state.open = Some(Arc::clone(&results));
    Ok(results)
}

/// The result of one statement: its description, its rows as they are fetched, and its counts.
#[pyclass(frozen, name = "Result", module = "xrpc._xrpc")]
pub(crate) struct StatementResult {
    results: Arc<Mutex<Results>>,
}

#[pymethods]
impl StatementResult {
    /// Up to `n` rows as tuples, or every row left for `None`; waits for them with the GIL
    /// released.
    #[pyo3(signature = (n=None))]
    fn fetch<'py>(&self, py: Python<'py>, n: Option<usize>) -> PyResult<Bound<'py, PyList>> {
        let results = Arc::clone(&self.results);
        let (rows, columns) = py
            .detach(move || {
                let mut results = results.lock();
                let rows = results.take(n)?;
                Ok::<_, ClientError>((rows, results.columns.clone()))
            })
            .map_err(|err| errors::to_py(py, &err))?;
        describe::rows(py, columns.as_deref().unwrap_or(&[]), &rows)
    }

    /// PEP 249's `description`, or `None` for a statement without a result set.
    #[getter]
    fn description<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        let columns = py.detach(|| self.results.lock().columns.clone());
        describe::description(py, columns.as_deref())
    }

    /// `(rowcount, lastrowid)` once the statement has ended, else `None`.
    #[getter]
    fn counts(&self, py: Python<'_>) -> Option<(i64, Option<u64>)> {
        py.detach(|| {
            let results = self.results.lock();
            let outcome = results.outcome.as_ref()?;
            Some(describe::counts(outcome, results.rows_seen))
        })
    }

    /// Warnings that came with the statement, once it has ended: (level, code, message).
    #[getter]
    fn warnings(&self, py: Python<'_>) -> Vec<(String, u32, String)> {
        py.detach(|| {
            let results = self.results.lock();
            results
                .outcome
                .as_ref()
                .map(|o| {
                    o.warnings
                        .iter()
                        .map(|w| {
                            let level = match w.level {
                                1 => "Note",
                                3 => "Error",
                                _ => "Warning",
                            };
                            (level.to_owned(), w.code, w.message.clone())
                        })
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// Stops the statement's stream, discarding rows not fetched.
    fn close(&self, py: Python<'_>) {
        py.detach(|| self.results.lock().abandon());
    }
}
