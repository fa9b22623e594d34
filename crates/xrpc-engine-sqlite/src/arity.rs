//! MySQL's parameter counts for the native functions SQLite also has under the same name but
//! accepts with fewer arguments: `CONCAT()` is MySQL's 1582 where SQLite answers `''`.
//!
//! Decided from the parse tree (every function call of the statement, subqueries included);
//! a qualified name (`db.concat(…)`) is a stored function, not the native one, and is left
//! alone.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, FunctionArguments, Statement, visit_expressions};
use xrpc_engine::result::SqlError;
use xrpc_proto::codes;

/// The native functions checked, with the fewest arguments MySQL takes.
const FEWEST_ARGUMENTS: &[(&str, usize)] = &[("CONCAT", 1), ("CONCAT_WS", 2)];

/// MySQL's 1582 for the statement's first call of a function in [`FEWEST_ARGUMENTS`] with too
/// few arguments.
pub(crate) fn check(statement: &Statement) -> Result<(), SqlError> {
    let found = visit_expressions(statement, |expr| {
        let Expr::Function(function) = expr else {
            return ControlFlow::Continue(());
        };
        let [name] = function.name.0.as_slice() else {
            return ControlFlow::Continue(());
        };
        let Some(name) = name
            .as_ident()
            .map(|ident| ident.value.to_ascii_uppercase())
        else {
            return ControlFlow::Continue(());
        };
        let count = match &function.args {
            FunctionArguments::None => 0,
            FunctionArguments::Subquery(_) => 1,
            FunctionArguments::List(list) => list.args.len(),
        };
        match FEWEST_ARGUMENTS.iter().find(|(n, _)| *n == name) {
            Some((_, fewest)) if count < *fewest => ControlFlow::Break(name),
            _ => ControlFlow::Continue(()),
        }
    });
    match found {
        ControlFlow::Break(name) => Err(SqlError::new(
            &codes::WRONG_PARAMCOUNT_TO_NATIVE_FCT,
            format!("Incorrect parameter count in the call to native function '{name}'"),
        )),
        ControlFlow::Continue(()) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    fn code(sql: &str) -> Option<u32> {
        let parsed = xrpc_sql::parse_one_statement(sql, &xrpc_sql::Options::default()).unwrap();
        check(parsed.statement().unwrap()).err().map(|e| e.code)
    }

    #[test]
    fn concat_without_arguments_is_mysqls_parameter_count_error() {
        assert_eq!(code("SELECT CONCAT()"), Some(1582));
    }

    #[test]
    fn concat_ws_with_only_a_separator_is_refused_inside_a_subquery_too() {
        assert_eq!(
            code("SELECT 1 FROM t WHERE a IN (SELECT concat_ws(',') FROM u)"),
            Some(1582)
        );
    }

    #[test]
    fn calls_with_enough_arguments_and_stored_functions_pass() {
        assert_eq!(
            code("SELECT CONCAT('a'), CONCAT_WS(',', 'a'), db.concat()"),
            None
        );
    }
}
