//! The parser's dialect: [`MySqlDialect`] with the MySQL forms it cannot parse on its own and
//! that the token pass cannot spell as others.
//!
//! [`Front`] answers every question the parser asks as [`MySqlDialect`] does (it reports
//! MySqlDialect's type, so the parser's MySQL-only rules hold, and forwards each method
//! MySqlDialect overrides; a test compares the trees of both on texts without the forms below).
//! What it adds:
//!
//! - **`||` and `&&`**: MySQL's OR and AND, with OR's and AND's precedence (the tree keeps
//!   `||` as [`BinaryOperator::StringConcat`](sqlparser::ast::BinaryOperator::StringConcat),
//!   which is OR unless `PIPES_AS_CONCAT`).
//! - **`!`**: MySQL's logical NOT, binding tighter than any binary operator (`!1 = 0` is
//!   `(!1) = 0`), read as [`UnaryOperator::BangNot`].
//! - **`CAST(x AS type CHARACTER SET cs)`** (or `CHARSET cs`): read as the tree of its MySQL
//!   synonym `CONVERT(x, type CHARACTER SET cs)`, an [`Expr::Convert`] with a character set.
//! - **`ALTER TABLE t DISABLE KEYS`** and **`ENABLE KEYS`**: read as an [`AlterTable`] without
//!   operations. The option only tells a storage engine with non-unique index maintenance
//!   (MyISAM) to pause it; InnoDB and SQLite have nothing to pause, and MySQL answers a
//!   table of theirs with a note and no change, so the node's engines see a statement that
//!   changes nothing (a backend that forwards the text still runs it as written).
//! - **Compound units** (`INTERVAL '1:30' HOUR_MINUTE`, `EXTRACT(YEAR_MONTH FROM d)`; the
//!   names in [`COMPOUND_UNITS`]): read as an [`Expr::Interval`] or [`Expr::Extract`] whose
//!   field is [`DateTimeField::Custom`] with the unit's name in capitals. Another word there
//!   is still a syntax error.

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{
    AlterTable, DataType, DateTimeField, Expr, ExtractSyntax, Ident, Interval, Statement,
    UnaryOperator,
};
use sqlparser::dialect::{BindPlaceholderStyle, Dialect, MySqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// [`MySqlDialect`] with the additions in the module docs.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Front;

const MYSQL: MySqlDialect = MySqlDialect {};

macro_rules! as_mysql {
    ($($name:ident),* ; $($char_name:ident),*) => {
        $(fn $name(&self) -> bool {
            MYSQL.$name()
        })*
        $(fn $char_name(&self, ch: char) -> bool {
            MYSQL.$char_name(ch)
        })*
    };
}

impl Dialect for Front {
    fn dialect(&self) -> std::any::TypeId {
        MYSQL.dialect()
    }

    as_mysql!(
        supports_string_literal_backslash_escape, supports_string_literal_concatenation,
        ignores_wildcard_escapes, supports_numeric_prefix,
        supports_literal_prefix_in_qualified_name, supports_bitwise_shift_operators,
        supports_singular_value_keyword, supports_multiline_comment_hints,
        require_interval_qualifier, supports_limit_comma, supports_create_table_select,
        supports_insert_set, supports_user_host_grantee, supports_table_hints,
        requires_single_line_comment_whitespace, supports_hash_comment, supports_match_against,
        supports_select_modifiers, supports_set_names, supports_comma_separated_set_assignments,
        supports_alter_column_position, supports_update_order_by,
        supports_data_type_signed_suffix, supports_data_type_zerofill_suffix,
        supports_cross_join_constraint, supports_double_ampersand_operator,
        supports_binary_kw_as_cast, supports_table_partitions, supports_comment_optimizer_hint,
        supports_constraint_keyword_without_name, supports_key_column_option,
        supports_group_by_with_modifier, supports_left_associative_joins_without_parens;
        is_identifier_start, is_identifier_part, is_delimited_identifier_start
    );

    fn supports_string_literal_table_alias(&self, explicit: bool) -> bool {
        MYSQL.supports_string_literal_table_alias(explicit)
    }

    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        MYSQL.identifier_quote_style(identifier)
    }

    fn ordered_bind_placeholder_style(&self) -> Option<BindPlaceholderStyle> {
        MYSQL.ordered_bind_placeholder_style()
    }

    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        MYSQL.is_table_factor_alias(explicit, kw, parser)
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        MYSQL.parse_infix(parser, expr, precedence)
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        // MySQL's `||` is OR and `&&` is AND, with their precedence (sqlparser gives them a
        // string concatenation's and an operator's above the comparisons, so `a = 1 || b = 2`
        // read as `a = (1 || b) = 2`).
        match &parser.peek_token_ref().token {
            Token::StringConcat => Some(Ok(self.prec_value(Precedence::Or))),
            Token::Overlap => Some(Ok(self.prec_value(Precedence::And))),
            _ => MYSQL.get_next_precedence(parser),
        }
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        match &parser.peek_token_ref().token {
            // The tokenizer reads `!!` as one token: two NOTs for MySQL.
            bang @ (Token::ExclamationMark | Token::DoubleExclamationMark) => {
                let nots = if *bang == Token::ExclamationMark {
                    1
                } else {
                    2
                };
                parser.next_token();
                // Above every binary operator: the operand is one primary (with its own
                // prefixes), as for unary minus.
                let operand = parser.parse_subexpr(self.prec_value(Precedence::MulDivModOp));
                Some(operand.map(|expr| {
                    (0..nots).fold(expr, |expr, _| Expr::UnaryOp {
                        op: UnaryOperator::BangNot,
                        expr: Box::new(expr),
                    })
                }))
            }
            Token::Word(word)
                if word.keyword == Keyword::CAST
                    && word.quote_style.is_none()
                    && cast_names_charset(parser) =>
            {
                Some(cast_with_charset(parser))
            }
            Token::Word(word)
                if matches!(word.keyword, Keyword::INTERVAL | Keyword::EXTRACT)
                    && word.quote_style.is_none() =>
            {
                let compound = if word.keyword == Keyword::INTERVAL {
                    parser.maybe_parse(interval_of_compound_unit)
                } else {
                    parser.maybe_parse(extract_of_compound_unit)
                };
                compound.transpose()
            }
            _ => None,
        }
    }

    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        if parser.peek_keyword(Keyword::ALTER) {
            match parser.maybe_parse(alter_table_keys) {
                Ok(Some(statement)) => return Some(Ok(statement)),
                Ok(None) => {}
                Err(err) => return Some(Err(err)),
            }
        }
        MYSQL.parse_statement(parser)
    }
}

