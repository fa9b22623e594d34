//! `connect()`'s keyword arguments: where the node is, how to log in, and the pool's limits.

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use xrpc_client::{ConnectOptions, DEFAULT_TOKEN_KIB, ExecOptions, TlsOptions};

use crate::errors;
use crate::pool::Limits;

/// Everything a session needs to be opened, and the key of the connections it may share.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// `host:port`.
    pub(crate) addr: String,
    /// The pool key: the address and every setting of the login and its connections.
    pub(crate) key: String,
    pub(crate) connect: ConnectOptions,
    pub(crate) limits: Limits,
    /// Options of each statement: timeout and flow-control budget.
    pub(crate) exec: ExecOptions,
}

/// The keyword arguments of `_xrpc.connect` and `_xrpc.connect_async`, in one place.
#[pyclass(frozen, module = "xrpc._xrpc")]
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    target: Target,
}

impl Settings {
    pub(crate) fn target(&self) -> &Target {
        &self.target
    }
}

#[pymethods]
impl Settings {
    #[new]
    #[pyo3(signature = (
        host, port, user, password, database, tls, tls_ca, tls_cert, tls_key, tls_server_name,
        connect_timeout, read_timeout, pool_connections, pool_sessions_per_connection,
        fetch_buffer_kib
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        host: String,
        port: u16,
        user: String,
        password: String,
        database: String,
        tls: bool,
        tls_ca: Option<String>,
        tls_cert: Option<String>,
        tls_key: Option<String>,
        tls_server_name: Option<String>,
        connect_timeout: f64,
        read_timeout: Option<f64>,
        pool_connections: usize,
        pool_sessions_per_connection: usize,
        fetch_buffer_kib: Option<u32>,
    ) -> PyResult<Self> {
        let seconds = |name: &str, value: f64| {
            Duration::try_from_secs_f64(value)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    PyValueError::new_err(format!("{name} must be a positive number of seconds"))
                })
        };
        if fetch_buffer_kib == Some(0) {
            return Err(PyValueError::new_err(
                "fetch_buffer_kib must be at least 1 (KiB the node may stream ahead)",
            ));
        }
        if pool_connections == 0 || pool_sessions_per_connection == 0 {
            return Err(PyValueError::new_err(
                "pool_connections and pool_sessions_per_connection must be at least 1",
            ));
        }
        let mut connect = ConnectOptions::new(user.clone(), password.clone())
            .schema(database.clone())
            .connect_timeout(seconds("connect_timeout", connect_timeout)?);
        if tls {
            let mut options = match &tls_ca {
                Some(path) => TlsOptions::with_ca_file(path),
                None => TlsOptions::system_roots(),
            }
            .map_err(|err| errors::to_py(py, &err))?;
            if let (Some(cert), Some(key)) = (&tls_cert, &tls_key) {
                options = options
                    .client_cert_files(cert, key)
                    .map_err(|err| errors::to_py(py, &err))?;
            }
            if let Some(name) = &tls_server_name {
                options = options
                    .server_name(name)
                    .map_err(|err| errors::to_py(py, &err))?;
            }
            connect = connect.tls(options);
        } else if tls_ca.is_some() || tls_cert.is_some() {
            return Err(PyValueError::new_err("tls_ca and tls_cert need tls=True"));
        }
        let mut exec =
            ExecOptions::default().token_kib(Some(fetch_buffer_kib.unwrap_or(DEFAULT_TOKEN_KIB)));
        if let Some(timeout) = read_timeout {
            exec = exec.timeout(seconds("read_timeout", timeout)?);
        }
        let addr = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let limits = Limits {
            connections: pool_connections,
            sessions_per_connection: pool_sessions_per_connection,
        };
        let key = format!(
            "{addr}\0{user}\0{password}\0{database}\0{tls}\0{tls_ca:?}\0{tls_cert:?}\0{tls_key:?}\0\
             {tls_server_name:?}\0{connect_timeout}\0{limits:?}"
        );
        Ok(Self {
            target: Target {
                addr,
                key,
                connect,
                limits,
                exec,
            },
        })
    }
}
