//! What a `SET` of each system variable does on this engine.
//!
//! MySQL has hundreds of session variables, and some change answers: `sql_select_limit` cuts
//! every SELECT, `div_precision_increment` the scale of a quotient, `auto_increment_increment`
//! the ids an INSERT takes, `timestamp` what NOW() returns. A SET the engine accepted without
//! acting on it would make later statements answer otherwise than MySQL without an error, so
//! each variable a client may set is listed here with what happens ([`Effect`]); a variable not
//! listed is refused with 1235, naming it.
//!
//! - [`Effect::Kept`]: the engine keeps the session's value and acts on it or shows it back
//!   (`front` reads these assignments); a `SET GLOBAL` of one is refused, since every session here
//!   starts from the defaults.
//! - [`Effect::Inert`]: no answer depends on it here (timeouts, buffer sizes, optimizer
//!   settings, notes and warnings switches): accepted whatever the value, in either scope.
//! - [`Effect::Only`]: answers would depend on it, and the engine answers as under the values
//!   listed (its default among them): `DEFAULT` and those values are accepted, any other is
//!   refused with 1235 naming the variable and the value. A user variable as the value (a dump's
//!   `SET character_set_client = @saved_cs_client`) is checked when the statement runs.

/// What a SET of a system variable does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// The engine keeps it.
    Kept,
    /// Nothing here depends on it.
    Inert,
    /// Accepted only at these values (compared without regard to case) or `DEFAULT`.
    Only(&'static [&'static str]),
}

const OFF: &[&str] = &["0", "OFF", "FALSE"];
const ON: &[&str] = &["1", "ON", "TRUE"];
const UTF8: &[&str] = &["utf8mb4", "utf8", "utf8mb3"];
const UTF8_RESULTS: &[&str] = &["utf8mb4", "utf8", "utf8mb3", "NULL", "binary"];
/// The Unicode collations read as `utf8mb4_general_ci`, as `SET NAMES … COLLATE` is (Laravel
/// connects with `utf8mb4_unicode_ci`): they differ from it beyond ASCII only (`ß` and `ss`).
const UTF8_CI: &[&str] = &[
    "utf8mb4_general_ci",
    "utf8_general_ci",
    "utf8mb3_general_ci",
    "utf8mb4_unicode_ci",
    "utf8_unicode_ci",
    "utf8mb3_unicode_ci",
    "utf8mb4_0900_ai_ci",
];

/// The variables a SET may name, by lower-case name.
const VARIABLES: &[(&str, Effect)] = &[
    ("auto_increment_increment", Effect::Only(&["1"])),
    ("auto_increment_offset", Effect::Only(&["1"])),
    ("autocommit", Effect::Kept),
    ("big_tables", Effect::Inert),
    ("bulk_insert_buffer_size", Effect::Inert),
    ("character_set_client", Effect::Only(UTF8)),
    ("character_set_connection", Effect::Only(UTF8)),
    ("character_set_database", Effect::Only(UTF8)),
    ("character_set_results", Effect::Only(UTF8_RESULTS)),
    ("character_set_server", Effect::Only(UTF8)),
    ("collation_connection", Effect::Only(UTF8_CI)),
    ("collation_database", Effect::Only(UTF8_CI)),
    ("collation_server", Effect::Only(UTF8_CI)),
    ("completion_type", Effect::Only(&["0", "NO_CHAIN"])),
    ("default_storage_engine", Effect::Only(&["InnoDB"])),
    ("default_tmp_storage_engine", Effect::Only(&["InnoDB"])),
    ("default_week_format", Effect::Only(&["0"])),
    ("div_precision_increment", Effect::Only(&["4"])),
    ("eq_range_index_dive_limit", Effect::Inert),
    ("explicit_defaults_for_timestamp", Effect::Only(ON)),
    ("foreign_key_checks", Effect::Kept),
    ("group_concat_max_len", Effect::Only(&[])),
    ("innodb_lock_wait_timeout", Effect::Inert),
    ("innodb_strict_mode", Effect::Inert),
    ("interactive_timeout", Effect::Inert),
    ("join_buffer_size", Effect::Inert),
    ("lc_time_names", Effect::Only(&["en_US"])),
    ("lock_wait_timeout", Effect::Inert),
    ("long_query_time", Effect::Inert),
    ("max_error_count", Effect::Inert),
    ("max_execution_time", Effect::Inert),
    ("max_heap_table_size", Effect::Inert),
    ("max_join_size", Effect::Kept),
    ("max_sort_length", Effect::Only(&["1024"])),
    ("max_statement_time", Effect::Inert),
    ("net_buffer_length", Effect::Inert),
    ("net_read_timeout", Effect::Inert),
    ("net_retry_count", Effect::Inert),
    ("net_write_timeout", Effect::Inert),
    ("optimizer_prune_level", Effect::Inert),
    ("optimizer_search_depth", Effect::Inert),
    ("optimizer_switch", Effect::Inert),
    ("optimizer_use_condition_selectivity", Effect::Inert),
    ("profiling", Effect::Inert),
    ("profiling_history_size", Effect::Inert),
    ("query_cache_type", Effect::Inert),
    ("read_buffer_size", Effect::Inert),
    ("read_rnd_buffer_size", Effect::Inert),
    ("session_track_gtids", Effect::Inert),
    ("session_track_schema", Effect::Inert),
    ("session_track_state_change", Effect::Inert),
    ("session_track_system_variables", Effect::Inert),
    ("session_track_transaction_info", Effect::Inert),
    ("sort_buffer_size", Effect::Inert),
    ("sql_auto_is_null", Effect::Only(OFF)),
    ("sql_big_selects", Effect::Inert),
    ("sql_buffer_result", Effect::Inert),
    ("sql_log_bin", Effect::Inert),
    ("sql_mode", Effect::Kept),
    ("sql_notes", Effect::Inert),
    ("sql_quote_show_create", Effect::Only(ON)),
    ("sql_require_primary_key", Effect::Only(OFF)),
    // The engine has no check of UPDATE and DELETE without a key condition (1175).
    ("sql_safe_updates", Effect::Kept),
    ("sql_select_limit", Effect::Kept),
    ("sql_warnings", Effect::Inert),
    ("time_zone", Effect::Kept),
    ("tmp_table_size", Effect::Inert),
    ("transaction_isolation", Effect::Kept),
    ("transaction_read_only", Effect::Kept),
    ("tx_isolation", Effect::Kept),
    ("tx_read_only", Effect::Kept),
    ("unique_checks", Effect::Kept),
    ("wait_timeout", Effect::Inert),
];

/// What a SET of variable `name` (lower case) does; `None` for one the engine does not know.
pub(crate) fn effect(name: &str) -> Option<Effect> {
    VARIABLES
        .binary_search_by(|(listed, _)| (*listed).cmp(name))
        .ok()
        .map(|at| VARIABLES[at].1)
}

/// Whether `value` (a literal's text, without quotes) is one an [`Effect::Only`] variable
/// accepts.
pub(crate) fn accepts(allowed: &[&str], value: &str) -> bool {
    allowed.iter().any(|a| a.eq_ignore_ascii_case(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_so_that_every_name_is_found() {
        assert!(VARIABLES.windows(2).all(|w| w[0].0 < w[1].0));
        for (name, effect) in VARIABLES {
            assert_eq!(super::effect(name), Some(*effect), "{name}");
        }
        assert_eq!(super::effect("no_such_variable"), None);
    }
}
