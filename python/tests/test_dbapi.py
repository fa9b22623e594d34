"""PEP 249 compliance: the module, connections, cursors, transactions and the exception classes,
against a real node on each engine."""

import threading

import pytest

import xrpc


def test_module_globals():
    assert xrpc.apilevel == "2.0"
    assert xrpc.threadsafety >= 2
    assert xrpc.paramstyle == "qmark"


def test_exception_hierarchy():
    assert issubclass(xrpc.Warning, Exception)
    assert issubclass(xrpc.Error, Exception)
    assert issubclass(xrpc.InterfaceError, xrpc.Error)
    assert issubclass(xrpc.DatabaseError, xrpc.Error)
    for cls in (xrpc.DataError, xrpc.OperationalError, xrpc.IntegrityError, xrpc.InternalError,
                xrpc.ProgrammingError, xrpc.NotSupportedError):
        assert issubclass(cls, xrpc.DatabaseError)


def test_connection_exposes_the_exception_classes(conn):
    assert conn.Error is xrpc.Error
    assert conn.IntegrityError is xrpc.IntegrityError


def test_select_returns_typed_rows_and_a_description(conn):
    cur = conn.cursor()
    assert cur.execute("SELECT 1 AS one, 'two' AS two") is cur
    assert [d[0] for d in cur.description] == ["one", "two"]
    assert all(len(d) == 7 for d in cur.description)
    assert cur.description[0][1] == xrpc.NUMBER
    assert cur.description[1][1] == xrpc.STRING
    assert cur.fetchall() == [(1, "two")]
    assert cur.rowcount == 1


def test_fetchone_fetchmany_fetchall_and_arraysize(conn, table):
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, v VARCHAR(10))")
    cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(i, f"v{i}") for i in range(10)])
    assert cur.rowcount == 10
    cur.execute(f"SELECT id, v FROM {table} ORDER BY id")
    assert cur.rowcount == -1, "unknown until every row is read"
    assert cur.fetchone() == (0, "v0")
    assert cur.arraysize == 1
    assert cur.fetchmany() == [(1, "v1")]
    cur.arraysize = 3
    assert cur.fetchmany() == [(2, "v2"), (3, "v3"), (4, "v4")]
    assert cur.fetchmany(2) == [(5, "v5"), (6, "v6")]
    assert cur.fetchall() == [(7, "v7"), (8, "v8"), (9, "v9")]
    assert cur.fetchone() is None
    assert cur.fetchmany(5) == []
    assert cur.rowcount == 10


def test_iteration_yields_every_row(conn, table):
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY)")
    cur.executemany(f"INSERT INTO {table} VALUES (?)", [(i,) for i in range(5)])
    cur.execute(f"SELECT id FROM {table} ORDER BY id")
    assert [row[0] for row in cur] == [0, 1, 2, 3, 4]


def test_rowcount_and_lastrowid_of_changes(conn, table):
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY AUTO_INCREMENT, v INT)")
    assert cur.description is None
    cur.execute(f"INSERT INTO {table} (v) VALUES (?)", (10,))
    assert cur.rowcount == 1
    first = cur.lastrowid
    assert isinstance(first, int) and first >= 1
    cur.execute(f"INSERT INTO {table} (v) VALUES (?)", (20,))
    assert cur.lastrowid == first + 1
    cur.execute(f"UPDATE {table} SET v = v + 1")
    assert cur.rowcount == 2
    cur.execute(f"DELETE FROM {table} WHERE v = ?", (11,))
    assert cur.rowcount == 1


def test_fetch_after_a_statement_without_rows_is_an_error(conn, table):
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INT)")
    with pytest.raises(xrpc.ProgrammingError):
        cur.fetchone()


def test_arguments_are_values_never_sql(conn):
    hostile = "x'); DROP TABLE users; --"
    cur = conn.cursor()
    cur.execute("SELECT ?, ?", (hostile, "?"))
    assert cur.fetchall() == [(hostile, "?")]


def test_mapping_arguments_are_refused(conn):
    with pytest.raises(xrpc.ProgrammingError):
        conn.cursor().execute("SELECT ?", {"a": 1})


def test_closed_cursor_and_connection_refuse_use(node):
    conn = node.connect()
    cur = conn.cursor()
    cur.close()
    with pytest.raises(xrpc.InterfaceError):
        cur.execute("SELECT 1")
    conn.close()
    conn.close()
    with pytest.raises(xrpc.InterfaceError):
        conn.cursor()
    with pytest.raises(xrpc.InterfaceError):
        conn.commit()


def test_context_managers_commit_and_close(node, table):
    with node.connect() as conn:
        with conn.cursor() as cur:
            cur.execute(f"CREATE TABLE {table} (id INT)")
            cur.execute(f"INSERT INTO {table} VALUES (1)")
        assert cur._closed
    assert conn.closed
    with node.connect() as other:
        cur = other.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {table}")
        assert cur.fetchone() == (1,)


def test_context_manager_rolls_back_on_an_exception(node, table):
    with node.connect(autocommit=True) as setup:
        setup.cursor().execute(f"CREATE TABLE {table} (id INT)")
    with pytest.raises(RuntimeError):
        with node.connect() as conn:
            conn.cursor().execute(f"INSERT INTO {table} VALUES (1)")
            raise RuntimeError("boom")
    with node.connect() as check:
        cur = check.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {table}")
        assert cur.fetchone() == (0,)


