//! The live variables of a running node: one slot per variable of the [`crate::vars`] table,
//! read on hot paths, changed by `SET GLOBAL`.
//!
//! [`Variables`] keeps one slot per variable: `AtomicBool`/`AtomicI64`/`AtomicUsize` (an index into
//! the choice list) for the kinds read on hot paths, so a typed getter is one `Relaxed` load;
//! text sits behind an `RwLock`. `Relaxed` suffices because each variable is independent and
//! nothing else is published through it. Every stored value is within its kind's range: values
//! are checked before they are stored, by [`VarDef::coerce`](crate::vars::VarDef::coerce) or
//! [`VarDef::check`](crate::vars::VarDef::check). Changes are
//! serialized by one mutex, held while the value is stored and the observers run, so observers see
//! changes in the order they were made. An observer therefore must not set variables itself.
//!
//! An alias ([`VarDef::alias_of`](crate::vars::VarDef::alias_of); `max_allowed_packet` for `xrpc_max_allowed_packet`) has no slot
//! of its own: reading or setting it reads or sets its target.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};

use parking_lot::{Mutex, RwLock};
use xrpc_proto::codes;

use crate::result::SqlError;
use crate::settings::Settings;
use crate::vars::{Access, SetValue, VarId, VarKind, VarValue, unknown_variable};

/// One variable's storage; see the [module docs](self).
#[derive(Debug)]
enum Slot {
    Bool(AtomicBool),
    Int(AtomicI64),
    /// Index into the choice list.
    Choice(AtomicUsize),
    Text(RwLock<Cow<'static, str>>),
    /// An alias: reads and writes go to the target's slot.
    Alias,
}

/// A callback run after a variable changed, with its new value.
type Observer = Arc<dyn Fn(&VarValue) + Send + Sync>;

/// A callback run before a variable changes, with the new value: an `Err` refuses the change,
/// which is then not stored (and no observer runs), so the variable keeps showing the value in
/// force.
type Applier = Arc<dyn Fn(&VarValue) -> Result<(), SqlError> + Send + Sync>;

/// The live variables of a running node. See the [module docs](self).
pub struct Variables {
    slots: Box<[Slot]>,
    observers: RwLock<Vec<(VarId, Observer)>>,
    appliers: RwLock<Vec<(VarId, Applier)>>,
    /// Serializes changes with their observers.
    set_lock: Mutex<()>,
}

impl Variables {
    /// Every variable at its default.
    pub fn new() -> Self {
        let slots = VarId::ALL
            .iter()
            .map(|id| {
                let def = id.def();
                match (&def.default, def.kind, def.alias_of) {
                    (_, _, Some(_)) => Slot::Alias,
                    (VarValue::Bool(b), _, _) => Slot::Bool(AtomicBool::new(*b)),
                    (VarValue::Int(n), _, _) => Slot::Int(AtomicI64::new(*n)),
                    (VarValue::Str(s), VarKind::Choice(list), _) => Slot::Choice(AtomicUsize::new(
                        list.iter().position(|c| *c == s.as_ref()).unwrap_or(0),
                    )),
                    (VarValue::Str(s), _, _) => Slot::Text(RwLock::new(s.clone())),
                }
            })
            .collect();
        Self {
            slots,
            observers: RwLock::new(Vec::new()),
            appliers: RwLock::new(Vec::new()),
            set_lock: Mutex::new(()),
        }
    }

    /// The current value of `id` (of its target, for an alias).
    pub fn get(&self, id: VarId) -> VarValue {
        let id = id.target();
        match &self.slots[id as usize] {
            Slot::Bool(b) => VarValue::Bool(b.load(Ordering::Relaxed)),
            Slot::Int(n) => VarValue::Int(n.load(Ordering::Relaxed)),
            Slot::Choice(i) => VarValue::Str(Cow::Borrowed(self.choice(id, i))),
            Slot::Text(s) => VarValue::Str(s.read().clone()),
            Slot::Alias => unreachable!("an alias target is never an alias"),
        }
    }

