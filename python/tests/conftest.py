"""Fixtures: a real xrpc node on each engine, started for the test session.

The node is the workspace's ``xrpc-server`` binary (``XRPC_SERVER_BIN``, else
``$CARGO_TARGET_DIR/debug`` or ``target/debug``), started on a free loopback port with a
temporary data directory. The ``mariadb`` engine fronts a private MariaDB started here the way
``xrpc-testkit`` does it (``mariadb-install-db`` and ``mariadbd --no-defaults`` in a temporary
directory on a free port; the system's service is never touched). A missing binary or MariaDB
is an error, not a skip.
"""

import hashlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

import xrpc

REPO = Path(__file__).resolve().parents[2]

#: Ten rows, 0 to 9; cross joins of it count up without recursion (MariaDB stops a recursive
#: CTE after max_recursive_iterations, 1000 by default).
DIGITS = (
    "WITH d(n) AS (SELECT 0 UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 "
    "UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 "
    "UNION ALL SELECT 8 UNION ALL SELECT 9) "
)


def numbers(digits):
    """A statement whose rows are ``n`` from 1 to 10**digits, in order."""
    tables = ", ".join(f"d AS d{i}" for i in range(digits))
    value = " + ".join(f"d{i}.n * {10**i}" for i in range(digits))
    order = ", ".join(f"d{i}.n" for i in reversed(range(digits)))
    return DIGITS + f"SELECT {value} + 1 AS n FROM {tables} ORDER BY {order}"


#: A statement that runs for minutes: it counts 10**9 rows.
SLOW = DIGITS + "SELECT COUNT(*) FROM " + ", ".join(f"d AS d{i}" for i in range(9))
#: The account with a password that the node is configured with (besides root).
APP_USER, APP_PASSWORD = "app", "app-secret"
MARIADB_USER = "xrpc"
MARIADB_DATABASE = "xrpc"
READY_TIMEOUT = 60.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_binary():
    env = os.environ.get("XRPC_SERVER_BIN")
    candidates = [Path(env)] if env else []
    target = os.environ.get("CARGO_TARGET_DIR")
    if target:
        candidates.append(Path(target) / "debug" / "xrpc-server")
    candidates.append(REPO / "target" / "debug" / "xrpc-server")
    for path in candidates:
        if path.is_file():
            return path
    raise RuntimeError(
        "no xrpc-server binary: build it with `cargo build -p xrpc-server` or set XRPC_SERVER_BIN"
        f" (looked at {', '.join(map(str, candidates))})"
    )


def find_program(name):
    found = shutil.which(name) or next(
        (str(p) for p in (Path("/usr/sbin") / name, Path("/usr/bin") / name) if p.is_file()), None
    )
    if found is None:
        raise RuntimeError(f"{name} not found: install mariadb-server and mariadb-client")
    return found


def password_hash(plain):
    """mysql_native_password's stored form."""
    return "*" + hashlib.sha1(hashlib.sha1(plain.encode()).digest()).hexdigest().upper()


def wait_until(check, what, timeout=READY_TIMEOUT, log=None):
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except Exception:  # noqa: BLE001 - not ready yet
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            tail = log.read_text()[-3000:] if log is not None and log.exists() else ""
            raise RuntimeError(f"{what} not ready after {timeout}s\n{tail}")
        time.sleep(0.05)


