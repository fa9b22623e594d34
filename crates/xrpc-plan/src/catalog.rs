//! Table shapes for the plan compiler, read from the engine.
//!
//! Each engine finds a table's columns, primary key and indexes its own way, behind
//! [`EngineConn::describe_table`] (see [`xrpc_engine::shape`]), as ordinary statements on the
//! session's engine connection, inside the request, so they see the session's transaction and a
//! kill stops them like any statement. An unknown table is 1146 with MySQL's message.
//!
//! # The shape cache
//!
//! Reading a shape costs several statements, more than the point read a plan usually is (on
//! MariaDB, two `information_schema` queries against one primary-key read). Shapes are kept in a
//! [`ShapeCache`] shared by the node's sessions, in one of two modes the engine picks:
//!
//! - **Until a schema change** ([`Engine::sees_all_schema_changes`]: SQLite, whose schema only
//!   changes through this node). Invariant: **an entry is used only if no statement that may
//!   change a schema ended since the shape was read.**
//! - **For a bounded time** ([`Engine::plan_shape_lifetime`]: the `mysql` engine, whose backend
//!   other clients may change). The same rule, and in addition an entry is used only for
//!   [`Engine::plan_shape_lifetime`] after it was read (one second for MariaDB/MySQL): a change made
//!   by another client of the backend is seen within that time, and at once when the plan then
//!   fails in a way a stale shape explains (below). Within that second a plan that names a
//!   column by position may read the column that held that position before an `ALTER TABLE …
//!   FIRST/AFTER` or `DROP COLUMN` done behind the node's back; by name it cannot.
//!
//! How the invariant is kept:
//!
//! - A *schema epoch* counts such statements. A shape is stored with the epoch read *before* it
//!   was described, and used only while the epoch is still that value.
//! - The session layer calls [`ShapeCache::schema_may_have_changed`] after every statement that may
//!   change a schema ([`may_change_schema`]: a script with a CREATE, ALTER, DROP, RENAME,
//!   TRUNCATE, CALL, EXECUTE, ATTACH, PRAGMA or VACUUM, or one the front end cannot read, whatever
//!   their outcome), and again when a transaction in
//!   which it ran one ends (COMMIT, ROLLBACK, or the session's state being reset), because SQLite's
//!   DDL is transactional: other sessions see it only then.
//! - A session with such uncommitted DDL neither stores nor uses cached shapes: what it sees is
//!   not what the others see.
//! - A plan compiled from a cached shape that fails as a stale shape would make it fail (the
//!   compiler finds no such column or index, or the engine answers 1054 or 1146) also calls
//!   [`ShapeCache::schema_may_have_changed`]; a compile failure is retried at once with shapes read
//!   afresh ([`CachingCatalog::used_cache`] says whether any shape came from the cache).
//! - Entries are keyed by the schema the plan names, else the session's current or default
//!   database (so sessions in different databases never share an entry), and the table name as
//!   written: MySQL's table names are case-sensitive on Linux.
//!
//!
//! # Compiled plans
//!
//! The same [`ShapeCache`] keeps compiled plans ([`compile_cached`]) under the plan's digest (or
//! the encoded plan when the request has none) and the session's database, with the encoded plan
//! they came from. Invariant: **a compiled plan is used only while every shape it was compiled
//! from would be**: it is stored with the epoch read before compiling and the read time of its
//! oldest shape, and checked with the same rule. Shapes are shared (`Arc`), never copied per
//! request.
//!
//! [`ShapeCache::schema_may_have_changed`] drops every compiled plan at once (they could never be
//! used again); one stored by a compile that raced with the change carries the old epoch and is
//! dropped when it is found or replaced.
//!
//! ## Counters
//!
//! [`ShapeCache::compiled_counters`] feeds `SHOW STATUS` and the metrics endpoint
//! (`xrpc_plan_compiled_*`, `xrpc_plan_compilations`), per node since each node owns its cache:
//!
//! - a request that may use the cache is either a *hit* (a kept plan bound its parameters) or a
//!   *miss* (none kept, one no longer usable, or one whose SQL text these parameters would
//!   change); a session with uncommitted schema changes, or an engine that keeps nothing, is
//!   neither;
//! - *compilations* count every compile run: after a miss, for a session that may not use the
//!   cache, and the second compile when kept shapes proved stale;
//! - a kept plan leaves the cache *invalidated* (a schema may have changed since it was
//!   compiled), *expired* (its shapes outlived [`ShapeKeeping::For`]'s lifetime), *evicted* (the
//!   cache was full of usable plans and was cleared), or silently when a fresh compile replaces
//!   it for another reason (its parameters changed the SQL text, or another session compiled the
//!   same plan at the same moment).
//!
//! [`Engine::sees_all_schema_changes`]: xrpc_engine::Engine::sees_all_schema_changes
//! [`Engine::plan_shape_lifetime`]: xrpc_engine::Engine::plan_shape_lifetime

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::Mutex;
use xrpc_proto::messages::pb;
use xrpc_proto::value::Value;