    /// The current value of the variable named `name`, case-insensitively.
    pub fn get_by_name(&self, name: &str) -> Option<VarValue> {
        VarId::lookup(name).map(|id| self.get(id))
    }

    /// Every variable with its current value, sorted by name (as `SHOW VARIABLES` lists them).
    pub fn snapshot(&self) -> Vec<(&'static str, VarValue)> {
        let mut all: Vec<_> = VarId::ALL
            .iter()
            .map(|&id| (id.def().name, self.get(id)))
            .collect();
        all.sort_unstable_by_key(|(name, _)| *name);
        all
    }

    /// `SET GLOBAL name = value`: checks the name, the access class and the value, stores it and
    /// runs the observers. Returns the value stored.
    ///
    /// Errors are the MySQL ones: 1193 for an unknown name, 1238 for a variable that cannot change
    /// at runtime, 1231 for a value of the wrong kind or out of range (naming the allowed values),
    /// and whatever an applier registered with [`try_on_change`](Self::try_on_change) refuses
    /// with (the variable then keeps its value).
    pub fn set_global(&self, name: &str, value: &SetValue) -> Result<VarValue, SqlError> {
        let (id, converted) = self.prepare_set(name, value)?;
        self.set_checked(id, converted.clone())?;
        Ok(converted)
    }

    /// The checks of [`set_global`](Self::set_global) without the change: the variable to store
    /// into (an alias's target) and the converted value. A statement that sets several variables
    /// prepares all of them before it commits any.
    pub fn prepare_set(&self, name: &str, value: &SetValue) -> Result<(VarId, VarValue), SqlError> {
        let id = VarId::lookup(name).ok_or_else(|| unknown_variable(name))?;
        let def = id.def();
        let target = id.target();
        let settable = match target.def().access {
            Access::Dynamic => true,
            Access::Applied => self.has_observer(target) || self.has_applier(target),
            Access::Startup | Access::ReadOnly => false,
        };
        if !settable {
            return Err(SqlError::new(
                &codes::READ_ONLY_VARIABLE,
                format!("Variable '{}' is a read only variable", def.name),
            ));
        }
        if let (Some(validate), SetValue::Text(text) | SetValue::Word(text)) = (def.validate, value)
        {
            validate(text).map_err(|reason| {
                SqlError::new(
                    &codes::WRONG_VALUE_FOR_VAR,
                    format!(
                        "Variable '{}' can't be set to the value of '{text}': {reason}",
                        def.name
                    ),
                )
            })?;
        }
        let converted = def.coerce(value).ok_or_else(|| {
            SqlError::new(
                &codes::WRONG_VALUE_FOR_VAR,
                format!(
                    "Variable '{}' can't be set to the value of '{}' (allowed {})",
                    def.name,
                    value,
                    def.kind.allowed()
                ),
            )
        })?;
        Ok((target, converted))
    }

    /// Stores a value returned by [`prepare_set`](Self::prepare_set) and runs the observers,
    /// unless an applier refuses it (see [`try_on_change`](Self::try_on_change)).
    pub fn commit_set(&self, id: VarId, value: VarValue) -> Result<(), SqlError> {
        debug_assert!(id.def().check(&value));
        self.set_checked(id, value)
    }

    /// Stores `value` regardless of the access class, for values the node itself derives (the
    /// real `rpc_port` after binding port 0, `xrpc_engine`, `version_comment`), and runs the
    /// observers. Fails with 1231 when the value does not fit the variable.
    pub fn set_internal(&self, id: VarId, value: VarValue) -> Result<(), SqlError> {
        let target = id.target();
        if !target.def().check(&value) {
            return Err(SqlError::new(
                &codes::WRONG_VALUE_FOR_VAR,
                format!(
                    "Variable '{}' can't be set to the value of '{}' (allowed {})",
                    id.def().name,
                    value,
                    target.def().kind.allowed()
                ),
            ));
        }
        self.set_checked(target, value)
    }

