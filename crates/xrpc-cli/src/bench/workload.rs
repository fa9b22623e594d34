//! The SQL workloads: what each simulated client sends, independent of the target.
//!
//! A [`Script`] is one client's endless sequence of statements, generated a transaction at a time.
//! Both drivers (xrpc and mysql) pull statements from it with [`Script::next_stmt`] and report each
//! outcome, so the same workload runs against every target, statement for statement.
//!
//! | workload | one transaction (event) |
//! |---|---|
//! | `select1` | `SELECT 1` |
//! | `point-select` | `SELECT c FROM sbtest1 WHERE id=?` (sysbench `oltp_point_select`) |
//! | `point-get` | the same read as `point-select`, sent as an EXEC_PLAN_READ plan: a GET on `sbtest1`'s primary key with the id as placeholder 0, projected to `c` ([`point_get_plan`]); the whole plan with its digest on a session's first request, then the digest alone, as a compute node does (whole again after a failure); xrpc targets only |
//! | `read-write` | sysbench `oltp_read_write` with its defaults: `BEGIN`; 10 point selects; one simple range, one `SUM(k)`, one `ORDER BY c` and one `DISTINCT c … ORDER BY c` over 100 ids; an index update (`k=k+1`), a non-index update (`c=?`); a delete and an insert of the same id; `COMMIT` |
//!
//! Ids are uniform over `1..=table_size` (sysbench 1.1's default distribution; 1.0 defaulted to
//! its "special" skew). Values follow sysbench's templates (see [`sysbench_c`], [`sysbench_pad`]).
//!
//! Invariant: a transaction that fails part-way is abandoned: its statements not yet issued are
//! replaced by one `ROLLBACK`, so a client never commits after an error it saw before issuing
//! `COMMIT` and never leaves a transaction open.

use std::collections::VecDeque;

/// The workloads of `xrpc bench`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Frames echoed by an xrpc-net echo server (no SQL).
    Echo,
    /// `SELECT 1`.
    Select1,
    /// sysbench `oltp_point_select` on `sbtest1`.
    PointSelect,
    /// `point-select`'s read as a GET plan (EXEC_PLAN_READ) instead of SQL.
    PointGet,
    /// sysbench `oltp_read_write`-like transactions on `sbtest1`.
    ReadWrite,
}

impl Workload {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Echo => "echo",
            Workload::Select1 => "select1",
            Workload::PointSelect => "point-select",
            Workload::PointGet => "point-get",
            Workload::ReadWrite => "read-write",
        }
    }

    /// Whether the workload reads `sbtest1`, which `xrpc bench prepare` creates.
    pub fn needs_table(self) -> bool {
        matches!(
            self,
            Workload::PointSelect | Workload::PointGet | Workload::ReadWrite
        )
    }

    /// Whether the workload sends plans rather than SQL, which only xrpc targets take.
    pub fn sends_plans(self) -> bool {
        self == Workload::PointGet
    }
}

/// `point-get`'s plan: `SELECT c FROM sbtest1 WHERE id = ?` as a GET on the primary key, the id
/// being parameter 0. Its statements in a [`Script`] are [`POINT`] with the id as argument; the
/// xrpc driver sends this plan with the same argument instead of the SQL.
pub fn point_get_plan() -> xrpc_client::plan::Plan {
    use xrpc_client::plan::{Plan, placeholder};
    Plan::get("sbtest1")
        .key([("id", placeholder(0))])
        .build()
        .project(["c"])
}

/// A statement argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
}

/// One statement of a script.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// SQL with `?` placeholders.
    pub sql: &'static str,
    /// The placeholder values, in order.
    pub args: Vec<Arg>,
    /// The last statement of its transaction: its completion completes an event.
    pub ends_event: bool,
}

impl Stmt {
    /// Whether completing this statement successfully completes an event (a transaction): the
    /// last statement of one, unless it is the `ROLLBACK` of an abandoned one.
    pub fn counts_event(&self) -> bool {
        self.ends_event && self.sql != "ROLLBACK"
    }

    fn new(sql: &'static str, args: Vec<Arg>) -> Self {
        Self {
            sql,
            args,
            ends_event: false,
        }
    }
}

