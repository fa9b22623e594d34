"""Large results stream: fetchmany takes rows as the node sends them under the protocol's flow
control, so the client's memory stays flat however large the result."""

import os

import xrpc

from conftest import numbers

ROWS = 30_000
PAYLOAD = "x" * 1000  # 30 MB of row data in all


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


BIG = f"SELECT n, ? FROM ({numbers(5)}) AS numbers WHERE n <= ?"


def test_fetchmany_reads_a_large_result_in_flat_memory(node):
    # A 256 KiB flow-control budget: the node runs at most that far ahead of the fetches.
    conn = node.connect(autocommit=True, fetch_buffer_kib=256)
    cur = conn.cursor()
    cur.execute(BIG, (PAYLOAD, ROWS))
    baseline = resident_bytes()
    peak = baseline
    seen = 0
    last = None
    while True:
        rows = cur.fetchmany(500)
        if not rows:
            break
        seen += len(rows)
        last = rows[-1]
        assert rows[0][1] == PAYLOAD
        peak = max(peak, resident_bytes())
    conn.close()
    assert (seen, last[0]) == (ROWS, ROWS)
    assert cur.rowcount == ROWS
    growth = peak - baseline
    assert growth < 8 * 1024 * 1024, f"memory grew by {growth / 1e6:.1f} MB over a 30 MB result"


def test_abandoning_a_large_result_keeps_the_session_usable(node):
    conn = node.connect(autocommit=True, fetch_buffer_kib=64)
    cur = conn.cursor()
    cur.execute(BIG, (PAYLOAD, 5_000))
    assert len(cur.fetchmany(10)) == 10
    cur.close()
    other = conn.cursor()
    other.execute("SELECT 1")
    assert other.fetchall() == [(1,)]
    conn.close()


def test_a_failure_mid_stream_is_raised_by_the_fetch(node):
    conn = node.connect(autocommit=True, fetch_buffer_kib=64)
    cur = conn.cursor()
    cur.execute(BIG, (PAYLOAD, 3_000))
    assert cur.fetchone()[0] == 1
    conn.close()
    try:
        cur.fetchall()
    except xrpc.InterfaceError:
        pass
    else:
        raise AssertionError("a fetch on a closed connection must fail")


def test_asyncio_fetchmany_reads_a_large_result_in_flat_memory(node):
    import asyncio

    import xrpc.aio

    async def main():
        conn = await xrpc.aio.connect(**node.kwargs(), autocommit=True, fetch_buffer_kib=256)
        cur = conn.cursor()
        await cur.execute(BIG, (PAYLOAD, ROWS))
        baseline = resident_bytes()
        peak, seen = baseline, 0
        while rows := await cur.fetchmany(500):
            seen += len(rows)
            peak = max(peak, resident_bytes())
        await conn.close()
        return seen, peak - baseline

    seen, growth = asyncio.run(main())
    assert seen == ROWS
    assert growth < 8 * 1024 * 1024, f"memory grew by {growth / 1e6:.1f} MB over a 30 MB result"
