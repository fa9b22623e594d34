//! Expressions: each MySQL expression becomes SQLite SQL with its MySQL type, and the type
//! decides the operators around it (see the crate docs for the rules).

use sqlparser::ast::{
    BinaryOperator, CastKind, CeilFloorKind, DateTimeField, Expr, Function, FunctionArg,
    FunctionArgExpr, FunctionArgumentClause, FunctionArguments, Ident, InTarget, ObjectNamePart,
    TrimWhereField, UnaryOperator, Value,
};

use crate::error::{TranslateError, unsupported};
use crate::library::{self, CallSite};
use crate::translate::Translator;
use crate::typed::{
    Compare, Strength, Typed, as_text, collation_of, compare, compare_class, compare_unrounded,
    convert_to, distinct_key, group_key, integer_reading, quote, real_operand, truth, unify,
};
use crate::types::{Collation, Ty};

type Result<T> = std::result::Result<T, TranslateError>;

impl Translator<'_> {
    /// Translates an expression.
    pub(crate) fn expr(&mut self, e: &Expr) -> Result<Typed> {
        // Leave `enum_ok` only to a column reference it was set for, never to the parts of
        // another expression.
        let reference = matches!(
            e,
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Nested(_)
        );
        self.enum_ok &= reference;
        self.time_ok &= reference;
        self.bit_ok &= reference;
        let out = self.expr_of(e);
        self.enum_ok = false;
        self.time_ok = false;
        self.bit_ok = false;
        out
    }

    fn expr_of(&mut self, e: &Expr) -> Result<Typed> {
        match e {
            Expr::Identifier(id) => self.identifier(std::slice::from_ref(id)),
            Expr::CompoundIdentifier(ids) => self.identifier(ids),
            Expr::Value(v) => match &v.value {
                Value::Placeholder(p) if p == "?" => Ok(self.placeholder(v.span.start)),
                other => literal(other),
            },
            Expr::Nested(inner) => {
                let t = self.expr(inner)?;
                Ok(Typed {
                    sql: format!("({})", t.sql),
                    ..t
                })
            }
            Expr::BinaryOp { left, op, right } => self.binary(left, op, right),
            Expr::UnaryOp { op, expr } => self.unary(op, expr),
            Expr::IsNull(x) => self.postfix(x, "IS NULL"),
            Expr::IsNotNull(x) => self.postfix(x, "IS NOT NULL"),
            Expr::IsTrue(x) => self.truth(x, "coalesce(({}) <> 0, 0)"),
            Expr::IsNotTrue(x) => self.truth(x, "coalesce(({}) = 0, 1)"),
            Expr::IsFalse(x) => self.truth(x, "coalesce(({}) = 0, 0)"),
            Expr::IsNotFalse(x) => self.truth(x, "coalesce(({}) <> 0, 1)"),
            Expr::IsUnknown(x) => self.postfix(x, "IS NULL"),
            Expr::IsNotUnknown(x) => self.postfix(x, "IS NOT NULL"),
            Expr::In {
                expr,
                target: InTarget::List(list),
                negated,
                ..
            } => {
                let name_lookup = std::mem::take(&mut self.name_lookup);
                // An ENUM compared with strings compares its text.
                self.enum_ok = list.iter().all(is_string_literal);
                let l = self.expr(expr)?.compared();
                let l = if name_lookup { exact_name(l) } else { l };
                let items: Vec<Typed> = list
                    .iter()
                    .map(|i| Ok(self.expr(i)?.compared()))
                    .collect::<Result<_>>()?;
                // Text compares under one collation for the whole list, MySQL's aggregate.
                let mut strongest = l.clone();
                for r in &items {
                    if let (Ty::Str(_), Ty::Str(_)) = (strongest.ty, r.ty) {
                        let c = collation_of(&strongest, r)?;
                        strongest = Typed {
                            ty: Ty::Str(c),
                            strength: strongest.strength.min(r.strength),
                            ..strongest
                        };
                    }
                }
                let pinned = |t: &Typed| match (t.ty, strongest.ty) {
                    (Ty::Str(_), Ty::Str(c)) => Typed {
                        ty: Ty::Str(c),
                        strength: Strength::Explicit,
                        ..t.clone()
                    },
                    _ => t.clone(),
                };
                let mut parts = Vec::new();
                for r in &items {
                    let (a, b) = (pinned(&l), pinned(r));
                    let (a, b) = (self.strictly(a.clone(), &b), self.strictly(b, &a));
                    parts.push(compare("=", &a, &b)?.sql);
                }
                let any = format!("({})", parts.join(" OR "));
                Ok(Typed::with_parts(negate(any, *negated), Ty::Int, &[&l]))
            }
            Expr::In {
                expr,
                target: InTarget::Subquery(subquery),
                negated,
                ..
            } => {
                // MySQL's own refusal, in the words it gives.
                if subquery.limit_clause.is_some() || subquery.fetch.is_some() {
                    return unsupported("LIMIT & IN/ALL/ANY/SOME subquery");
                }
                let l = self.expr(expr)?.compared();
                let (sql, columns) = self.subquery(subquery)?;
                if columns.len() != 1 {
                    return Err(TranslateError::OperandColumns(1));
                }
                let probe = Typed::new("x", columns[0].ty);
                let lhs = match compare_class(&l, &probe)? {
                    Compare::Text(c) => format!("{} COLLATE {}", l.sql, c.sqlite_name()),
                    Compare::Native => l.sql.clone(),
                    _ => return unsupported("IN (subquery) over values of different types"),
                };
                let not = if *negated { "NOT " } else { "" };
                Ok(Typed::with_parts(
                    format!("({lhs} {not}IN ({sql}))"),
                    Ty::Int,
                    &[&l],
                ))
            }
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.expr(expr)?;
                let lo = self.expr(low)?;
                let hi = self.expr(high)?;
                let both = format!(
                    "({} AND {})",
                    compare_unrounded(
                        ">=",
                        &self.strictly(x.clone(), &lo),
                        &self.strictly(lo.clone(), &x)
                    )?
                    .sql,
                    compare_unrounded(
                        "<=",
                        &self.strictly(x.clone(), &hi),
                        &self.strictly(hi.clone(), &x)
                    )?
                    .sql
                );
                Ok(Typed::with_parts(
                    negate(both, *negated),
                    Ty::Int,
                    &[&x, &lo, &hi],
                ))
            }
            Expr::Like {
                negated,
                expr,
                pattern,
                escape_char,
                any,
            } => {
                if *any {
                    return unsupported("LIKE ANY");
                }
                // LIKE reads an ENUM, SET or TIME value as its text.
                self.enum_ok = is_string_literal(pattern);
                let x = self.expr(expr)?;
                let p = self.expr(pattern)?;
                let escape = match escape_char {
                    None => quote("\\"),
                    Some(e) => match e.as_ref() {
                        Expr::Value(v) => match &v.value {
                            Value::SingleQuotedString(s) => quote(s),
                            other => return unsupported(format!("ESCAPE {other}")),
                        },
                        other => return unsupported(format!("ESCAPE {other}")),
                    },
                };
                let ci = self.text_collation(&x, &p)?.folds_case();
                let sql = format!(
                    "my_like({}, {}, {escape}, {})",
                    as_text(&x),
                    as_text(&p),
                    i32::from(ci)
                );
                Ok(Typed::with_parts(negate(sql, *negated), Ty::Int, &[&x, &p]))
            }
            Expr::RLike {
                negated,
                expr,
                pattern,
                ..
            } => {
                let x = self.expr(expr)?;
                let p = self.expr(pattern)?;
                let ci = self.text_collation(&x, &p)?.folds_case();
                let sql = format!("my_regexp({}, {}, {})", as_text(&x), p.sql, i32::from(ci));
                Ok(Typed::with_parts(negate(sql, *negated), Ty::Int, &[&x, &p]))
            }
            Expr::Cast {
                kind: CastKind::Cast,
                expr,
                data_type,
                format: None,
                ..
            } => {
                let x = self.expr(expr)?;
                let target = data_type.to_string();
                // DATETIME(7): MySQL's 1426, naming the value cast.
                if let Some(digits) = target
                    .strip_prefix("DATETIME(")
                    .or_else(|| target.strip_prefix("TIME("))
                    .and_then(|rest| rest.strip_suffix(')'))
                    .and_then(|digits| digits.parse::<u64>().ok())
                    && digits > 6
                {
                    return Err(TranslateError::TooBigPrecision(expr.to_string()));
                }
                cast(
                    &x,
                    &target,
                    self.strict || self.strict_source,
                    &e.to_string(),
                    self.zero_date_flags(),
                )
            }
            Expr::Convert {
                is_try: false,
                expr,
                data_type: Some(data_type),
                charset: None,
                target_before_value: false,
                styles,
            } if styles.is_empty() => {
                let x = self.expr(expr)?;
                cast(
                    &x,
                    &data_type.to_string(),
                    self.strict || self.strict_source,
                    &e.to_string(),
                    self.zero_date_flags(),
                )
            }
            // `CONVERT(x USING utf8mb4)`: x's text under the character set's default collation
            // (utf8mb4_general_ci), binary bytes that are UTF-8 as they are; `USING binary`: its
            // bytes. Other character sets, and a value whose type is known only when it runs,
            // are refused.
            Expr::Convert {
                is_try: false,
                expr,
                data_type: None,
                charset: Some(charset),
                target_before_value: false,
                styles,
            } if styles.is_empty() => {
                let x = self.expr(expr)?;
                let name = charset.to_string().to_ascii_lowercase();
                let text = match x.ty {
                    Ty::Str(_) | Ty::Null => x.sql.clone(),
                    Ty::Bytes if name == "binary" => x.sql.clone(),
                    Ty::Bytes => format!("my_utf8_of_bytes({})", x.sql),
                    Ty::Dyn => {
                        return unsupported(format!("CONVERT(… USING {name}) of this value"));
                    }
                    _ if x.json => {
                        return unsupported(format!("CONVERT(… USING {name}) of a JSON value"));
                    }
                    _ => format!("CAST({} AS TEXT)", as_text(&x)),
                };
                match name.as_str() {
                    "utf8mb4" | "utf8" | "utf8mb3" => {
                        Ok(Typed::with_parts(text, Ty::Str(Collation::Ci), &[&x]))
                    }
                    "binary" => Ok(Typed::with_parts(
                        format!("CAST({text} AS BLOB)"),
                        Ty::Bytes,
                        &[&x],
                    )),
                    _ => unsupported(format!("CONVERT(… USING {name})")),
                }
            }
            // Units of a month or longer read a date; the others a datetime or a TIME, as
            // MySQL reads them (`EXTRACT(HOUR FROM '30:00:00')` is 6).
            Expr::Extract { field, expr, .. } => {
                let x = self.expr(expr)?;
                let unit = match field {
                    DateTimeField::Year
                    | DateTimeField::Month
                    | DateTimeField::Quarter
                    | DateTimeField::Day
                    | DateTimeField::Hour
                    | DateTimeField::Minute
                    | DateTimeField::Second
                    | DateTimeField::Microsecond => field.to_string(),
                    DateTimeField::Custom(unit)
                        if crate::dates::compound_fields(&unit.value).is_some() =>
                    {
                        unit.value.clone()
                    }
                    other => return unsupported(format!("EXTRACT({other})")),
                };
                let sql = if matches!(unit.as_str(), "YEAR" | "MONTH" | "QUARTER" | "YEAR_MONTH") {
                    format!("my_part({}, '{unit}')", x.sql)
                } else {
                    let dated = i32::from(matches!(x.ty, Ty::Date | Ty::DateTime));
                    format!("my_extract_clock({}, '{unit}', {dated})", x.sql)
                };
                Ok(Typed::with_parts(sql, Ty::Int, &[&x]))
            }
            Expr::Ceil { expr, field } | Expr::Floor { expr, field } => {
                if !matches!(
                    field,
                    CeilFloorKind::DateTimeField(DateTimeField::NoDateTime)
                ) {
                    return unsupported("CEIL/FLOOR with a unit");
                }
                let name = if matches!(e, Expr::Ceil { .. }) {
                    "CEIL"
                } else {
                    "FLOOR"
                };
                let x = self.expr(expr)?;
                self.call_typed(name, vec![x])
            }
            Expr::Position { expr, r#in } => {
                let sub = self.expr(expr)?;
                let s = self.expr(r#in)?;
                let ci = self.text_collation(&sub, &s)?.folds_case();
                Ok(Typed::with_parts(
                    format!(
                        "my_locate({}, {}, 1, {})",
                        as_text(&sub),
                        as_text(&s),
                        i32::from(ci)
                    ),
                    Ty::Int,
                    &[&sub, &s],
                ))
            }
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.expr(expr)?];
                match substring_from {
                    Some(from) => args.push(self.expr(from)?),
                    None => return Err(TranslateError::ParamCount("SUBSTRING".into())),
                }
                if let Some(len) = substring_for {
                    args.push(self.expr(len)?);
                }
                self.call_typed("SUBSTRING", args)
            }
            Expr::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters,
            } => {
                if trim_characters.is_some() {
                    return unsupported("TRIM with a character list");
                }
                let x = self.expr(expr)?;
                let what = match trim_what {
                    Some(w) => self.expr(w)?,
                    None => Typed::new("' '", Ty::Str(Collation::Ci)),
                };
                let mode = match trim_where {
                    None | Some(TrimWhereField::Both) => 0,
                    Some(TrimWhereField::Leading) => 1,
                    Some(TrimWhereField::Trailing) => 2,
                };
                Ok(Typed::with_parts(
                    format!("my_trim({mode}, {}, {})", as_text(&what), as_text(&x)),
                    text_result(&x),
                    &[&x, &what],
                ))
            }
            Expr::Collate { expr, collation } => {
                let x = self.expr(expr)?;
                let name = collation.to_string().trim_matches('`').to_string();
                let Some(c) = Collation::from_mysql_name(&name) else {
                    return unsupported(format!("COLLATE {name}"));
                };
                Ok(Typed {
                    sql: format!("({} COLLATE {})", as_text(&x), c.sqlite_name()),
                    ty: Ty::Str(c),
                    strength: Strength::Explicit,
                    aggregate: x.aggregate,
                    ..Typed::new(String::new(), Ty::Null)
                })
            }
            Expr::TypedString(typed) => {
                let text = match &typed.value.value {
                    Value::SingleQuotedString(s) => s.clone(),
                    other => return unsupported(format!("typed literal {other}")),
                };
                let x = Typed::new(quote(&text), Ty::Str(Collation::Ci));
                cast(
                    &x,
                    &typed.data_type.to_string(),
                    self.strict || self.strict_source,
                    &e.to_string(),
                    self.zero_date_flags(),
                )
            }
            Expr::Function(f) => self.function(f),
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                // An ENUM compared with strings only compares its text, as in `=`.
                let subject = match operand {
                    Some(o) => {
                        self.enum_ok = conditions.iter().all(|w| is_string_literal(&w.condition));
                        let subject = self.expr(o)?;
                        self.forget_restricted();
                        Some(subject)
                    }
                    None => None,
                };
                let mut sql = String::from("CASE");
                let mut ty = Ty::Null;
                let mut aggregate = subject.as_ref().is_some_and(|s| s.aggregate);
                let mut results = Vec::new();
                for when in conditions {
                    let c = self.expr(&when.condition)?;
                    let cond = match &subject {
                        Some(s) => compare_unrounded("=", s, &c)?.sql,
                        None => c.sql.clone(),
                    };
                    let r = self.expr(&when.result)?;
                    ty = unify(ty, r.ty);
                    aggregate |= c.aggregate || r.aggregate;
                    results.push((cond, r));
                }
                let otherwise = else_result.as_ref().map(|e| self.expr(e)).transpose()?;
                if let Some(o) = &otherwise {
                    ty = unify(ty, o.ty);
                    aggregate |= o.aggregate;
                }
                for (cond, r) in &results {
                    sql.push_str(&format!(" WHEN {cond} THEN {}", convert_to(r, ty)));
                }
                if let Some(o) = &otherwise {
                    sql.push_str(&format!(" ELSE {}", convert_to(o, ty)));
                }
                sql.push_str(" END");
                Ok(Typed {
                    aggregate,
                    ..Typed::new(sql, ty)
                })
            }
            Expr::Exists { subquery, negated } => {
                let (sql, _) = self.subquery(subquery)?;
                let not = if *negated { "NOT " } else { "" };
                Ok(Typed::new(format!("({not}EXISTS ({sql}))"), Ty::Int))
            }
            Expr::Subquery(q) => {
                let (sql, columns) = self.subquery(q)?;
                if columns.len() != 1 {
                    return Err(TranslateError::OperandColumns(1));
                }
                Ok(Typed::new(format!("({sql})"), columns[0].ty))
            }
            Expr::Interval(_) => unsupported("INTERVAL outside date arithmetic"),
            Expr::Prefixed { prefix, value } => {
                let x = self.expr(value)?;
                let name = prefix.value.to_ascii_lowercase();
                if name == "_binary" {
                    Ok(Typed::new(format!("CAST({} AS BLOB)", x.sql), Ty::Bytes))
                } else if name.starts_with("_utf8") || name == "_latin1" {
                    Ok(x)
                } else {
                    unsupported(format!("character set introducer {name}"))
                }
            }
            other => unsupported(format!("expression {other}")),
        }
    }

    fn postfix(&mut self, x: &Expr, suffix: &str) -> Result<Typed> {
        self.enum_ok = true;
        self.bit_ok = true;
        let t = self.expr(x)?;
        Ok(Typed::with_parts(
            format!("({} {suffix})", t.sql),
            Ty::Int,
            &[&t],
        ))
    }

    fn truth(&mut self, x: &Expr, template: &str) -> Result<Typed> {
        let t = self.expr(x)?;
        let operand = if t.ty.is_numeric() {
            t.sql.clone()
        } else {
            format!("my_cast_double({})", t.sql)
        };
        Ok(Typed::with_parts(
            template.replace("{}", &operand),
            Ty::Int,
            &[&t],
        ))
    }

    /// The collation two operands of a text operation use (LIKE, LOCATE): binary when either
    /// is a binary string.
    fn text_collation(&self, a: &Typed, b: &Typed) -> Result<Collation> {
        if a.ty == Ty::Bytes || b.ty == Ty::Bytes {
            return Ok(Collation::Bin);
        }
        let a = Typed {
            ty: Ty::Str(a.ty.collation().unwrap_or(Collation::Ci)),
            ..a.clone()
        };
        let b = Typed {
            ty: Ty::Str(b.ty.collation().unwrap_or(Collation::Ci)),
            ..b.clone()
        };
        collation_of(&a, &b)
    }

    /// `@@[session.|local.|global.]name`: the value the catalog reports, as a literal;
    /// the session's `@@autocommit` and `@@in_transaction` as the session state holds them
    /// when the statement runs.
    fn system_variable(&self, ids: &[Ident]) -> Result<Typed> {
        let written = ids
            .iter()
            .map(|i| i.value.as_str())
            .collect::<Vec<_>>()
            .join(".");
        let lower = written[2..].to_ascii_lowercase();
        let global = lower.starts_with("global.");
        let name = ["session.", "local.", "global."]
            .iter()
            .find_map(|scope| lower.strip_prefix(scope))
            .unwrap_or(&lower);
        let value = if global {
            self.catalog.global_system_variable(name)
        } else if name == "autocommit" {
            return Ok(Typed::new("my_autocommit()".to_owned(), Ty::Int));
        } else if name == "in_transaction" {
            return Ok(Typed::new("my_in_transaction()".to_owned(), Ty::Int));
        } else {
            self.catalog.system_variable(name)
        };
        match value {
            Some(crate::types::SystemValue::Int(n)) => Ok(Typed::new(n.to_string(), Ty::Int)),
            Some(crate::types::SystemValue::Text(t)) => {
                Ok(Typed::new(quote(&t), Ty::Str(Collation::Ci)))
            }
            None => unsupported(format!("system variable {written}")),
        }
    }

    fn identifier(&mut self, ids: &[Ident]) -> Result<Typed> {
        let first = &ids[0];
        if first.quote_style.is_none() && first.value.starts_with("@@") {
            return self.system_variable(ids);
        }
        if ids.len() == 1 && first.quote_style.is_none() {
            if let Some(name) = first.value.strip_prefix('@') {
                return Ok(Typed::new(format!("my_getvar({})", quote(name)), Ty::Dyn));
            }
            if first.value.eq_ignore_ascii_case("CURRENT_TIMESTAMP")
                || first.value.eq_ignore_ascii_case("CURRENT_DATE")
                || first.value.eq_ignore_ascii_case("CURRENT_TIME")
            {
                let name = first.value.to_ascii_uppercase();
                return self.call_typed(&name, Vec::new());
            }
        }
        let names: Vec<&str> = ids.iter().map(|i| i.value.as_str()).collect();
        self.column(&names)
    }

    fn binary(&mut self, left: &Expr, op: &BinaryOperator, right: &Expr) -> Result<Typed> {
        let name_lookup = std::mem::take(&mut self.name_lookup);
        use BinaryOperator as B;
        if matches!(op, B::Plus | B::Minus) {
            if let Expr::Interval(interval) = right {
                let l = self.expr(left)?;
                let sign = if matches!(op, B::Minus) { -1 } else { 1 };
                return self.date_add(&l, interval, sign);
            }
            if let (B::Plus, Expr::Interval(interval)) = (op, left) {
                let r = self.expr(right)?;
                return self.date_add(&r, interval, 1);
            }
        }
        if let B::Assignment = op {
            let Expr::Identifier(name) = left else {
                return unsupported(format!("assignment to {left}"));
            };
            let Some(var) = name.value.strip_prefix('@') else {
                return unsupported(format!("assignment to {left}"));
            };
            let value = self.expr(right)?;
            return Ok(Typed::with_parts(
                format!("my_setvar({}, {})", quote(var), as_value(&value)),
                Ty::Dyn,
                &[&value],
            ));
        }
        // An ENUM compared with a string literal compares its text.
        let comparison = matches!(
            op,
            B::Eq | B::NotEq | B::Spaceship | B::Lt | B::LtEq | B::Gt | B::GtEq
        );
        if comparison && let (Expr::Tuple(ls), Expr::Tuple(rs)) = (left, right) {
            let row = row_comparison(ls, op, rs, self.placeholders_numbered())?;
            return self.expr(&row);
        }
        // Two such columns of one type compare as they are held.
        let columns = comparison
            && crate::translate::is_column_reference(left)
            && crate::translate::is_column_reference(right);
        self.last_restricted = false;
        // A BIT column is a number beside another operand of arithmetic or a comparison.
        let numeric = comparison
            || matches!(
                op,
                B::Plus
                    | B::Minus
                    | B::Multiply
                    | B::Divide
                    | B::Modulo
                    | B::MyIntegerDivide
                    | B::BitwiseAnd
                    | B::BitwiseOr
                    | B::BitwiseXor
                    | B::PGBitwiseShiftLeft
                    | B::PGBitwiseShiftRight
            );
        // A TIME column is its number in arithmetic (`temporal_number`).
        let arithmetic_op = numeric && !comparison;
        self.enum_ok = columns || (comparison && is_string_literal(right));
        self.bit_ok = numeric;
        self.time_ok = arithmetic_op;
        let l = self.expr(left)?;
        let l_restricted = std::mem::take(&mut self.last_restricted);
        self.enum_ok = columns || (comparison && is_string_literal(left));
        self.bit_ok = numeric;
        self.time_ok = arithmetic_op;
        let r = self.expr(right)?;
        let r_restricted = std::mem::take(&mut self.last_restricted);
        if columns
            && (l_restricted || r_restricted)
            && !(l_restricted && r_restricted && l.ty == r.ty)
        {
            return unsupported(format!("comparison of {left} with {right}"));
        }
        // MySQL's `doc->path` and `doc->>path`.
        match op {
            B::Arrow => return self.call_typed("JSON_EXTRACT", vec![l, r]),
            B::LongArrow => {
                let found = self.call_typed("JSON_EXTRACT", vec![l, r])?;
                return self.call_typed("JSON_UNQUOTE", vec![found]);
            }
            _ => {}
        }
        let textual = |t: &Typed| {
            matches!(
                t.compared().ty,
                Ty::Str(_) | Ty::Bytes | Ty::Dyn | Ty::Date | Ty::DateTime | Ty::Time
            )
        };
        for (this, other) in [(&l, &r), (&r, &l)] {
            if this.bytes_literal && (arithmetic_op || (comparison && !textual(other))) {
                return unsupported(format!(
                    "a hexadecimal or bit-value literal read as a number in {left} {op} {right}"
                ));
            }
            if this.bit && comparison && textual(other) {
                return unsupported(format!(
                    "comparison of a BIT column with a string in {left} {op} {right}"
                ));
            }
        }
        // A name asked for as MariaDB looks a table up by it: byte for byte.
        let (l, r) = if name_lookup {
            (exact_name(l), exact_name(r))
        } else if arithmetic_op {
            (temporal_number(l, false), temporal_number(r, false))
        } else if comparison {
            let l_read = self.strictly(l.clone(), &r);
            (l_read, self.strictly(r, &l))
        } else {
            (l, r)
        };
        let parts = [&l, &r];
        let cmp = |sym: &str| compare(sym, &l, &r);
        match op {
            B::Eq => cmp("="),
            B::NotEq => cmp("<>"),
            B::Lt => cmp("<"),
            B::LtEq => cmp("<="),
            B::Gt => cmp(">"),
            B::GtEq => cmp(">="),
            B::Spaceship => cmp("<=>"),
            B::And => Ok(Typed::with_parts(
                format!("({} AND {})", truth(&l), truth(&r)),
                Ty::Int,
                &parts,
            )),
            // `||` is OR: MySQL's default sql_mode has no PIPES_AS_CONCAT.
            B::Or | B::StringConcat => Ok(Typed::with_parts(
                format!("({} OR {})", truth(&l), truth(&r)),
                Ty::Int,
                &parts,
            )),
            B::Xor => Ok(Typed::with_parts(
                format!(
                    "(CASE WHEN {a} IS NULL OR {b} IS NULL THEN NULL ELSE ({a} <> 0) <> ({b} <> 0) END)",
                    a = truth(&l),
                    b = truth(&r)
                ),
                Ty::Int,
                &parts,
            )),
            B::Plus => arithmetic("+", &l, &r, self.strict || self.strict_source),
            B::Minus => arithmetic("-", &l, &r, self.strict || self.strict_source),
            B::Multiply => arithmetic("*", &l, &r, self.strict || self.strict_source),
            B::Divide => arithmetic("/", &l, &r, self.strict || self.strict_source),
            B::Modulo => arithmetic("%", &l, &r, self.strict || self.strict_source),
            // With an UNSIGNED operand, MySQL's quotient is UNSIGNED.
            B::MyIntegerDivide => Ok(Typed {
                unsigned: l.unsigned || r.unsigned,
                ..Typed::with_parts(
                    format!(
                        "my_intdiv({}, {}, {})",
                        l.sql,
                        r.sql,
                        i32::from(self.strict || self.strict_source)
                    ),
                    Ty::Int,
                    &parts,
                )
            }),
            B::BitwiseAnd => bitwise("&", &l, &r),
            B::BitwiseOr => bitwise("|", &l, &r),
            B::BitwiseXor => bitwise("^", &l, &r),
            B::PGBitwiseShiftLeft => bitwise("<<", &l, &r),
            B::PGBitwiseShiftRight => bitwise(">>", &l, &r),
            B::Regexp => {
                let ci = self.text_collation(&l, &r)?.folds_case();
                Ok(Typed::with_parts(
                    format!("my_regexp({}, {}, {})", as_text(&l), r.sql, i32::from(ci)),
                    Ty::Int,
                    &parts,
                ))
            }
            other => unsupported(format!("operator {other}")),
        }
    }

    fn unary(&mut self, op: &UnaryOperator, x: &Expr) -> Result<Typed> {
        // A negative integer literal is a literal (so that -9223372036854775808 fits).
        if let (UnaryOperator::Minus, Expr::Value(v)) = (op, x)
            && let Value::Number(n, _) = &v.value
        {
            return literal(&Value::Number(format!("-{n}"), false));
        }
        self.bit_ok = matches!(op, UnaryOperator::BitwiseNot);
        self.time_ok = matches!(op, UnaryOperator::Minus);
        let t = self.expr(x)?;
        if let UnaryOperator::BitwiseNot = op {
            return bitwise("~", &t, &Typed::new("0", Ty::Int));
        }
        match op {
            UnaryOperator::Plus => Ok(t),
            UnaryOperator::Minus => Ok(match t.ty {
                Ty::Int => Typed::with_parts(format!("my_isub(0, {})", t.sql), Ty::Int, &[&t]),
                Ty::Decimal(s) => {
                    Typed::with_parts(format!("my_dec_neg({}, {s})", t.sql), t.ty, &[&t])
                }
                Ty::Null => t,
                // MySQL negates a date's number (-20240229, a DECIMAL), not its text's.
                Ty::Date | Ty::DateTime | Ty::Time => {
                    let number = temporal_number(t, false);
                    Typed::with_parts(
                        format!("my_dec_neg({}, 0)", number.sql),
                        Ty::Decimal(0),
                        &[&number],
                    )
                }
                Ty::Dyn => Typed::with_parts(format!("(-{})", t.sql), Ty::Dyn, &[&t]),
                // In a write, a string that is not wholly a number fails (strict mode's 1292).
                Ty::Str(_) | Ty::Bytes if self.strict || self.strict_source => Typed::with_parts(
                    format!("(-my_cast_double_strict({}))", t.sql),
                    Ty::Double,
                    &[&t],
                ),
                _ => Typed::with_parts(format!("(-{})", real_operand(&t)), Ty::Double, &[&t]),
            }),
            UnaryOperator::Not | UnaryOperator::BangNot => Ok(Typed::with_parts(
                format!("(NOT {})", truth(&t)),
                Ty::Int,
                &[&t],
            )),
            other => unsupported(format!("operator {other}")),
        }
    }

    /// `t` compared with `other`: in a strict write, a string beside a number is read as one
    /// that must be wholly a number (`strict_number`).
    fn strictly(&self, t: Typed, other: &Typed) -> Typed {
        if self.strict || self.strict_source {
            strict_number(t, other)
        } else {
            t
        }
    }

    /// `x ± INTERVAL n unit` and DATE_ADD/DATE_SUB.
    pub(crate) fn date_add(
        &mut self,
        x: &Typed,
        interval: &sqlparser::ast::Interval,
        sign: i64,
    ) -> Result<Typed> {
        let unit = match &interval.leading_field {
            Some(DateTimeField::Custom(unit))
                if interval.last_field.is_none()
                    && crate::dates::compound_fields(&unit.value).is_some() =>
            {
                return self.date_add_compound(x, interval, &unit.value, sign);
            }
            Some(f) if interval.last_field.is_none() => f.to_string(),
            _ => return unsupported(format!("INTERVAL {interval}")),
        };
        let unit = unit.to_ascii_uppercase();
        if crate::dates::Unit::parse(&unit).is_none() {
            return unsupported(format!("INTERVAL unit {unit}"));
        }
        let amount = self.expr(&interval.value)?;
        if !matches!(amount.ty, Ty::Int | Ty::Null) {
            return unsupported("INTERVAL with a non-integer amount");
        }
        let amount_sql = if sign < 0 {
            format!("my_isub(0, {})", amount.sql)
        } else {
            amount.sql.clone()
        };
        let date_unit = crate::dates::Unit::parse(&unit).is_some_and(|u| u.is_date_unit());
        let (kind, ty) = match x.ty {
            Ty::Date if date_unit => ("date", Ty::Date),
            Ty::Date | Ty::DateTime => ("datetime", Ty::DateTime),
            Ty::Str(_) | Ty::Null | Ty::Dyn => ("s", Ty::Str(Collation::Ci)),
            _ => return unsupported("date arithmetic on a number"),
        };
        Ok(Typed::with_parts(
            format!("my_date_add({}, {amount_sql}, '{unit}', '{kind}')", x.sql),
            ty,
            &[x, &amount],
        ))
    }

    /// DATE_ADD with a compound unit (`'1:30' HOUR_MINUTE`): the amount is read from its
    /// text when the statement runs, as MySQL reads it.
    fn date_add_compound(
        &mut self,
        x: &Typed,
        interval: &sqlparser::ast::Interval,
        unit: &str,
        sign: i64,
    ) -> Result<Typed> {
        let amount = self.expr(&interval.value)?;
        if amount.json {
            return unsupported(format!("INTERVAL {interval}"));
        }
        let (kind, ty) = match x.ty {
            Ty::Date if unit == "YEAR_MONTH" => ("date", Ty::Date),
            Ty::Date | Ty::DateTime => ("datetime", Ty::DateTime),
            Ty::Str(_) | Ty::Null | Ty::Dyn => ("s", Ty::Str(Collation::Ci)),
            _ => return unsupported("date arithmetic on a number"),
        };
        Ok(Typed::with_parts(
            format!(
                "my_date_add_compound({}, {}, '{unit}', '{kind}', {sign})",
                x.sql,
                as_text(&amount)
            ),
            ty,
            &[x, &amount],
        ))
    }

    /// A function call.
    /// A scalar function of translated arguments (the library's, called from here).
    fn call_typed(&self, name: &str, args: Vec<Typed>) -> Result<Typed> {
        CallSite {
            strict: self.strict,
            catalog: self.catalog,
        }
        .call(name, args)
    }

    fn function(&mut self, f: &Function) -> Result<Typed> {
        let name = match f.name.0.as_slice() {
            [ObjectNamePart::Identifier(id)] => id.value.to_ascii_uppercase(),
            _ => return unsupported(format!("function {}", f.name)),
        };
        if f.over.is_some() {
            return self.window(f, &name);
        }
        if f.filter.is_some() || !f.within_group.is_empty() {
            return unsupported(format!("{name} with FILTER or WITHIN GROUP"));
        }
        let (distinct, args, clauses) = match &f.args {
            FunctionArguments::None => (false, Vec::new(), Vec::new()),
            FunctionArguments::List(list) => (
                matches!(
                    list.duplicate_treatment,
                    Some(sqlparser::ast::DuplicateTreatment::Distinct)
                ),
                list.args.clone(),
                list.clauses.clone(),
            ),
            FunctionArguments::Subquery(_) => return unsupported(format!("{name}(subquery)")),
        };
        if library::is_aggregate(&name) {
            return self.aggregate(&name, distinct, &args, &clauses);
        }
        if distinct || !clauses.is_empty() {
            return unsupported(format!("{name} with DISTINCT or clauses"));
        }
        // DATE_ADD(x, INTERVAL …) and VALUES(col) take arguments that are not expressions.
        if matches!(
            name.as_str(),
            "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE"
        ) && args.len() == 2
        {
            let x = self.arg_expr(&args[0])?;
            let sign = if name == "DATE_SUB" || name == "SUBDATE" {
                -1
            } else {
                1
            };
            return match unnamed(&args[1]) {
                Some(Expr::Interval(interval)) => self.date_add(&x, interval, sign),
                Some(day_count) if name == "ADDDATE" || name == "SUBDATE" => {
                    let interval = sqlparser::ast::Interval {
                        value: Box::new(day_count.clone()),
                        leading_field: Some(DateTimeField::Day),
                        leading_precision: None,
                        last_field: None,
                        fractional_seconds_precision: None,
                    };
                    self.date_add(&x, &interval, sign)
                }
                _ => Err(TranslateError::ParamCount(name)),
            };
        }
        if matches!(name.as_str(), "TIMESTAMPDIFF" | "TIMESTAMPADD") && args.len() == 3 {
            let unit = match unnamed(&args[0]) {
                Some(Expr::Identifier(id)) => id.value.to_ascii_uppercase(),
                _ => return Err(TranslateError::ParamCount(name)),
            };
            if crate::dates::Unit::parse(&unit).is_none() {
                return unsupported(format!("{name} unit {unit}"));
            }
            let a = self.arg_expr(&args[1])?;
            let b = self.arg_expr(&args[2])?;
            if name == "TIMESTAMPADD" {
                let interval = sqlparser::ast::Interval {
                    value: Box::new(
                        unnamed(&args[1])
                            .cloned()
                            .unwrap_or(Expr::value(Value::Null)),
                    ),
                    leading_field: library::unit_field(&unit),
                    leading_precision: None,
                    last_field: None,
                    fractional_seconds_precision: None,
                };
                return self.date_add(&b, &interval, 1);
            }
            return Ok(Typed::with_parts(
                format!("my_timestampdiff('{unit}', {}, {})", a.sql, b.sql),
                Ty::Int,
                &[&a, &b],
            ));
        }
        if name == "VALUES" && args.len() == 1 {
            if let (Some(Expr::Identifier(col)), Some(_)) =
                (unnamed(&args[0]), self.excluded.as_ref())
            {
                return self.excluded_column(&col.value);
            }
            return unsupported("VALUES() outside ON DUPLICATE KEY UPDATE");
        }
        let mut typed = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            // FIND_IN_SET reads its list as text, as MySQL reads an ENUM or SET there, and so
            // do the string functions the string they work on.
            self.enum_ok = (name == "FIND_IN_SET" && i == 1)
                || reads_a_string(&name, i)
                // FIELD compares strings when every argument is one.
                || (name == "FIELD"
                    && i == 0
                    && args[1..]
                        .iter()
                        .all(|a| unnamed(a).is_some_and(is_string_literal)));
            self.time_ok = i == 0 && library::reads_a_time(&name);
            // HEX and BIN of a BIT column write the number, as MySQL's do.
            self.bit_ok = i == 0 && matches!(name.as_str(), "HEX" | "BIN");
            let mut t = self.arg_expr(arg)?;
            self.forget_restricted();
            // A value placed in a JSON document: a truth value is `true`/`false` there.
            let json_value = match name.as_str() {
                "JSON_ARRAY" => true,
                "JSON_OBJECT" => i % 2 == 1,
                "JSON_SET" | "JSON_INSERT" | "JSON_REPLACE" => i >= 2 && i % 2 == 0,
                _ => false,
            };
            if json_value {
                let truth_value = unnamed(arg).is_some_and(is_truth_value);
                t = Typed::new(
                    library::json_value(&t, truth_value),
                    Ty::Str(Collation::Bin),
                );
            }
            typed.push(t);
        }
        self.call_typed(&name, typed)
    }

    pub(crate) fn arg_expr(&mut self, arg: &FunctionArg) -> Result<Typed> {
        match unnamed(arg) {
            Some(e) => self.expr(e),
            None => unsupported(format!("argument {arg}")),
        }
    }

    /// COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT.
    fn aggregate(
        &mut self,
        name: &str,
        distinct: bool,
        args: &[FunctionArg],
        clauses: &[FunctionArgumentClause],
    ) -> Result<Typed> {
        if self.in_aggregate {
            return Err(TranslateError::GroupFunction);
        }
        let d = if distinct { "DISTINCT " } else { "" };
        if name == "COUNT" && matches!(args, [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)]) {
            let mut t = Typed::new("count(*)", Ty::Int);
            t.aggregate = true;
            return Ok(t);
        }
        self.in_aggregate = true;
        // MIN and MAX of an ENUM or SET column compare its text, as MySQL's do; COUNT and
        // GROUP_CONCAT read its text (GROUP_CONCAT(DISTINCT …) without ORDER BY lists the
        // values as the column sorts: by the members' indexes, a SET by its bit mask).
        let ordered = clauses
            .iter()
            .any(|c| matches!(c, FunctionArgumentClause::OrderBy(_)));
        let reads_text = matches!(name, "MIN" | "MAX" | "COUNT" | "GROUP_CONCAT");
        let sorted_distinct = name == "GROUP_CONCAT" && distinct && !ordered && args.len() == 1;
        let mut member_order = None;
        let typed: Result<Vec<Typed>> = args
            .iter()
            .map(|a| {
                self.enum_ok =
                    reads_text && unnamed(a).is_some_and(crate::translate::is_column_reference);
                // SUM, AVG and COUNT read a BIT column as its number (MIN and MAX would give a
                // BIT).
                self.bit_ok = matches!(name, "SUM" | "AVG" | "COUNT");
                let t = self.arg_expr(a);
                if sorted_distinct && let Ok(t) = &t {
                    member_order = self.member_order(&t.sql);
                }
                // MIN and MAX of an ENUM give one of its values, which sorts as the column does.
                if !matches!(name, "MIN" | "MAX") {
                    self.forget_restricted();
                }
                t
            })
            .collect();
        let mut order = Vec::new();
        let mut separator = None;
        for clause in clauses {
            match clause {
                FunctionArgumentClause::OrderBy(items) if name == "GROUP_CONCAT" => {
                    for item in items {
                        order.push(self.order_item(item, false)?);
                    }
                }
                FunctionArgumentClause::Separator(v) if name == "GROUP_CONCAT" => match &v.value {
                    Value::SingleQuotedString(s) => separator = Some(s.clone()),
                    other => return unsupported(format!("SEPARATOR {other}")),
                },
                other => return unsupported(format!("{name} with {other}")),
            }
        }
        self.in_aggregate = false;
        let typed = typed?;
        let one = |what: &str| -> Result<&Typed> {
            match typed.as_slice() {
                [x] => Ok(x),
                _ => Err(TranslateError::ParamCount(what.into())),
            }
        };
        let (sql, ty) = match name {
            "COUNT" => {
                if typed.len() != 1 && !distinct {
                    return Err(TranslateError::ParamCount(name.into()));
                }
                if typed.len() != 1 {
                    return unsupported("COUNT(DISTINCT a, b)");
                }
                (
                    format!("count({d}{})", distinct_key(&typed[0], distinct)),
                    Ty::Int,
                )
            }
            "SUM" | "AVG" => {
                let x = one(name)?;
                if x.json {
                    return unsupported(format!("{name} of a JSON value"));
                }
                let avg = name == "AVG";
                // SQLite takes DISTINCT in an aggregate of one argument. MySQL's DISTINCT of a
                // string compares strings under their collation; of numbers, the numbers.
                if distinct
                    && !matches!(
                        x.ty,
                        Ty::Int | Ty::Double | Ty::Float | Ty::Decimal(_) | Ty::Null
                    )
                {
                    return unsupported(format!("{name}(DISTINCT …)"));
                }
                let f = if avg { "my_dec_avg" } else { "my_dec_sum" };
                match x.ty {
                    Ty::Int if !avg => (format!("sum({d}{})", x.sql), Ty::Int),
                    Ty::Double | Ty::Float if distinct => {
                        let f = if avg { "my_real_avg" } else { "my_real_sum" };
                        (format!("{f}({d}{})", real_operand(x)), Ty::Double)
                    }
                    // MySQL collects the distinct values as DECIMAL of the argument's scale
                    // (rounded to it), so the key is that text; the sum reads its scale there.
                    Ty::Int | Ty::Decimal(_) if distinct => {
                        let scale = match x.ty {
                            Ty::Decimal(s) => s,
                            _ => 0,
                        };
                        let shown = if avg { (scale + 4).min(30) } else { scale };
                        (
                            format!("{f}(DISTINCT my_dec_key({}, {scale}))", x.sql),
                            Ty::Decimal(shown),
                        )
                    }
                    Ty::Int | Ty::Decimal(_) => {
                        let scale = match x.ty {
                            Ty::Decimal(s) => s,
                            _ => 0,
                        };
                        let scale = if avg { (scale + 4).min(30) } else { scale };
                        (format!("{f}({}, {scale})", x.sql), Ty::Decimal(scale))
                    }
                    Ty::Null => ("NULL".into(), Ty::Null),
                    Ty::Date | Ty::DateTime | Ty::Time => {
                        return unsupported(format!("{name} of a date or time"));
                    }
                    _ => {
                        let f = if avg { "my_real_avg" } else { "my_real_sum" };
                        (format!("{f}({})", real_operand(x)), Ty::Double)
                    }
                }
            }
            "MIN" | "MAX" => {
                let x = one(name)?;
                let f = name.to_ascii_lowercase();
                let arg = match x.ty {
                    Ty::Str(c) => format!("{} COLLATE {}", x.sql, c.sqlite_name()),
                    Ty::Decimal(_) => {
                        format!("{} COLLATE {}", x.sql, crate::types::DECIMAL_COLLATION)
                    }
                    Ty::Dyn => return unsupported(format!("{name} of a user variable")),
                    _ => x.sql.clone(),
                };
                (format!("{f}({d}{arg})"), x.ty)
            }
            "GROUP_CONCAT" => {
                if typed.is_empty() {
                    return Err(TranslateError::ParamCount(name.into()));
                }
                let value = if typed.len() == 1 {
                    as_text(&typed[0])
                } else {
                    format!(
                        "my_concat({})",
                        typed.iter().map(as_text).collect::<Vec<_>>().join(", ")
                    )
                };
                let separator = separator.unwrap_or_else(|| ",".into());
                if distinct && separator != "," {
                    return unsupported("GROUP_CONCAT(DISTINCT … SEPARATOR …)");
                }
                // MySQL keeps distinct rows of values (`'1','23'` and `'12','3'` are two) in a
                // tree sorted by them; their concatenation is neither.
                if distinct && typed.len() > 1 {
                    return unsupported("GROUP_CONCAT(DISTINCT of several values)");
                }
                // MySQL collects DISTINCT values in a sorted tree: without ORDER BY they come
                // out in the values' order (an ENUM's or SET's as the column sorts).
                if let Some(key) = member_order.filter(|_| order.is_empty()) {
                    order.push(key);
                } else if distinct && order.is_empty() && typed.len() == 1 {
                    order.push(format!(
                        "{}{}",
                        typed[0].sql,
                        match typed[0].ty {
                            Ty::Str(c) => format!(" COLLATE {}", c.sqlite_name()),
                            Ty::Decimal(_) =>
                                format!(" COLLATE {}", crate::types::DECIMAL_COLLATION),
                            _ => String::new(),
                        }
                    ));
                }
                let order_sql = if order.is_empty() {
                    String::new()
                } else {
                    format!(" ORDER BY {}", order.join(", "))
                };
                let key = if distinct {
                    match typed[0].ty {
                        Ty::Str(c) if typed.len() == 1 => {
                            format!("{value} COLLATE {}", c.sqlite_name())
                        }
                        _ => value,
                    }
                } else {
                    value
                };
                let sql = if distinct {
                    format!("group_concat(DISTINCT {key}{order_sql})")
                } else {
                    format!("group_concat({key}, {}{order_sql})", quote(&separator))
                };
                let ty = if typed.iter().any(|t| t.ty == Ty::Bytes) {
                    Ty::Bytes
                } else {
                    Ty::Str(Collation::Ci)
                };
                (sql, ty)
            }
            other => return unsupported(format!("aggregate {other}")),
        };
        let mut t = Typed::new(sql, ty);
        t.aggregate = true;
        Ok(t)
    }

    /// The window functions that take a value from another row of the window (LAG, LEAD,
    /// FIRST_VALUE, LAST_VALUE, NTH_VALUE: the value's own type) or place the row in a bucket
    /// (NTILE), as SQLite runs them. MySQL takes a row count only as a non-negative integer
    /// literal; LAG's and LEAD's third argument (a default whose type would mix with the
    /// value's) and `IGNORE NULLS` are refused. PERCENT_RANK and CUME_DIST stay refused:
    /// MySQL shows their DOUBLE as `0.5`, MariaDB with ten digits.
    fn value_window(&mut self, f: &Function, name: &str) -> Result<Typed> {
        let lower = name.to_ascii_lowercase();
        let args: Vec<&Expr> = match &f.args {
            FunctionArguments::None => Vec::new(),
            FunctionArguments::List(list)
                if list.duplicate_treatment.is_none() && list.clauses.is_empty() =>
            {
                list.args
                    .iter()
                    .map(|a| unnamed(a).map_or_else(|| unsupported(format!("argument {a}")), Ok))
                    .collect::<Result<_>>()?
            }
            _ => return unsupported(format!("{name} with these arguments")),
        };
        if f.null_treatment.is_some() {
            return unsupported(format!("{name} with a null treatment"));
        }
        let count = |e: &Expr| -> Result<u64> {
            match e {
                Expr::Value(v) => match &v.value {
                    sqlparser::ast::Value::Number(n, _) => n.parse::<u64>().ok(),
                    _ => None,
                },
                _ => None,
            }
            .map_or_else(
                || {
                    unsupported(format!(
                        "{name} with a row count other than an integer literal"
                    ))
                },
                Ok,
            )
        };
        let of_value = |this: &mut Self, x: &Expr, extra: Option<u64>| -> Result<Typed> {
            let x = this.expr(x)?;
            if x.ty == Ty::Dyn {
                return unsupported(format!("{name} of a user variable or an argument"));
            }
            let sql = match extra {
                Some(n) => format!("{lower}({}, {n})", x.sql),
                None => format!("{lower}({})", x.sql),
            };
            Ok(Typed {
                unsigned: x.unsigned,
                json: x.json,
                ..Typed::new(sql, x.ty)
            })
        };
        match (name, args.as_slice()) {
            ("NTILE", [n]) => {
                let n = count(n)?;
                if n == 0 {
                    return unsupported("NTILE(0)");
                }
                Ok(Typed::new(format!("ntile({n})"), Ty::Int))
            }
            ("FIRST_VALUE" | "LAST_VALUE" | "LAG" | "LEAD", [x]) => of_value(self, x, None),
            ("LAG" | "LEAD", [x, n]) => {
                let n = count(n)?;
                of_value(self, x, Some(n))
            }
            ("NTH_VALUE", [x, n]) => {
                let n = count(n)?;
                if n == 0 {
                    return unsupported("NTH_VALUE(…, 0)");
                }
                of_value(self, x, Some(n))
            }
            _ => unsupported(format!("{name} with these arguments")),
        }
    }

    /// Window functions: the ranking ones and the aggregates over a window, as SQLite runs them.
    fn window(&mut self, f: &Function, name: &str) -> Result<Typed> {
        let Some(sqlparser::ast::WindowType::WindowSpec(spec)) = &f.over else {
            return unsupported("named windows");
        };
        if spec.window_frame.is_some() {
            return unsupported("window frames");
        }
        let (sql, ty) = match name {
            "ROW_NUMBER" | "RANK" | "DENSE_RANK" => {
                (format!("{}()", name.to_ascii_lowercase()), Ty::Int)
            }
            "COUNT" | "SUM" | "AVG" | "MIN" | "MAX" => {
                let plain = Function {
                    over: None,
                    ..f.clone()
                };
                let t = self.function(&plain)?;
                if t.sql.contains("(DISTINCT ") {
                    return unsupported(format!("{name}(DISTINCT …) over a window"));
                }
                // The exact sums are window functions too; the others are plain aggregates.
                if t.sql.starts_with("my_")
                    && !t.sql.starts_with("my_dec_sum(")
                    && !t.sql.starts_with("my_dec_avg(")
                {
                    return unsupported(format!("{name} over a window of these values"));
                }
                (t.sql, t.ty)
            }
            "LAG" | "LEAD" | "FIRST_VALUE" | "LAST_VALUE" | "NTH_VALUE" | "NTILE" => {
                let t = self.value_window(f, name)?;
                (t.sql, t.ty)
            }
            other => return unsupported(format!("window function {other}")),
        };
        let mut over = Vec::new();
        if !spec.partition_by.is_empty() {
            let mut parts = Vec::new();
            for p in &spec.partition_by {
                parts.push(group_key(&self.expr(p)?));
            }
            over.push(format!("PARTITION BY {}", parts.join(", ")));
        }
        if !spec.order_by.is_empty() {
            let mut items = Vec::new();
            for item in &spec.order_by {
                items.push(self.order_item(item, false)?);
            }
            over.push(format!("ORDER BY {}", items.join(", ")));
        }
        Ok(Typed::new(format!("{sql} OVER ({})", over.join(" ")), ty))
    }
}