/// sysbench's range size for the range queries of `oltp_read_write`.
pub const RANGE_SIZE: i64 = 100;

/// `sbtest1` as both SQLite (through xrpc) and MySQL accept it; `id INTEGER PRIMARY KEY` makes the
/// id SQLite's rowid.
pub const CREATE_TABLE: &str = "CREATE TABLE sbtest1 (id INTEGER NOT NULL PRIMARY KEY, \
     k INTEGER NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '')";
/// sysbench's secondary index.
pub const CREATE_INDEX: &str = "CREATE INDEX k_1 ON sbtest1 (k)";

const SELECT1: &str = "SELECT 1";
/// sysbench's point select; also what a `point-get` plan reads.
pub const POINT: &str = "SELECT c FROM sbtest1 WHERE id=?";
const SIMPLE_RANGE: &str = "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?";
const SUM_RANGE: &str = "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?";
const ORDER_RANGE: &str = "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c";
const DISTINCT_RANGE: &str = "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c";
const INDEX_UPDATE: &str = "UPDATE sbtest1 SET k=k+1 WHERE id=?";
const NON_INDEX_UPDATE: &str = "UPDATE sbtest1 SET c=? WHERE id=?";
const DELETE: &str = "DELETE FROM sbtest1 WHERE id=?";
const INSERT: &str = "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)";

/// xorshift64*: fast, seedable, and good enough for picking ids and digits.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; zero is remapped).
    pub fn new(seed: u64) -> Self {
        // splitmix64 of the seed, so nearby seeds give unrelated streams.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Self((z ^ (z >> 31)) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1).max(1) as u64;
        lo + (self.next_u64() % span) as i64
    }
}

/// Groups of 11 random digits joined by `-`, sysbench's template `###########-…`.
fn digit_groups(rng: &mut Rng, groups: usize) -> String {
    let mut s = String::with_capacity(groups * 12);
    for g in 0..groups {
        if g > 0 {
            s.push('-');
        }
        for _ in 0..11 {
            s.push(char::from(b'0' + (rng.next_u64() % 10) as u8));
        }
    }
    s
}

/// A `c` value: 10 groups of 11 digits, 119 characters (sysbench's `c_value_template`; 11 groups
/// would not fit `CHAR(120)`).
pub fn sysbench_c(rng: &mut Rng) -> String {
    digit_groups(rng, 10)
}

/// A `pad` value: 5 groups of 11 digits, 59 characters.
pub fn sysbench_pad(rng: &mut Rng) -> String {
    digit_groups(rng, 5)
}

/// One client's statement stream; see the [module docs](self).
#[derive(Debug)]
pub struct Script {
    workload: Workload,
    table_size: i64,
    rng: Rng,
    queue: VecDeque<Stmt>,
    /// A transaction is open: its `BEGIN` has been issued and its end has not.
    in_txn: bool,
}

impl Script {
    /// The stream of client number `client` (which seeds its random choices).
    pub fn new(workload: Workload, table_size: u64, client: u64) -> Self {
        Self {
            workload,
            table_size: table_size.max(1) as i64,
            rng: Rng::new(client),
            queue: VecDeque::new(),
            in_txn: false,
        }
    }

    /// The next statement to issue.
    pub fn next_stmt(&mut self) -> Stmt {
        if self.queue.is_empty() {
            self.refill();
        }
        let stmt = self.queue.pop_front().expect("refill queues statements");
        if stmt.sql == "BEGIN" {
            self.in_txn = true;
        }
        if stmt.ends_event {
            self.in_txn = false;
        }
        stmt
    }

    /// Whether the next statement starts a new event; drivers stop only at such a boundary, so a
    /// run never ends inside a transaction.
    pub fn at_boundary(&self) -> bool {
        self.queue.is_empty()
    }

    /// A statement failed: drop the rest of the transaction and roll it back (if one is open).
    pub fn abort(&mut self) {
        self.queue.clear();
        if self.in_txn {
            let mut rollback = Stmt::new("ROLLBACK", Vec::new());
            rollback.ends_event = true;
            self.queue.push_back(rollback);
        }
    }

