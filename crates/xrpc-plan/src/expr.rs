//! `expr.proto` expressions compiled into SQL fragments over a relation's output columns.
//!
//! Operators (named as in the MySQL X protocol, which upstream's planner emits):
//!
//! | plan name | SQL |
//! | --- | --- |
//! | `==`, `!=`, `<`, `<=`, `>`, `>=` | `=`, `<>`, `<`, `<=`, `>`, `>=` |
//! | `&&`, `\|\|`, `not` / `!` | `AND`, `OR`, `NOT` |
//! | `+`, `-`, `*` | the same |
//! | `&`, `\|`, `<<`, `>>`, `~` | the same bit operations |
//! | `sign_plus`, `sign_minus` | unary `+`, `-` |
//! | `is`, `is_not` | `IS`, `IS NOT` (right side a NULL, TRUE or FALSE literal) |
//! | `in`, `not_in` | `IN (…)`, `NOT IN (…)` |
//! | `between`, `not_between` | `BETWEEN … AND …` |
//! | `like`, `not_like` | `LIKE`, `NOT LIKE` (no ESCAPE argument) |
//!
//! Functions: `abs`, `lower`, `upper`, `coalesce`, `ifnull`, `nullif`, `if` (compiled as a
//! CASE).
//!
//! Refused with 1235 rather than answered differently from MySQL on one of the engines: `/`,
//! `div` and `%` (SQLite divides integers as integers and has no DIV), `xor` and `^` (SQLite has
//! neither), `length` and `char_length` (SQLite counts characters where MySQL's LENGTH counts
//! bytes), and every other operator or function.
//!
//! Every operand is parenthesised, so the engines' precedence never decides anything.

use xrpc_proto::messages::pb;
use xrpc_proto::value::Value;

use super::{Frag, MAX_EXPR_DEPTH, Output, Params, PlanError, malformed};

use pb::expr::Expr;
use pb::expr::expr::Type as ExprType;

/// Compiles `expr` over `inputs`. With `allow_star`, an IDENT named `*` is `*` (COUNT(*)).
pub(super) fn compile(
    expr: &Expr,
    inputs: &[Output],
    params: &Params<'_>,
    allow_star: bool,
) -> Result<Frag, PlanError> {
    let mut compiler = ExprCompiler {
        inputs,
        params,
        depth: 0,
    };
    if allow_star && is_star(expr) {
        return Ok(Frag::text("*"));
    }
    compiler.expr(expr)
}

fn is_star(expr: &Expr) -> bool {
    expr.r#type == ExprType::Ident as i32
        && expr
            .identifier
            .as_ref()
            .is_some_and(|i| i.name.as_deref() == Some("*"))
}

struct ExprCompiler<'a> {
    inputs: &'a [Output],
    params: &'a Params<'a>,
    depth: usize,
}

fn unsupported(what: impl Into<String>) -> PlanError {
    PlanError::Unsupported(what.into())
}

