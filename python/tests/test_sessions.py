"""Sessions over shared connections: every DB-API connection is a session, and the sessions
of one process share a few TCP connections per node and login."""

import pytest

import xrpc

from conftest import sockets_to


def test_5000_connections_are_5000_sessions_on_a_handful_of_sockets(node):
    # A login of its own, so that connections other tests opened do not count.
    kwargs = node.kwargs(connect_timeout=7.5, pool_connections=4, pool_sessions_per_connection=2000)
    before = sockets_to(node.port)
    conns = [xrpc.connect(**kwargs, autocommit=True) for _ in range(5000)]
    ids = set()
    for conn in conns:
        cur = conn.cursor()
        cur.execute("SELECT CONNECTION_ID()")
        ids.add(cur.fetchone()[0])
    opened = sockets_to(node.port) - before
    for conn in conns:
        conn.close()
    assert len(ids) == 5000, "each connection is a session of its own on the node"
    assert opened == 3, f"5000 sessions of at most 2000 per socket need 3 sockets, not {opened}"


def test_sessions_beyond_the_pool_limit_share_the_last_connections(node):
    kwargs = node.kwargs(connect_timeout=8.5, pool_connections=2, pool_sessions_per_connection=3)
    before = sockets_to(node.port)
    conns = [xrpc.connect(**kwargs, autocommit=True) for _ in range(10)]
    for conn in conns:
        conn.ping()
    assert sockets_to(node.port) - before == 2
    for conn in conns:
        conn.close()


def test_a_closed_session_leaves_no_state_behind(node):
    kwargs = node.kwargs(connect_timeout=9.5, pool_connections=1)
    first = xrpc.connect(**kwargs, autocommit=True)
    first.cursor().execute("CREATE TEMPORARY TABLE leftover (id INT)")
    first.close()
    second = xrpc.connect(**kwargs, autocommit=True)
    with pytest.raises(xrpc.ProgrammingError) as caught:
        second.cursor().execute("SELECT * FROM leftover")
    assert caught.value.errno == 1146
    second.close()


def test_the_database_argument_selects_the_sessions_database(node):
    database = "xrpc_py_db"
    with node.connect(autocommit=True) as admin:
        admin.cursor().execute(f"CREATE DATABASE IF NOT EXISTS {database}")
    conn = node.connect(database=database, autocommit=True)
    cur = conn.cursor()
    cur.execute("SELECT DATABASE()")
    current = cur.fetchone()[0]
    conn.close()
    assert current == database