/// Whether an expression is a truth value by its form (a comparison, a logical operator, a
/// boolean literal), which a JSON document shows as `true` or `false`.
fn is_truth_value(e: &Expr) -> bool {
    use BinaryOperator as B;
    match e {
        Expr::Nested(x) => is_truth_value(x),
        Expr::Value(v) => matches!(v.value, Value::Boolean(_)),
        Expr::BinaryOp { op, .. } => matches!(
            op,
            B::Eq
                | B::NotEq
                | B::Lt
                | B::LtEq
                | B::Gt
                | B::GtEq
                | B::Spaceship
                | B::And
                | B::Or
                | B::Xor
        ),
        Expr::UnaryOp { op, .. } => matches!(op, UnaryOperator::Not | UnaryOperator::BangNot),
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsNotTrue(_)
        | Expr::IsFalse(_)
        | Expr::IsNotFalse(_)
        | Expr::IsUnknown(_)
        | Expr::IsNotUnknown(_)
        | Expr::Like { .. }
        | Expr::ILike { .. }
        | Expr::RLike { .. }
        | Expr::In { .. }
        | Expr::Between { .. }
        | Expr::Exists { .. } => true,
        // MariaDB's boolean functions.
        Expr::Function(f) => matches!(
            f.name.to_string().to_ascii_uppercase().as_str(),
            "JSON_CONTAINS" | "JSON_CONTAINS_PATH" | "JSON_VALID"
        ),
        _ => false,
    }
}

