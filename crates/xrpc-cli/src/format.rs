//! Rendering results: mysql-client tables, CSV and JSON, and the footer lines around them.
//!
//! Every renderer works on an [`ExecResult`] and writes text; none of them talks to a server, so
//! the exact output is unit-tested here and end-to-end in `tests/cli.rs`.
//!
//! Values become text the way the mysql client shows them: integers and doubles in their shortest
//! decimal form, DECIMAL exactly as the node sent it (`1.50` stays `1.50`), DATE/DATETIME/TIME in
//! ISO form, SET members joined with commas, and NULL as `NULL`. A BYTES value of a binary column
//! that is not valid UTF-8 is shown as `0x…` hex; any other BYTES value as text (invalid UTF-8
//! replaced).
//!
//! | format | NULL | strings | numbers |
//! |---|---|---|---|
//! | table | `NULL` | as is, left-aligned | right-aligned |
//! | csv (RFC 4180, header line) | empty field | quoted when they hold `,` `"` CR or LF, or are empty | as is |
//! | json (see below) | `null` | strings | numbers where a double holds them exactly, else strings |
//!
//! # JSON
//!
//! `--format json` prints one JSON document for the whole run: an array with one object per
//! statement, in the order they ran, written as each finishes (one line each) and closed even when
//! a statement fails, so `json.load` or `serde_json` reads it whole. Each object has, in this
//! order:
//!
//! | key | when | value |
//! |---|---|---|
//! | `statement` | always | the statement's text |
//! | `columns` | a result set | `[{"name": …, "type": …}]` in the result's column order; `type` is the X Protocol type (`SINT`, `DECIMAL`, `BYTES`, …) |
//! | `rows` | a result set | one array per row, values in column order |
//! | `rows_affected` | no result set | the affected-row count |
//! | `last_insert_id` | the statement generated one | the id |
//! | `warnings` | success | `[{"level": "Warning", "code": 1265, "message": …}]` |
//! | `error` | failure | `{"code": 1146, "sql_state": "42S02", "message": …}` (as [`crate::errors`] reports it); nothing runs after it |
//!
//! Values keep every digit, following I-JSON (RFC 7493): a reader that holds numbers as doubles
//! (JavaScript's `JSON.parse`, jq before 1.7) must not get a rounded value silently, so
//!
//! - integers (`SINT`, `UINT`, `BIT`) are numbers from −(2^53 − 1) to 2^53 − 1, and strings of
//!   their digits beyond (`"18446744073709551615"`);
//! - DOUBLE is a number in its shortest round-trip form, FLOAT a number with the digits the table
//!   shows (a non-finite value, which MySQL never stores, is `null`);
//! - DECIMAL is always a string, exactly as the node sent it (`"1.50"`, `"-0.000"`);
//! - DATE, DATETIME, TIME, ENUM and BYTES are strings as the table shows them (non-UTF-8 binary
//!   values as `"0x…"` hex); SET is an array of its members' strings.

use std::fmt::Write as _;
use std::time::Duration;

use xrpc_client::{ColumnType, ExecResult, ResultSet, Value};

use crate::errors::MysqlError;

/// The output formats of `xrpc exec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Bordered tables, as the mysql client prints them.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON document: an array with an object per statement (its columns, rows as arrays,
    /// affected rows, warnings or error).
    Json,
}

/// A value as text for tables and CSV; `None` for NULL.
pub fn value_text(value: &Value, binary: bool) -> Option<String> {
    Some(match value {
        Value::Null => return None,
        Value::Sint(v) => v.to_string(),
        Value::Uint(v) | Value::Bit(v) => v.to_string(),
        Value::Double(v) => v.to_string(),
        Value::Float(v) => v.to_string(),
        Value::Bytes(b) | Value::Enum(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_owned(),
            Err(_) if binary => {
                let mut hex = String::with_capacity(2 + b.len() * 2);
                hex.push_str("0x");
                for byte in b.iter() {
                    let _ = write!(hex, "{byte:02X}");
                }
                hex
            }
            Err(_) => String::from_utf8_lossy(b).into_owned(),
        },
        Value::Time(t) => t.to_string(),
        Value::DateTime(d) => d.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Set(items) => items
            .iter()
            .map(|i| String::from_utf8_lossy(i).into_owned())
            .collect::<Vec<_>>()
            .join(","),
    })
}

