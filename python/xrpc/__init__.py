"""xrpc: a Python driver for xrpc data nodes.

``xrpc`` is a DB-API 2.0 (PEP 249) module; ``xrpc.aio`` is its asyncio counterpart, and
``xrpc://user:password@host:port/database`` URLs select the SQLAlchemy dialect. Every connection
is a protocol session, and the sessions of one process share a few TCP connections per node.
The protocol itself is the Rust client's (``xrpc._xrpc``).
"""

from . import _xrpc
from .connection import Connection, Cursor, connect
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
from .types import (
    BINARY,
    DATE,
    DATETIME,
    FIELD_TYPE,
    NUMBER,
    ROWID,
    STRING,
    TIME,
    TIMESTAMP,
    Binary,
    Date,
    DateFromTicks,
    Time,
    TimeFromTicks,
    Timestamp,
    TimestampFromTicks,
)

apilevel = "2.0"
# Threads may share the module and connections (not cursors).
threadsafety = 2
paramstyle = "qmark"

__all__ = [
    "apilevel",
    "threadsafety",
    "paramstyle",
    "connect",
    "Connection",
    "Cursor",
    "Warning",
    "Error",
    "InterfaceError",
    "DatabaseError",
    "DataError",
    "OperationalError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
    "STRING",
    "BINARY",
    "NUMBER",
    "DATETIME",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "ROWID",
    "FIELD_TYPE",
    "Date",
    "Time",
    "Timestamp",
    "DateFromTicks",
    "TimeFromTicks",
    "TimestampFromTicks",
    "Binary",
    "live_connections",
]


def live_connections():
    """Open TCP connections of this process to xrpc nodes: ``(blocking, asyncio)``."""
    return _xrpc.live_connections()