    /// Registers `observer`, run with the new value after every change of `id` (of its target,
    /// for an alias). For an [`Access::Applied`] variable this is the applier: once one is
    /// registered, `SET GLOBAL` may change it. Observers run with the change lock held and must not
    /// set variables.
    pub fn on_change(&self, id: VarId, observer: impl Fn(&VarValue) + Send + Sync + 'static) {
        self.observers
            .write()
            .push((id.target(), Arc::new(observer)));
    }

    /// Registers `applier`, run with the new value before every change of `id` (of its target, for
    /// an alias), with the change lock held. Unlike an [`on_change`](Self::on_change) observer it
    /// may fail: its error is the statement's, nothing is stored and no observer runs, so the
    /// variable keeps showing the value in force (`xrpc_binlog` with a directory the node cannot
    /// create, for example). Like an observer, it makes an [`Access::Applied`] variable settable
    /// and must not set variables.
    pub fn try_on_change(
        &self,
        id: VarId,
        applier: impl Fn(&VarValue) -> Result<(), SqlError> + Send + Sync + 'static,
    ) {
        self.appliers.write().push((id.target(), Arc::new(applier)));
    }

    fn has_observer(&self, id: VarId) -> bool {
        self.observers.read().iter().any(|(v, _)| *v == id)
    }

    fn has_applier(&self, id: VarId) -> bool {
        self.appliers.read().iter().any(|(v, _)| *v == id)
    }

    /// Runs the target's appliers; if all accept, stores the checked value into the target's slot
    /// and runs its observers, in change order.
    fn set_checked(&self, target: VarId, value: VarValue) -> Result<(), SqlError> {
        let _serial = self.set_lock.lock();
        let appliers: Vec<Applier> = self
            .appliers
            .read()
            .iter()
            .filter(|(v, _)| *v == target)
            .map(|(_, a)| a.clone())
            .collect();
        for applier in appliers {
            applier(&value)?;
        }
        self.store(target, &value);
        let observers: Vec<Observer> = self
            .observers
            .read()
            .iter()
            .filter(|(v, _)| *v == target)
            .map(|(_, o)| o.clone())
            .collect();
        for observer in observers {
            observer(&value);
        }
        Ok(())
    }

    /// Writes a value already checked against the kind; a value of another kind is ignored. No
    /// observer runs: for filling a new store from the start-up configuration.
    pub(crate) fn store(&self, id: VarId, value: &VarValue) {
        let id = id.target();
        match (&self.slots[id as usize], value) {
            (Slot::Bool(b), VarValue::Bool(v)) => b.store(*v, Ordering::Relaxed),
            (Slot::Int(n), VarValue::Int(v)) => n.store(*v, Ordering::Relaxed),
            (Slot::Choice(i), VarValue::Str(s)) => {
                if let VarKind::Choice(list) = id.def().kind
                    && let Some(pos) = list.iter().position(|c| *c == s.as_ref())
                {
                    i.store(pos, Ordering::Relaxed);
                }
            }
            (Slot::Text(t), VarValue::Str(s)) => *t.write() = s.clone(),
            _ => debug_assert!(false, "value of the wrong kind for {}", id.def().name),
        }
    }

    fn choice(&self, id: VarId, index: &AtomicUsize) -> &'static str {
        match id.def().kind {
            VarKind::Choice(list) => list[index.load(Ordering::Relaxed).min(list.len() - 1)],
            _ => "",
        }
    }
}

/// The engine's view: its integer settings by name ([`xrpc_engine::Engine::bind_variables`]).
impl xrpc_engine::EngineVariables for Variables {
    fn set_int(&self, name: &str, value: i64) -> Result<(), SqlError> {
        let id = VarId::lookup(name).ok_or_else(|| unknown_variable(name))?;
        self.set_internal(id, VarValue::Int(value))
    }

