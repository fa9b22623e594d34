//! The names MySQL gives a view's columns when its definition has no column list.
//!
//! Each column is named by its select item, with two exceptions for a *generated* name (an
//! expression without an alias, named by its text): one that is not a valid column name (empty,
//! ending in a space, or longer than 64 characters) becomes `Name_exp_<position>`, and one that
//! repeats an earlier column's name becomes `My_exp_<text>`, or `My_exp_<n>_<text>` with the
//! first `n` that no column up to the later of the two has. An *explicit* name (an alias, or a
//! column read as it is) is never renamed: when it repeats a generated one, the generated one
//! is; two explicit names that repeat each other are MySQL's 1060. Names compare without case.
//! These are MariaDB's rules (`make_valid_column_names`, `check_duplicate_names` and
//! `make_unique_view_field_name` of its `sql_view.cc`), which MySQL shares.
//!
//! A renamed column is stored in the view's SELECT under an alias of its new name, as MySQL
//! stores it, so that the view reads it back by that name.

use sqlparser::ast::{Expr, Ident, Query, Select, SelectItem, SetExpr};

use crate::OutColumn;
use crate::error::{TranslateError, unsupported};

type Result<T> = std::result::Result<T, TranslateError>;

/// The longest name `make_unique_view_field_name` writes, in bytes (`NAME_LEN` less its NUL).
const LONGEST_GENERATED: usize = 191;

/// The longest valid column name, in characters.
const LONGEST_NAME: usize = 64;

/// How a select item names its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Naming {
    /// An alias, or a table column read as it is: never renamed.
    Explicit,
    /// An expression's text: at the select item of this position in the projection.
    Generated(usize),
    /// A name whose kind MySQL decides from what the SELECT resolves it to, which the tree
    /// does not tell (a name of a derived table's computed column, say): refused when it
    /// takes part in a rename.
    Unknown,
}

/// The view's column names for a SELECT without a column list (`columns` are its result
/// columns), and `query` with an alias on every renamed select item; `None` for the query
/// when nothing is renamed.
pub(crate) fn view_column_names(
    query: &Query,
    columns: &[OutColumn],
) -> Result<(Vec<String>, Option<Query>)> {
    let namings = namings(query, columns);
    let mut names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let mut former: Vec<Option<String>> = vec![None; names.len()];
    for (at, naming) in namings.iter().enumerate() {
        if matches!(naming, Naming::Generated(_)) && !valid_column_name(&names[at]) {
            former[at] = Some(std::mem::replace(
                &mut names[at],
                format!("Name_exp_{}", at + 1),
            ));
        }
    }
    let explicit = |at: usize| namings[at] == Naming::Explicit;
    for later in 0..names.len() {
        for earlier in 0..later {
            if !names[later].eq_ignore_ascii_case(&names[earlier]) {
                continue;
            }
            if namings[later] == Naming::Unknown || namings[earlier] == Naming::Unknown {
                return unsupported(format!("a view with two columns named '{}'", names[later]));
            }
            let target = if !explicit(later) {
                later
            } else if !explicit(earlier) {
                earlier
            } else {
                return Err(TranslateError::DuplicateColumn(names[later].clone()));
            };
            let unique = unique_name(&names, &former, target, later)?;
            former[target] = Some(std::mem::replace(&mut names[target], unique));
        }
    }
    let renamed: Vec<(usize, &String)> = namings
        .iter()
        .zip(&names)
        .zip(&former)
        .filter_map(|((naming, name), former)| match (naming, former) {
            (Naming::Generated(item), Some(_)) => Some((*item, name)),
            _ => None,
        })
        .collect();
    if renamed.is_empty() {
        return Ok((names, None));
    }
    let mut aliased = query.clone();
    let select = first_select_mut(&mut aliased).expect("a generated name is a select item's");
    for (item, name) in renamed {
        let projected = &mut select.projection[item];
        if let SelectItem::UnnamedExpr(expr) = projected {
            *projected = SelectItem::ExprWithAlias {
                expr: expr.clone(),
                alias: Ident::with_quote('`', name.clone()),
            };
        }
    }
    Ok((names, Some(aliased)))
}

