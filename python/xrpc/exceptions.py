"""The PEP 249 exception hierarchy.

Every error carries a MySQL error number (``errno``), a SQL state (``sqlstate``) and the message
(``msg``); ``args`` is ``(errno, msg)`` as in other MySQL drivers. Server errors keep the node's
number and state; failures the client sees itself use the numbers of MySQL's client library
(2003 cannot connect, 2013 connection lost, 2026 TLS, 2027 malformed packet, 2055 I/O error)
with state ``HY000``.
"""

__all__ = [
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
]

_Builtin = Warning


class Warning(_Builtin):  # noqa: A001 - PEP 249 names it so
    """Important warnings, such as data truncation on insert."""


class Error(Exception):
    """Base class of every error of the driver."""

    def __init__(self, errno=None, msg=None, sqlstate=None):
        if msg is None and isinstance(errno, str):
            errno, msg = None, errno
        super().__init__(errno, msg)
        self.errno = errno
        self.msg = msg
        self.sqlstate = sqlstate

    def __str__(self):
        if self.errno is None:
            return str(self.msg)
        return f"{self.errno} ({self.sqlstate or 'HY000'}): {self.msg}"


class InterfaceError(Error):
    """An error of the driver rather than of the database (misuse, a closed object, a protocol
    violation)."""


class DatabaseError(Error):
    """An error of the database."""


class DataError(DatabaseError):
    """A value that does not fit: out of range, too long, not convertible."""


class OperationalError(DatabaseError):
    """An error of the database's operation, not of the statement: lost or refused connections,
    authentication, timeouts, kills, deadlocks, a draining node."""


class IntegrityError(DatabaseError):
    """A constraint was violated: duplicate key, foreign key, NOT NULL, CHECK."""


class InternalError(DatabaseError):
    """The database's internal state is inconsistent."""


class ProgrammingError(DatabaseError):
    """The statement is wrong: syntax, unknown table or column, objects that already exist."""


class NotSupportedError(DatabaseError):
    """The database does not support what was asked."""
