//! Expressions as MariaDB prints them back (`Item::print`): the text SHOW CREATE TABLE writes
//! for a CHECK constraint and a generated column.
//!
//! MariaDB does not keep a constraint's text as written; it prints the parsed item again, with
//! its own spelling: columns back-quoted under their declared names, operators and keywords in
//! lower case (`DIV` and `MOD` in upper case), no space after a comma, string literals in single
//! quotes with backslash escapes, some functions under their canonical names (`LENGTH` is
//! `octet_length`, `UPPER` is `ucase`), and parentheses only where precedence needs them: the
//! left operand of a binary operator is parenthesised when it binds less tightly than the
//! operator, the right one also when it binds equally, and the members of an AND or OR chain
//! are one list. It also rewrites some forms while parsing (`NOT a > 1` becomes `a <= 1`, a bare
//! column in a condition `a <> 0`, `TRUE` 1); those, and anything else whose printed form is
//! not known here, give `None`, and the caller refuses what it would have shown: a printed
//! form is MariaDB's or there is none.

use sqlparser::ast::{
    BinaryOperator, CastKind, CeilFloorKind, DataType, DateTimeField, Expr, FunctionArg,
    FunctionArgExpr, FunctionArguments, InTarget, UnaryOperator, Value,
};

use crate::types::Table;

/// MariaDB's precedence levels (`enum precedence` of its `item.h`), lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    Or,
    Xor,
    And,
    Between,
    Cmp,
    Add,
    Mul,
    Neg,
    Highest,
}

impl Precedence {
    fn higher(self) -> Self {
        match self {
            Self::Or => Self::Xor,
            Self::Xor => Self::And,
            Self::And => Self::Between,
            Self::Between => Self::Cmp,
            Self::Cmp => Self::Add,
            Self::Add => Self::Mul,
            Self::Mul => Self::Neg,
            Self::Neg | Self::Highest => Self::Highest,
        }
    }
}

/// A CHECK condition over `table`'s columns as MariaDB's SHOW CREATE TABLE writes it inside
/// `CHECK (…)`, or `None` where MariaDB's printed form is not known.
pub(crate) fn check_clause(condition: &Expr, table: &Table) -> Option<String> {
    let printer = Printer { table };
    if !printer.is_condition(condition) {
        return None;
    }
    Some(printer.print(condition)?.0)
}

/// A generated column's expression over `table`'s columns as MariaDB writes it after
/// `GENERATED ALWAYS AS (`, or `None` where MariaDB's printed form is not known.
pub(crate) fn expression(e: &Expr, table: &Table) -> Option<String> {
    Some(Printer { table }.print(e)?.0)
}