class MariaDb:
    """A private MariaDB server in a temporary directory."""

    def __init__(self, extra=()):
        self.dir = Path(tempfile.mkdtemp(prefix="xrpc-py-mariadb-"))
        (self.dir / "tmp").mkdir()
        self.socket = self.dir / "mariadbd.sock"
        self.log = self.dir / "error.log"
        as_root = os.geteuid() == 0
        user = ["--user=root"] if as_root else []
        env = dict(os.environ, TMPDIR=str(self.dir / "tmp"))
        subprocess.run(
            [find_program("mariadb-install-db"), "--no-defaults", f"--datadir={self.dir / 'data'}",
             *user, "--auth-root-authentication-method=normal", "--skip-test-db",
             "--skip-name-resolve"],
            check=True, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env=env,
        )
        self.port = free_port()
        self.process = subprocess.Popen(
            [find_program("mariadbd"), "--no-defaults", *user, f"--tmpdir={self.dir / 'tmp'}",
             f"--datadir={self.dir / 'data'}", f"--socket={self.socket}",
             f"--pid-file={self.dir / 'mariadbd.pid'}", f"--log-error={self.log}",
             f"--port={self.port}", "--bind-address=127.0.0.1", "--skip-name-resolve",
             "--skip-log-bin", "--performance-schema=OFF", "--innodb-buffer-pool-size=32M",
             "--innodb-log-file-size=16M", "--innodb-use-native-aio=0", "--max-connections=200",
             *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )
        wait_until(lambda: self._root_sql("SELECT 1") is not None, "mariadbd", log=self.log)
        self._root_sql(
            f"CREATE USER '{MARIADB_USER}'@'%' IDENTIFIED BY '{MARIADB_USER}';"
            f"GRANT ALL ON *.* TO '{MARIADB_USER}'@'%' WITH GRANT OPTION;"
            f"CREATE DATABASE {MARIADB_DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
        )

    def _root_sql(self, sql):
        if self.process.poll() is not None:
            raise RuntimeError(f"mariadbd exited: {self.log.read_text()[-3000:]}")
        return subprocess.run(
            [find_program("mariadb"), "--no-defaults", "-uroot", f"--socket={self.socket}",
             "-e", sql],
            check=True, capture_output=True, text=True,
        ).stdout

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Node:
    """An xrpc-server process on a free port."""

    def __init__(self, engine_url=None, extra=(), settings=""):
        self.dir = Path(tempfile.mkdtemp(prefix="xrpc-py-node-"))
        self.port = free_port()
        self.log = self.dir / "node.log"
        self.engine = "sqlite" if engine_url is None else "mariadb"
        # The SQLite engine runs statements by their translation unless told otherwise.
        self.translates = self.engine == "sqlite" and os.environ.get(
            "XRPC_SQLITE_TRANSLATE", "ON").upper() not in ("OFF", "0", "FALSE")
        config = self.dir / "node.toml"
        # Top-level settings come before the [[users]] tables.
        config.write_text(
            settings + "\n"
            '[[users]]\nname = "root"\npassword_hash = ""\nhosts = ["%"]\n\n'
            f'[[users]]\nname = "{APP_USER}"\npassword_hash = "{password_hash(APP_PASSWORD)}"\n'
            'hosts = ["%"]\n'
        )
        args = [str(server_binary()), "--config", str(config), "--listen",
                f"127.0.0.1:{self.port}", "--data-dir", str(self.dir / "data"), "--log", "warn",
                *extra]
        env = dict(os.environ)
        if engine_url is not None:
            env["XRPC_ENGINE"] = engine_url
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, env=env)
        wait_until(self._answers, "xrpc-server", log=self.log)

    def _answers(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"xrpc-server exited: {self.log.read_text()[-3000:]}")
        with socket.create_connection(("127.0.0.1", self.port), timeout=1):
            return True

    def kwargs(self, **extra):
        return dict(host="127.0.0.1", port=self.port, user="root", password="", **extra)

    def connect(self, **extra):
        return xrpc.connect(**self.kwargs(**extra))

    def url(self, user="root", password=""):
        auth = f"{user}:{password}" if password else user
        return f"xrpc://{auth}@127.0.0.1:{self.port}"

    def terminate(self):
        """Starts a drain (SIGTERM), as an operator stopping the node would."""
        self.process.send_signal(signal.SIGTERM)

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def sockets_to(port):
    """Established TCP connections of this machine whose remote end is ``port``: the client side
    of every connection to the node (only this process connects to it)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            fields = line.split()
            remote, state = fields[2], fields[3]
            if state == "01" and int(remote.rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


@pytest.fixture(scope="session")
def mariadb():
    server = MariaDb()
    yield server
    server.stop()


@pytest.fixture(scope="session", params=["sqlite", "mariadb"])
def node(request):
    """A node on each engine; tests that take it run once per engine."""
    if request.param == "sqlite":
        server = Node()
    else:
        db = request.getfixturevalue("mariadb")
        server = Node(f"mysql://{MARIADB_USER}:{MARIADB_USER}@127.0.0.1:{db.port}/{MARIADB_DATABASE}")
    yield server
    server.stop()


@pytest.fixture
def sqlite_node():
    """A node of its own, for tests that stop it."""
    server = Node()
    yield server
    server.stop()


_tables = itertools.count()


@pytest.fixture
def table(node):
    """A table name no other test uses; dropped afterwards."""
    name = f"t{os.getpid()}_{next(_tables)}"
    yield name
    with node.connect(autocommit=True) as conn:
        conn.cursor().execute(f"DROP TABLE IF EXISTS {name}")


@pytest.fixture
def conn(node):
    """A connection in autocommit mode, so that no test's table stays locked by an open
    transaction (SQLite locks the whole database); transaction tests open their own."""
    connection = node.connect(autocommit=True)
    yield connection
    connection.close()
