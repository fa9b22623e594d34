"""DB-API 2.0 connections and cursors over the native sessions.

A ``Connection`` is one protocol session on the node; sessions of one process share a few TCP
connections per node and login (see ``connect``). Statements use ``qmark`` placeholders, and
their arguments travel as typed protocol values, never spliced into the text.

Results stream: ``execute`` returns once the first row (or the end) has arrived, and
``fetchone``/``fetchmany`` take rows as the node sends them under the protocol's flow control,
so a large result is read in bounded memory. ``rowcount`` is the number of rows a change
affected; for a result set it is -1 until every row has been fetched, then the number of rows.
Running another statement on the connection while a result is still open first reads that
result to its end, so every cursor still sees all its rows.
"""

from collections.abc import Mapping

from . import _xrpc
from .exceptions import (
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
)

DEFAULT_PORT = 33660


def settings(
    host="127.0.0.1",
    port=DEFAULT_PORT,
    user="root",
    password="",
    database="",
    *,
    tls=False,
    tls_ca=None,
    tls_cert=None,
    tls_key=None,
    tls_server_name=None,
    connect_timeout=5.0,
    read_timeout=None,
    pool_connections=4,
    pool_sessions_per_connection=4096,
    fetch_buffer_kib=None,
    passwd=None,
    db=None,
):
    """The native settings of a connection; see ``connect`` for the arguments."""
    if passwd is not None:
        password = passwd
    if db is not None:
        database = db
    return _xrpc.Settings(
        str(host),
        int(port),
        str(user),
        str(password or ""),
        str(database or ""),
        bool(tls),
        None if tls_ca is None else str(tls_ca),
        None if tls_cert is None else str(tls_cert),
        None if tls_key is None else str(tls_key),
        tls_server_name,
        float(connect_timeout),
        None if read_timeout is None else float(read_timeout),
        int(pool_connections),
        int(pool_sessions_per_connection),
        fetch_buffer_kib,
    )


def connect(*args, autocommit=False, **kwargs):
    """Opens a connection: a new session on the node at ``host:port``.

    Arguments: ``host`` (127.0.0.1), ``port`` (33660), ``user`` (root), ``password``,
    ``database`` (the session's current database; ``db`` and ``passwd`` are accepted as
    aliases), ``tls`` (switch to TLS before logging in; the node's certificate is checked
    against ``tls_ca``, a PEM file, or the system's authorities, and against
    ``tls_server_name`` or the host), ``tls_cert``/``tls_key`` (a client certificate),
    ``connect_timeout`` (seconds, 5), ``read_timeout`` (seconds a statement may run before it
    is killed; none by default), ``autocommit`` (False, as PEP 249 asks),
    ``pool_connections`` (TCP connections per node and login, 4) and
    ``pool_sessions_per_connection`` (4096), ``fetch_buffer_kib`` (how far, in KiB, the node
    may stream ahead of the fetches; 10240).
    """
    return Connection(settings(*args, **kwargs), autocommit=autocommit)