use super::{Catalog, CompiledPlan, PlanError, TableShape};
use xrpc_engine::EngineConn;
use xrpc_engine::result::SqlError;

/// Most shapes kept; the cache is cleared when it would grow beyond.
const SHAPE_CACHE_CAPACITY: usize = 1024;
/// Most compiled plans kept (keys: digests or whole plans); cleared the same way.
const COMPILED_CACHE_CAPACITY: usize = 1024;

/// How long a [`ShapeCache`] keeps shapes; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeKeeping {
    /// Shapes are read for every plan.
    Never,
    /// Until a statement that may change a schema ends (the engine sees every change).
    UntilSchemaChange,
    /// Until a schema change, and at most this long (other clients may change the schema).
    For(Duration),
}

/// Table shapes shared by the node's sessions; see the module docs.
#[derive(Debug)]
pub struct ShapeCache {
    keeping: ShapeKeeping,
    epoch: AtomicU64,
    /// By (schema, table); each with the epoch read before it was described and when.
    shapes: Mutex<HashMap<ShapeKey, KeptShape>>,
    /// Compiled plans by digest (or by the whole encoded plan when it came without one), one
    /// per session database; see [`compile_cached`].
    compiled: Mutex<HashMap<Bytes, Vec<CompiledEntry>>>,
    /// What happened to compiled plans (module docs, "Counters").
    counters: CompiledCounterCells,
}

/// The compiled-plan cache's counters, as `SHOW STATUS` shows them; see the module docs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompiledCounters {
    /// Requests served by a kept compiled plan.
    pub hits: u64,
    /// Requests that could have used one and found none usable.
    pub misses: u64,
    /// Compile runs, failed ones included.
    pub compilations: u64,
    /// Kept plans dropped because the cache was full.
    pub evictions: u64,
    /// Kept plans dropped because a schema may have changed since they were compiled.
    pub invalidations: u64,
    /// Kept plans dropped because their shapes outlived the engine's shape lifetime.
    pub expirations: u64,
    /// Compiled plans kept now.
    pub entries: u64,
}

/// The atomics behind [`CompiledCounters`] (all but `entries`, which is counted when asked).
#[derive(Debug, Default)]
struct CompiledCounterCells {
    hits: AtomicU64,
    misses: AtomicU64,
    compilations: AtomicU64,
    evictions: AtomicU64,
    invalidations: AtomicU64,
    expirations: AtomicU64,
}

fn bump(counter: &AtomicU64, by: usize) {
    counter.fetch_add(by as u64, Ordering::Relaxed);
}

/// A compiled plan kept in a [`ShapeCache`].
#[derive(Debug)]
struct CompiledEntry {
    /// The session database it was compiled for (a plan that names no schema reads that one).
    session_schema: Option<String>,
    /// The encoded plan it was compiled from: a digest reused for another plan does not hit.
    plan: Bytes,
    /// The schema epoch read before compiling, and when its oldest shape was read: the entry is
    /// usable exactly while a shape read then would be.
    epoch: u64,
    read_at: Instant,
    compiled: Arc<CompiledPlan>,
}

/// (the schema the plan names or the session's database, table), as written.
type ShapeKey = (Option<String>, String);
/// A kept shape: the epoch read before it was described, when, and the shape.
type KeptShape = (u64, Instant, Arc<TableShape>);

impl ShapeCache {
    /// A cache that keeps shapes as `keeping` says.
    pub fn new(keeping: ShapeKeeping) -> Self {
        Self {
            keeping,
            epoch: AtomicU64::new(0),
            shapes: Mutex::new(HashMap::new()),
            compiled: Mutex::new(HashMap::new()),
            counters: CompiledCounterCells::default(),
        }
    }