    fn on_int_change(&self, name: &str, apply: Box<dyn Fn(i64) + Send + Sync>) {
        let Some(id) = VarId::lookup(name) else {
            return;
        };
        self.on_change(id, move |value| {
            if let VarValue::Int(n) = value {
                apply(*n);
            }
        });
    }
}

impl Variables {
    /// `rpc_port`: the port the node listens on (a live value only: the configuration has the
    /// listen address instead).
    pub fn rpc_port(&self) -> u16 {
        self.read_int(VarId::RpcPort) as u16
    }
}

impl Settings for Variables {
    fn read_bool(&self, id: VarId) -> bool {
        match &self.slots[id.target() as usize] {
            Slot::Bool(b) => b.load(Ordering::Relaxed),
            _ => false,
        }
    }

    fn read_int(&self, id: VarId) -> i64 {
        match &self.slots[id.target() as usize] {
            Slot::Int(n) => n.load(Ordering::Relaxed),
            _ => 0,
        }
    }

    fn read_choice(&self, id: VarId) -> &'static str {
        match &self.slots[id.target() as usize] {
            Slot::Choice(i) => self.choice(id.target(), i),
            _ => "",
        }
    }

    fn read_text(&self, id: VarId) -> String {
        match &self.slots[id.target() as usize] {
            Slot::Text(t) => t.read().to_string(),
            _ => String::new(),
        }
    }
}

impl Default for Variables {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Variables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variables")
            .field("variables", &self.slots.len())
            .field("observers", &self.observers.read().len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;
    use std::time::Duration;

    use xrpc_proto::FrameConfig;

    use super::*;
    use crate::vars::VERSION;

    #[test]
    fn defaults_and_typed_getters() {
        let v = Variables::new();
        assert_eq!(v.max_queued_messages(), 128);
        assert_eq!(v.max_sessions(), 100_000);
        assert_eq!(v.net_write_timeout(), Duration::from_secs(10));
        assert_eq!(v.max_allowed_packet(), 64 << 20);
        assert_eq!(v.sqlite_synchronous(), "FULL");
        assert!(!v.perf_hist_enabled());
        assert_eq!(v.frame_config(), FrameConfig::default());
        assert_eq!(v.get(VarId::NewRpc).to_string(), "ON");
        assert_eq!(v.get(VarId::Version).to_string(), VERSION);
        assert!(VERSION.starts_with("8.0.32-xrpc-"));
        // The front end runs the versioned comments of the version the node reports.
        let front = xrpc_sql::MYSQL_VERSION;
        let front_end = format!("{}.{}.{}-", front / 10000, front / 100 % 100, front % 100);
        assert!(VERSION.starts_with(&front_end), "{VERSION} vs {front_end}");
        assert_eq!(
            v.get_by_name("MAX_ALLOWED_PACKET"),
            Some(VarValue::Int(64 << 20))
        );
    }

    #[test]
    fn set_global_checks_access_kind_and_range() {
        let v = Variables::new();
        let ok = v
            .set_global("xrpc_max_queued_messages", &SetValue::Int(4096))
            .unwrap();
        assert_eq!(ok, VarValue::Int(4096));
        assert_eq!(v.max_queued_messages(), 4096);

        let err = v
            .set_global("xrpc_max_queued_messages", &SetValue::Int(5))
            .unwrap_err();
        assert_eq!((err.code, err.sql_state.as_str()), (1231, "42000"));
        assert_eq!(
            err.message,
            "Variable 'xrpc_max_queued_messages' can't be set to the value of '5' (allowed 16..=4096)"
        );
        assert_eq!(
            v.max_queued_messages(),
            4096,
            "a refused value is not stored"
        );

        let err = v
            .set_global("xrpc_epoll_groups", &SetValue::Int(2))
            .unwrap_err();
        assert_eq!((err.code, err.sql_state.as_str()), (1238, "HY000"));
        assert_eq!(
            err.message,
            "Variable 'xrpc_epoll_groups' is a read only variable"
        );

        let err = v.set_global("no_such", &SetValue::Int(1)).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            (1193, "Unknown system variable 'no_such'")
        );

        // Booleans in every spelling.
        for (value, expect) in [
            (SetValue::Word("on".into()), true),
            (SetValue::Text("OFF".into()), false),
            (SetValue::Int(1), true),
            (SetValue::Word("false".into()), false),
        ] {
            v.set_global("xrpc_chunk_result_default", &value).unwrap();
            assert_eq!(v.chunk_result_default(), expect);
        }
        let err = v
            .set_global("xrpc_chunk_result_default", &SetValue::Int(2))
            .unwrap_err();
        assert!(
            err.message.ends_with("(allowed ON, OFF)"),
            "{}",
            err.message
        );

        // DEFAULT restores the default.
        v.set_global("xrpc_max_queued_messages", &SetValue::Default)
            .unwrap();
        assert_eq!(v.max_queued_messages(), 128);
    }

