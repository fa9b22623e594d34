//! Session state as the backend reports it, and what of it pins a connection to its session.
//!
//! See "Session state" in the [module docs](super).

use std::collections::BTreeMap;

use super::types::Rewritten;

/// Why a backend connection must stay with its session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PinState {
    /// The last transaction state the tracker reported (`T_______`, `I___W___`, `_______L`, …),
    /// while it shows an open transaction or LOCK TABLES.
    pub transaction: Option<String>,
    /// `autocommit` is OFF.
    pub autocommit_off: bool,
    /// The characteristics tracker reports a pending `SET TRANSACTION …` (isolation level or
    /// access mode for the next transaction only), which would otherwise apply to whichever
    /// session runs the next transaction on this connection.
    pub next_transaction: Option<String>,
    /// The user-level locks (GET_LOCK) the connection holds, by their names as SQL literals, as
    /// the backend reported them after the last statement that named a lock function.
    pub named_locks: Vec<String>,
    /// State the engine cannot restore elsewhere and cannot see end: user variables, temporary
    /// tables, server-side prepared statements, a named lock it cannot ask about, changed
    /// tracking settings. Stays until the connection is reset.
    pub other: Option<&'static str>,
}

impl PinState {
    /// Whether anything pins the connection.
    pub fn pins(&self) -> bool {
        self.transaction.is_some()
            || self.autocommit_off
            || self.next_transaction.is_some()
            || !self.named_locks.is_empty()
            || self.other.is_some()
    }

    /// Why, in words (for logs and tests).
    pub fn reason(&self) -> Option<String> {
        if let Some(state) = &self.transaction {
            return Some(format!("transaction state {state}"));
        }
        if self.autocommit_off {
            return Some("autocommit is OFF".to_owned());
        }
        if let Some(pending) = &self.next_transaction {
            return Some(format!("pending transaction characteristics {pending}"));
        }
        if !self.named_locks.is_empty() {
            return Some(format!("named locks {}", self.named_locks.join(", ")));
        }
        self.other.map(str::to_owned)
    }
}

/// What one statement changed, from the tracker data of its final OK packet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Session system variables and their new values (names in lower case).
    pub vars: Vec<(String, String)>,
    /// The new current database.
    pub schema: Option<String>,
    /// The state-change tracker fired (any session state changed).
    pub state_changed: bool,
    /// The new transaction state (8 characters).
    pub transaction: Option<String>,
    /// The new transaction characteristics (`SET TRANSACTION …; START TRANSACTION;`, empty
    /// once the transaction ended).
    pub characteristics: Option<String>,
}

impl Changes {
    /// The tracker data of an OK packet.
    pub fn from_ok(ok: &xrpc_mysql_proto::OkInfo) -> Self {
        use xrpc_mysql_proto::SessionChange;
        let mut changes = Changes::default();
        for change in &ok.session_changes {
            match change {
                SessionChange::SystemVariable { name, value } => {
                    changes
                        .vars
                        .push((name.to_ascii_lowercase(), value.clone()));
                }
                SessionChange::Schema(schema) => changes.schema = Some(schema.clone()),
                SessionChange::TransactionState(state) => {
                    changes.transaction = Some(state.clone());
                }
                SessionChange::TransactionCharacteristics(chars) => {
                    changes.characteristics = Some(chars.clone());
                }
                SessionChange::Gtids(_) => {}
                SessionChange::StateChanged | SessionChange::Undecodable { .. } => {
                    changes.state_changed = true;
                }
            }
        }
        changes
    }
}

/// What the engine knows of one backend connection's session state (what [`apply`] updates).
#[derive(Debug)]
pub struct KnownState<'a> {
    /// Session variables changed from their values on a fresh connection.
    pub vars: &'a mut BTreeMap<String, String>,
    /// The current database, once changed from the connection's default.
    pub schema: &'a mut Option<String>,
    /// What pins the connection to its session.
    pub state: &'a mut PinState,
}

/// Session variables that are not replayed: changing them is state that pins.
fn pins_instead_of_replay(name: &str) -> bool {
    name.starts_with("session_track_")
}