/// `check_column_name`: not empty, not ending in a space, at most 64 characters.
fn valid_column_name(name: &str) -> bool {
    name.chars().last().is_some_and(|c| !c.is_whitespace()) && name.chars().count() <= LONGEST_NAME
}

/// `make_unique_view_field_name`: `My_exp_…` of the column's name before any rename, unlike
/// every other column's name up to `last`.
fn unique_name(
    names: &[String],
    former: &[Option<String>],
    target: usize,
    last: usize,
) -> Result<String> {
    let base = former[target].as_ref().unwrap_or(&names[target]);
    for attempt in 0.. {
        let candidate = match attempt {
            0 => format!("My_exp_{base}"),
            n => format!("My_exp_{n}_{base}"),
        };
        if candidate.len() > LONGEST_GENERATED {
            // MySQL cuts the name at a byte count, possibly inside a character.
            return unsupported(format!(
                "a view column named by the long expression {base} that another column's name \
                 repeats"
            ));
        }
        let taken = names[..=last]
            .iter()
            .enumerate()
            .any(|(at, name)| at != target && name.eq_ignore_ascii_case(&candidate));
        if !taken {
            return Ok(candidate);
        }
    }
    unreachable!("some attempt's name is free")
}

/// How each of the result columns is named, from the first SELECT of the query (the one that
/// names a set operation's columns).
fn namings(query: &Query, columns: &[OutColumn]) -> Vec<Naming> {
    let Some(select) = first_select(query) else {
        return vec![Naming::Unknown; columns.len()];
    };
    let Some(items) = projected(select, columns.len()) else {
        return vec![Naming::Unknown; columns.len()];
    };
    items
        .iter()
        .zip(columns)
        .map(|(item, column)| match item {
            Projected::Wildcard => field(column),
            Projected::Item(_, SelectItem::ExprWithAlias { .. }) => Naming::Explicit,
            Projected::Item(
                _,
                SelectItem::UnnamedExpr(Expr::Identifier(_) | Expr::CompoundIdentifier(_)),
            ) => field(column),
            Projected::Item(at, SelectItem::UnnamedExpr(_)) => Naming::Generated(*at),
            Projected::Item(..) => Naming::Unknown,
        })
        .collect()
}

/// What gives one result column of a SELECT.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Projected<'a> {
    /// The select item of this position in the projection.
    Item(usize, &'a SelectItem),
    /// A column a wildcard expands to.
    Wildcard,
}

/// The select item behind each of a SELECT's `count` result columns; `None` when that is not
/// known (two wildcards, whose expansions could split anywhere).
pub(crate) fn projected(select: &Select, count: usize) -> Option<Vec<Projected<'_>>> {
    let wildcards = select.projection.iter().filter(|i| is_wildcard(i)).count();
    let expanded = count.checked_sub(select.projection.len() - wildcards)?;
    if wildcards > 1 || (wildcards == 0 && expanded != 0) {
        return None;
    }
    let mut out = Vec::with_capacity(count);
    for (at, item) in select.projection.iter().enumerate() {
        if is_wildcard(item) {
            out.extend(std::iter::repeat_n(Projected::Wildcard, expanded));
        } else {
            out.push(Projected::Item(at, item));
        }
    }
    Some(out)
}

/// A column read by name: explicit when it is a table's column.
fn field(column: &OutColumn) -> Naming {
    if column.origin.is_some() {
        Naming::Explicit
    } else {
        Naming::Unknown
    }
}

fn is_wildcard(item: &SelectItem) -> bool {
    matches!(
        item,
        SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
    )
}

