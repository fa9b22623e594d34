//! The declarations MySQL derives for a view's aggregate columns, so that DESCRIBE, SHOW
//! COLUMNS and `information_schema.COLUMNS` describe them as MariaDB does.
//!
//! Only an aggregate of one table column is derived (the rest of a view's computed columns
//! stay undescribed): `COUNT(…)` is `bigint(21)` NOT NULL with default 0; `MIN` and `MAX` are
//! the column's declaration, nullable; `SUM` and `AVG` of an integer or DECIMAL are DECIMAL
//! sized by MariaDB's rules from the argument's length in characters (`max_length`: the
//! integer type's default display width, or a DECIMAL's digits with its point and sign), and of
//! FLOAT or DOUBLE are `double`. Every derived column but COUNT's is nullable with default NULL.
//!
//! The argument is a column named plainly (`c` or `t.c`) of a base table of the SELECT's FROM;
//! a name that could be a derived table's or a view's column is not derived.
//!
//! A UNION's column is derived when every member SELECT names a column of one of its base
//! tables there (inner joins only) and the columns agree: one integer type as declared, or all
//! CHAR, or all VARCHAR, of one collation (the longest length wins). It is NOT NULL when every
//! member's is, and then MariaDB shows the type's zero (`0`, the empty string) as its default.
//! Other unions (mixed types, whose result type MariaDB computes by rules of its own) are not
//! derived.

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName, Query, Select, SelectItem,
    SetExpr, SetOperator, TableFactor, TableWithJoins,
};

use crate::types::{Column, ColumnType, Table};

/// `DECIMAL_LONGLONG_DIGITS`: what SUM adds to its argument's length.
const SUM_DIGITS: u32 = 22;

/// `div_precision_increment`'s default: what AVG adds to its argument's digits and scale.
const AVG_INCREMENT: u32 = 4;

/// DECIMAL's largest precision and the largest scale the node keeps.
const MAX_PRECISION: u32 = 65;
const MAX_SCALE: u32 = 30;

/// The declaration of `expr`, a select item of `select`, when it is an aggregate of one column
/// of a base table `table_of` finds by a FROM item's table name.
pub(crate) fn aggregate_column(
    select: &Select,
    expr: &Expr,
    name: &str,
    table_of: &dyn Fn(&ObjectName) -> Option<Table>,
) -> Option<Column> {
    let Expr::Function(function) = expr else {
        return None;
    };
    if function.over.is_some()
        || function.filter.is_some()
        || function.null_treatment.is_some()
        || !function.within_group.is_empty()
    {
        return None;
    }
    let FunctionArguments::List(list) = &function.args else {
        return None;
    };
    if !list.clauses.is_empty() {
        return None;
    }
    let function_name = function
        .name
        .0
        .last()?
        .as_ident()?
        .value
        .to_ascii_uppercase();
    if function_name == "COUNT" {
        return Some(Column {
            not_null: true,
            default: Some("0".to_owned()),
            declared: "bigint(21)".to_owned(),
            ..Column::undeclared(
                name.to_owned(),
                ColumnType::Int {
                    min: i64::MIN,
                    max: i64::MAX,
                },
            )
        });
    }
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(argument))] = list.args.as_slice() else {
        return None;
    };
    let column = argument_column(select, argument, table_of)?;
    let (ty, declared) = match function_name.as_str() {
        "MIN" | "MAX" => match column.ty {
            ColumnType::Enum { .. } | ColumnType::Set { .. } | ColumnType::Bit { .. } => {
                return None;
            }
            _ if column.declared.is_empty() => return None,
            _ => (column.ty.clone(), column.declared.clone()),
        },
        "SUM" => sum_type(&column.ty)?,
        "AVG" => avg_type(&column.ty)?,
        _ => return None,
    };
    Some(Column {
        declared,
        ..Column::undeclared(name.to_owned(), ty)
    })
}

/// The declarations of a UNION's columns, where every member names a table column there and
/// the columns agree (module docs); `None` for a column that is not derived, and `None` in
/// all for a query that is not such a union.
pub(crate) fn union_columns(
    query: &Query,
    names: &[String],
    table_of: &dyn Fn(&ObjectName) -> Option<Table>,
) -> Option<Vec<Option<Column>>> {
    fn members<'q>(body: &'q SetExpr, out: &mut Vec<&'q Select>) -> Option<()> {
        match body {
            SetExpr::Select(select) => out.push(select),
            SetExpr::SetOperation {
                op: SetOperator::Union,
                left,
                right,
                ..
            } => {
                members(left, out)?;
                members(right, out)?;
            }
            _ => return None,
        }
        Some(())
    }
    if query.with.is_some() {
        return None;
    }
    let mut selects = Vec::new();
    members(&query.body, &mut selects)?;
    if selects.len() < 2 {
        return None;
    }
    let mut declared: Vec<Vec<Column>> = vec![Vec::new(); names.len()];
    for select in selects {
        let inner_joins_only = select.from.iter().all(|twj| {
            twj.joins
                .iter()
                .all(|j| crate::from::is_inner_join(&j.join_operator))
        });
        if !inner_joins_only || select.projection.len() != names.len() {
            return None;
        }
        for (at, item) in select.projection.iter().enumerate() {
            let expr = match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return None,
            };
            declared[at].push(argument_column(select, expr, table_of)?);
        }
    }
    Some(
        declared
            .iter()
            .zip(names)
            .map(|(columns, name)| merged(columns, name))
            .collect(),
    )
}

