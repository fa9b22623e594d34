"""Values round trip: arguments go out as typed protocol values and come back as the column's
Python type, edge values included."""

import datetime
import json
from decimal import Decimal

import pytest

import xrpc


def roundtrip(conn, table, column_type, values):
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, v {column_type})")
    cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", list(enumerate(values)))
    cur.execute(f"SELECT v FROM {table} ORDER BY id")
    return [row[0] for row in cur.fetchall()]


def test_integers_at_their_edges(conn, table):
    values = [0, 1, -1, 2**31 - 1, -(2**31), 2**63 - 1, -(2**63), None]
    assert roundtrip(conn, table, "BIGINT", values) == values


def test_unsigned_bigint_beyond_the_signed_range(conn, table, node):
    values = [2**63, 2**64 - 1]
    if node.engine == "sqlite" and node.translates:
        # SQLite's integers are signed: the translation refuses MySQL's values past them
        # rather than storing them differently.
        with pytest.raises(xrpc.DatabaseError) as caught:
            roundtrip(conn, table, "BIGINT UNSIGNED", values)
        assert caught.value.errno == 1235
        return
    assert roundtrip(conn, table, "BIGINT UNSIGNED", values) == values


def test_doubles(conn, table):
    values = [0.0, 1.5, -2.25, 1e300, -1e-300, 0.1]
    assert roundtrip(conn, table, "DOUBLE", values) == values


def test_decimals_keep_their_scale(conn, table):
    values = [Decimal("0.00"), Decimal("12345678901234.56"), Decimal("-0.01"), None]
    result = roundtrip(conn, table, "DECIMAL(16,2)", values)
    assert result == values
    assert [str(v) for v in result if v is not None] == ["0.00", "12345678901234.56", "-0.01"]
    assert all(isinstance(v, Decimal) for v in result if v is not None)


def test_text_in_every_script(conn, table):
    values = ["", "plain", "naïve café", "日本語", "emoji 🚀", "quote ' and \\ backslash", None]
    assert roundtrip(conn, table, "VARCHAR(64)", values) == values


def test_bytes_come_back_as_bytes(conn, table):
    values = [b"", b"\x00\x01\xff", bytes(range(256)), None]
    result = roundtrip(conn, table, "BLOB", values)
    assert result == values
    assert all(isinstance(v, bytes) for v in result if v is not None)


def test_bytearray_and_memoryview_arguments(conn):
    cur = conn.cursor()
    cur.execute("SELECT ? = ?", (bytearray(b"ab"), memoryview(b"ab")))
    assert cur.fetchone()[0] in (1, True)


def test_dates(conn, table):
    values = [datetime.date(2024, 2, 29), datetime.date(1, 1, 1), datetime.date(9999, 12, 31)]
    assert roundtrip(conn, table, "DATE", values) == values


def test_datetimes_with_microseconds(conn, table):
    values = [
        datetime.datetime(2024, 1, 2, 3, 4, 5),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
        datetime.datetime(1000, 1, 1, 0, 0, 0),
    ]
    assert roundtrip(conn, table, "DATETIME(6)", values) == values


def test_times_are_timedeltas(conn, table):
    values = [
        datetime.timedelta(hours=1, minutes=2, seconds=3),
        datetime.timedelta(hours=-5, microseconds=-250000),
        datetime.timedelta(hours=838, minutes=59, seconds=59),
    ]
    assert roundtrip(conn, table, "TIME(6)", values) == values


def test_time_of_day_arguments(conn, table):
    result = roundtrip(conn, table, "TIME", [datetime.time(13, 14, 15)])
    assert result == [datetime.timedelta(hours=13, minutes=14, seconds=15)]


def test_json_comes_back_as_text(conn, table, node):
    doc = {"a": [1, 2, {"b": None}], "c": "ü"}
    column = "JSON" if node.engine == "mariadb" else "TEXT"
    result = roundtrip(conn, table, column, [json.dumps(doc)])
    assert isinstance(result[0], str)
    assert json.loads(result[0]) == doc


def test_booleans_are_integers(conn):
    cur = conn.cursor()
    cur.execute("SELECT ?, ?", (True, False))
    assert cur.fetchone() == (1, 0)


def test_null_argument_and_result(conn):
    cur = conn.cursor()
    cur.execute("SELECT ? IS NULL", (None,))
    assert cur.fetchone() == (1,)


def test_unsupported_argument_types_are_refused(conn):
    with pytest.raises(TypeError):
        conn.cursor().execute("SELECT ?", (object(),))
    with pytest.raises(TypeError):
        conn.cursor().execute("SELECT ?", (Decimal("NaN"),))


def test_description_type_codes(conn, table):
    cur = conn.cursor()
    cur.execute(
        f"CREATE TABLE {table} (i INT, d DECIMAL(5,2), s VARCHAR(5), dt DATETIME, b BLOB)"
    )
    cur.execute(f"SELECT i, d, s, dt, b FROM {table}")
    codes = [d[1] for d in cur.description]
    assert codes[0] == xrpc.NUMBER
    assert codes[1] == xrpc.NUMBER
    assert codes[2] == xrpc.STRING
    assert codes[3] == xrpc.DATETIME
    assert codes[4] == xrpc.BINARY
    assert cur.description[1][5] == 2