/// MySQL's INTERVAL units of several fields, which sqlparser has no keywords for.
const COMPOUND_UNITS: &[&str] = &[
    "YEAR_MONTH",
    "DAY_HOUR",
    "DAY_MINUTE",
    "DAY_SECOND",
    "DAY_MICROSECOND",
    "HOUR_MINUTE",
    "HOUR_SECOND",
    "HOUR_MICROSECOND",
    "MINUTE_SECOND",
    "MINUTE_MICROSECOND",
    "SECOND_MICROSECOND",
];

/// A compound unit at the parser's position, consumed, as its field.
fn compound_unit(parser: &mut Parser) -> Result<DateTimeField, ParserError> {
    let token = parser.next_token();
    if let Token::Word(word) = &token.token
        && word.quote_style.is_none()
    {
        let name = word.value.to_ascii_uppercase();
        if COMPOUND_UNITS.contains(&name.as_str()) {
            return Ok(DateTimeField::Custom(Ident::new(name)));
        }
    }
    parser.expected("a compound unit", token)
}

/// `INTERVAL expr unit` with a compound unit (module docs).
fn interval_of_compound_unit(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.expect_keyword_is(Keyword::INTERVAL)?;
    let value = parser.parse_expr()?;
    let field = compound_unit(parser)?;
    Ok(Expr::Interval(Interval {
        value: Box::new(value),
        leading_field: Some(field),
        leading_precision: None,
        last_field: None,
        fractional_seconds_precision: None,
    }))
}

/// `EXTRACT(unit FROM expr)` with a compound unit (module docs).
fn extract_of_compound_unit(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.expect_keyword_is(Keyword::EXTRACT)?;
    parser.expect_token(&Token::LParen)?;
    let field = compound_unit(parser)?;
    parser.expect_keyword_is(Keyword::FROM)?;
    let expr = parser.parse_expr()?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Extract {
        field,
        syntax: ExtractSyntax::From,
        expr: Box::new(expr),
    })
}

/// Whether the `CAST(` at the parser's position names a character set after its type: a
/// `CHARACTER SET` or `CHARSET` directly inside its parentheses (not in a nested call).
fn cast_names_charset(parser: &Parser) -> bool {
    if parser.peek_nth_token_ref(1).token != Token::LParen {
        return false;
    }
    let mut depth = 0usize;
    let mut after_as = false;
    for n in 1.. {
        let token = &parser.peek_nth_token_ref(n).token;
        match token {
            Token::EOF => return false,
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return false;
                }
            }
            Token::Word(word) if depth == 1 && word.quote_style.is_none() => match word.keyword {
                Keyword::AS => after_as = true,
                Keyword::CHARSET if after_as => return true,
                Keyword::CHARACTER if after_as => {
                    return matches!(
                        &parser.peek_nth_token_ref(n + 1).token,
                        Token::Word(next) if next.keyword == Keyword::SET
                    );
                }
                _ => {}
            },
            _ => {}
        }
    }
    false
}