    /// A statement that may have changed a schema ended, or a transaction that ran one did, or
    /// a plan failed in a way a stale shape explains. Every compiled plan is dropped: none of
    /// them could be used again.
    pub fn schema_may_have_changed(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        let dropped: usize = self.compiled.lock().drain().map(|(_, e)| e.len()).sum();
        bump(&self.counters.invalidations, dropped);
    }

    /// The compiled-plan cache's counters (module docs, "Counters").
    pub fn compiled_counters(&self) -> CompiledCounters {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let cells = &self.counters;
        CompiledCounters {
            hits: load(&cells.hits),
            misses: load(&cells.misses),
            compilations: load(&cells.compilations),
            evictions: load(&cells.evictions),
            invalidations: load(&cells.invalidations),
            expirations: load(&cells.expirations),
            entries: self.compiled_len() as u64,
        }
    }

    /// Counts a kept plan dropped because it was no longer usable at `epoch` and `now`: a
    /// schema change (its epoch is old) or its lifetime. A usable one dropped is not counted
    /// here (a replacement or an eviction; the caller knows which).
    fn dropped_unusable(&self, entry: &CompiledEntry, epoch: u64, now: Instant) -> bool {
        if entry.epoch != epoch {
            bump(&self.counters.invalidations, 1);
            true
        } else if !self.usable(entry.epoch, entry.read_at, epoch, now) {
            bump(&self.counters.expirations, 1);
            true
        } else {
            false
        }
    }

    /// Whether something kept at `kept_epoch`, its shapes read at `read_at`, may be used now.
    fn usable(&self, kept_epoch: u64, read_at: Instant, epoch: u64, now: Instant) -> bool {
        kept_epoch == epoch
            && match self.keeping {
                ShapeKeeping::Never => false,
                ShapeKeeping::UntilSchemaChange => true,
                ShapeKeeping::For(lifetime) => now.saturating_duration_since(read_at) < lifetime,
            }
    }

    /// How many compiled plans are kept (for tests and status).
    pub fn compiled_len(&self) -> usize {
        self.compiled.lock().values().map(Vec::len).sum()
    }

    fn compiled_hit(
        &self,
        key: &[u8],
        session_schema: Option<&str>,
        plan: &[u8],
        epoch: u64,
        now: Instant,
    ) -> Option<Arc<CompiledPlan>> {
        let compiled = self.compiled.lock();
        let entry = compiled
            .get(key)?
            .iter()
            .find(|e| e.session_schema.as_deref() == session_schema && e.plan.as_ref() == plan)?;
        self.usable(entry.epoch, entry.read_at, epoch, now)
            .then(|| Arc::clone(&entry.compiled))
    }

    fn keep_compiled(&self, key: Bytes, entry: CompiledEntry, now: Instant) {
        let mut compiled = self.compiled.lock();
        // Entries are judged by the epoch now: one newer than `entry` is not stale.
        let current = self.epoch.load(Ordering::SeqCst);
        if !compiled.contains_key(&key) && compiled.len() >= COMPILED_CACHE_CAPACITY {
            compiled.retain(|_, entries| {
                entries.retain(|e| !self.dropped_unusable(e, current, now));
                !entries.is_empty()
            });
            if compiled.len() >= COMPILED_CACHE_CAPACITY {
                let evicted: usize = compiled.drain().map(|(_, e)| e.len()).sum();
                bump(&self.counters.evictions, evicted);
            }
        }
        let entries = compiled.entry(key).or_default();
        entries.retain(|e| {
            if e.session_schema != entry.session_schema {
                return true;
            }
            // Replaced by `entry`: counted if it could not have been used anyway.
            self.dropped_unusable(e, current, now);
            false
        });
        entries.push(entry);
    }
}

/// A plan request as the session received it.
#[derive(Debug, Clone, Copy)]
pub struct PlanRequest<'a> {
    /// The compiled-plan cache's key: the plan's digest, or the encoded plan when it came
    /// without one.
    pub key: &'a Bytes,
    /// The encoded plan (as sent, or as kept under its digest).
    pub encoded: &'a Bytes,
    /// The plan, when it came decoded with the request; else it is decoded from `encoded` when
    /// it must be compiled.
    pub plan: Option<&'a pb::exec_plan::AnyPlan>,
    /// Its parameters.
    pub params: &'a [pb::datatypes::Scalar],
}

