//! The asyncio side: the same sessions and streamed results on the client's tokio transport.
//!
//! Each awaitable is a future on the binding's tokio runtime (`pyo3-async-runtimes`), resolved
//! on the caller's event loop; no Python thread blocks while a statement runs, so one process
//! holds thousands of concurrent tasks, each with its own session, on a few shared connections.
//! The session and its open result sit behind async locks; what the cursor reads synchronously
//! (`description`, counts, warnings) is a snapshot updated when each call completes.

use std::collections::VecDeque;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyList;
use tokio::sync::Mutex;
use xrpc_client::aio::{Connection, RowStream, Session as ClientSession};
use xrpc_client::{ClientError, Column, ExecOptions, ExecResult, Param, Value};

use crate::describe;
use crate::errors;
use crate::options::{Settings, Target};
use crate::pool::Registry;

/// Rows `execute` reads ahead when they have already arrived.
const READ_AHEAD_ROWS: usize = 64;

/// The asyncio connections of the process, by login.
static CONNECTIONS: Registry<Connection, Mutex<()>> = Registry::new();

/// Live tokio TCP connections of the process.
pub(crate) fn live_connections() -> usize {
    CONNECTIONS.live()
}

/// A session on a shared connection, opening a connection if the pool says so.
async fn open_session(target: &Target) -> Result<ClientSession, ClientError> {
    let (set, gate) = CONNECTIONS.set(&target.key, target.limits);
    if let Some(conn) = set.pick() {
        return conn.session();
    }
    let _one_at_a_time = gate.lock().await;
    if let Some(conn) = set.pick() {
        return conn.session();
    }
    let conn = Connection::connect(target.addr.as_str(), target.connect.clone()).await?;
    let session = conn.session();
    set.add(conn);
    session
}

/// What the cursor reads without awaiting.
#[derive(Default)]
struct Snapshot {
    columns: Option<Arc<[Column]>>,
    counts: Option<(i64, Option<u64>)>,
}

/// The rows of one statement, streamed.
struct Results {
    stream: Option<RowStream<'static>>,
    buffered: VecDeque<Vec<Value>>,
    columns: Option<Arc<[Column]>>,
    outcome: Option<ExecResult>,
    error: Option<ClientError>,
    rows_seen: u64,
}

impl Results {
    async fn pull(&mut self) -> Result<bool, ClientError> {
        let Some(stream) = self.stream.as_mut() else {
            return Ok(false);
        };
        let next = stream.next().await;
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
                self.stream = None;
                Ok(false)
            }
        }
    }

    /// Reads what has already arrived, without waiting for the server, up to
    /// [`READ_AHEAD_ROWS`]. A small result is then whole by the time `execute` returns, and the
    /// cursor's fetches need no await; a large one stays streamed (taking rows lets the node send
    /// more, so "everything that has arrived" would otherwise never end).
    async fn pull_arrived(&mut self) -> Result<(), ClientError> {
        while self.buffered.len() < READ_AHEAD_ROWS
            && self.stream.as_ref().is_some_and(RowStream::is_ready)
        {
            self.pull().await?;
        }
        Ok(())
    }

    /// Up to `n` rows (all for `None`) if they are at hand without waiting, else `None`.
    fn take_at_hand(&mut self, n: Option<usize>) -> Option<Vec<Vec<Value>>> {
        let enough = match n {
            Some(n) => self.buffered.len() >= n || self.stream.is_none(),
            None => self.stream.is_none(),
        };
        if !enough || self.error.is_some() {
            return None;
        }
        let count = n.unwrap_or(usize::MAX).min(self.buffered.len());
        Some(self.buffered.drain(..count).collect())
    }

    async fn take(&mut self, n: Option<usize>) -> Result<Vec<Vec<Value>>, ClientError> {
        if let Some(err) = self.error.take() {
            return Err(err);
        }
        let want = n.unwrap_or(usize::MAX);
        while self.buffered.len() < want && self.pull().await? {}
        let count = want.min(self.buffered.len());
        Ok(self.buffered.drain(..count).collect())
    }

    async fn read_to_end(&mut self) {
        loop {
            match self.pull().await {
                Ok(true) => {}
                Ok(false) => return,
                Err(err) => {
                    self.error = Some(err);
                    return;
                }
            }
        }
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            columns: self.columns.clone(),
            counts: self
                .outcome
                .as_ref()
                .map(|o| describe::counts(o, self.rows_seen)),
        }
    }
}

struct State {
    session: Option<ClientSession>,
    open: Option<Arc<Mutex<Results>>>,
}

/// One asyncio connection: a protocol session.
#[pyclass(frozen, module = "xrpc._xrpc")]
pub(crate) struct AsyncSession {
    state: Arc<Mutex<State>>,
    /// Statements sent, without waiting, ahead of the next one (see the blocking session).
    ahead: Arc<parking_lot::Mutex<Vec<String>>>,
    exec: ExecOptions,
}