/// The unnamed expression of a function argument.
/// A [`Collation::Name`] operand as a name lookup compares it: byte for byte (see
/// `Translator::where_condition`); any other operand as it is.
fn exact_name(t: Typed) -> Typed {
    match t.ty {
        Ty::Str(Collation::Name) => Typed {
            ty: Ty::Str(Collation::Exact),
            ..t
        },
        _ => t,
    }
}

pub(crate) fn unnamed(arg: &FunctionArg) -> Option<&Expr> {
    match arg {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
        _ => None,
    }
}

fn negate(sql: String, negated: bool) -> String {
    if negated { format!("(NOT {sql})") } else { sql }
}

/// An operand of arithmetic on a run-time type: strings as MySQL's DOUBLE.
fn as_value_dyn(t: &Typed) -> String {
    match t.ty {
        Ty::Str(_) | Ty::Bytes => format!("my_cast_double({})", t.sql),
        _ => t.sql.clone(),
    }
}

/// A value given to a user variable: DECIMAL and DOUBLE as their MySQL text.
fn as_value(t: &Typed) -> String {
    match t.ty {
        Ty::Decimal(_) => format!("my_text({}, '{}')", t.sql, t.ty.code()),
        _ => t.sql.clone(),
    }
}

/// The result type of a text function of `x`.
fn text_result(x: &Typed) -> Ty {
    match x.ty {
        Ty::Bytes => Ty::Bytes,
        Ty::Str(c) => Ty::Str(c),
        _ => Ty::Str(Collation::Ci),
    }
}