/// A plan ready to run.
#[derive(Debug)]
pub struct PreparedPlan {
    /// The compiled plan (kept or fresh); run `compiled.sql` with `args`.
    pub compiled: Arc<CompiledPlan>,
    /// The arguments for this request's parameters.
    pub args: Vec<Value>,
    /// Whether it rests on kept shapes or a kept compiled plan: an engine error a stale shape
    /// explains must then call [`ShapeCache::schema_may_have_changed`].
    pub used_cache: bool,
}

/// Compiles a plan, or takes its compiled form from the cache.
///
/// A compiled plan is kept under the request's key and the session's database, with the schema
/// epoch read before compiling and the time its oldest shape was read; it is used exactly while
/// those shapes would be (the shape cache's invariant, module docs), for the same encoded plan
/// only, and only when [`CompiledPlan::bind`] finds this request's parameters compile to the same
/// SQL. A session with uncommitted schema changes (`use_cache` false) neither uses nor keeps
/// one. A compile failure on kept shapes is retried once with shapes read afresh.
pub fn compile_cached(
    cache: &ShapeCache,
    conn: &mut dyn EngineConn,
    use_cache: bool,
    session_schema: Option<&str>,
    request: PlanRequest<'_>,
) -> Result<PreparedPlan, PlanError> {
    let keeping = use_cache && cache.keeping != ShapeKeeping::Never;
    let mut epoch = cache.epoch.load(Ordering::SeqCst);
    let now = Instant::now();
    if keeping {
        if let Some(compiled) =
            cache.compiled_hit(request.key, session_schema, request.encoded, epoch, now)
            && let Some(args) = compiled.bind(request.params)
        {
            bump(&cache.counters.hits, 1);
            return Ok(PreparedPlan {
                compiled,
                args,
                used_cache: true,
            });
        }
        bump(&cache.counters.misses, 1);
    }
    let decoded;
    let plan = match request.plan {
        Some(plan) => plan,
        None => {
            decoded = <pb::exec_plan::AnyPlan as prost::Message>::decode(request.encoded.as_ref())
                .map_err(|err| super::malformed(format!("the kept plan does not decode: {err}")))?;
            &decoded
        }
    };
    let mut catalog = CachingCatalog::new(cache, conn, use_cache, session_schema);
    bump(&cache.counters.compilations, 1);
    let compiled = match super::compile(plan, request.params, &mut catalog) {
        // A kept shape may be stale (a column or index added since): drop the kept shapes and
        // compile once more from fresh ones.
        Err(PlanError::UnknownColumn(..) | PlanError::UnknownIndex { .. })
            if catalog.used_cache =>
        {
            cache.schema_may_have_changed();
            epoch = cache.epoch.load(Ordering::SeqCst);
            catalog.used_cache = false;
            catalog.oldest_shape = None;
            bump(&cache.counters.compilations, 1);
            super::compile(plan, request.params, &mut catalog)?
        }
        other => other?,
    };
    let args = compiled.args.clone();
    let compiled = Arc::new(compiled);
    if keeping {
        let entry = CompiledEntry {
            session_schema: session_schema.map(str::to_owned),
            plan: request.encoded.clone(),
            epoch,
            read_at: catalog.oldest_shape.unwrap_or(now),
            compiled: Arc::clone(&compiled),
        };
        cache.keep_compiled(request.key.clone(), entry, now);
    }
    Ok(PreparedPlan {
        compiled,
        args,
        used_cache: catalog.used_cache,
    })
}