/// The largest integer magnitude every double holds exactly: 2^53 − 1.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// An integer as JSON: a number within ±(2^53 − 1), else a string of its digits.
fn integer_json(magnitude: u64, text: impl FnOnce() -> String) -> serde_json::Value {
    if magnitude <= MAX_SAFE_INTEGER {
        serde_json::Value::from(magnitude)
    } else {
        serde_json::Value::String(text())
    }
}

/// A value as JSON (see the [module docs](self) for the mapping).
pub fn value_json(value: &Value, binary: bool) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        Value::Null => J::Null,
        Value::Sint(v) if v.unsigned_abs() <= MAX_SAFE_INTEGER => J::from(*v),
        Value::Sint(v) => J::String(v.to_string()),
        Value::Uint(v) | Value::Bit(v) => integer_json(*v, || v.to_string()),
        Value::Double(v) => serde_json::Number::from_f64(*v).map_or(J::Null, J::Number),
        // The FLOAT's own shortest digits ("0.1"), not those of its widened double.
        Value::Float(v) => v
            .to_string()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(J::Null, J::Number),
        Value::Set(items) => J::Array(
            items
                .iter()
                .map(|i| J::String(String::from_utf8_lossy(i).into_owned()))
                .collect(),
        ),
        other => J::String(value_text(other, binary).unwrap_or_default()),
    }
}

/// Whether a column's values are right-aligned in a table (numbers, as the mysql client does).
fn right_aligned(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Sint
            | ColumnType::Uint
            | ColumnType::Double
            | ColumnType::Float
            | ColumnType::Decimal
            | ColumnType::Bit
    )
}

/// A result set as a bordered table:
///
/// ```text
/// +----+-------+
/// | id | name  |
/// +----+-------+
/// |  1 | alice |
/// +----+-------+
/// ```
pub fn table(rs: &ResultSet) -> String {
    let cells: Vec<Vec<String>> = rs
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .zip(&rs.columns)
                .map(|(v, c)| value_text(v, c.is_binary()).unwrap_or_else(|| "NULL".into()))
                .collect()
        })
        .collect();
    let headers: Vec<&str> = rs.columns.iter().map(|c| c.name.as_str()).collect();
    let align: Vec<Align> = rs
        .columns
        .iter()
        .map(|c| {
            if right_aligned(c.ty) {
                Align::Right
            } else {
                Align::Left
            }
        })
        .collect();
    grid(&headers, &cells, &align)
}

/// How a [`grid`] column places its cells; numbers are right-aligned in every table the tool
/// prints, text left-aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers (and a placeholder such as `-` among them).
    Right,
    /// Each cell by its content: right when it is a number, left otherwise (a status value that
    /// is `ON` in one row and `1024` in the next).
    Number,
}

impl Align {
    fn right(self, cell: &str) -> bool {
        match self {
            Align::Left => false,
            Align::Right => true,
            Align::Number => cell.parse::<f64>().is_ok(),
        }
    }
}

/// Any rows of text as a bordered table with a header; `align[i]` places column `i`'s cells
/// (left when missing).
pub fn grid(headers: &[&str], rows: &[Vec<String>], align: &[Align]) -> String {
    let width = |s: &str| s.chars().count();
    let mut widths: Vec<usize> = headers.iter().map(|h| width(h)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let mut border = String::from("+");
    for w in &widths {
        border.push_str(&"-".repeat(w + 2));
        border.push('+');
    }
    border.push('\n');
    let mut out = border.clone();
    // Headers are left-aligned over every column, as the mysql client prints them.
    let header: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    push_row(&mut out, &header, &widths, &[]);
    out.push_str(&border);
    for row in rows {
        push_row(&mut out, row, &widths, align);
    }
    if !rows.is_empty() {
        out.push_str(&border);
    }
    out
}

fn push_row(out: &mut String, cells: &[String], widths: &[usize], align: &[Align]) {
    out.push('|');
    for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
        let pad = " ".repeat(w - cell.chars().count());
        out.push(' ');
        if align.get(i).is_some_and(|a| a.right(cell)) {
            out.push_str(&pad);
            out.push_str(cell);
        } else {
            out.push_str(cell);
            out.push_str(&pad);
        }
        out.push_str(" |");
    }
    out.push('\n');
}