def test_rollback_discards_and_commit_keeps(node, table):
    with node.connect(autocommit=True) as setup:
        setup.cursor().execute(f"CREATE TABLE {table} (id INT)")
    conn = node.connect()
    assert conn.autocommit is False
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {table} VALUES (1)")
    conn.rollback()
    cur.execute(f"INSERT INTO {table} VALUES (2)")
    conn.commit()
    conn.close()
    with node.connect() as check:
        cur = check.cursor()
        cur.execute(f"SELECT id FROM {table}")
        assert cur.fetchall() == [(2,)]


def test_uncommitted_work_is_rolled_back_on_close(node, table):
    with node.connect(autocommit=True) as setup:
        setup.cursor().execute(f"CREATE TABLE {table} (id INT)")
    conn = node.connect()
    conn.cursor().execute(f"INSERT INTO {table} VALUES (1)")
    conn.close()
    with node.connect() as check:
        cur = check.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {table}")
        assert cur.fetchone() == (0,)


def test_autocommit_property_makes_each_statement_durable(node, table):
    conn = node.connect()
    conn.autocommit = True
    assert conn.autocommit is True
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INT)")
    cur.execute(f"INSERT INTO {table} VALUES (1)")
    with node.connect() as other:
        c = other.cursor()
        c.execute(f"SELECT COUNT(*) FROM {table}")
        assert c.fetchone() == (1,)
    conn.close()


def test_a_new_statement_keeps_an_open_result_whole(conn, table):
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INT)")
    cur.executemany(f"INSERT INTO {table} VALUES (?)", [(i,) for i in range(100)])
    first = conn.cursor()
    first.execute(f"SELECT id FROM {table} ORDER BY id")
    assert first.fetchone() == (0,)
    second = conn.cursor()
    second.execute("SELECT 42")
    assert second.fetchall() == [(42,)]
    assert [r[0] for r in first.fetchall()] == list(range(1, 100))


def test_threads_share_a_connection(conn):
    results = []

    def work(n):
        cur = conn.cursor()
        for i in range(20):
            cur.execute("SELECT ?", (n * 100 + i,))
            results.append(cur.fetchone()[0])

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(n * 100 + i for n in range(4) for i in range(20))


@pytest.mark.parametrize(
    ("sql", "cls", "code"),
    [
        ("SELEC 1", xrpc.ProgrammingError, 1064),
        ("SELECT * FROM no_such_table_anywhere", xrpc.ProgrammingError, 1146),
        ("SELECT no_such_column FROM (SELECT 1 AS a) AS t", xrpc.ProgrammingError, 1054),
    ],
)
def test_server_errors_map_to_their_class_with_code_and_state(conn, sql, cls, code):
    with pytest.raises(cls) as caught:
        conn.cursor().execute(sql)
    assert caught.value.errno == code
    assert len(caught.value.sqlstate) == 5
    assert caught.value.args[0] == code
    assert str(code) in str(caught.value)


def test_duplicate_key_is_an_integrity_error(conn, table):
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY)")
    cur.execute(f"INSERT INTO {table} VALUES (1)")
    with pytest.raises(xrpc.IntegrityError) as caught:
        cur.execute(f"INSERT INTO {table} VALUES (?)", (1,))
    assert caught.value.errno == 1062
    assert caught.value.sqlstate == "23000"


def test_not_null_violation_is_an_integrity_error(conn, table):
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id INT NOT NULL)")
    with pytest.raises(xrpc.IntegrityError) as caught:
        cur.execute(f"INSERT INTO {table} VALUES (?)", (None,))
    assert caught.value.errno == 1048


def test_the_session_goes_on_after_an_error(conn):
    cur = conn.cursor()
    with pytest.raises(xrpc.ProgrammingError):
        cur.execute("SELEC 1")
    cur.execute("SELECT 7")
    assert cur.fetchone() == (7,)


def test_type_objects_and_constructors():
    assert xrpc.Date(2024, 1, 2).isoformat() == "2024-01-02"
    assert xrpc.Time(3, 4, 5).isoformat() == "03:04:05"
    assert xrpc.Timestamp(2024, 1, 2, 3, 4, 5).year == 2024
    assert xrpc.DateFromTicks(0).year in (1969, 1970)
    assert isinstance(xrpc.TimeFromTicks(0), xrpc.Time)
    assert isinstance(xrpc.TimestampFromTicks(0), xrpc.Timestamp)
    assert xrpc.Binary(b"\x00\x01") == b"\x00\x01"
    assert xrpc.FIELD_TYPE.LONGLONG == xrpc.NUMBER
    assert xrpc.FIELD_TYPE.DATETIME == xrpc.DATETIME
    assert xrpc.FIELD_TYPE.BLOB == xrpc.BINARY
    assert xrpc.FIELD_TYPE.VAR_STRING != xrpc.NUMBER
    assert xrpc.FIELD_TYPE.LONG != xrpc.ROWID


def test_bad_connect_arguments_are_value_errors(node):
    for bad in (dict(connect_timeout=0), dict(read_timeout=-1), dict(fetch_buffer_kib=0),
                dict(pool_connections=0)):
        with pytest.raises(ValueError):
            node.connect(**bad)