/// `+ - * / %` by the operands' types.
fn arithmetic(op: &str, l: &Typed, r: &Typed, strict: bool) -> Result<Typed> {
    // A JSON number with a number is that number in MySQL and MariaDB alike (see
    // `typed::json_as_number`); any other JSON value there is refused.
    let (l, r) = (
        crate::typed::json_as_number(l.clone(), r),
        crate::typed::json_as_number(r.clone(), l),
    );
    let (l, r) = (&l, &r);
    if l.json || r.json {
        return unsupported("arithmetic on a JSON value");
    }
    let parts = [l, r];
    let strict = i32::from(strict);
    let exact = |t: Ty| matches!(t, Ty::Int | Ty::Decimal(_) | Ty::Null);
    let scale = |t: Ty| match t {
        Ty::Decimal(s) => s,
        _ => 0,
    };
    let (sl, sr) = (scale(l.ty), scale(r.ty));
    if l.ty == Ty::Dyn || r.ty == Ty::Dyn {
        if matches!(l.ty, Ty::Decimal(_)) || matches!(r.ty, Ty::Decimal(_)) {
            return unsupported("DECIMAL arithmetic with a user variable or argument");
        }
        let strict_flag = strict;
        return Ok(Typed::with_parts(
            format!(
                "my_dyn_arith('{op}', {}, {}, {strict_flag})",
                as_value_dyn(l),
                as_value_dyn(r)
            ),
            Ty::Dyn,
            &parts,
        ));
    }
    let t = if exact(l.ty) && exact(r.ty) {
        if l.ty != Ty::Decimal(sl) && r.ty != Ty::Decimal(sr) && op != "/" {
            // Two integers; with an UNSIGNED operand the result is unsigned.
            if (l.unsigned || r.unsigned) && op != "%" {
                let f = match op {
                    "+" => "my_uadd",
                    "-" => "my_usub",
                    _ => "my_umul",
                };
                let mut t =
                    Typed::with_parts(format!("{f}({}, {})", l.sql, r.sql), Ty::Int, &parts);
                t.unsigned = true;
                return Ok(t);
            }
            match op {
                "+" => Typed::with_parts(format!("my_iadd({}, {})", l.sql, r.sql), Ty::Int, &parts),
                "-" => Typed::with_parts(format!("my_isub({}, {})", l.sql, r.sql), Ty::Int, &parts),
                "*" => Typed::with_parts(format!("my_imul({}, {})", l.sql, r.sql), Ty::Int, &parts),
                // The remainder of an UNSIGNED dividend is UNSIGNED, as MySQL types it.
                _ => Typed {
                    unsigned: l.unsigned,
                    ..Typed::with_parts(
                        format!("my_dec_mod({}, {}, 0, {strict})", l.sql, r.sql),
                        Ty::Int,
                        &parts,
                    )
                },
            }
        } else {
            let (f, s) = match op {
                "+" => ("my_dec_add", sl.max(sr)),
                "-" => ("my_dec_sub", sl.max(sr)),
                "*" => ("my_dec_mul", (sl + sr).min(30)),
                "/" => ("my_dec_div", (sl + 4).min(30)),
                _ => ("my_dec_mod", sl.max(sr)),
            };
            let extra = if matches!(op, "/" | "%") {
                format!(", {strict}")
            } else {
                String::new()
            };
            Typed::with_parts(
                format!("{f}({}, {}, {s}{extra})", l.sql, r.sql),
                Ty::Decimal(s),
                &parts,
            )
        }
    } else {
        // In a write, a string that is not wholly a number fails (strict mode's 1292).
        let operand = |t: &Typed| match t.ty {
            Ty::Str(_) | Ty::Bytes if strict == 1 => format!("my_cast_double_strict({})", t.sql),
            _ => real_operand(t),
        };
        let (a, b) = (operand(l), operand(r));
        let sql = match op {
            "/" => format!("my_dbl_div({a}, {b}, {strict})"),
            "%" => format!("my_dbl_mod({a}, {b}, {strict})"),
            _ => format!("(CAST({a} AS REAL) {op} {b})"),
        };
        Typed::with_parts(sql, Ty::Double, &parts)
    };
    Ok(t)
}

