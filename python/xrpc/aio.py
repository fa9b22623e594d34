"""asyncio connections and cursors, on the Rust client's tokio transport.

The same sessions, results and errors as the DB-API module, with coroutines::

    conn = await xrpc.aio.connect(host="127.0.0.1", port=33660, user="root")
    async with conn.cursor() as cur:
        await cur.execute("SELECT id, name FROM t WHERE id > ?", (10,))
        async for row in cur:
            ...
    await conn.close()

No thread waits while a statement runs, so one process can hold many thousands of concurrent
tasks, each with its own session; the sessions share a few TCP connections per node and login.
"""

from collections.abc import Mapping

from . import _xrpc
from .connection import settings
from .exceptions import InterfaceError, ProgrammingError


async def connect(*args, autocommit=False, **kwargs):
    """Opens a connection: a new session on the node. Arguments as ``xrpc.connect``."""
    session = await _xrpc.connect_async(settings(*args, **kwargs))
    return AsyncConnection(session, autocommit)


class AsyncConnection:
    """An asyncio connection: one session."""

    def __init__(self, session, autocommit=False):
        self._session = session
        self._closed = False
        self._autocommit = True
        self._dirty = False
        self.autocommit = autocommit

    @property
    def autocommit(self):
        """Whether each statement commits on its own; a change takes effect with the next
        statement."""
        return self._autocommit

    @autocommit.setter
    def autocommit(self, on):
        self._check()
        on = bool(on)
        if on != self._autocommit:
            self._session.send_ahead(f"SET autocommit = {1 if on else 0}")
            self._autocommit = on

    def cursor(self):
        """A new cursor (also an async context manager)."""
        self._check()
        return AsyncCursor(self)

    async def commit(self):
        self._check()
        if self._dirty:
            await self._session.execute("COMMIT")
            self._dirty = False

    async def rollback(self):
        self._check()
        if self._dirty:
            await self._session.execute("ROLLBACK")
            self._dirty = False

    async def close(self):
        """Closes the session; what was not committed is rolled back."""
        if not self._closed:
            self._closed = True
            await self._session.close()

    @property
    def closed(self):
        return self._closed

    async def __aenter__(self):
        return self

    async def __aexit__(self, exc_type, exc, tb):
        try:
            if not self._closed:
                if exc_type is None:
                    await self.commit()
                else:
                    await self.rollback()
        finally:
            await self.close()

    def _check(self):
        if self._closed:
            raise InterfaceError(2000, "the connection is closed", "HY000")

    async def _execute(self, operation, parameters):
        self._check()
        if isinstance(parameters, Mapping):
            raise ProgrammingError(
                2000, "paramstyle is qmark: pass arguments as a sequence, not a mapping", "HY000"
            )
        self._dirty = True
        return await self._session.execute(operation, parameters)


class AsyncCursor:
    """An asyncio cursor; ``description``, ``rowcount`` and ``lastrowid`` as in DB-API."""

    def __init__(self, connection):
        self.connection = connection
        self.arraysize = 1
        self._result = None
        self._closed = False
        self.description = None
        self.rowcount = -1
        self.lastrowid = None

    async def execute(self, operation, parameters=None):
        self._check()
        self._finish_previous()
        result = await self.connection._execute(operation, parameters)
        self._result = result
        self.description = result.description
        self.rowcount = -1
        self.lastrowid = None
        self._update_counts()
        return self

    async def executemany(self, operation, seq_of_parameters):
        total = 0
        ran = False
        for parameters in seq_of_parameters:
            await self.execute(operation, parameters)
            ran = True
            if self.rowcount > 0:
                total += self.rowcount
        if ran:
            self.rowcount = total
        return self

    async def fetchone(self):
        rows = await self._fetch(1)
        return rows[0] if rows else None

    async def fetchmany(self, size=None):
        return await self._fetch(self.arraysize if size is None else size)

    async def fetchall(self):
        return await self._fetch(None)

    async def close(self):
        self._closed = True
        self._finish_previous()

    def _finish_previous(self):
        """Drops the previous result; rows not fetched are discarded, not read."""
        if self._result is not None:
            self._result.close()
            self._result = None

    def __aiter__(self):
        return self

    async def __anext__(self):
        row = await self.fetchone()
        if row is None:
            raise StopAsyncIteration
        return row

    async def __aenter__(self):
        return self

    async def __aexit__(self, exc_type, exc, tb):
        await self.close()

    def _check(self):
        if self._closed:
            raise InterfaceError(2000, "the cursor is closed", "HY000")
        self.connection._check()

    async def _fetch(self, n):
        self._check()
        if self._result is None or self.description is None:
            raise ProgrammingError(2000, "the last statement returned no result set", "HY000")
        if n is not None and n <= 0:
            return []
        rows = self._result.fetch_at_hand(n)
        if rows is None:
            rows = await self._result.fetch(n)
        self._update_counts()
        return rows

    def _update_counts(self):
        counts = self._result.counts
        if counts is not None:
            self.rowcount, self.lastrowid = counts