/// One column of a union's members' columns, where they agree (module docs).
fn merged(columns: &[Column], name: &str) -> Option<Column> {
    let first = columns.first()?;
    let not_null = columns.iter().all(|c| c.not_null);
    let (ty, declared, zero) = match &first.ty {
        ColumnType::Int { .. } => {
            let same = columns.iter().all(|c| {
                c.ty == first.ty
                    && !c.declared.is_empty()
                    && c.declared.eq_ignore_ascii_case(&first.declared)
            });
            if !same {
                return None;
            }
            (first.ty.clone(), first.declared.clone(), "0")
        }
        ColumnType::Char { collation, .. } | ColumnType::VarChar { collation, .. } => {
            let char_type = matches!(first.ty, ColumnType::Char { .. });
            let mut longest = 0;
            for column in columns {
                match column.ty {
                    ColumnType::Char {
                        length,
                        collation: c,
                    } if char_type && c == *collation => {
                        longest = longest.max(length);
                    }
                    ColumnType::VarChar {
                        length,
                        collation: c,
                    } if !char_type && c == *collation => {
                        longest = longest.max(length);
                    }
                    _ => return None,
                }
            }
            if char_type {
                (
                    ColumnType::Char {
                        length: longest,
                        collation: *collation,
                    },
                    format!("char({longest})"),
                    "''",
                )
            } else {
                (
                    ColumnType::VarChar {
                        length: longest,
                        collation: *collation,
                    },
                    format!("varchar({longest})"),
                    "''",
                )
            }
        }
        _ => return None,
    };
    Some(Column {
        not_null,
        default: not_null.then(|| zero.to_owned()),
        declared,
        ..Column::undeclared(name.to_owned(), ty)
    })
}

/// SUM's type: DECIMAL of the argument's length plus 22, less its sign and point.
fn sum_type(argument: &ColumnType) -> Option<(ColumnType, String)> {
    let (length, scale, signed) = match *argument {
        ColumnType::Int { min, max } => (integer_length(min, max)?, 0, min < 0),
        ColumnType::Decimal {
            precision,
            scale,
            unsigned,
        } => (
            u32::from(precision) + u32::from(scale > 0) + u32::from(!unsigned),
            u32::from(scale),
            !unsigned,
        ),
        ColumnType::Double | ColumnType::Float => return Some(double()),
        _ => return None,
    };
    let precision =
        (length + SUM_DIGITS - u32::from(scale > 0) - u32::from(signed)).min(MAX_PRECISION);
    Some(decimal(precision, scale))
}

/// AVG's type: DECIMAL of the argument's digits and scale plus 4.
fn avg_type(argument: &ColumnType) -> Option<(ColumnType, String)> {
    let (digits, scale) = match *argument {
        ColumnType::Int { min, max } => (integer_length(min, max)? - u32::from(min < 0), 0),
        ColumnType::Decimal {
            precision, scale, ..
        } => (u32::from(precision), u32::from(scale)),
        ColumnType::Double | ColumnType::Float => return Some(double()),
        _ => return None,
    };
    let scale = scale + AVG_INCREMENT;
    if scale > MAX_SCALE {
        return None;
    }
    Some(decimal((digits + AVG_INCREMENT).min(MAX_PRECISION), scale))
}

fn decimal(precision: u32, scale: u32) -> (ColumnType, String) {
    (
        ColumnType::Decimal {
            precision: u8::try_from(precision).expect("at most 65"),
            scale: u8::try_from(scale).expect("at most 30"),
            unsigned: false,
        },
        format!("decimal({precision},{scale})"),
    )
}

fn double() -> (ColumnType, String) {
    (ColumnType::Double, "double".to_owned())
}

/// An integer type's length in characters (its default display width), by its range.
fn integer_length(min: i64, max: i64) -> Option<u32> {
    Some(match (min, max) {
        (-128, 127) => 4,
        (0, 255) => 3,
        (-32_768, 32_767) => 6,
        (0, 65_535) => 5,
        (-8_388_608, 8_388_607) => 9,
        (0, 16_777_215) => 8,
        (-2_147_483_648, 2_147_483_647) => 11,
        (0, 4_294_967_295) => 10,
        (i64::MIN, i64::MAX) | (0, i64::MAX) => 20,
        _ => return None,
    })
}