/// `CAST(expr AS type {CHARACTER SET | CHARSET} name)` as `CONVERT(expr, type CHARACTER SET
/// name)`.
fn cast_with_charset(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.expect_keyword_is(Keyword::CAST)?;
    parser.expect_token(&Token::LParen)?;
    let expr = parser.parse_expr()?;
    parser.expect_keyword_is(Keyword::AS)?;
    let data_type: DataType = parser.parse_data_type()?;
    if !parser.parse_keyword(Keyword::CHARSET) {
        parser.expect_keywords(&[Keyword::CHARACTER, Keyword::SET])?;
    }
    let charset = parser.parse_object_name(false)?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Convert {
        is_try: false,
        expr: Box::new(expr),
        data_type: Some(data_type),
        charset: Some(charset),
        target_before_value: false,
        styles: Vec::new(),
    })
}

/// `ALTER TABLE name {DISABLE | ENABLE} KEYS`, the whole statement (module docs).
fn alter_table_keys(parser: &mut Parser) -> Result<Statement, ParserError> {
    parser.expect_keywords(&[Keyword::ALTER, Keyword::TABLE])?;
    let name = parser.parse_object_name(false)?;
    parser.expect_one_of_keywords(&[Keyword::DISABLE, Keyword::ENABLE])?;
    let keys = parser.expect_keyword(Keyword::KEYS)?;
    if parser.peek_token_ref().token != Token::EOF {
        return parser.expected("end of statement", parser.peek_token());
    }
    Ok(Statement::AlterTable(AlterTable {
        name,
        if_exists: false,
        only: false,
        operations: Vec::new(),
        location: None,
        on_cluster: None,
        table_type: None,
        end_token: AttachedToken(keys),
    }))
}

#[cfg(test)]
mod tests {
    use sqlparser::ast::{BinaryOperator, Expr, SelectItem, SetExpr, Statement, UnaryOperator};
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::parser::Parser;

    use super::Front;
    use crate::{Kind, Options, parse_one_statement};

    fn items(text: &str) -> Vec<Expr> {
        let parsed = parse_one_statement(text, &Options::default()).unwrap();
        let Some(Statement::Query(query)) = parsed.statement() else {
            panic!("{text} is not a query");
        };
        let SetExpr::Select(select) = query.body.as_ref() else {
            panic!("{text} is not a SELECT");
        };
        select
            .projection
            .iter()
            .map(|item| match item {
                SelectItem::UnnamedExpr(expr) => expr.clone(),
                other => panic!("{other} has an alias"),
            })
            .collect()
    }

    fn bang(expr: Expr) -> Expr {
        Expr::UnaryOp {
            op: UnaryOperator::BangNot,
            expr: Box::new(expr),
        }
    }

    fn number(text: &str) -> Expr {
        Expr::value(sqlparser::ast::Value::Number(text.into(), false))
    }

    #[test]
    fn bang_is_not_and_binds_tighter_than_any_binary_operator() {
        let [first, second, third, fourth] = items("SELECT !0, ! (1 = 2), !1 = 0, !!1 * 2")
            .try_into()
            .unwrap();
        assert_eq!(first, bang(number("0")));
        assert!(
            matches!(second, Expr::UnaryOp { op: UnaryOperator::BangNot, ref expr }
            if matches!(expr.as_ref(), Expr::Nested(_)))
        );
        assert_eq!(
            third,
            Expr::BinaryOp {
                left: Box::new(bang(number("1"))),
                op: BinaryOperator::Eq,
                right: Box::new(number("0")),
            }
        );
        assert_eq!(
            fourth,
            Expr::BinaryOp {
                left: Box::new(bang(bang(number("1")))),
                op: BinaryOperator::Multiply,
                right: Box::new(number("2")),
            }
        );
        assert_eq!(items("SELECT 1 != 2").len(), 1, "!= stays one operator");
    }

    #[test]
    fn cast_with_a_character_set_is_its_convert_synonym() {
        for (text, tree) in [
            (
                "SELECT CAST(x AS CHAR CHARACTER SET utf8mb4)",
                "CONVERT(x, CHAR CHARACTER SET utf8mb4)",
            ),
            (
                "SELECT CAST(CAST(y AS CHAR) AS CHAR(3) CHARSET latin1)",
                "CONVERT(CAST(y AS CHAR), CHAR(3) CHARACTER SET latin1)",
            ),
            (
                "SELECT CAST(CONVERT(y, CHAR CHARACTER SET utf8) AS SIGNED)",
                "CAST(CONVERT(y, CHAR CHARACTER SET utf8) AS SIGNED)",
            ),
        ] {
            let [item] = items(text).try_into().unwrap();
            assert_eq!(item.to_string(), tree, "{text}");
        }
    }