/// The columns of `table` that `e` reads, as declared, each once, in the order first read.
pub(crate) fn columns_read(e: &Expr, table: &Table) -> Vec<String> {
    let mut read: Vec<String> = Vec::new();
    let _ = sqlparser::ast::visit_expressions(e, |e| {
        let name = match e {
            Expr::Identifier(id) => Some(&id.value),
            Expr::CompoundIdentifier(ids) => ids.last().map(|id| &id.value),
            _ => None,
        };
        if let Some(column) = name.and_then(|n| table.column(n))
            && !read.contains(&column.name)
        {
            read.push(column.name.clone());
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    read
}

struct Printer<'a> {
    table: &'a Table,
}

impl Printer<'_> {
    /// Whether MariaDB keeps `e` as it is where a truth value is read (it rewrites a bare value
    /// to `e <> 0` and a NOT to the negated comparison).
    fn is_condition(&self, e: &Expr) -> bool {
        match e {
            Expr::Nested(inner) => self.is_condition(inner),
            Expr::BinaryOp { left, op, right } => match op {
                BinaryOperator::And | BinaryOperator::Or => {
                    self.is_condition(left) && self.is_condition(right)
                }
                BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq
                | BinaryOperator::Spaceship => true,
                _ => false,
            },
            Expr::IsNull(_)
            | Expr::IsNotNull(_)
            | Expr::Between { .. }
            | Expr::Like { .. }
            | Expr::RLike { negated: false, .. }
            | Expr::In {
                target: InTarget::List(_),
                ..
            } => true,
            Expr::Function(f) => function_name(f).as_deref() == Some("json_valid"),
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } => self.is_condition(expr),
            _ => false,
        }
    }

    /// `e` printed, with the precedence it binds at.
    fn print(&self, e: &Expr) -> Option<(String, Precedence)> {
        use Precedence as P;
        Some(match e {
            Expr::Identifier(id) => (self.column(&id.value)?, P::Highest),
            Expr::CompoundIdentifier(ids) => match ids.as_slice() {
                [table, column] if table.value.eq_ignore_ascii_case(&self.table.name) => {
                    (self.column(&column.value)?, P::Highest)
                }
                _ => return None,
            },
            Expr::Value(v) => (literal(&v.value)?, P::Highest),
            Expr::Nested(inner) => self.print(inner)?,
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => match &**expr {
                Expr::Value(v) => match &v.value {
                    Value::Number(n, false) => (format!("-{}", number(n)?), P::Highest),
                    _ => return None,
                },
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Function(_) => {
                    (format!("-{}", self.print(expr)?.0), P::Neg)
                }
                _ => return None,
            },
            // MariaDB pushes NOT into the condition it negates.
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } if self.is_condition(expr) => self.print(&negated(expr)?)?,
            Expr::UnaryOp {
                op: UnaryOperator::Plus,
                expr,
            } => match &**expr {
                Expr::Value(v) if matches!(v.value, Value::Number(_, false)) => self.print(expr)?,
                _ => return None,
            },
            Expr::BinaryOp { left, op, right } => {
                let (word, precedence) = match op {
                    BinaryOperator::And | BinaryOperator::Or => {
                        return self.chain(e, op);
                    }
                    BinaryOperator::Eq => ("=", P::Cmp),
                    BinaryOperator::NotEq => ("<>", P::Cmp),
                    BinaryOperator::Lt => ("<", P::Cmp),
                    BinaryOperator::LtEq => ("<=", P::Cmp),
                    BinaryOperator::Gt => (">", P::Cmp),
                    BinaryOperator::GtEq => (">=", P::Cmp),
                    BinaryOperator::Spaceship => ("<=>", P::Cmp),
                    BinaryOperator::Plus => ("+", P::Add),
                    BinaryOperator::Minus => ("-", P::Add),
                    BinaryOperator::Multiply => ("*", P::Mul),
                    BinaryOperator::Divide => ("/", P::Mul),
                    BinaryOperator::MyIntegerDivide => ("DIV", P::Mul),
                    BinaryOperator::Modulo => ("MOD", P::Mul),
                    _ => return None,
                };
                // MariaDB folds a comparison whose operand is a comparison in ways not
                // followed here.
                if precedence == P::Cmp && [left, right].iter().any(|side| self.is_condition(side))
                {
                    return None;
                }
                let left = self.operand(left, precedence)?;
                let right = self.operand(right, precedence.higher())?;
                (format!("{left} {word} {right}"), precedence)
            }
            Expr::IsNull(x) => (format!("{} is null", self.operand(x, P::Cmp)?), P::Cmp),
            Expr::IsNotNull(x) => (format!("{} is not null", self.operand(x, P::Cmp)?), P::Cmp),
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let not = if *negated { "not " } else { "" };
                (
                    format!(
                        "{} {not}between {} and {}",
                        self.operand(expr, P::Between.higher())?,
                        self.operand(low, P::Between.higher())?,
                        self.operand(high, P::Between.higher())?
                    ),
                    P::Between,
                )
            }
            Expr::In {
                expr,
                target: InTarget::List(list),
                negated,
                ..
            } => {
                // MariaDB makes `a IN (x)` a comparison.
                if let [item] = list.as_slice() {
                    let op = if *negated { "<>" } else { "=" };
                    let left = self.operand(expr, P::Cmp)?;
                    let right = self.operand(item, P::Cmp.higher())?;
                    return Some((format!("{left} {op} {right}"), P::Cmp));
                }
                let items = list
                    .iter()
                    .map(|i| Some(self.print(i)?.0))
                    .collect::<Option<Vec<_>>>()?;
                let not = if *negated { "not " } else { "" };
                (
                    format!(
                        "{} {not}in ({})",
                        self.operand(expr, P::Cmp)?,
                        items.join(",")
                    ),
                    P::Cmp,
                )
            }
            Expr::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            } => {
                // MariaDB writes a space before " not " as well (`a  not like 'x'`).
                let not = if *negated { " not " } else { "" };
                (
                    format!(
                        "{} {not}like {}",
                        self.operand(expr, P::Cmp.higher())?,
                        self.operand(pattern, P::Cmp.higher())?
                    ),
                    P::Cmp,
                )
            }
            Expr::RLike {
                negated: false,
                expr,
                pattern,
                ..
            } => (
                format!(
                    "{} regexp {}",
                    self.operand(expr, P::Cmp.higher())?,
                    self.operand(pattern, P::Cmp.higher())?
                ),
                P::Cmp,
            ),
            Expr::Function(f) => (self.function(f)?, P::Highest),
            Expr::Ceil {
                expr,
                field: CeilFloorKind::DateTimeField(DateTimeField::NoDateTime),
            } => (format!("ceiling({})", self.print(expr)?.0), P::Highest),
            Expr::Floor {
                expr,
                field: CeilFloorKind::DateTimeField(DateTimeField::NoDateTime),
            } => (format!("floor({})", self.print(expr)?.0), P::Highest),
            Expr::Trim {
                trim_where: None,
                trim_what: None,
                expr,
                trim_characters: None,
            } => (format!("trim({})", self.print(expr)?.0), P::Highest),
            Expr::Substring {
                expr,
                substring_from: Some(from),
                substring_for,
                ..
            } => {
                let mut args = vec![self.print(expr)?.0, self.print(from)?.0];
                if let Some(length) = substring_for {
                    args.push(self.print(length)?.0);
                }
                (format!("substr({})", args.join(",")), P::Highest)
            }
            Expr::Cast {
                kind: CastKind::Cast,
                expr,
                data_type,
                format: None,
                ..
            } => {
                let ty = match data_type {
                    DataType::Signed | DataType::SignedInteger => "signed",
                    DataType::Unsigned | DataType::UnsignedInteger => "unsigned",
                    _ => return None,
                };
                (format!("cast({} as {ty})", self.print(expr)?.0), P::Highest)
            }
            _ => return None,
        })
    }

    /// An operand, parenthesised when it binds less tightly than `at`.
    fn operand(&self, e: &Expr, at: Precedence) -> Option<String> {
        let (text, precedence) = self.print(e)?;
        Some(if precedence < at {
            format!("({text})")
        } else {
            text
        })
    }

    /// An AND or OR chain, one list as MariaDB keeps it (`a and (b and c)` is `a and b and c`).
    fn chain(&self, e: &Expr, op: &BinaryOperator) -> Option<(String, Precedence)> {
        let (word, precedence) = match op {
            BinaryOperator::And => ("and", Precedence::And),
            _ => ("or", Precedence::Or),
        };
        let mut members = Vec::new();
        collect_chain(e, op, &mut members);
        let printed = members
            .iter()
            .map(|m| self.operand(m, precedence))
            .collect::<Option<Vec<_>>>()?;
        Some((printed.join(&format!(" {word} ")), precedence))
    }

    fn function(&self, f: &sqlparser::ast::Function) -> Option<String> {
        if f.over.is_some() || f.filter.is_some() || !f.within_group.is_empty() {
            return None;
        }
        let FunctionArguments::List(list) = &f.args else {
            return None;
        };
        if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
            return None;
        }
        let args = list
            .args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(self.print(e)?.0),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let name = function_name(f)?;
        let (shown, arity) = canonical_function(&name)?;
        if !arity.contains(&args.len()) {
            return None;
        }
        // MariaDB writes ROUND's default number of decimals.
        if shown == "round" && args.len() == 1 {
            return Some(format!("round({},0)", args[0]));
        }
        Some(format!("{shown}({})", args.join(",")))
    }

    fn column(&self, name: &str) -> Option<String> {
        let column = self.table.column(name)?;
        Some(format!("`{}`", column.name.replace('`', "``")))
    }
}