class Connection:
    """A DB-API connection: one session. Safe to share between threads (threadsafety 2)."""

    Warning = Warning
    Error = Error
    InterfaceError = InterfaceError
    DatabaseError = DatabaseError
    DataError = DataError
    OperationalError = OperationalError
    IntegrityError = IntegrityError
    InternalError = InternalError
    ProgrammingError = ProgrammingError
    NotSupportedError = NotSupportedError

    def __init__(self, settings, autocommit=False):
        self._session = _xrpc.Session(settings)
        self._closed = False
        self._autocommit = True
        # Whether a statement ran since the last commit or rollback.
        self._dirty = False
        self.autocommit = autocommit

    # -- transactions --------------------------------------------------------------------

    @property
    def autocommit(self):
        """Whether each statement commits on its own. Setting it takes effect with the next
        statement (MySQL's ``SET autocommit``, which commits an open transaction when
        switched on)."""
        return self._autocommit

    @autocommit.setter
    def autocommit(self, on):
        self._check()
        on = bool(on)
        if on != self._autocommit:
            self._session.send_ahead(f"SET autocommit = {1 if on else 0}")
            self._autocommit = on

    def commit(self):
        """Commits the current transaction."""
        self._check()
        if self._dirty:
            self._session.execute("COMMIT")
            self._dirty = False

    def rollback(self):
        """Rolls the current transaction back."""
        self._check()
        if self._dirty:
            self._session.execute("ROLLBACK")
            self._dirty = False

    # -- lifetime ------------------------------------------------------------------------

    def cursor(self):
        """A new cursor on this connection."""
        self._check()
        return Cursor(self)

    def close(self):
        """Closes the session; what was not committed is rolled back. Closing twice is fine."""
        if not self._closed:
            self._closed = True
            self._session.close()

    @property
    def closed(self):
        return self._closed

    def ping(self):
        """Checks that the session still answers; raises OperationalError if it does not."""
        self._check()
        self._session.execute("SELECT 1").fetch()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        """Commits (or, after an exception, rolls back) and closes."""
        try:
            if not self._closed:
                if exc_type is None:
                    self.commit()
                else:
                    self.rollback()
        finally:
            self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing to report to at collection time
            pass

    # -- internals -----------------------------------------------------------------------

    def _check(self):
        if getattr(self, "_closed", True):
            raise InterfaceError(2000, "the connection is closed", "HY000")

    def _execute(self, operation, parameters):
        self._check()
        if isinstance(parameters, Mapping):
            raise ProgrammingError(
                2000, "paramstyle is qmark: pass arguments as a sequence, not a mapping", "HY000"
            )
        if isinstance(operation, bytes):
            operation = operation.decode("utf-8")
        self._dirty = True
        return self._session.execute(operation, parameters)


class Cursor:
    """A DB-API cursor. Use one cursor from one thread at a time."""

    def __init__(self, connection):
        self.connection = connection
        self.arraysize = 1
        self._result = None
        self._closed = False
        self.description = None
        self.rowcount = -1
        self.lastrowid = None
        self._warnings = []

    def execute(self, operation, parameters=None):
        """Runs one statement with ``?`` placeholders filled from ``parameters``; returns the
        cursor."""
        self._check()
        self._finish_previous()
        result = self.connection._execute(operation, parameters)
        self._result = result
        self.description = result.description
        self.rowcount = -1
        self.lastrowid = None
        self._update_counts()
        return self

    def executemany(self, operation, seq_of_parameters):
        """Runs the statement once per parameter sequence; ``rowcount`` is the total."""
        self._check()
        total = 0
        ran = False
        for parameters in seq_of_parameters:
            self.execute(operation, parameters)
            ran = True
            if self.rowcount > 0:
                total += self.rowcount
        if ran:
            self.rowcount = total
        return self

    def callproc(self, procname, parameters=()):
        """Calls a stored procedure; returns the parameters unchanged."""
        placeholders = ", ".join("?" for _ in parameters)
        self.execute(f"CALL {procname}({placeholders})", parameters)
        return parameters

    def fetchone(self):
        rows = self._fetch(1)
        return rows[0] if rows else None

    def fetchmany(self, size=None):
        return self._fetch(self.arraysize if size is None else size)

    def fetchall(self):
        return self._fetch(None)

    def nextset(self):
        """Statements return one result set each: there is never a next one."""
        self._check()
        return None

    def setinputsizes(self, sizes):
        pass

    def setoutputsize(self, size, column=None):
        pass

    @property
    def rownumber(self):
        return None

    def close(self):
        """Closes the cursor; rows not fetched are discarded."""
        if not self._closed:
            self._closed = True
            self._finish_previous()

    def __iter__(self):
        return self

    def __next__(self):
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()

    # -- internals -----------------------------------------------------------------------

    def _check(self):
        if self._closed:
            raise InterfaceError(2000, "the cursor is closed", "HY000")
        self.connection._check()

    def _finish_previous(self):
        """Drops the previous result; rows not fetched are discarded, not read."""
        if self._result is not None:
            self._result.close()
            self._result = None

    def _fetch(self, n):
        self._check()
        if self._result is None or self.description is None:
            raise ProgrammingError(2000, "the last statement returned no result set", "HY000")
        if n is not None and n <= 0:
            return []
        rows = self._result.fetch(n)
        self._update_counts()
        return rows

    def _update_counts(self):
        counts = self._result.counts
        if counts is not None:
            self.rowcount, self.lastrowid = counts