/// Applies one statement's changes to the backend's known state and to the session's recorded
/// variables and database. `rewritten` is the statement as sent; `result_set` says whether it
/// returned rows (its end carries no tracker data, see the module docs); `several_results`
/// whether it produced more than one result (only the last one's tracker data is read).
pub fn apply(
    backend: KnownState<'_>,
    session_vars: &mut BTreeMap<String, String>,
    session_schema: &mut Option<String>,
    changes: &Changes,
    rewritten: &Rewritten,
    result_set: bool,
    several_results: bool,
) {
    // Whether a variable or database change accounts for the state-change flag.
    let mut explained = false;
    for (name, value) in &changes.vars {
        explained = true;
        if name == "autocommit" {
            backend.state.autocommit_off = !is_on(value);
            // The default; a changed autocommit is pin state, never replayed.
            session_vars.remove(name);
            backend.vars.remove(name);
        } else if pins_instead_of_replay(name) {
            backend.state.other = Some("session tracking settings changed");
        } else {
            backend.vars.insert(name.clone(), value.clone());
            session_vars.insert(name.clone(), value.clone());
        }
    }
    if let Some(schema) = &changes.schema {
        explained = true;
        *backend.schema = Some(schema.clone());
        *session_schema = Some(schema.clone());
    }
    if let Some(state) = &changes.transaction {
        let open = state.bytes().any(|b| b != b'_');
        backend.state.transaction = open.then(|| state.clone());
    }
    if let Some(chars) = &changes.characteristics {
        // Inside a transaction they describe it (already pinned by its state); outside one,
        // they are a `SET TRANSACTION` waiting for the next transaction.
        backend.state.next_transaction = (!chars.is_empty()).then(|| chars.clone());
    }
    // The state-change tracker also fires for variable and database changes, which are
    // replayed; anything else it reports (user variables, temp tables, prepared statements)
    // pins. A statement that changed both a variable and a user variable is caught by the
    // check of its tree, and so is a row-returning statement that assigns a user variable (its EOF
    // packet carries no tracker data).
    let unexplained = changes.state_changed
        && !explained
        && changes.transaction.is_none()
        && changes.characteristics.is_none();
    if backend.state.other.is_none() {
        backend.state.other = if several_results {
            Some("several results in one request (only the last one's state is reported)")
        } else if rewritten.unnamed_lock {
            Some("named lock (GET_LOCK of a name that is neither a literal nor an argument)")
        } else if (result_set && rewritten.user_variable_assigned)
            || (!result_set && rewritten.user_variable && changes.state_changed)
        {
            Some("user variables")
        } else if unexplained {
            Some("user variables, temporary tables or prepared statements")
        } else {
            None
        };
    }
}

/// After a statement that named a lock function: adds the names `rewritten` used to those held
/// and returns the statement that asks the backend which of them the connection holds now
/// (`IS_USED_LOCK(name) = CONNECTION_ID()`), if any, so the connection stays pinned exactly
/// while it holds one ([`named_lock_answer`]).
pub fn named_lock_probe(state: &mut PinState, rewritten: &Rewritten) -> Option<String> {
    let held = &mut state.named_locks;
    for name in &rewritten.lock_names {
        if !held.contains(name) {
            held.push(name.clone());
        }
    }
    if held.is_empty() {
        return None;
    }
    let probes: Vec<String> = held
        .iter()
        .map(|name| format!("IS_USED_LOCK({name}) <=> CONNECTION_ID()"))
        .collect();
    Some(format!("SELECT CONCAT({})", probes.join(", ")))
}

/// Keeps the names the answer to [`named_lock_probe`] says the connection holds; an answer that does not say leaves the connection pinned until it is reset.
pub fn named_lock_answer<E: std::fmt::Debug>(
    state: &mut PinState,
    answer: Result<Option<String>, E>,
) {
    let held = &mut state.named_locks;
    match answer {
        Ok(Some(flags)) if flags.len() == held.len() => {
            let mut flags = flags.bytes();
            held.retain(|_| flags.next() == Some(b'1'));
        }
        answer => {
            tracing::warn!(
                ?answer,
                "cannot tell which named locks a backend connection holds"
            );
            state.other = Some("named locks (the backend did not say which it holds)");
        }
    }
}

fn is_on(value: &str) -> bool {
    value.eq_ignore_ascii_case("ON") || value == "1" || value.eq_ignore_ascii_case("TRUE")
}

/// The statement that brings a connection's variables to the session's: `SET SESSION a = …, b =
/// …` for every variable that differs, or `None`.
pub fn replay_statement(
    backend_vars: &BTreeMap<String, String>,
    session_vars: &BTreeMap<String, String>,
) -> Option<String> {
    let mut sql = String::new();
    for (name, value) in session_vars {
        if backend_vars.get(name) == Some(value) {
            continue;
        }
        sql.push_str(if sql.is_empty() { "SET SESSION " } else { ", " });
        sql.push('`');
        sql.push_str(&name.replace('`', "``"));
        sql.push_str("` = ");
        sql.push_str(&value_literal(value));
    }
    (!sql.is_empty()).then_some(sql)
}

/// A tracked value as SQL: numbers bare (integer variables refuse strings), everything else
/// quoted.
fn value_literal(value: &str) -> String {
    let numeric = !value.is_empty()
        && value
            .strip_prefix('-')
            .unwrap_or(value)
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.')
        && value.bytes().filter(|&b| b == b'.').count() <= 1
        && value.bytes().any(|b| b.is_ascii_digit());
    if numeric {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\\', "\\\\").replace('\'', "''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn replay_sets_only_what_differs() {
        let backend = map(&[("time_zone", "+00:00")]);
        let session = map(&[
            ("time_zone", "+00:00"),
            ("sql_mode", "ANSI_QUOTES"),
            ("wait_timeout", "100"),
        ]);
        assert_eq!(
            replay_statement(&backend, &session).unwrap(),
            "SET SESSION `sql_mode` = 'ANSI_QUOTES', `wait_timeout` = 100"
        );
        assert_eq!(replay_statement(&session, &session), None);
        assert_eq!(value_literal("it's"), "'it''s'");
        assert_eq!(value_literal("-1.5"), "-1.5");
        assert_eq!(value_literal("1.2.3"), "'1.2.3'");
        assert_eq!(value_literal(""), "''");
    }

    #[test]
    fn pin_state_reasons() {
        let mut state = PinState::default();
        assert!(!state.pins());
        state.autocommit_off = true;
        assert_eq!(state.reason().unwrap(), "autocommit is OFF");
        state.transaction = Some("T_______".into());
        assert!(state.reason().unwrap().contains("T_______"));
    }
}