/// The condition `NOT e` as MariaDB rewrites it while parsing: a comparison inverted, an AND
/// or OR by De Morgan's laws, the negated form of IS NULL, BETWEEN, IN and LIKE, a double NOT
/// dropped. `None` for what it keeps as `!(…)`.
fn negated(e: &Expr) -> Option<Expr> {
    Some(match e {
        Expr::Nested(inner) => negated(inner)?,
        Expr::BinaryOp { left, op, right } => {
            let op = match op {
                BinaryOperator::And | BinaryOperator::Or => {
                    let op = if *op == BinaryOperator::And {
                        BinaryOperator::Or
                    } else {
                        BinaryOperator::And
                    };
                    return Some(Expr::BinaryOp {
                        left: Box::new(negated(left)?),
                        op,
                        right: Box::new(negated(right)?),
                    });
                }
                BinaryOperator::Eq => BinaryOperator::NotEq,
                BinaryOperator::NotEq => BinaryOperator::Eq,
                BinaryOperator::Lt => BinaryOperator::GtEq,
                BinaryOperator::LtEq => BinaryOperator::Gt,
                BinaryOperator::Gt => BinaryOperator::LtEq,
                BinaryOperator::GtEq => BinaryOperator::Lt,
                _ => return None,
            };
            Expr::BinaryOp {
                left: left.clone(),
                op,
                right: right.clone(),
            }
        }
        Expr::IsNull(x) => Expr::IsNotNull(x.clone()),
        Expr::IsNotNull(x) => Expr::IsNull(x.clone()),
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => Expr::Between {
            expr: expr.clone(),
            negated: !negated,
            low: low.clone(),
            high: high.clone(),
        },
        Expr::In {
            expr,
            target: target @ InTarget::List(_),
            negated,
            global,
        } => Expr::In {
            expr: expr.clone(),
            target: target.clone(),
            negated: !negated,
            global: *global,
        },
        Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => Expr::Like {
            negated: !negated,
            any: false,
            expr: expr.clone(),
            pattern: pattern.clone(),
            escape_char: escape_char.clone(),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => match &**expr {
            Expr::Nested(inner) => (**inner).clone(),
            other => other.clone(),
        },
        _ => return None,
    })
}

fn collect_chain<'e>(e: &'e Expr, op: &BinaryOperator, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: inner,
            right,
        } if inner == op => {
            collect_chain(left, op, out);
            collect_chain(right, op, out);
        }
        Expr::Nested(inner) if matches!(&**inner, Expr::BinaryOp { op: o, .. } if o == op) => {
            collect_chain(inner, op, out);
        }
        _ => out.push(e),
    }
}