/// Opens a session on the shared connections of `settings`' node and login; an awaitable.
#[pyfunction]
pub(crate) fn connect_async<'py>(
    py: Python<'py>,
    settings: &Settings,
) -> PyResult<Bound<'py, PyAny>> {
    let target = settings.target().clone();
    pyo3_async_runtimes::tokio::future_into_py(py, async move {
        let session = open_session(&target)
            .await
            .map_err(|err| Python::attach(|py| errors::connect_error(py, &target.addr, &err)))?;
        Ok(AsyncSession {
            state: Arc::new(Mutex::new(State {
                session: Some(session),
                open: None,
            })),
            ahead: Arc::default(),
            exec: target.exec,
        })
    })
}

#[pymethods]
impl AsyncSession {
    /// Runs a statement; an awaitable of its result, once the first row (or the end) arrived.
    #[pyo3(signature = (sql, args=None))]
    fn execute<'py>(
        &self,
        py: Python<'py>,
        sql: String,
        args: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = crate::convert::params(args)?;
        let state = Arc::clone(&self.state);
        let ahead = std::mem::take(&mut *self.ahead.lock());
        let exec = self.exec.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let (results, snapshot) = run(&state, ahead, &sql, &params, &exec)
                .await
                .map_err(|err| Python::attach(|py| err.into_py(py)))?;
            Ok(AsyncResult {
                results,
                snapshot: Arc::new(parking_lot::Mutex::new(snapshot)),
            })
        })
    }

    /// Queues a statement to be sent, without waiting, ahead of the next one.
    fn send_ahead(&self, sql: String) {
        self.ahead.lock().push(sql);
    }

    /// Closes the session on the node; an awaitable.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = Arc::clone(&self.state);
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let mut state = state.lock().await;
            state.open = None;
            if let Some(session) = state.session.take() {
                session.close();
            }
            Ok(())
        })
    }
}

/// Why `execute` failed.
enum Failure {
    Client(ClientError),
    Closed,
}

impl Failure {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Client(err) => errors::to_py(py, &err),
            Failure::Closed => errors::interface(py, "the connection is closed"),
        }
    }
}

async fn run(
    state: &Mutex<State>,
    ahead: Vec<String>,
    sql: &str,
    params: &[Param],
    exec: &ExecOptions,
) -> Result<(Arc<Mutex<Results>>, Snapshot), Failure> {
    let mut state = state.lock().await;
    if let Some(open) = state.open.take() {
        open.lock().await.read_to_end().await;
    }
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
    let mut results = Results {
        stream: Some(stream),
        buffered: VecDeque::new(),
        columns: None,
        outcome: None,
        error: None,
        rows_seen: 0,
    };
    // The first row, or the end: errors surface here and the columns are known. Then what else
    // has arrived, so a small result needs no further await.
    results.pull().await.map_err(Failure::Client)?;
    if let Err(err) = results.pull_arrived().await {
        results.error = Some(err);
    }
    let snapshot = results.snapshot();
    let results = Arc::new(Mutex::new(results));
    state.open = Some(Arc::clone(&results));
    Ok((results, snapshot))
}

/// The result of one statement on an [`AsyncSession`].
#[pyclass(frozen, module = "xrpc._xrpc")]
pub(crate) struct AsyncResult {
    results: Arc<Mutex<Results>>,
    snapshot: Arc<parking_lot::Mutex<Snapshot>>,
}

#[pymethods]
impl AsyncResult {
    /// Up to `n` rows as tuples (every row left for `None`); an awaitable.
    #[pyo3(signature = (n=None))]
    fn fetch<'py>(&self, py: Python<'py>, n: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        let results = Arc::clone(&self.results);
        let snapshot = Arc::clone(&self.snapshot);
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let mut results = results.lock().await;
            let taken = results.take(n).await;
            *snapshot.lock() = results.snapshot();
            let rows = taken.map_err(|err| Python::attach(|py| errors::to_py(py, &err)))?;
            let columns = results.columns.clone();
            drop(results);
            Python::attach(|py| {
                describe::rows(py, columns.as_deref().unwrap_or(&[]), &rows)
                    .map(|list| list.unbind())
            })
        })
    }

    /// Up to `n` rows (every row left for `None`) when they have already arrived, without an
    /// await; `None` when the rows are still to come (then await `fetch`).
    #[pyo3(signature = (n=None))]
    fn fetch_at_hand<'py>(
        &self,
        py: Python<'py>,
        n: Option<usize>,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        let Ok(mut results) = self.results.try_lock() else {
            return Ok(None);
        };
        let Some(rows) = results.take_at_hand(n) else {
            return Ok(None);
        };
        let columns = results.columns.clone();
        *self.snapshot.lock() = results.snapshot();
        drop(results);
        describe::rows(py, columns.as_deref().unwrap_or(&[]), &rows).map(Some)
    }

    /// PEP 249's `description`.
    #[getter]
    fn description<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        let columns = self.snapshot.lock().columns.clone();
        describe::description(py, columns.as_deref())
    }

    /// `(rowcount, lastrowid)` once the statement has ended, else `None`.
    #[getter]
    fn counts(&self) -> Option<(i64, Option<u64>)> {
        self.snapshot.lock().counts
    }

    /// Stops the statement's stream, discarding rows not fetched (unless a fetch is running,
    /// which then finishes the rows it wants).
    fn close(&self) {
        if let Ok(mut results) = self.results.try_lock() {
            results.stream = None;
            results.buffered.clear();
        }
    }
}