/// Whether a statement text, as the front end read it ([`xrpc_sql::parse_cached`]), may change
/// a schema: one of its statements is a schema change ([`xrpc_sql::Kind::Ddl`]), a procedure
/// call or prepared-statement run (either may hold DDL), or one of SQLite's own (ATTACH,
/// PRAGMA, VACUUM); or the front end cannot read a statement (the engine may run what the front
/// end cannot read, `DETACH` or `REINDEX` on SQLite). Errs towards yes.
pub fn may_change_schema(script: &xrpc_sql::Script) -> bool {
    use xrpc_sql::ast::Statement;
    script.iter().any(|statement| match statement {
        Ok(parsed) => {
            parsed.kind == xrpc_sql::Kind::Ddl
                || matches!(
                    parsed.statement(),
                    Some(
                        Statement::Call(_)
                            | Statement::Execute { .. }
                            | Statement::AttachDatabase { .. }
                            | Statement::Pragma { .. }
                            | Statement::Vacuum(_)
                    )
                )
        }
        Err(xrpc_sql::ParseError::Empty) => false,
        Err(xrpc_sql::ParseError::Syntax { .. } | xrpc_sql::ParseError::Unsupported { .. }) => true,
    })
}

/// A [`Catalog`] over an engine connection that keeps shapes in a [`ShapeCache`].
pub struct CachingCatalog<'a> {
    /// The node's cache.
    pub cache: &'a ShapeCache,
    /// The connection the plan will run on.
    pub conn: &'a mut dyn EngineConn,
    /// False while the session holds uncommitted schema changes: then nothing is cached or used.
    pub use_cache: bool,
    /// The session's current (else default) database: what a plan that names no schema reads,
    /// and so part of the cache key.
    pub session_schema: Option<&'a str>,
    /// Set when a shape came from the cache rather than from the engine.
    pub used_cache: bool,
    /// When the oldest shape used was read (for how long a plan compiled from them may be kept).
    pub oldest_shape: Option<Instant>,
}

impl<'a> CachingCatalog<'a> {
    /// A catalog over `conn` that keeps shapes in `cache` (unless `use_cache` is false).
    pub fn new(
        cache: &'a ShapeCache,
        conn: &'a mut dyn EngineConn,
        use_cache: bool,
        session_schema: Option<&'a str>,
    ) -> Self {
        Self {
            cache,
            conn,
            use_cache,
            session_schema,
            used_cache: false,
            oldest_shape: None,
        }
    }

    fn used_shape_read_at(&mut self, read_at: Instant) {
        self.oldest_shape = Some(self.oldest_shape.map_or(read_at, |t| t.min(read_at)));
    }
}

impl std::fmt::Debug for CachingCatalog<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachingCatalog")
            .field("use_cache", &self.use_cache)
            .field("session_schema", &self.session_schema)
            .field("used_cache", &self.used_cache)
            .finish_non_exhaustive()
    }
}