    #[test]
    fn applied_variables_need_an_applier() {
        let v = Variables::new();
        let err = v
            .set_global("xrpc_net_write_timeout", &SetValue::Int(500))
            .unwrap_err();
        assert_eq!(err.code, 1238);
        let seen = Arc::new(AtomicU64::new(0));
        let s = seen.clone();
        v.on_change(VarId::NetWriteTimeout, move |value| {
            s.store(value.as_int().unwrap() as u64, Ordering::Relaxed);
        });
        v.set_global("xrpc_net_write_timeout", &SetValue::Int(500))
            .unwrap();
        assert_eq!(seen.load(Ordering::Relaxed), 500);
        assert_eq!(v.net_write_timeout(), Duration::from_millis(500));
    }

    #[test]
    fn a_refusing_applier_keeps_the_old_value_and_skips_the_observers() {
        let v = Variables::new();
        let observed = Arc::new(AtomicU64::new(0));
        let o = observed.clone();
        v.on_change(VarId::NetWriteTimeout, move |_| {
            o.fetch_add(1, Ordering::Relaxed);
        });
        v.try_on_change(VarId::NetWriteTimeout, |value| match value.as_int() {
            Some(700) => Err(SqlError::new(
                &codes::WRONG_VALUE_FOR_VAR,
                "cannot apply 700",
            )),
            _ => Ok(()),
        });
        v.set_global("xrpc_net_write_timeout", &SetValue::Int(500))
            .unwrap();
        let err = v
            .set_global("xrpc_net_write_timeout", &SetValue::Int(700))
            .unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (1231, "cannot apply 700"));
        assert_eq!(v.net_write_timeout(), Duration::from_millis(500));
        assert_eq!(observed.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn alias_reads_and_writes_its_target() {
        let v = Variables::new();
        v.on_change(VarId::MaxAllowedPacket, |_| {});
        v.set_global("max_allowed_packet", &SetValue::Int(1 << 20))
            .unwrap();
        assert_eq!(v.max_allowed_packet(), 1 << 20);
        assert_eq!(v.get(VarId::MaxAllowedPacketAlias), VarValue::Int(1 << 20));
    }

    #[test]
    fn set_internal_bypasses_access_but_not_range() {
        let v = Variables::new();
        v.set_internal(VarId::RpcPort, VarValue::Int(40_000))
            .unwrap();
        assert_eq!(v.rpc_port(), 40_000);
        assert!(
            v.set_internal(VarId::RpcPort, VarValue::Int(70_000))
                .is_err()
        );
        assert!(
            v.set_internal(VarId::RpcPort, VarValue::Bool(true))
                .is_err()
        );
        v.set_internal(VarId::XrpcEngine, VarValue::Str("sqlite 3.46".into()))
            .unwrap();
        assert_eq!(v.get(VarId::XrpcEngine).to_string(), "sqlite 3.46");
    }

    #[test]
    fn snapshot_is_sorted_and_complete() {
        let v = Variables::new();
        let snap = v.snapshot();
        assert_eq!(snap.len(), VarId::ALL.len());
        assert!(snap.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