impl ExprCompiler<'_> {
    fn expr(&mut self, expr: &Expr) -> Result<Frag, PlanError> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(malformed(format!(
                "an expression is nested more than {MAX_EXPR_DEPTH} levels deep"
            )));
        }
        let frag = self.node(expr);
        self.depth -= 1;
        frag
    }

    fn node(&mut self, expr: &Expr) -> Result<Frag, PlanError> {
        match ExprType::try_from(expr.r#type) {
            Ok(ExprType::Ident) => {
                let ident = expr
                    .identifier
                    .as_ref()
                    .ok_or_else(|| malformed("IDENT without identifier"))?;
                if !ident.document_path.is_empty() {
                    return Err(unsupported("JSON document paths in plan expressions"));
                }
                let name = ident
                    .name
                    .as_deref()
                    .ok_or_else(|| malformed("IDENT without a name"))?;
                self.inputs
                    .iter()
                    .find(|o| o.name.eq_ignore_ascii_case(name))
                    .map(|o| paren(&o.expr))
                    .ok_or_else(|| PlanError::UnknownColumn(name.to_owned(), "expression".into()))
            }
            Ok(ExprType::Ref) => {
                let id = expr.ref_id.ok_or_else(|| malformed("REF without ref_id"))?;
                self.inputs
                    .get(id as usize)
                    .map(|o| paren(&o.expr))
                    .ok_or_else(|| PlanError::UnknownColumn(format!("#{id}"), "expression".into()))
            }
            Ok(ExprType::Literal) => {
                let literal = expr
                    .literal
                    .as_ref()
                    .ok_or_else(|| malformed("LITERAL without literal"))?;
                let (value, param) = self.params.arg(literal)?;
                Ok(self.value_frag(value, param))
            }
            Ok(ExprType::Placeholder) => {
                let position = expr
                    .position
                    .ok_or_else(|| malformed("PLACEHOLDER without position"))?;
                let value = self.params.placeholder(position)?;
                Ok(self.value_frag(value, Some(position)))
            }
            Ok(ExprType::Operator) => {
                let op = expr
                    .operator
                    .as_ref()
                    .ok_or_else(|| malformed("OPERATOR without operator"))?;
                self.operator(&op.name, &op.param)
            }
            Ok(ExprType::FuncCall) => {
                let call = expr
                    .function_call
                    .as_ref()
                    .ok_or_else(|| malformed("FUNC_CALL without function_call"))?;
                if call
                    .name
                    .schema_name
                    .as_deref()
                    .is_some_and(|s| !s.is_empty())
                {
                    return Err(unsupported("schema-qualified functions in plans"));
                }
                self.function(&call.name.name, &call.param)
            }
            Ok(ExprType::Variable) => Err(unsupported("VARIABLE expressions in plans")),
            Ok(ExprType::Object) => Err(unsupported("OBJECT expressions in plans")),
            Ok(ExprType::Array) => Err(unsupported("ARRAY expressions in plans")),
            Err(_) => Err(malformed(format!(
                "unknown expression type {}",
                expr.r#type
            ))),
        }
    }

    fn args(&mut self, params: &[Expr]) -> Result<Vec<Frag>, PlanError> {
        params.iter().map(|p| self.expr(p)).collect()
    }

    fn operator(&mut self, name: &str, params: &[Expr]) -> Result<Frag, PlanError> {
        let arity = |n: usize| -> Result<(), PlanError> {
            if params.len() == n {
                Ok(())
            } else {
                Err(malformed(format!(
                    "operator '{name}' takes {n} operands, got {}",
                    params.len()
                )))
            }
        };
        let lower = name.to_ascii_lowercase();
        let binary = match lower.as_str() {
            "==" => Some("="),
            "!=" => Some("<>"),
            "<" => Some("<"),
            "<=" => Some("<="),
            ">" => Some(">"),
            ">=" => Some(">="),
            "&&" => Some("AND"),
            "||" => Some("OR"),
            "+" => Some("+"),
            "-" => Some("-"),
            "*" => Some("*"),
            "&" => Some("&"),
            "|" => Some("|"),
            "<<" => Some("<<"),
            ">>" => Some(">>"),
            _ => None,
        };
        if let Some(sql_op) = binary {
            arity(2)?;
            let args = self.args(params)?;
            return Ok(join(&args, &format!(" {sql_op} ")));
        }
        match lower.as_str() {
            "not" | "!" => {
                arity(1)?;
                let arg = self.expr(&params[0])?;
                Ok(prefix("NOT ", &arg))
            }
            "sign_minus" => {
                arity(1)?;
                let arg = self.expr(&params[0])?;
                Ok(prefix("-", &arg))
            }
            "sign_plus" => {
                arity(1)?;
                self.expr(&params[0])
            }
            "~" => {
                arity(1)?;
                let arg = self.expr(&params[0])?;
                Ok(prefix("~", &arg))
            }
            "is" | "is_not" => {
                arity(2)?;
                let left = self.expr(&params[0])?;
                let right = is_operand(&params[1])?;
                let op = if lower == "is" { "IS" } else { "IS NOT" };
                let mut frag = paren(&left);
                frag.sql.push_str(&format!(" {op} {right}"));
                Ok(paren(&frag))
            }
            "in" | "not_in" => {
                if params.len() < 2 {
                    return Err(malformed(format!(
                        "operator '{name}' needs a value and at least one candidate"
                    )));
                }
                let args = self.args(params)?;
                let mut frag = args[0].clone();
                frag.sql
                    .push_str(if lower == "in" { " IN (" } else { " NOT IN (" });
                frag.push(&join(&args[1..], ", "));
                frag.sql.push(')');
                Ok(paren(&frag))
            }
            "between" | "not_between" => {
                arity(3)?;
                let args = self.args(params)?;
                let mut frag = args[0].clone();
                frag.sql.push_str(if lower == "between" {
                    " BETWEEN "
                } else {
                    " NOT BETWEEN "
                });
                frag.push(&args[1]);
                frag.sql.push_str(" AND ");
                frag.push(&args[2]);
                Ok(paren(&frag))
            }
            "like" | "not_like" => {
                arity(2)?;
                let args = self.args(params)?;
                let op = if lower == "like" {
                    " LIKE "
                } else {
                    " NOT LIKE "
                };
                Ok(join(&args, op))
            }
            _ => Err(unsupported(format!("the operator '{name}' in plans"))),
        }
    }

    fn function(&mut self, name: &str, params: &[Expr]) -> Result<Frag, PlanError> {
        let lower = name.to_ascii_lowercase();
        let arity_in = |min: usize, max: usize| -> Result<(), PlanError> {
            if (min..=max).contains(&params.len()) {
                Ok(())
            } else {
                Err(malformed(format!(
                    "function '{name}' takes {min}..={max} arguments, got {}",
                    params.len()
                )))
            }
        };
        let sql_name = match lower.as_str() {
            "abs" | "lower" | "upper" => {
                arity_in(1, 1)?;
                lower.to_ascii_uppercase()
            }
            "coalesce" => {
                arity_in(1, usize::MAX)?;
                "COALESCE".into()
            }
            "ifnull" => {
                arity_in(2, 2)?;
                "IFNULL".into()
            }
            "nullif" => {
                arity_in(2, 2)?;
                "NULLIF".into()
            }
            "if" => {
                arity_in(3, 3)?;
                let args = self.args(params)?;
                let mut frag = Frag::text("(CASE WHEN ");
                frag.push(&args[0]);
                frag.sql.push_str(" THEN ");
                frag.push(&args[1]);
                frag.sql.push_str(" ELSE ");
                frag.push(&args[2]);
                frag.sql.push_str(" END)");
                return Ok(frag);
            }
            _ => return Err(unsupported(format!("the function '{name}' in plans"))),
        };
        let args = self.args(params)?;
        let mut frag = Frag::text(format!("{sql_name}("));
        frag.push(&join(&args, ", "));
        frag.sql.push(')');
        Ok(frag)
    }
}

