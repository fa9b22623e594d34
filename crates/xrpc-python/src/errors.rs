//! Client errors as DB-API exceptions (`xrpc.exceptions`), each with a MySQL error number and
//! SQL state.
//!
//! A server error keeps its code, state and text. Failures the client sees itself get the codes
//! MySQL's own client library uses for them (`CR_*`, state `HY000`), so code written against
//! another MySQL driver recognises them: 2003 for a connection that cannot be made, 2013 for one
//! lost mid-conversation, 2026 for TLS, 2027 for a broken protocol, 2055 for an I/O failure; a
//! statement killed at its timeout gets MySQL's 3024. The class follows the code, as PEP 249
//! describes the classes and MySQL drivers sort the codes.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;
use xrpc_client::ClientError;

/// `CR_CONN_HOST_ERROR`: the connection could not be made.
pub(crate) const CR_CONN_HOST_ERROR: u32 = 2003;
/// `CR_SERVER_LOST`: the connection was lost.
pub(crate) const CR_SERVER_LOST: u32 = 2013;
/// `CR_SSL_CONNECTION_ERROR`.
const CR_SSL_CONNECTION_ERROR: u32 = 2026;
/// `CR_MALFORMED_PACKET`.
const CR_MALFORMED_PACKET: u32 = 2027;
/// `CR_SERVER_LOST_EXTENDED`: an I/O failure on the socket.
const CR_SERVER_LOST_EXTENDED: u32 = 2055;
/// `ER_QUERY_TIMEOUT`: the statement ran past its timeout and was killed.
const ER_QUERY_TIMEOUT: u32 = 3024;
/// A client-side usage error with no MySQL equivalent (`CR_UNKNOWN_ERROR`).
const CR_UNKNOWN_ERROR: u32 = 2000;

static EXCEPTIONS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The DB-API class for a MySQL error number.
pub(crate) fn class_for(code: u32) -> &'static str {
    match code {
        // Duplicate keys, foreign keys, NOT NULL, CHECK constraints.
        1022 | 1048 | 1062 | 1169 | 1215 | 1216 | 1217 | 1451 | 1452 | 1557 | 1586 | 1761
        | 1762 | 3819 | 4025 => "IntegrityError",
        // Syntax, unknown objects, objects that already exist, bad names and misuse.
        1007 | 1008 | 1044 | 1046 | 1049 | 1050 | 1051 | 1054 | 1060 | 1061 | 1063 | 1064
        | 1065 | 1066 | 1068 | 1072 | 1090 | 1091 | 1102 | 1103 | 1109 | 1110 | 1111 | 1112
        | 1113 | 1115 | 1136 | 1142 | 1143 | 1146 | 1149 | 1166 | 1179 | 1222 | 1241 | 1247
        | 1248 | 1305 | 1324 | 1327 | 1630 => "ProgrammingError",
        // Values that do not fit.
        1230 | 1171 | 1263 | 1264 | 1265 | 1292 | 1365 | 1366 | 1367 | 1406 | 1416 | 1441
        | 1690 => "DataError",
        // Features the server does not have.
        1196 | 1235 | 1286 | 1289 => "NotSupportedError",
        0..=999 => "InternalError",
        _ => "OperationalError",
    }
}

/// What the exception says: class, number, state and text.
pub(crate) fn describe(err: &ClientError) -> (&'static str, u32, String, String) {
    if let Some(server) = err.server() {
        let class = if err.is_server() || err.is_auth() {
            class_for(server.code())
        } else {
            // A FATAL that ended the session or connection: the conversation is over, whatever
            // the number.
            "OperationalError"
        };
        let message = if err.is_server() {
            server.message().to_owned()
        } else {
            err.to_string()
        };
        return (class, server.code(), server.sql_state().to_owned(), message);
    }
    let (class, code) = if err.is_tls() {
        ("OperationalError", CR_SSL_CONNECTION_ERROR)
    } else if err.is_io() {
        ("OperationalError", CR_SERVER_LOST_EXTENDED)
    } else if err.is_connection_lost() || err.is_session_closed() {
        ("OperationalError", CR_SERVER_LOST)
    } else if err.is_timeout() {
        ("OperationalError", ER_QUERY_TIMEOUT)
    } else if err.is_pool_exhausted() {
        ("OperationalError", CR_UNKNOWN_ERROR)
    } else if err.is_protocol() {
        ("InterfaceError", CR_MALFORMED_PACKET)
    } else {
        ("InterfaceError", CR_UNKNOWN_ERROR)
    };
    (class, code, "HY000".to_owned(), err.to_string())
}

/// A DB-API exception of `class` from `xrpc.exceptions`.
pub(crate) fn exception(
    py: Python<'_>,
    class: &str,
    code: u32,
    state: &str,
    message: &str,
) -> PyErr {
    let built = EXCEPTIONS
        .get_or_try_init(py, || {
            PyModule::import(py, "xrpc.exceptions").map(Bound::unbind)
        })
        .and_then(|module| module.bind(py).getattr(class))
        .and_then(|cls| cls.call1((code, message, state)));
    match built {
        Ok(value) => PyErr::from_value(value),
        Err(err) => err,
    }
}

/// `err` as its DB-API exception.
pub(crate) fn to_py(py: Python<'_>, err: &ClientError) -> PyErr {
    let (class, code, state, message) = describe(err);
    exception(py, class, code, &state, &message)
}

/// `err` as the exception of a connection attempt to `addr`: a refused or unreachable node says
/// so with its address (2003), as MySQL's client does.
pub(crate) fn connect_error(py: Python<'_>, addr: &str, err: &ClientError) -> PyErr {
    if err.server().is_none() && (err.is_io() || err.is_timeout()) {
        let message = format!("Can't connect to xrpc node on '{addr}' ({err})");
        return exception(
            py,
            "OperationalError",
            CR_CONN_HOST_ERROR,
            "HY000",
            &message,
        );
    }
    to_py(py, err)
}

/// An error raised by the binding itself (closed objects, misuse).
pub(crate) fn interface(py: Python<'_>, message: &str) -> PyErr {
    exception(py, "InterfaceError", CR_UNKNOWN_ERROR, "HY000", message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_pick_the_pep_249_class() {
        assert_eq!(class_for(1062), "IntegrityError");
        assert_eq!(class_for(1452), "IntegrityError");
        assert_eq!(class_for(1064), "ProgrammingError");
        assert_eq!(class_for(1146), "ProgrammingError");
        assert_eq!(class_for(1054), "ProgrammingError");
        assert_eq!(class_for(1406), "DataError");
        assert_eq!(class_for(1235), "NotSupportedError");
        assert_eq!(class_for(1205), "OperationalError");
        assert_eq!(class_for(1317), "OperationalError");
        assert_eq!(class_for(1045), "OperationalError");
    }
}