fn function_name(f: &sqlparser::ast::Function) -> Option<String> {
    match f.name.0.as_slice() {
        [part] => Some(part.as_ident()?.value.to_ascii_lowercase()),
        _ => None,
    }
}

/// The name MariaDB prints a function under, and the argument counts for which that is known.
fn canonical_function(name: &str) -> Option<(&'static str, std::ops::RangeInclusive<usize>)> {
    Some(match name {
        "length" | "octet_length" => ("octet_length", 1..=1),
        "char_length" | "character_length" => ("char_length", 1..=1),
        "lower" | "lcase" => ("lcase", 1..=1),
        "upper" | "ucase" => ("ucase", 1..=1),
        "substring" | "substr" | "mid" => ("substr", 2..=3),
        "ceil" | "ceiling" => ("ceiling", 1..=1),
        "floor" => ("floor", 1..=1),
        "round" => ("round", 1..=2),
        "abs" => ("abs", 1..=1),
        "sign" => ("sign", 1..=1),
        "trim" => ("trim", 1..=1),
        "ltrim" => ("ltrim", 1..=1),
        "rtrim" => ("rtrim", 1..=1),
        "left" => ("left", 2..=2),
        "right" => ("right", 2..=2),
        "replace" => ("replace", 3..=3),
        "reverse" => ("reverse", 1..=1),
        "repeat" => ("repeat", 2..=2),
        "lpad" => ("lpad", 3..=3),
        "rpad" => ("rpad", 3..=3),
        "concat" => ("concat", 1..=usize::MAX),
        "concat_ws" => ("concat_ws", 2..=usize::MAX),
        "coalesce" => ("coalesce", 1..=usize::MAX),
        "greatest" => ("greatest", 2..=usize::MAX),
        "least" => ("least", 2..=usize::MAX),
        "ifnull" => ("ifnull", 2..=2),
        "nullif" => ("nullif", 2..=2),
        "if" => ("if", 3..=3),
        "locate" => ("locate", 2..=3),
        "field" => ("field", 2..=usize::MAX),
        "find_in_set" => ("find_in_set", 2..=2),
        "hex" => ("hex", 1..=1),
        "year" => ("year", 1..=1),
        "month" => ("month", 1..=1),
        "json_valid" => ("json_valid", 1..=1),
        "json_length" => ("json_length", 1..=1),
        "json_type" => ("json_type", 1..=1),
        "json_unquote" => ("json_unquote", 1..=1),
        "json_extract" => ("json_extract", 2..=usize::MAX),
        _ => return None,
    })
}

fn literal(v: &Value) -> Option<String> {
    Some(match v {
        Value::Number(n, false) => number(n)?,
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => string(s),
        Value::Null => "NULL".to_owned(),
        _ => return None,
    })
}