/// The right side of IS / IS NOT: only the literals SQL allows there.
fn is_operand(expr: &Expr) -> Result<&'static str, PlanError> {
    use pb::datatypes::scalar::Type as ScalarType;
    let literal = (expr.r#type == ExprType::Literal as i32)
        .then_some(expr.literal.as_ref())
        .flatten()
        .ok_or_else(|| malformed("the right side of 'is' must be a NULL, TRUE or FALSE literal"))?;
    match ScalarType::try_from(literal.r#type) {
        Ok(ScalarType::VNull) => Ok("NULL"),
        Ok(ScalarType::VBool) if literal.v_bool == Some(true) => Ok("TRUE"),
        Ok(ScalarType::VBool) if literal.v_bool == Some(false) => Ok("FALSE"),
        _ => Err(malformed(
            "the right side of 'is' must be a NULL, TRUE or FALSE literal",
        )),
    }
}

impl ExprCompiler<'_> {
    /// A value as a `?`, or NULL as the keyword (a bound NULL is untyped on both engines; the
    /// keyword reads the same everywhere), which makes a parameter's NULL part of the text.
    fn value_frag(&self, value: Value, param: Option<u32>) -> Frag {
        match value {
            Value::Null => {
                self.params.shaped(param, &value);
                Frag::text("NULL")
            }
            value => Frag::arg(value, param),
        }
    }
}

fn paren(frag: &Frag) -> Frag {
    let mut out = Frag::text("(");
    out.push(frag);
    out.sql.push(')');
    out
}

fn prefix(op: &str, arg: &Frag) -> Frag {
    let mut out = Frag::text(format!("({op}"));
    out.push(&paren(arg));
    out.sql.push(')');
    out
}

/// `(a) op (b) op (c)`, parenthesised as a whole.
fn join(args: &[Frag], op: &str) -> Frag {
    let mut out = Frag::text("(");
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.sql.push_str(op);
        }
        out.push(&paren(arg));
    }
    out.sql.push(')');
    out
}