fn first_select(query: &Query) -> Option<&Select> {
    fn of(body: &SetExpr) -> Option<&Select> {
        match body {
            SetExpr::Select(select) => Some(select),
            SetExpr::Query(query) => of(&query.body),
            SetExpr::SetOperation { left, .. } => of(left),
            _ => None,
        }
    }
    of(&query.body)
}

fn first_select_mut(query: &mut Query) -> Option<&mut Select> {
    fn of(body: &mut SetExpr) -> Option<&mut Select> {
        match body {
            SetExpr::Select(select) => Some(select),
            SetExpr::Query(query) => of(&mut query.body),
            SetExpr::SetOperation { left, .. } => of(left),
            _ => None,
        }
    }
    of(&mut query.body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Ty;

    fn names_of(sql: &str, columns: &[(&str, bool)]) -> Result<(Vec<String>, Option<String>)> {
        let query = crate::translate::parse_view_query(sql).expect("a query");
        let columns: Vec<OutColumn> = columns
            .iter()
            .map(|(name, field)| OutColumn {
                unsigned: false,
                origin: field.then(|| crate::Origin {
                    database: "d".into(),
                    table: "t".into(),
                    original_table: "t".into(),
                    column: (*name).into(),
                    flags: Default::default(),
                }),
                ..OutColumn::computed((*name).into(), Ty::Int)
            })
            .collect();
        view_column_names(&query, &columns).map(|(n, q)| (n, q.map(|q| q.to_string())))
    }

    #[test]
    fn a_repeated_generated_name_becomes_my_exp_with_the_first_free_attempt() {
        let (names, query) = names_of(
            "SELECT a + 1, a + 1, a + 1, a AS `My_exp_1_a + 1`, a+1 FROM t",
            &[
                ("a + 1", false),
                ("a + 1", false),
                ("a + 1", false),
                ("My_exp_1_a + 1", true),
                ("a+1", false),
            ],
        )
        .unwrap();
        assert_eq!(
            names,
            [
                "a + 1",
                "My_exp_a + 1",
                "My_exp_2_a + 1",
                "My_exp_1_a + 1",
                "a+1"
            ]
        );
        assert_eq!(
            query.unwrap(),
            "SELECT a + 1, a + 1 AS `My_exp_a + 1`, a + 1 AS `My_exp_2_a + 1`, a AS `My_exp_1_a + 1`, a + 1 FROM t"
        );
    }

    #[test]
    fn an_explicit_name_renames_the_earlier_generated_one() {
        let (names, _) = names_of(
            "SELECT a + 1, a AS `A + 1` FROM t",
            &[("a + 1", false), ("A + 1", true)],
        )
        .unwrap();
        assert_eq!(names, ["My_exp_a + 1", "A + 1"]);
    }

    #[test]
    fn a_long_generated_name_becomes_name_exp_of_its_position_and_my_exp_of_its_text_when_taken() {
        let long = format!("CONCAT(a, '{}')", "x".repeat(60));
        let sql = format!("SELECT {long}, {long}, 1 AS Name_exp_1 FROM t");
        let (names, _) = names_of(
            &sql,
            &[(&long, false), (&long, false), ("Name_exp_1", false)],
        )
        .unwrap();
        assert_eq!(
            names,
            [
                format!("My_exp_{long}"),
                "Name_exp_2".into(),
                "Name_exp_1".into()
            ]
        );
    }

    #[test]
    fn two_explicit_names_that_repeat_are_1060() {
        let err = names_of("SELECT a, a FROM t", &[("a", true), ("a", true)]).unwrap_err();
        assert_eq!(err, TranslateError::DuplicateColumn("a".into()));
    }

    #[test]
    fn distinct_names_leave_the_query_as_written() {
        let (names, query) =
            names_of("SELECT a, a + 1 FROM t", &[("a", true), ("a + 1", false)]).unwrap();
        assert_eq!((names, query), (vec!["a".into(), "a + 1".into()], None));
    }
}
