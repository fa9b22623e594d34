"""The SQLAlchemy dialect: ``xrpc://user:password@host:port/database``.

Built on SQLAlchemy's MySQL dialect (the node speaks MySQL's SQL and errors), with this
package's DB-API module underneath: ``qmark`` parameters sent as typed protocol values, and
each pooled SQLAlchemy connection a session on a few shared TCP connections. Query options
become ``xrpc.connect`` arguments (``?tls=true&tls_ca=/path/ca.pem&read_timeout=30``).
The entry point ``sqlalchemy.dialects: xrpc`` registers it when the package is installed.
"""

from sqlalchemy.dialects.mysql.base import MySQLDialect, MySQLExecutionContext

_BOOL = {"tls"}
_FLOAT = {"connect_timeout", "read_timeout"}
_INT = {"pool_connections", "pool_sessions_per_connection", "fetch_buffer_kib"}
_TRUE = {"1", "true", "yes", "on"}

# Codes after which the session (or its connection) is gone: connection lost or refused, I/O
# failure, the node draining, the session killed.
_DISCONNECT_CODES = {1053, 2003, 2006, 2013, 2055, 7005}


class XrpcExecutionContext(MySQLExecutionContext):
    pass


class XrpcDialect(MySQLDialect):
    driver = "xrpc"
    supports_statement_cache = True
    default_paramstyle = "qmark"
    supports_native_decimal = True
    supports_sane_rowcount = True
    supports_sane_multi_rowcount = True
    supports_server_side_cursors = False
    execution_ctx_cls = XrpcExecutionContext

    @classmethod
    def import_dbapi(cls):
        import xrpc

        return xrpc

    def create_connect_args(self, url):
        opts = url.translate_connect_args(username="user", database="database")
        for key, value in url.query.items():
            if isinstance(value, tuple):
                value = value[-1]
            if key in _BOOL:
                opts[key] = str(value).lower() in _TRUE
            elif key in _FLOAT:
                opts[key] = float(value)
            elif key in _INT:
                opts[key] = int(value)
            else:
                opts[key] = value
        if "port" in opts:
            opts["port"] = int(opts["port"])
        return [], opts

    def _detect_charset(self, connection):
        # The protocol's text is UTF-8.
        return "utf8mb4"

    def _extract_error_code(self, exception):
        return getattr(exception, "errno", None)

    def is_disconnect(self, e, connection, cursor):
        if isinstance(e, (self.dbapi.OperationalError, self.dbapi.InterfaceError)):
            if self._extract_error_code(e) in _DISCONNECT_CODES:
                return True
            if "connection is closed" in str(e):
                return True
        return super().is_disconnect(e, connection, cursor)

    def do_ping(self, dbapi_connection):
        dbapi_connection.ping()
        return True

    def get_isolation_level_values(self, dbapi_conn):
        return (
            "SERIALIZABLE",
            "READ UNCOMMITTED",
            "READ COMMITTED",
            "REPEATABLE READ",
            "AUTOCOMMIT",
        )

    def detect_autocommit_setting(self, dbapi_conn):
        return dbapi_conn.autocommit

    def set_isolation_level(self, dbapi_connection, level):
        if level == "AUTOCOMMIT":
            dbapi_connection.autocommit = True
        else:
            dbapi_connection.autocommit = False
            super().set_isolation_level(dbapi_connection, level)


dialect = XrpcDialect