/// A number literal in a form MariaDB prints as written: digits, with a fraction or an
/// exponent.
fn number(n: &str) -> Option<String> {
    let (mantissa, exponent) = match n.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (n, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => digits(int) && digits(frac),
        None => digits(mantissa) && (mantissa == "0" || !mantissa.starts_with('0')),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix('-').unwrap_or(e)));
    (mantissa_ok && exponent_ok).then(|| n.to_owned())
}

/// A string literal as MariaDB quotes it (`String::append_for_single_quote`).
fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Column, ColumnType};

    fn table() -> Table {
        Table {
            name: "t".into(),
            columns: ["a", "B", "c"]
                .iter()
                .map(|n| Column::undeclared((*n).into(), ColumnType::Int { min: 0, max: 9 }))
                .collect(),
            ..Table::default()
        }
    }

    fn shown(condition: &str) -> Option<String> {
        let sql = format!("SELECT 1 FROM t WHERE {condition}");
        let statements =
            sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::MySqlDialect {}, &sql)
                .unwrap();
        let sqlparser::ast::Statement::Query(q) = &statements[0] else {
            panic!("not a query: {sql}");
        };
        let sqlparser::ast::SetExpr::Select(select) = &*q.body else {
            panic!("not a select: {sql}");
        };
        check_clause(select.selection.as_ref().unwrap(), &table())
    }

    #[test]
    fn columns_take_their_declared_names_and_operators_mariadb_spelling() {
        assert_eq!(shown("A > 0").as_deref(), Some("`a` > 0"));
        assert_eq!(shown("b != 'x'").as_deref(), Some("`B` <> 'x'"));
        assert_eq!(shown("t.a % 3 <> 1").as_deref(), Some("`a` MOD 3 <> 1"));
        assert_eq!(shown("a DIV 2 <> 7").as_deref(), Some("`a` DIV 2 <> 7"));
    }

    #[test]
    fn parentheses_follow_precedence() {
        assert_eq!(
            shown("(a + 1) * 2 > 3 - (4 - a)").as_deref(),
            Some("(`a` + 1) * 2 > 3 - (4 - `a`)")
        );
        assert_eq!(
            shown("(a > 1 or b > 1) and (c = 1 and a = 2)").as_deref(),
            Some("(`a` > 1 or `B` > 1) and `c` = 1 and `a` = 2")
        );
        assert_eq!(
            shown("a is null or b is not null and c between -1 and +5").as_deref(),
            Some("`a` is null or `B` is not null and `c` between -1 and 5")
        );
    }

    #[test]
    fn literals_and_functions_print_as_mariadb_prints_them() {
        assert_eq!(
            shown(r#"b = 'it''s' or b = "q" or b <> 'a\\b\nc'"#).as_deref(),
            Some(r"`B` = 'it\'s' or `B` = 'q' or `B` <> 'a\\b\nc'")
        );
        assert_eq!(
            shown("length(b) < 5 and substring(b, 1, 2) <> 'zz' and round(a) = 1").as_deref(),
            Some("octet_length(`B`) < 5 and substr(`B`,1,2) <> 'zz' and round(`a`,0) = 1")
        );
        assert_eq!(
            shown("b not like 'x%' and b not in ('p', 'q') and json_valid(b)").as_deref(),
            Some("`B`  not like 'x%' and `B` not in ('p','q') and json_valid(`B`)")
        );
    }

    #[test]
    fn not_is_pushed_into_the_condition_as_mariadb_pushes_it() {
        assert_eq!(shown("NOT a > 1").as_deref(), Some("`a` <= 1"));
        assert_eq!(
            shown("NOT (a = 1 OR b <> 'x')").as_deref(),
            Some("`a` <> 1 and `B` = 'x'")
        );
        assert_eq!(
            shown("NOT (a > 1 AND NOT b = 'z')").as_deref(),
            Some("`a` <= 1 or `B` = 'z'")
        );
        assert_eq!(
            shown("NOT a IS NULL AND NOT a BETWEEN 1 AND 2").as_deref(),
            Some("`a` is not null and `a` not between 1 and 2")
        );
        assert_eq!(
            shown("b IN ('x') AND b NOT IN ('y')").as_deref(),
            Some("`B` = 'x' and `B` <> 'y'")
        );
    }

    #[test]
    fn forms_mariadb_rewrites_have_no_printed_form() {
        for condition in [
            "NOT (a <=> 1)",
            "a",
            "a > 1 AND TRUE",
            "(a > 1) = (b < 2)",
            "instr(b, 'y') > 0",
            "d > 0",
            "a > 0x10",
        ] {
            assert_eq!(shown(condition), None, "{condition}");
        }
    }
}