    #[test]
    fn disable_and_enable_keys_alter_nothing() {
        for (text, table) in [
            ("ALTER TABLE t DISABLE KEYS", "t"),
            ("/*!40000 ALTER TABLE `db`.`t` ENABLE KEYS */", "`db`.`t`"),
        ] {
            let parsed = parse_one_statement(text, &Options::default()).unwrap();
            assert_eq!(parsed.kind, Kind::Ddl);
            let Some(Statement::AlterTable(alter)) = parsed.statement() else {
                panic!("{text} is not an ALTER TABLE");
            };
            assert!(alter.operations.is_empty(), "{text}");
            assert_eq!(alter.name.to_string(), table);
        }
    }

    #[test]
    fn compound_units_are_custom_fields() {
        let [interval, extract] =
            items("SELECT d + INTERVAL '1:30' hour_minute, EXTRACT(YEAR_MONTH FROM d)")
                .try_into()
                .unwrap();
        assert_eq!(interval.to_string(), "d + INTERVAL '1:30' HOUR_MINUTE");
        assert_eq!(extract.to_string(), "EXTRACT(YEAR_MONTH FROM d)");
        for text in [
            "SELECT d + INTERVAL 1 HOUR_MINUTES",
            "SELECT EXTRACT(DAYS_HOUR FROM d)",
        ] {
            assert!(
                parse_one_statement(text, &Options::default()).is_err(),
                "{text}"
            );
        }
    }

    /// Texts of the forms MySqlDialect already reads: Front must read each to the same tree.
    const READ_AS_MYSQL: &[&str] = &[
        "SELECT a, b FROM t WHERE a = 1 AND NOT b <=> 2 ORDER BY a DESC LIMIT 1, 2",
        "SELECT 7 DIV 2, a && b, 1 << 2, CAST(a AS UNSIGNED), CONVERT(a USING utf8mb4), _utf8mb4'x'",
        "SELECT * FROM a STRAIGHT_JOIN b FORCE INDEX (i) WHERE a.x = b.x FOR UPDATE SKIP LOCKED",
        "SELECT `t`.`a` AS 'x', @v := 1, @@session.sql_mode FROM t USE INDEX () GROUP BY a WITH ROLLUP",
        "SELECT GROUP_CONCAT(DISTINCT a ORDER BY a SEPARATOR ';'), MATCH (a) AGAINST ('x') FROM t",
        "INSERT INTO t (a) VALUES (1), (DEFAULT) AS new ON DUPLICATE KEY UPDATE a = new.a",
        "INSERT INTO t SET a = 1, b = 'x'",
        "SELECT d + INTERVAL 1 DAY, DATE_ADD(d, INTERVAL '2' HOUR), EXTRACT(YEAR FROM d) FROM t",
        "REPLACE t (a) SELECT a FROM u",
        "UPDATE t SET a = a + 1 ORDER BY a LIMIT 2",
        "DELETE FROM t WHERE a IN (SELECT b FROM u) LIMIT 1",
        "CREATE TABLE t (id INT UNSIGNED ZEROFILL NOT NULL AUTO_INCREMENT, KEY k (id), \
         CONSTRAINT FOREIGN KEY (id) REFERENCES u (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
        "CREATE TABLE t2 SELECT 1 AS a",
        "ALTER TABLE t ADD COLUMN b INT AFTER a, ALGORITHM=INPLACE, LOCK=NONE",
        "LOCK TABLES t WRITE, u AS v READ LOCAL",
        "UNLOCK TABLES",
        "SET @a = 1, SESSION sql_mode = ''",
        "GRANT SELECT ON db.* TO 'u'@'%'",
        "SELECT * FROM t PARTITION (p0) AS x",
        "SELECT $a, ? FROM t WHERE b LIKE 'x\\_%' ESCAPE '!'",
        "SHOW FULL PROCESSLIST",
        "KILL QUERY 5",
    ];

    #[test]
    fn front_reads_mysqls_forms_as_mysql_does() {
        for text in READ_AS_MYSQL {
            let ours = Parser::new(&Front)
                .try_with_sql(text)
                .unwrap()
                .parse_statements();
            let mysql = Parser::new(&MySqlDialect {})
                .try_with_sql(text)
                .unwrap()
                .parse_statements();
            assert!(mysql.is_ok(), "{text}: {mysql:?}");
            assert_eq!(ours, mysql, "{text}");
        }
    }
}