/// A literal value.
fn literal(v: &Value) -> Result<Typed> {
    Ok(match v {
        Value::Number(n, _) => {
            if n.contains(['e', 'E']) {
                // SQLite's own reading of a decimal text is one unit in the last place off for
                // some literals; MySQL reads the nearest double, as Rust's parser does, and the
                // double's bits carry it over exactly.
                match n.parse::<f64>() {
                    Ok(x) if x.is_finite() => Typed::new(
                        format!("my_double_of_bits({})", x.to_bits() as i64),
                        Ty::Double,
                    ),
                    _ => return Err(TranslateError::IllegalDouble(n.clone())),
                }
            } else if let Some((_, frac)) = n.split_once('.') {
                let scale = u8::try_from(frac.len()).unwrap_or(u8::MAX).min(30);
                Typed::new(quote(n), Ty::Decimal(scale))
            } else if n.parse::<i64>().is_ok() {
                Typed::new(n.clone(), Ty::Int)
            } else {
                Typed::new(quote(n), Ty::Decimal(0))
            }
        }
        Value::SingleQuotedString(s)
        | Value::DoubleQuotedString(s)
        | Value::NationalStringLiteral(s) => Typed::new(quote(s), Ty::Str(Collation::Ci)),
        Value::HexStringLiteral(h) => {
            let h = if h.len() % 2 == 1 {
                format!("0{h}")
            } else {
                h.clone()
            };
            Typed {
                bytes_literal: true,
                ..Typed::new(format!("X'{h}'"), Ty::Bytes)
            }
        }
        // b'101': the bytes of the bits, right-aligned, as MySQL makes them.
        Value::SingleQuotedByteStringLiteral(bits) => {
            if bits.is_empty() || bits.len() > 64 || !bits.bytes().all(|b| b == b'0' || b == b'1') {
                return unsupported(format!("bit-value literal b'{bits}'"));
            }
            let value = u64::from_str_radix(bits, 2).unwrap_or(0);
            let bytes = bits.len().div_ceil(8);
            let hex = format!("{value:0width$X}", width = bytes * 2);
            Typed {
                bytes_literal: true,
                ..Typed::new(format!("X'{hex}'"), Ty::Bytes)
            }
        }
        Value::Boolean(b) => Typed::new(if *b { "1" } else { "0" }, Ty::Int),
        Value::Null => Typed::new("NULL", Ty::Null),
        other => return unsupported(format!("literal {other}")),
    })
}