/// A result set as CSV with a header line.
pub fn csv(rs: &ResultSet) -> String {
    fn field(out: &mut String, text: &str) {
        if text.is_empty() || text.contains([',', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&text.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(text);
        }
    }
    let mut out = String::new();
    for (i, c) in rs.columns.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        field(&mut out, &c.name);
    }
    out.push('\n');
    for row in &rs.rows {
        for (i, (v, c)) in row.iter().zip(&rs.columns).enumerate() {
            if i > 0 {
                out.push(',');
            }
            if let Some(text) = value_text(v, c.is_binary()) {
                field(&mut out, &text);
            }
        }
        out.push('\n');
    }
    out
}

/// One column in `--format json`.
#[derive(serde::Serialize)]
struct JsonColumn<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'static str,
}

/// One warning in `--format json`.
#[derive(serde::Serialize)]
struct JsonWarning<'a> {
    level: &'static str,
    code: u32,
    message: &'a str,
}

/// One statement's object in `--format json`; the field order is the output's key order.
#[derive(serde::Serialize)]
struct JsonStatement<'a> {
    statement: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    columns: Option<Vec<JsonColumn<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<Vec<Vec<serde_json::Value>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows_affected: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_insert_id: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    warnings: Option<Vec<JsonWarning<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a MysqlError>,
}

/// The name the mysql client gives a warning's level (`SHOW WARNINGS`).
fn warning_level(level: i32) -> &'static str {
    match level {
        1 => "Note",
        3 => "Error",
        _ => "Warning",
    }
}