impl Catalog for CachingCatalog<'_> {
    fn table(&mut self, schema: Option<&str>, name: &str) -> Result<Arc<TableShape>, SqlError> {
        if self.cache.keeping == ShapeKeeping::Never || !self.use_cache {
            return self.conn.describe_table(schema, name).map(Arc::new);
        }
        let key: ShapeKey = (
            schema.or(self.session_schema).map(str::to_owned),
            name.to_owned(),
        );
        // Read before describing: a change that ends meanwhile makes the entry stale at once.
        let epoch = self.cache.epoch.load(Ordering::SeqCst);
        let now = Instant::now();
        let kept = self.cache.shapes.lock().get(&key).and_then(|entry| {
            self.cache
                .usable(entry.0, entry.1, epoch, now)
                .then(|| (entry.1, Arc::clone(&entry.2)))
        });
        if let Some((read_at, shape)) = kept {
            self.used_cache = true;
            self.used_shape_read_at(read_at);
            return Ok(shape);
        }
        let shape = Arc::new(self.conn.describe_table(schema, name)?);
        self.used_shape_read_at(now);
        let mut shapes = self.cache.shapes.lock();
        if shapes.len() >= SHAPE_CACHE_CAPACITY {
            shapes.retain(|_, entry| self.cache.usable(entry.0, entry.1, epoch, now));
            if shapes.len() >= SHAPE_CACHE_CAPACITY {
                shapes.clear();
            }
        }
        shapes.insert(key, (epoch, now, Arc::clone(&shape)));
        Ok(shape)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use xrpc_engine::shape::no_such_table;
    use xrpc_proto::codes;

    use super::*;
    use xrpc_engine::Interrupt;
    use xrpc_engine::result::{ExecSummary, ResultSink};

    /// An engine connection that only describes one table, counting how often.
    struct Describing {
        describes: usize,
        columns: Vec<String>,
    }

    struct NoInterrupt;

    impl Interrupt for NoInterrupt {
        fn interrupt(&self) {}
        fn clear(&self) {}
    }

    impl EngineConn for Describing {
        fn execute(
            &mut self,
            _sql: &str,
            _args: &[Value],
            _schema: Option<&str>,
            _sink: &mut dyn ResultSink,
        ) -> Result<ExecSummary, SqlError> {
            unreachable!("the test describes tables only")
        }

        fn describe_table(
            &mut self,
            _schema: Option<&str>,
            table: &str,
        ) -> Result<TableShape, SqlError> {
            if !table.eq_ignore_ascii_case("t") {
                return Err(no_such_table(None, table));
            }
            self.describes += 1;
            Ok(TableShape {
                columns: self.columns.clone(),
                primary_key: Some(vec!["id".into()]),
                indexes: Vec::new(),
            })
        }

        fn holds_session_state(&self) -> bool {
            false
        }

        fn interrupter(&self) -> Arc<dyn Interrupt> {
            Arc::new(NoInterrupt)
        }

        fn set_connection_id(&mut self, _id: u64) {}

        fn reset(&mut self) -> Result<(), SqlError> {
            Ok(())
        }
    }

    fn lookup_in(
        cache: &ShapeCache,
        conn: &mut Describing,
        use_cache: bool,
        session_schema: Option<&str>,
    ) -> (TableShape, bool) {
        let mut catalog = CachingCatalog::new(cache, conn, use_cache, session_schema);
        let shape = catalog.table(None, "T").unwrap();
        (TableShape::clone(&shape), catalog.used_cache)
    }

    fn lookup(cache: &ShapeCache, conn: &mut Describing, use_cache: bool) -> TableShape {
        lookup_in(cache, conn, use_cache, None).0
    }

    fn describing() -> Describing {
        Describing {
            describes: 0,
            columns: vec!["id".into()],
        }
    }

    #[test]
    fn shapes_are_kept_until_a_schema_may_have_changed() {
        let cache = ShapeCache::new(ShapeKeeping::UntilSchemaChange);
        let mut conn = describing();
        assert!(!lookup_in(&cache, &mut conn, true, None).1);
        assert!(lookup_in(&cache, &mut conn, true, None).1);
        assert_eq!(conn.describes, 1, "the second plan used the kept shape");
        conn.columns.push("added".into());
        cache.schema_may_have_changed();
        assert_eq!(lookup(&cache, &mut conn, true).columns, ["id", "added"]);
        assert_eq!(conn.describes, 2);
        // A session with uncommitted DDL reads for itself, and keeps nothing.
        lookup(&cache, &mut conn, false);
        assert_eq!(conn.describes, 3);
        lookup(&cache, &mut conn, true);
        assert_eq!(conn.describes, 3);
        // An unknown table is not kept either.
        let err = CachingCatalog::new(&cache, &mut conn, true, None)
            .table(None, "nope")
            .unwrap_err();
        assert_eq!(err.code, codes::NO_SUCH_TABLE.code);
    }

    /// `SELECT * FROM t WHERE id = ?`, encoded, and the request with `id` as its parameter.
    fn point_get(id: i64) -> (Bytes, pb::exec_plan::ExecPlan) {
        let plan = xrpc_client::plan::Plan::get("t")
            .key([("id", xrpc_client::plan::placeholder(0))])
            .build();
        let request = plan.request(&[id.into()]);
        let encoded = Bytes::from(prost::Message::encode_to_vec(
            request.plan.as_deref().unwrap(),
        ));
        (encoded, request)
    }

    fn prepare(
        cache: &ShapeCache,
        conn: &mut Describing,
        use_cache: bool,
        session_schema: Option<&str>,
        key: &Bytes,
        id: i64,
    ) -> PreparedPlan {
        let (encoded, request) = point_get(id);
        compile_cached(
            cache,
            conn,
            use_cache,
            session_schema,
            PlanRequest {
                key,
                encoded: &encoded,
                // Digest-only requests bring no plan: it is decoded from `encoded` on a miss.
                plan: None,
                params: &request.parameters,
            },
        )
        .unwrap()
    }

    #[test]
    fn compiled_plans_are_kept_by_key_until_a_schema_may_have_changed() {
        let cache = ShapeCache::new(ShapeKeeping::UntilSchemaChange);
        let mut conn = describing();
        let digest = Bytes::from_static(b"digest-of-plan-1");
        let first = prepare(&cache, &mut conn, true, None, &digest, 1);
        assert_eq!(first.args, [Value::Sint(1)]);
        assert!(!first.used_cache);
        // Hit: the same compiled plan, this request's parameter.
        let hit = prepare(&cache, &mut conn, true, None, &digest, 2);
        assert!(
            Arc::ptr_eq(&first.compiled, &hit.compiled),
            "a hit compiles nothing"
        );
        assert_eq!(hit.args, [Value::Sint(2)]);
        assert!(hit.used_cache);
        assert_eq!(cache.compiled_len(), 1);
        // Another session database: its own entry.
        let elsewhere = prepare(&cache, &mut conn, true, Some("db2"), &digest, 2);
        assert!(!Arc::ptr_eq(&first.compiled, &elsewhere.compiled));
        assert_eq!(cache.compiled_len(), 2);
        // Another plan under the same digest does not hit.
        let (_, request) = point_get(3);
        let mut changed = request.plan.clone().unwrap();
        changed.get_plan.as_mut().unwrap().table_info.name =
            xrpc_client::plan::param_scalar(&"T".into());
        let changed_encoded = Bytes::from(prost::Message::encode_to_vec(&*changed));
        let reused = compile_cached(
            &cache,
            &mut conn,
            true,
            None,
            PlanRequest {
                key: &digest,
                encoded: &changed_encoded,
                plan: Some(&changed),
                params: &request.parameters,
            },
        )
        .unwrap();
        assert!(!Arc::ptr_eq(&first.compiled, &reused.compiled));
        // A schema change: compiled afresh, with the shape read afresh.
        let before = conn.describes;
        cache.schema_may_have_changed();
        conn.columns.push("added".into());
        let after = prepare(&cache, &mut conn, true, None, &digest, 4);
        assert!(!after.used_cache);
        assert_eq!(conn.describes, before + 1);
        assert!(
            after.compiled.sql.contains("`added`"),
            "{}",
            after.compiled.sql
        );
        // A session with uncommitted DDL neither uses nor keeps compiled plans.
        let dirty = prepare(&cache, &mut conn, false, None, &digest, 5);
        assert!(!Arc::ptr_eq(&after.compiled, &dirty.compiled));
        let again = prepare(&cache, &mut conn, true, None, &digest, 6);
        assert!(Arc::ptr_eq(&after.compiled, &again.compiled));
    }

    #[test]
    fn compiled_plans_on_a_time_limited_cache_live_as_long_as_their_oldest_shape() {
        let cache = ShapeCache::new(ShapeKeeping::For(Duration::ZERO));
        let mut conn = describing();
        let digest = Bytes::from_static(b"digest-of-plan-1");
        let first = prepare(&cache, &mut conn, true, None, &digest, 1);
        let second = prepare(&cache, &mut conn, true, None, &digest, 1);
        assert!(!Arc::ptr_eq(&first.compiled, &second.compiled));
        assert_eq!(conn.describes, 2);
        let never = ShapeCache::new(ShapeKeeping::Never);
        prepare(&never, &mut conn, true, None, &digest, 1);
        assert_eq!(never.compiled_len(), 0);
    }

    #[test]
    fn compiled_plan_counters_follow_hits_misses_and_what_drops_an_entry() {
        let cache = ShapeCache::new(ShapeKeeping::UntilSchemaChange);
        let mut conn = describing();
        let digest = Bytes::from_static(b"digest-of-plan-1");
        prepare(&cache, &mut conn, true, None, &digest, 1);
        prepare(&cache, &mut conn, true, None, &digest, 2);
        let counters = cache.compiled_counters();
        assert_eq!(
            counters,
            CompiledCounters {
                hits: 1,
                misses: 1,
                compilations: 1,
                entries: 1,
                ..CompiledCounters::default()
            }
        );
        // A schema change drops every kept plan at once.
        prepare(&cache, &mut conn, true, Some("db2"), &digest, 1);
        cache.schema_may_have_changed();
        let counters = cache.compiled_counters();
        assert_eq!((counters.invalidations, counters.entries), (2, 0));
        // A session with uncommitted DDL compiles without a lookup: neither hit nor miss.
        prepare(&cache, &mut conn, false, None, &digest, 1);
        let counters = cache.compiled_counters();
        assert_eq!(
            (counters.hits, counters.misses, counters.compilations),
            (1, 2, 3)
        );
        // A full cache of usable plans is cleared: each of them counts as evicted.
        for n in 0..COMPILED_CACHE_CAPACITY + 1 {
            let key = Bytes::from(format!("digest-{n}"));
            prepare(&cache, &mut conn, true, None, &key, 1);
        }
        let counters = cache.compiled_counters();
        assert_eq!(counters.evictions, COMPILED_CACHE_CAPACITY as u64);
        assert_eq!(counters.entries, 1);
        assert_eq!(counters.invalidations, 2, "evictions are not invalidations");
        // A plan whose shapes outlived their lifetime is replaced and counted as expired.
        let expiring = ShapeCache::new(ShapeKeeping::For(Duration::ZERO));
        prepare(&expiring, &mut conn, true, None, &digest, 1);
        prepare(&expiring, &mut conn, true, None, &digest, 1);
        let counters = expiring.compiled_counters();
        assert_eq!(
            (counters.misses, counters.expirations, counters.entries),
            (2, 1, 1)
        );
        // Counters belong to their cache (one per node).
        assert_eq!(
            ShapeCache::new(ShapeKeeping::UntilSchemaChange).compiled_counters(),
            CompiledCounters::default()
        );
    }

    #[test]
    fn a_disabled_cache_describes_every_time() {
        let cache = ShapeCache::new(ShapeKeeping::Never);
        let mut conn = describing();
        lookup(&cache, &mut conn, true);
        assert!(!lookup_in(&cache, &mut conn, true, None).1);
        assert_eq!(conn.describes, 2);
    }

    #[test]
    fn a_time_limited_cache_keeps_shapes_for_their_lifetime_only() {
        // A lifetime nothing outlives: every plan reads the shape again.
        let cache = ShapeCache::new(ShapeKeeping::For(Duration::ZERO));
        let mut conn = describing();
        lookup(&cache, &mut conn, true);
        assert!(!lookup_in(&cache, &mut conn, true, None).1);
        assert_eq!(conn.describes, 2);
        // A lifetime this test cannot outlive: kept, until a schema may have changed.
        let cache = ShapeCache::new(ShapeKeeping::For(Duration::from_secs(3600)));
        let mut conn = describing();
        lookup(&cache, &mut conn, true);
        assert!(lookup_in(&cache, &mut conn, true, None).1);
        assert_eq!(conn.describes, 1);
        cache.schema_may_have_changed();
        assert!(!lookup_in(&cache, &mut conn, true, None).1);
        assert_eq!(conn.describes, 2);
    }

    #[test]
    fn sessions_in_different_databases_do_not_share_a_shape() {
        let cache = ShapeCache::new(ShapeKeeping::UntilSchemaChange);
        let mut conn = describing();
        lookup_in(&cache, &mut conn, true, Some("a"));
        assert!(!lookup_in(&cache, &mut conn, true, Some("b")).1);
        assert!(lookup_in(&cache, &mut conn, true, Some("a")).1);
        assert!(lookup_in(&cache, &mut conn, true, Some("b")).1);
        assert_eq!(conn.describes, 2);
    }

    #[test]
    fn schema_changing_statements_are_recognised_after_comments() {
        let may_change_schema =
            |sql: &str| may_change_schema(&xrpc_sql::parse_cached(sql, &Default::default()));
        for sql in [
            "create index i on t (a)",
            "  /* hint */ ALTER TABLE t ADD c INT",
            "-- note\nDROP TABLE t",
            "# note\nrename table a to b",
            "PRAGMA foreign_keys = 1",
            "attach database 'x' as x",
            "VACUUM",
            "select 1; drop table t",
            "call p()",
            // What the front end cannot read, the engine may still run.
            "createx",
            "DETACH x",
        ] {
            assert!(may_change_schema(sql), "{sql}");
        }
        for sql in [
            "select 1",
            "insert into t values (1)",
            "/* create */ select 1",
            "select 'drop table t'",
            "",
            "-- create\n",
        ] {
            assert!(!may_change_schema(sql), "{sql}");
        }
    }
}