    fn id(&mut self) -> i64 {
        self.rng.range(1, self.table_size)
    }

    fn range(&mut self) -> Vec<Arg> {
        let lo = self.rng.range(1, (self.table_size - RANGE_SIZE + 1).max(1));
        vec![Arg::Int(lo), Arg::Int(lo + RANGE_SIZE - 1)]
    }

    fn refill(&mut self) {
        match self.workload {
            // Echo has no statements; a select keeps the stream well-defined.
            Workload::Echo | Workload::Select1 => {
                self.queue.push_back(Stmt::new(SELECT1, Vec::new()));
            }
            Workload::PointSelect | Workload::PointGet => {
                let id = self.id();
                self.queue.push_back(Stmt::new(POINT, vec![Arg::Int(id)]));
            }
            Workload::ReadWrite => {
                self.queue.push_back(Stmt::new("BEGIN", Vec::new()));
                for _ in 0..10 {
                    let id = self.id();
                    self.queue.push_back(Stmt::new(POINT, vec![Arg::Int(id)]));
                }
                for sql in [SIMPLE_RANGE, SUM_RANGE, ORDER_RANGE, DISTINCT_RANGE] {
                    let args = self.range();
                    self.queue.push_back(Stmt::new(sql, args));
                }
                let id = self.id();
                self.queue
                    .push_back(Stmt::new(INDEX_UPDATE, vec![Arg::Int(id)]));
                let c = sysbench_c(&mut self.rng);
                let id = self.id();
                self.queue
                    .push_back(Stmt::new(NON_INDEX_UPDATE, vec![Arg::Str(c), Arg::Int(id)]));
                let id = self.id();
                self.queue.push_back(Stmt::new(DELETE, vec![Arg::Int(id)]));
                let k = self.id();
                let c = sysbench_c(&mut self.rng);
                let pad = sysbench_pad(&mut self.rng);
                self.queue.push_back(Stmt::new(
                    INSERT,
                    vec![Arg::Int(id), Arg::Int(k), Arg::Str(c), Arg::Str(pad)],
                ));
                self.queue.push_back(Stmt::new("COMMIT", Vec::new()));
            }
        }
        if let Some(last) = self.queue.back_mut() {
            last.ends_event = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysbench_values_have_the_template_shape() {
        let mut rng = Rng::new(7);
        let c = sysbench_c(&mut rng);
        assert_eq!(c.len(), 119);
        assert_eq!(c.split('-').count(), 10);
        assert!(
            c.split('-')
                .all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit()))
        );
        assert_eq!(sysbench_pad(&mut rng).len(), 59);
    }

    #[test]
    fn read_write_is_one_transaction_of_twenty_statements() {
        let mut s = Script::new(Workload::ReadWrite, 1000, 1);
        let txn: Vec<Stmt> = (0..20).map(|_| s.next_stmt()).collect();
        assert_eq!(txn[0].sql, "BEGIN");
        assert_eq!(txn[19].sql, "COMMIT");
        assert!(txn[..19].iter().all(|t| !t.ends_event));
        assert!(txn[19].ends_event);
        assert!(s.at_boundary());
        // The delete and the insert touch the same id.
        assert_eq!(txn[17].args[0], txn[18].args[0]);
        for t in &txn {
            for a in &t.args {
                if let (Arg::Int(v), true) = (a, t.sql.contains("id")) {
                    assert!((1..=1000).contains(v));
                }
            }
        }
    }

    #[test]
    fn abort_rolls_back_only_an_open_transaction() {
        let mut s = Script::new(Workload::ReadWrite, 1000, 2);
        s.next_stmt();
        s.next_stmt();
        s.abort();
        let r = s.next_stmt();
        assert_eq!(
            (r.sql, r.ends_event, r.counts_event()),
            ("ROLLBACK", true, false)
        );
        assert!(s.at_boundary());
        let mut p = Script::new(Workload::PointSelect, 10, 3);
        p.next_stmt();
        p.abort();
        assert_eq!(p.next_stmt().sql, POINT);
    }
}