/// MySQL's bit operators (`& | ^ << >> ~`) on integers: computed on the operands' 64 bits as
/// unsigned, as MySQL does, by `my_bitop`. A result past BIGINT (such as `~0`) is 1235 when
/// the statement runs, unless it is the operand of another bit operator, which takes its 64
/// bits as they are (`~0 & 255`). Operands of other types, which MySQL rounds or reads as
/// numbers first, are refused.
fn bitwise(op: &str, l: &Typed, r: &Typed) -> Result<Typed> {
    for t in [l, r] {
        if t.bytes_literal || !matches!(t.compared().ty, Ty::Int | Ty::Null) {
            return unsupported(format!("operator {op} of other than integers"));
        }
    }
    let bits = |t: &Typed| match t.sql.strip_suffix(", 1)") {
        Some(head) if t.sql.starts_with("my_bitop(") => format!("{head}, 0)"),
        _ => t.sql.clone(),
    };
    Ok(Typed::with_parts(
        format!("my_bitop('{op}', {}, {}, 1)", bits(l), bits(r)),
        Ty::Int,
        &[l, r],
    ))
}

/// A string compared with a number in a strict write: read as a DOUBLE that must be wholly a
/// number (strict mode's 1292, where a query warns).
fn strict_number(t: Typed, other: &Typed) -> Typed {
    if !matches!(t.ty, Ty::Str(_) | Ty::Bytes)
        || !matches!(other.ty, Ty::Int | Ty::Decimal(_) | Ty::Double | Ty::Float)
        || t.bytes_literal
        || other.bit
    {
        return t;
    }
    Typed::with_parts(
        format!("my_cast_double_strict({})", t.sql),
        Ty::Double,
        &[&t],
    )
}

