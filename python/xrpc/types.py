"""PEP 249 type objects and constructors.

``Cursor.description`` gives each column's MySQL field type number as its type code; the type
objects compare equal to every number of their kind, so ``description[0][1] == NUMBER`` works as
PEP 249 asks. MySQL has no row-id type: ``ROWID`` equals none.
"""

import datetime
import time

__all__ = [
    "FIELD_TYPE",
    "STRING",
    "BINARY",
    "NUMBER",
    "DATETIME",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "ROWID",
    "Date",
    "Time",
    "Timestamp",
    "DateFromTicks",
    "TimeFromTicks",
    "TimestampFromTicks",
    "Binary",
]


class FIELD_TYPE:  # noqa: N801 - MySQL's own name for these numbers
    """MySQL's field type numbers (``enum_field_types``)."""

    DECIMAL = 0
    TINY = 1
    SHORT = 2
    LONG = 3
    FLOAT = 4
    DOUBLE = 5
    NULL = 6
    TIMESTAMP = 7
    LONGLONG = 8
    INT24 = 9
    DATE = 10
    TIME = 11
    DATETIME = 12
    YEAR = 13
    NEWDATE = 14
    VARCHAR = 15
    BIT = 16
    JSON = 245
    NEWDECIMAL = 246
    ENUM = 247
    SET = 248
    TINY_BLOB = 249
    MEDIUM_BLOB = 250
    LONG_BLOB = 251
    BLOB = 252
    VAR_STRING = 253
    STRING = 254
    GEOMETRY = 255


class DBAPISet(frozenset):
    """A type object: equal to each type code it holds."""

    def __eq__(self, other):
        if isinstance(other, frozenset):
            return frozenset.__eq__(self, other)
        return other in self

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return frozenset.__hash__(self)


_T = FIELD_TYPE
STRING = DBAPISet([_T.ENUM, _T.STRING, _T.VAR_STRING, _T.VARCHAR, _T.SET, _T.JSON])
BINARY = DBAPISet([_T.BLOB, _T.LONG_BLOB, _T.MEDIUM_BLOB, _T.TINY_BLOB, _T.GEOMETRY, _T.BIT])
NUMBER = DBAPISet(
    [_T.DECIMAL, _T.DOUBLE, _T.FLOAT, _T.INT24, _T.LONG, _T.LONGLONG, _T.TINY, _T.SHORT, _T.YEAR,
     _T.NEWDECIMAL]
)
DATE = DBAPISet([_T.DATE, _T.NEWDATE])
TIME = DBAPISet([_T.TIME])
TIMESTAMP = DBAPISet([_T.TIMESTAMP, _T.DATETIME])
DATETIME = DBAPISet([_T.DATE, _T.NEWDATE, _T.TIME, _T.TIMESTAMP, _T.DATETIME])
ROWID = DBAPISet()

Date = datetime.date
Time = datetime.time
Timestamp = datetime.datetime
Binary = bytes


def DateFromTicks(ticks):  # noqa: N802 - PEP 249 name
    return Date(*time.localtime(ticks)[:3])


def TimeFromTicks(ticks):  # noqa: N802 - PEP 249 name
    return Time(*time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks):  # noqa: N802 - PEP 249 name
    return Timestamp(*time.localtime(ticks)[:6])
