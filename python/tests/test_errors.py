"""The errors a user meets say what happened, with a MySQL code and SQL state."""

import threading
import time

import pytest

import xrpc
import xrpc.aio

from conftest import APP_PASSWORD, APP_USER, SLOW, Node, free_port


def session_id(conn):
    cur = conn.cursor()
    cur.execute("SELECT CONNECTION_ID()")
    return cur.fetchone()[0]


def test_a_refused_connection_names_the_address():
    port = free_port()
    with pytest.raises(xrpc.OperationalError) as caught:
        xrpc.connect(host="127.0.0.1", port=port)
    assert caught.value.errno == 2003
    assert f"127.0.0.1:{port}" in str(caught.value)
    assert "refused" in str(caught.value)


def test_a_wrong_password_is_access_denied(node):
    with pytest.raises(xrpc.OperationalError) as caught:
        xrpc.connect(host="127.0.0.1", port=node.port, user=APP_USER, password="wrong")
    assert (caught.value.errno, caught.value.sqlstate) == (1045, "28000")
    assert "Access denied" in str(caught.value)


def test_the_right_password_logs_in(node):
    conn = xrpc.connect(host="127.0.0.1", port=node.port, user=APP_USER, password=APP_PASSWORD)
    conn.ping()
    conn.close()


def test_asyncio_connect_errors_too(node):
    import asyncio

    async def main():
        await xrpc.aio.connect(host="127.0.0.1", port=node.port, user=APP_USER, password="wrong")

    with pytest.raises(xrpc.OperationalError) as caught:
        asyncio.run(main())
    assert caught.value.errno == 1045


def test_tls_to_a_node_without_tls_is_refused_clearly(node):
    with pytest.raises(xrpc.OperationalError) as caught:
        xrpc.connect(host="127.0.0.1", port=node.port, tls=True, connect_timeout=4.5)
    assert "TLS" in str(caught.value)
    assert "no certificate" in str(caught.value)


def test_a_plain_connection_to_a_node_requiring_tls_is_refused(sqlite_node):
    with sqlite_node.connect(autocommit=True) as admin:
        admin.cursor().execute("SET GLOBAL xrpc_require_secure_transport = ON")
    with pytest.raises(xrpc.OperationalError) as caught:
        xrpc.connect(host="127.0.0.1", port=sqlite_node.port, connect_timeout=4.25)
    assert caught.value.errno == 3159
    assert "insecure transport" in str(caught.value)


def test_a_killed_session_says_so(node):
    victim = node.connect(autocommit=True)
    sid = session_id(victim)
    with node.connect(autocommit=True) as killer:
        killer.cursor().execute(f"KILL {sid}")
    with pytest.raises(xrpc.OperationalError) as caught:
        victim.cursor().execute("SELECT 1")
    assert (caught.value.errno, caught.value.sqlstate) == (7005, "70100")
    assert "killing" in str(caught.value)
    victim.close()


def test_a_killed_query_is_interrupted_and_the_session_goes_on(node):
    victim = node.connect(autocommit=True)
    sid = session_id(victim)
    outcome = {}

    def run():
        try:
            victim.cursor().execute(SLOW)
        except xrpc.Error as err:
            outcome["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    with node.connect(autocommit=True) as killer:
        # KILL QUERY of an idle session does nothing: repeat until the statement has been hit.
        deadline = time.monotonic() + 30
        while thread.is_alive() and time.monotonic() < deadline:
            killer.cursor().execute(f"KILL QUERY {sid}")
            thread.join(0.05)
    thread.join()
    err = outcome["error"]
    assert isinstance(err, xrpc.OperationalError)
    assert err.errno == 1317
    cur = victim.cursor()
    cur.execute("SELECT 2")
    assert cur.fetchone() == (2,)
    victim.close()


def test_a_statement_past_read_timeout_is_killed(node):
    conn = node.connect(autocommit=True, read_timeout=0.3)
    with pytest.raises(xrpc.OperationalError) as caught:
        conn.cursor().execute(SLOW)
    assert caught.value.errno == 3024
    assert "timed out" in str(caught.value)
    cur = conn.cursor()
    cur.execute("SELECT 3")
    assert cur.fetchone() == (3,)
    conn.close()


def test_a_draining_node_interrupts_running_statements_and_closes():
    node = Node(settings="drain_timeout = 300")
    try:
        busy = node.connect(autocommit=True)
        idle = node.connect(autocommit=True)
        idle.ping()
        outcome = {}

        def run():
            try:
                busy.cursor().execute(SLOW)
            except xrpc.Error as err:
                outcome["error"] = err

        thread = threading.Thread(target=run)
        thread.start()
        # The statement is running once a KILL QUERY would hit it; here, once the node has it:
        # give it the moment a request takes to arrive, then drain.
        time.sleep(0.3)
        node.terminate()
        thread.join(30)
        err = outcome["error"]
        assert isinstance(err, xrpc.OperationalError)
        assert err.errno in (1317, 2013), err
        # Its request either reaches the draining node, which refuses it (1053), or finds the
        # connection closed (2013).
        with pytest.raises(xrpc.OperationalError) as caught:
            idle.cursor().execute("SELECT 1")
        assert caught.value.errno in (1053, 2013)
        assert "shutdown" in str(caught.value) or "connection lost" in str(caught.value)
        assert node.process.wait(30) == 0, "a drained node exits cleanly"
        with pytest.raises(xrpc.OperationalError) as caught:
            xrpc.connect(host="127.0.0.1", port=node.port, connect_timeout=3.25)
        assert caught.value.errno == 2003
    finally:
        node.stop()


def test_a_dropped_connection_fails_its_sessions_clearly(sqlite_node):
    conn = sqlite_node.connect(autocommit=True)
    conn.ping()
    sqlite_node.process.kill()
    sqlite_node.process.wait()
    with pytest.raises(xrpc.OperationalError) as caught:
        conn.cursor().execute("SELECT 1")
    assert caught.value.errno == 2013
    assert "connection lost" in str(caught.value)
    with pytest.raises(xrpc.OperationalError) as caught:
        sqlite_node.connect()
    assert caught.value.errno == 2003


def test_the_gil_is_released_while_a_statement_runs(node):
    slow = node.connect(autocommit=True, read_timeout=2.0)
    outcome = {}

    def run():
        try:
            slow.cursor().execute(SLOW)
        except xrpc.OperationalError as err:
            outcome["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    # While the other thread waits on the node, this one runs Python and statements of its own.
    with node.connect(autocommit=True) as other:
        cur = other.cursor()
        if node.engine == "mariadb":
            # Once the slow statement runs on the backend: a statement that reaches the node in
            # the same instant may be pipelined behind it on one backend connection, and wait.
            deadline = time.monotonic() + 10
            while thread.is_alive() and time.monotonic() < deadline:
                cur.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                            "WHERE INFO LIKE CONCAT('%d AS d', '8%')")
                if cur.fetchone() == (1,):
                    break
        done = 0
        while thread.is_alive() and done < 20:
            cur.execute("SELECT ?", (done,))
            assert cur.fetchone() == (done,)
            done += 1
    still_running = thread.is_alive()
    thread.join()
    slow.close()
    assert done == 20 and still_running, f"statements ran while the slow one was in flight: {outcome}"
    assert outcome["error"].errno == 3024