/// A date or time as MySQL reads it as a number: 2024-02-29 is 20240229, 10:11:12 is 101112
/// (`my_temporal_number`); any other value as it is. A fraction of a second is refused, as a
/// number MySQL keeps its digits (a DECIMAL) and rounds it where cast to an integer; with
/// `zero_fraction` a fraction of zeros (a DATETIME(3)'s `.000`) reads as the whole number, for
/// casts, whose type does not depend on it.
fn temporal_number(t: Typed, zero_fraction: bool) -> Typed {
    if !t.ty.is_temporal() {
        return t;
    }
    Typed::with_parts(
        format!(
            "my_temporal_number({}, {})",
            t.sql,
            i32::from(zero_fraction)
        ),
        Ty::Int,
        &[&t],
    )
}

/// CAST(x AS type) and CONVERT(x, type).
/// `CAST(x AS data_type)`. In a strict write (`strict`) a string that is not entirely a number
/// fails with 1292 where MySQL would warn.
/// `shown` is the cast as the statement shows it, which MySQL's 1264 for a value past a
/// DECIMAL names.
pub(crate) fn cast(
    x: &Typed,
    data_type: &str,
    strict: bool,
    shown: &str,
    zero_dates: i32,
) -> Result<Typed> {
    // A DATE or DATETIME's flags: strict (1) and the zero dates the SQL mode refuses.
    let date_flags = i32::from(strict) + zero_dates;
    if x.json {
        return unsupported("CAST of a JSON value");
    }
    let upper = data_type.to_ascii_uppercase();
    let parts = [x];
    let args = |s: &str| -> Vec<u8> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter_map(|p| p.parse().ok())
            .collect()
    };
    let unsigned = upper.starts_with("UNSIGNED");
    // MySQL reads a date or time as its number (20240229) where the text would read as 2024.
    let numeric = unsigned
        || [
            "SIGNED", "INT", "BIGINT", "DECIMAL", "NUMERIC", "DOUBLE", "REAL",
        ]
        .iter()
        .any(|t| upper.starts_with(t));
    if numeric && x.ty.is_temporal() {
        let number = temporal_number(x.clone(), true);
        return cast(&number, data_type, strict, shown, zero_dates);
    }
    // MySQL dates a TIME with the current day.
    if x.ty == Ty::Time && (upper == "DATE" || upper.starts_with("DATETIME")) {
        return unsupported(format!("CAST of a TIME AS {data_type}"));
    }
    if unsigned
        || upper.starts_with("SIGNED")
        || upper.starts_with("INT")
        || upper.starts_with("BIGINT")
    {
        // In a strict write the reading is in capitals: its warnings are errors.
        let kind = if strict {
            integer_reading(x.ty).to_ascii_uppercase()
        } else {
            integer_reading(x.ty).to_owned()
        };
        let f = if unsigned {
            "my_cast_unsigned"
        } else {
            "my_cast_signed"
        };
        return Ok(Typed {
            unsigned,
            ..Typed::with_parts(format!("{f}({}, '{kind}')", x.sql), Ty::Int, &parts)
        });
    }
    if upper.starts_with("DECIMAL") || upper.starts_with("NUMERIC") {
        let nums = args(&upper);
        let (p, s) = match nums.as_slice() {
            [] => (10, 0),
            [p] => (*p, 0),
            [p, s, ..] => (*p, *s),
        };
        if s > p || p > 65 || s > 30 {
            return unsupported(format!("CAST AS {data_type}"));
        }
        return Ok(Typed::with_parts(
            format!(
                "my_cast_decimal({}, {p}, {s}, {}, {})",
                x.sql,
                i32::from(strict),
                quote(shown)
            ),
            Ty::Decimal(s),
            &parts,
        ));
    }
    if upper.starts_with("DOUBLE") || upper.starts_with("REAL") {
        let f = if strict && matches!(x.ty, Ty::Str(_) | Ty::Bytes) {
            "my_cast_double_strict"
        } else {
            "my_cast_double"
        };
        return Ok(Typed::with_parts(
            format!("{f}({})", x.sql),
            Ty::Double,
            &parts,
        ));
    }
    // CHAR(n): the first n characters, with MySQL's 1292 for a cut value (a warning, also in
    // a write, as MariaDB gives it).
    if upper.starts_with("CHAR(") && !upper.contains(' ') {
        let Some(&n) = args(&upper).first() else {
            return unsupported(format!("CAST AS {data_type}"));
        };
        return Ok(Typed::with_parts(
            // MariaDB makes the cut of a number an error in a strict write, a string's a warning.
            format!(
                "my_cast_char({}, {n}, {})",
                as_text(x),
                i32::from(strict && !matches!(x.ty, Ty::Str(_) | Ty::Bytes | Ty::Dyn))
            ),
            Ty::Str(Collation::Ci),
            &parts,
        ));
    }
    if upper.starts_with("CHAR") && !upper.contains('(') {
        return Ok(Typed::with_parts(
            as_text(x),
            Ty::Str(Collation::Ci),
            &parts,
        ));
    }
    // BINARY(n): the first n bytes, or the value padded with zero bytes to n, with MySQL's
    // 1292 for a cut value.
    if upper.starts_with("BINARY(") && !upper.contains(' ') {
        let Some(&n) = args(&upper).first() else {
            return unsupported(format!("CAST AS {data_type}"));
        };
        return Ok(Typed::with_parts(
            format!("my_cast_binary({}, {n})", as_text(x)),
            Ty::Bytes,
            &parts,
        ));
    }
    if upper.starts_with("BINARY") && !upper.contains('(') {
        return Ok(Typed::with_parts(
            format!("CAST({} AS BLOB)", as_text(x)),
            Ty::Bytes,
            &parts,
        ));
    }
    // A DECIMAL is read as a number (`YYYYMMDD[HHMMSS]`), not as the text SQLite holds.
    let date_flags = if matches!(x.ty, Ty::Decimal(_)) {
        date_flags + crate::dates::NUMBER_TEXT
    } else {
        date_flags
    };
    if upper == "DATE" {
        return Ok(Typed::with_parts(
            format!("my_date({}, {date_flags})", x.sql),
            Ty::Date,
            &parts,
        ));
    }
    if upper == "DATETIME" || upper.starts_with("DATETIME(") {
        let fsp = args(&upper).first().copied().unwrap_or(0).min(6);
        return Ok(Typed::with_parts(
            format!("my_datetime({}, {fsp}, {date_flags})", x.sql),
            Ty::DateTime,
            &parts,
        ));
    }
    if upper == "TIME" || upper.starts_with("TIME(") {
        let fsp = args(&upper).first().copied().unwrap_or(0).min(6);
        return Ok(Typed::with_parts(
            format!("my_time({}, {fsp}, {})", x.sql, i32::from(strict)),
            Ty::Time,
            &parts,
        ));
    }
    unsupported(format!("CAST AS {data_type}"))
}

