"""asyncio: the same sessions on the tokio transport, and many concurrent tasks from one
process."""

import asyncio
from decimal import Decimal

import pytest

import xrpc
import xrpc.aio

from conftest import sockets_to


def run(coro):
    return asyncio.run(coro)


def test_execute_fetch_and_iterate(node, table):
    async def main():
        conn = await xrpc.aio.connect(**node.kwargs(), autocommit=True)
        async with conn.cursor() as cur:
            await cur.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, v DECIMAL(6,2))")
            await cur.executemany(
                f"INSERT INTO {table} VALUES (?, ?)", [(i, Decimal(f"{i}.50")) for i in range(5)]
            )
            assert cur.rowcount == 5
            await cur.execute(f"SELECT id, v FROM {table} ORDER BY id")
            assert [d[0] for d in cur.description] == ["id", "v"]
            assert await cur.fetchone() == (0, Decimal("0.50"))
            assert await cur.fetchmany(2) == [(1, Decimal("1.50")), (2, Decimal("2.50"))]
            rest = [row async for row in cur]
            assert rest == [(3, Decimal("3.50")), (4, Decimal("4.50"))]
            assert cur.rowcount == 5
        await conn.close()

    run(main())


def test_errors_carry_code_and_state(node):
    async def main():
        async with await xrpc.aio.connect(**node.kwargs()) as conn:
            cur = conn.cursor()
            with pytest.raises(xrpc.ProgrammingError) as caught:
                await cur.execute("SELECT * FROM no_such_table_anywhere")
            assert caught.value.errno == 1146
            await cur.execute("SELECT ?", ("still usable",))
            assert await cur.fetchall() == [("still usable",)]

    run(main())


def test_commit_and_rollback(node, table):
    async def main():
        async with await xrpc.aio.connect(**node.kwargs(), autocommit=True) as setup:
            await setup.cursor().execute(f"CREATE TABLE {table} (id INT)")
        conn = await xrpc.aio.connect(**node.kwargs())
        cur = conn.cursor()
        await cur.execute(f"INSERT INTO {table} VALUES (1)")
        await conn.rollback()
        await cur.execute(f"INSERT INTO {table} VALUES (2)")
        await conn.commit()
        await conn.close()
        async with await xrpc.aio.connect(**node.kwargs(), autocommit=True) as check:
            cur = check.cursor()
            await cur.execute(f"SELECT id FROM {table}")
            return await cur.fetchall()

    assert run(main()) == [(2,)]


def test_10000_concurrent_tasks_each_with_a_session(node):
    tasks = 10_000

    async def main():
        kwargs = node.kwargs(connect_timeout=11.5, pool_connections=4,
                             pool_sessions_per_connection=4096)
        started = asyncio.Event()
        holders = []
        sockets = {}

        async def hold(n):
            # Every task holds its session until all have one: 10 000 sessions at once.
            conn = await xrpc.aio.connect(**kwargs, autocommit=True)
            holders.append(conn)
            if len(holders) == tasks:
                sockets["while held"] = sockets_to(node.port) - before
                started.set()
            await started.wait()
            cur = conn.cursor()
            await cur.execute("SELECT ?, CONNECTION_ID()", (n,))
            row = await cur.fetchone()
            await conn.close()
            return row

        before = sockets_to(node.port)
        rows = await asyncio.gather(*(hold(n) for n in range(tasks)))
        return rows, sockets["while held"]

    rows, opened = run(main())
    assert [r[0] for r in rows] == list(range(tasks))
    assert len({r[1] for r in rows}) == tasks, "every task had a session of its own"
    assert opened == 3, f"10 000 sessions of at most 4096 per socket need 3 sockets, not {opened}"
