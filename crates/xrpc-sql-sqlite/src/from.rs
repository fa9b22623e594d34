//! How a statement's FROM items are referred to and joined, as the view modules read them
//! (`view_types`, `through`, and the view definitions of `translate`).

use sqlparser::ast::{JoinOperator, ObjectName, TableAlias};

/// The name a table of the FROM is referred to by: its alias, else its own (unqualified) name.
pub(crate) fn refer_name(name: &ObjectName, alias: Option<&TableAlias>) -> Option<String> {
    match alias {
        Some(a) => Some(a.name.value.clone()),
        None => name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.clone()),
    }
}

/// Whether a join keeps only the rows both sides match (`JOIN`, `INNER JOIN`, `CROSS JOIN`,
/// `STRAIGHT_JOIN`), whatever its condition: no side's columns become nullable.
pub(crate) fn is_inner_join(operator: &JoinOperator) -> bool {
    matches!(
        operator,
        JoinOperator::Join(_)
            | JoinOperator::Inner(_)
            | JoinOperator::StraightJoin(_)
            | JoinOperator::CrossJoin(_)
    )
}