/// A quoted string literal.
fn is_string_literal(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if matches!(
        v.value,
        sqlparser::ast::Value::SingleQuotedString(_) | sqlparser::ast::Value::DoubleQuotedString(_)
    ))
}

/// A comparison of two rows as the comparisons of their members, as MySQL defines it: `=` and
/// `<=>` when every pair is, `<>` when not all pairs are equal, and an order comparison decided
/// at the first pair that differs (`(a, b) < (x, y)` is `a < x OR (a = x AND b < y)`), which
/// keeps MySQL's NULL where a pair before the decision has one. An order comparison repeats
/// members: one with a `?` argument needs `placeholders_numbered` (each `?` is then its `?N`
/// wherever it is repeated), else it is refused, since its arguments would be bound twice.
fn row_comparison(
    left: &[Expr],
    op: &BinaryOperator,
    right: &[Expr],
    placeholders_numbered: bool,
) -> Result<Expr> {
    use BinaryOperator as B;
    if left.len() != right.len() {
        return Err(TranslateError::OperandColumns(left.len()));
    }
    if left
        .iter()
        .chain(right)
        .any(|e| matches!(e, Expr::Tuple(_)))
    {
        return unsupported("comparison of nested rows");
    }
    let pair = |l: &Expr, op: B, r: &Expr| Expr::BinaryOp {
        left: Box::new(l.clone()),
        op,
        right: Box::new(r.clone()),
    };
    let all = |op: B| {
        left.iter()
            .zip(right)
            .map(|(l, r)| pair(l, op.clone(), r))
            .reduce(|a, b| pair(&a, B::And, &b))
            .expect("a row has members")
    };
    Ok(match op {
        B::Eq | B::Spaceship => all(op.clone()),
        B::NotEq => Expr::UnaryOp {
            op: sqlparser::ast::UnaryOperator::Not,
            expr: Box::new(Expr::Nested(Box::new(all(B::Eq)))),
        },
        _ => {
            let placeholder =
                |e: &Expr| matches!(e, Expr::Value(v) if matches!(v.value, Value::Placeholder(_)));
            if !placeholders_numbered && left.iter().chain(right).any(placeholder) {
                return unsupported("order comparison of rows with arguments");
            }
            let strict = match op {
                B::LtEq => B::Lt,
                B::GtEq => B::Gt,
                other => other.clone(),
            };
            let last = left.len() - 1;
            let mut row = pair(&left[last], op.clone(), &right[last]);
            for i in (0..last).rev() {
                let rest = pair(
                    &pair(&left[i], B::Eq, &right[i]),
                    B::And,
                    &Expr::Nested(Box::new(row)),
                );
                row = pair(
                    &pair(&left[i], strict.clone(), &right[i]),
                    B::Or,
                    &Expr::Nested(Box::new(rest)),
                );
            }
            row
        }
    })
}

/// Whether function `name` reads its argument `i` as a string, where MySQL reads an ENUM or SET
/// as its member's text (never its index); COALESCE, IFNULL and IF's results too, whose type
/// MySQL aggregates from an ENUM or SET as a string's.
fn reads_a_string(name: &str, i: usize) -> bool {
    match name {
        "CONCAT" | "CONCAT_WS" | "COALESCE" | "IFNULL" => true,
        "IF" => i >= 1,
        "UPPER" | "LOWER" | "UCASE" | "LCASE" | "LENGTH" | "OCTET_LENGTH" | "CHAR_LENGTH"
        | "CHARACTER_LENGTH" | "REVERSE" | "LTRIM" | "RTRIM" | "MD5" | "SHA1" => i == 0,
        "LEFT" | "RIGHT" | "REPLACE" | "LPAD" | "RPAD" | "SUBSTRING_INDEX" => i == 0,
        "LOCATE" | "INSTR" => i <= 1,
        _ => false,
    }
}