/// One statement's outcome as a one-line JSON object (see the [module docs](self)), without a
/// trailing newline.
pub fn json_statement(statement: &str, outcome: Result<&ExecResult, &MysqlError>) -> String {
    let doc = match outcome {
        Ok(result) => {
            let rs = result.result_set.as_ref();
            JsonStatement {
                statement,
                columns: rs.map(|rs| {
                    rs.columns
                        .iter()
                        .map(|c| JsonColumn {
                            name: &c.name,
                            ty: c.ty.name(),
                        })
                        .collect()
                }),
                rows: rs.map(|rs| {
                    rs.rows
                        .iter()
                        .map(|row| {
                            row.iter()
                                .zip(&rs.columns)
                                .map(|(v, c)| value_json(v, c.is_binary()))
                                .collect()
                        })
                        .collect()
                }),
                rows_affected: rs.is_none().then_some(result.rows_affected),
                last_insert_id: result
                    .last_insert_id
                    .map(|id| integer_json(id, || id.to_string())),
                warnings: Some(
                    result
                        .warnings
                        .iter()
                        .map(|w| JsonWarning {
                            level: warning_level(w.level),
                            code: w.code,
                            message: &w.message,
                        })
                        .collect(),
                ),
                error: None,
            }
        }
        Err(error) => JsonStatement {
            statement,
            columns: None,
            rows: None,
            rows_affected: None,
            last_insert_id: None,
            warnings: None,
            error: Some(error),
        },
    };
    serde_json::to_string(&doc).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// Writes `--format json`'s one document as statements finish: `[`, one object a line with
/// commas between them, and `]` when finished (or dropped), so the output is whole even when the
/// run stops early.
#[derive(Debug)]
pub struct JsonArray<W: std::io::Write> {
    out: W,
    items: usize,
    closed: bool,
}

impl<W: std::io::Write> JsonArray<W> {
    /// Opens the array on `out`.
    pub fn new(mut out: W) -> Self {
        let _ = out.write_all(b"[");
        Self {
            out,
            items: 0,
            closed: false,
        }
    }

    /// Adds one statement's outcome.
    pub fn push(&mut self, statement: &str, outcome: Result<&ExecResult, &MysqlError>) {
        let sep: &[u8] = if self.items == 0 { b"\n" } else { b",\n" };
        let _ = self.out.write_all(sep);
        let _ = self
            .out
            .write_all(json_statement(statement, outcome).as_bytes());
        let _ = self.out.flush();
        self.items += 1;
    }

    /// Closes the array.
    pub fn finish(mut self) {
        self.close();
    }

    fn close(&mut self) {
        if !self.closed {
            self.closed = true;
            let _ = self.out.write_all(b"\n]\n");
            let _ = self.out.flush();
        }
    }
}

impl<W: std::io::Write> Drop for JsonArray<W> {
    fn drop(&mut self) {
        self.close();
    }
}

/// A statement's outcome as a table or CSV (JSON is a document for the whole run:
/// [`JsonArray`]); `csv_format` picks CSV. Statements without a result set print `Query OK, N rows
/// affected` as a table, and nothing as CSV.
pub fn render(result: &ExecResult, csv_format: bool) -> String {
    match (&result.result_set, csv_format) {
        (Some(rs), false) => table(rs),
        (Some(rs), true) => csv(rs),
        (None, false) => format!("{}\n", affected(result.rows_affected, None)),
        (None, true) => String::new(),
    }
}

/// The mysql client's footer under a result set: `3 rows in set (0.00 sec)`, `Empty set`.
pub fn rows_footer(rows: usize, elapsed: Option<Duration>) -> String {
    let mut s = match rows {
        0 => "Empty set".to_owned(),
        1 => "1 row in set".to_owned(),
        n => format!("{n} rows in set"),
    };
    push_elapsed(&mut s, elapsed);
    s
}

/// `Query OK, 1 row affected (0.00 sec)`.
pub fn affected(rows: u64, elapsed: Option<Duration>) -> String {
    let mut s = format!(
        "Query OK, {rows} row{} affected",
        if rows == 1 { "" } else { "s" }
    );
    push_elapsed(&mut s, elapsed);
    s
}

fn push_elapsed(s: &mut String, elapsed: Option<Duration>) {
    if let Some(e) = elapsed {
        let _ = write!(s, " ({:.2} sec)", e.as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xrpc_client::Column;

    fn column(name: &str, ty: ColumnType) -> Column {
        Column {
            name: name.into(),
            original_name: String::new(),
            table: String::new(),
            schema: String::new(),
            ty,
            original_type: 0,
            collation: None,
            fractional_digits: None,
            length: None,
            flags: 0,
        }
    }

    fn sample() -> ResultSet {
        ResultSet {
            columns: vec![
                column("id", ColumnType::Sint),
                column("name", ColumnType::Bytes),
            ],
            rows: vec![
                vec![Value::Sint(1), Value::Bytes("alice".into())],
                vec![Value::Sint(22), Value::Null],
                vec![Value::Sint(3), Value::Bytes("a,\"b\"".into())],
            ],
        }
    }

    #[test]
    fn table_pads_and_right_aligns_numbers() {
        assert_eq!(
            table(&sample()),
            "+----+-------+\n\
             | id | name  |\n\
             +----+-------+\n\
             |  1 | alice |\n\
             | 22 | NULL  |\n\
             |  3 | a,\"b\" |\n\
             +----+-------+\n"
        );
    }

    #[test]
    fn csv_quotes_only_what_needs_it_and_leaves_null_empty() {
        assert_eq!(csv(&sample()), "id,name\n1,alice\n22,\n3,\"a,\"\"b\"\"\"\n");
    }

    #[test]
    fn json_rows_are_arrays_in_column_order_after_the_column_list() {
        let result = ExecResult {
            result_set: Some(sample()),
            ..ExecResult::default()
        };
        assert_eq!(
            json_statement("SELECT id, name FROM t", Ok(&result)),
            "{\"statement\":\"SELECT id, name FROM t\",\
             \"columns\":[{\"name\":\"id\",\"type\":\"SINT\"},{\"name\":\"name\",\"type\":\"BYTES\"}],\
             \"rows\":[[1,\"alice\"],[22,null],[3,\"a,\\\"b\\\"\"]],\"warnings\":[]}"
        );
    }

    #[test]
    fn json_keeps_every_digit_of_decimals_and_large_integers() {
        let decimal = |s: &str| Value::Decimal(xrpc_proto::value::XDecimal::parse(s).unwrap());
        assert_eq!(value_json(&decimal("1.50"), false), "1.50");
        assert_eq!(value_json(&decimal("-0.000"), false), "-0.000");
        let max_safe = (1i64 << 53) - 1;
        assert_eq!(value_json(&Value::Sint(max_safe), false), max_safe);
        assert_eq!(value_json(&Value::Sint(-max_safe), false), -max_safe);
        assert_eq!(
            value_json(&Value::Sint(max_safe + 2), false),
            "9007199254740993"
        );
        assert_eq!(
            value_json(&Value::Sint(i64::MIN), false),
            "-9223372036854775808"
        );
        assert_eq!(
            value_json(&Value::Uint(u64::MAX), false),
            "18446744073709551615"
        );
        assert_eq!(value_json(&Value::Float(0.1), false).to_string(), "0.1");
        assert_eq!(value_json(&Value::Double(-2.0), false).to_string(), "-2.0");
        assert_eq!(
            value_json(&Value::Double(f64::NAN), false),
            serde_json::Value::Null
        );
    }

    #[test]
    fn json_statements_without_rows_carry_counts_and_errors_their_code() {
        let result = ExecResult {
            rows_affected: 2,
            last_insert_id: Some(u64::MAX),
            warnings: vec![xrpc_client::Warning {
                level: 2,
                code: 1265,
                message: "Data truncated".into(),
            }],
            ..ExecResult::default()
        };
        assert_eq!(
            json_statement("INSERT", Ok(&result)),
            "{\"statement\":\"INSERT\",\"rows_affected\":2,\
             \"last_insert_id\":\"18446744073709551615\",\"warnings\":\
             [{\"level\":\"Warning\",\"code\":1265,\"message\":\"Data truncated\"}]}"
        );
        let error = MysqlError {
            code: 1146,
            sql_state: "42S02".into(),
            message: "Table 'x.t' doesn't exist".into(),
        };
        assert_eq!(
            json_statement("SELECT * FROM x.t", Err(&error)),
            "{\"statement\":\"SELECT * FROM x.t\",\"error\":{\"code\":1146,\
             \"sql_state\":\"42S02\",\"message\":\"Table 'x.t' doesn't exist\"}}"
        );
    }

    #[test]
    fn the_json_array_is_one_document_even_when_dropped_early() {
        let mut out = Vec::new();
        {
            let mut doc = JsonArray::new(&mut out);
            doc.push("DO 1", Ok(&ExecResult::default()));
            doc.push("DO 2", Ok(&ExecResult::default()));
        }
        let text = String::from_utf8(out).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed.as_array().unwrap().len(), 2, "{text}");
        assert_eq!(parsed[1]["statement"], "DO 2");
        let mut empty = Vec::new();
        JsonArray::new(&mut empty).finish();
        assert_eq!(String::from_utf8(empty).unwrap(), "[\n]\n");
    }

    #[test]
    fn footers_read_like_the_mysql_client() {
        assert_eq!(rows_footer(0, None), "Empty set");
        assert_eq!(
            rows_footer(1, Some(Duration::from_millis(1234))),
            "1 row in set (1.23 sec)"
        );
        assert_eq!(rows_footer(2, None), "2 rows in set");
        assert_eq!(affected(1, None), "Query OK, 1 row affected");
        assert_eq!(
            affected(0, Some(Duration::ZERO)),
            "Query OK, 0 rows affected (0.00 sec)"
        );
    }

    #[test]
    fn binary_bytes_show_as_hex() {
        let v = Value::Bytes(vec![0xff, 0x00].into());
        assert_eq!(value_text(&v, true).unwrap(), "0xFF00");
        assert_eq!(value_text(&v, false).unwrap(), "\u{fffd}\u{0}");
    }
}