/// The declaration of a column named plainly, found in the one base table of the FROM that
/// has it (or that the qualifier names); `None` when a FROM item that is not a base table
/// could be the one.
fn argument_column(
    select: &Select,
    argument: &Expr,
    table_of: &dyn Fn(&ObjectName) -> Option<Table>,
) -> Option<Column> {
    let (qualifier, column) = match argument {
        Expr::Identifier(column) => (None, column),
        Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [table, column] => (Some(&table.value), column),
            _ => return None,
        },
        _ => return None,
    };
    let mut items = Vec::new();
    for twj in &select.from {
        from_items(twj, &mut items);
    }
    let mut found = None;
    for (refer, table) in items {
        if let Some(qualifier) = qualifier
            && !refer
                .as_deref()
                .is_some_and(|r| r.eq_ignore_ascii_case(qualifier))
        {
            continue;
        }
        let table = table_of(table?)?;
        if table.view.is_some() {
            return None;
        }
        if let Some(declared) = table.column(&column.value) {
            if found.is_some() {
                return None;
            }
            found = Some(declared.clone());
        }
    }
    found
}

/// The FROM items of a join: the name each is referred to by and, for a table, its name;
/// `(None, None)` for an item whose columns are not known here.
fn from_items<'a>(
    twj: &'a TableWithJoins,
    items: &mut Vec<(Option<String>, Option<&'a ObjectName>)>,
) {
    let mut item = |factor: &'a TableFactor| match factor {
        TableFactor::Table { name, alias, .. } => {
            items.push((crate::from::refer_name(name, alias.as_ref()), Some(name)));
        }
        TableFactor::NestedJoin {
            table_with_joins,
            alias: None,
        } => from_items(table_with_joins, items),
        TableFactor::Derived { alias, .. } => {
            items.push((alias.as_ref().map(|a| a.name.value.clone()), None));
        }
        _ => items.push((None, None)),
    };
    item(&twj.relation);
    for join in &twj.joins {
        item(&join.relation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(bits: u32, unsigned: bool) -> ColumnType {
        match (bits, unsigned) {
            (64, false) => ColumnType::Int {
                min: i64::MIN,
                max: i64::MAX,
            },
            (64, true) => ColumnType::Int {
                min: 0,
                max: i64::MAX,
            },
            (_, false) => ColumnType::Int {
                min: -(1 << (bits - 1)),
                max: (1 << (bits - 1)) - 1,
            },
            (_, true) => ColumnType::Int {
                min: 0,
                max: (1 << bits) - 1,
            },
        }
    }

    fn dec(precision: u8, scale: u8, unsigned: bool) -> ColumnType {
        ColumnType::Decimal {
            precision,
            scale,
            unsigned,
        }
    }

    #[test]
    fn sum_is_sized_as_mariadb_sizes_it() {
        let shown = |ty: ColumnType| sum_type(&ty).unwrap().1;
        assert_eq!(shown(int(8, false)), "decimal(25,0)");
        assert_eq!(shown(int(8, true)), "decimal(25,0)");
        assert_eq!(shown(int(16, false)), "decimal(27,0)");
        assert_eq!(shown(int(24, false)), "decimal(30,0)");
        assert_eq!(shown(int(24, true)), "decimal(30,0)");
        assert_eq!(shown(int(32, false)), "decimal(32,0)");
        assert_eq!(shown(int(32, true)), "decimal(32,0)");
        assert_eq!(shown(int(64, false)), "decimal(41,0)");
        assert_eq!(shown(int(64, true)), "decimal(42,0)");
        assert_eq!(shown(dec(10, 2, false)), "decimal(32,2)");
        assert_eq!(shown(dec(10, 2, true)), "decimal(32,2)");
        assert_eq!(shown(dec(5, 0, false)), "decimal(27,0)");
        assert_eq!(shown(dec(65, 30, false)), "decimal(65,30)");
        assert_eq!(shown(ColumnType::Float), "double");
    }

    #[test]
    fn avg_is_sized_as_mariadb_sizes_it() {
        let shown = |ty: ColumnType| avg_type(&ty).map(|t| t.1);
        assert_eq!(shown(int(8, false)).unwrap(), "decimal(7,4)");
        assert_eq!(shown(int(8, true)).unwrap(), "decimal(7,4)");
        assert_eq!(shown(int(24, true)).unwrap(), "decimal(12,4)");
        assert_eq!(shown(int(32, false)).unwrap(), "decimal(14,4)");
        assert_eq!(shown(int(32, true)).unwrap(), "decimal(14,4)");
        assert_eq!(shown(int(64, false)).unwrap(), "decimal(23,4)");
        assert_eq!(shown(dec(10, 2, true)).unwrap(), "decimal(14,6)");
        assert_eq!(
            shown(dec(65, 30, false)),
            None,
            "scale 34 is past the node's 30"
        );
        assert_eq!(shown(ColumnType::Double).unwrap(), "double");
    }
}
