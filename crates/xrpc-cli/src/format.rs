//! Rendering results: mysql-client tables, CSV and JSON, and the footer lines around them.
//!
//! Every renderer works on an [`ExecResult`] and writes text; none of them talks to a server, so
//! the exact output is unit-tested here and end-to-end in `tests/cli.rs`.
//!
//! Values become text the way the mysql client shows them: integers and doubles in their shortest
//! decimal form, DECIMAL with all its digits, DATE/DATETIME/TIME in ISO form, SET members joined
//! with commas, and NULL as `NULL`. A BYTES value of a binary column that is not valid UTF-8 is
//! shown as `0x…` hex; any other BYTES value as text (invalid UTF-8 replaced).
//!
//! | format | NULL | strings | numbers |
//! |---|---|---|---|
//! | table | `NULL` | as is, left-aligned | right-aligned |
//! | csv (RFC 4180, header line) | empty field | quoted when they hold `,` `"` CR or LF, or are empty | as is |
//! | json (one array of objects, column name → value) | `null` | strings | numbers; DECIMAL as a string, to keep its digits |

use std::fmt::Write as _;
use std::time::Duration;

use xrpc_client::{ColumnType, ExecResult, ResultSet, Value};

/// The output formats of `xrpc exec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Bordered tables, as the mysql client prints them.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// A JSON array of row objects.
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

/// A value as JSON.
pub fn value_json(value: &Value, binary: bool) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        Value::Null => J::Null,
        Value::Sint(v) => J::from(*v),
        Value::Uint(v) | Value::Bit(v) => J::from(*v),
        // Non-finite doubles have no JSON form; null is what serde_json gives them too.
        Value::Double(v) => serde_json::Number::from_f64(*v).map_or(J::Null, J::Number),
        Value::Float(v) => serde_json::Number::from_f64(f64::from(*v)).map_or(J::Null, J::Number),
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
    let align: Vec<bool> = rs.columns.iter().map(|c| right_aligned(c.ty)).collect();
    grid(&headers, &cells, &align)
}

/// Any rows of text as a bordered table with a header; `right[i]` right-aligns column `i`.
pub fn grid(headers: &[&str], rows: &[Vec<String>], right: &[bool]) -> String {
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
        push_row(&mut out, row, &widths, right);
    }
    if !rows.is_empty() {
        out.push_str(&border);
    }
    out
}

fn push_row(out: &mut String, cells: &[String], widths: &[usize], right: &[bool]) {
    out.push('|');
    for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
        let pad = " ".repeat(w - cell.chars().count());
        out.push(' ');
        if right.get(i).copied().unwrap_or(false) {
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

/// A result set as a JSON array of objects (column name → value), one line.
pub fn json(rs: &ResultSet) -> String {
    let rows: Vec<serde_json::Value> = rs
        .rows
        .iter()
        .map(|row| {
            let object: serde_json::Map<String, serde_json::Value> = rs
                .columns
                .iter()
                .zip(row)
                .map(|(c, v)| (c.name.clone(), value_json(v, c.is_binary())))
                .collect();
            serde_json::Value::Object(object)
        })
        .collect();
    let mut out = serde_json::Value::Array(rows).to_string();
    out.push('\n');
    out
}

/// A statement's outcome in the chosen format. Statements without a result set print
/// `Query OK, N rows affected` in table format, and nothing in CSV, or `{"rows_affected": N}` in
/// JSON.
pub fn render(result: &ExecResult, format: Format) -> String {
    match (&result.result_set, format) {
        (Some(rs), Format::Table) => table(rs),
        (Some(rs), Format::Csv) => csv(rs),
        (Some(rs), Format::Json) => json(rs),
        (None, Format::Table) => format!("{}\n", affected(result.rows_affected, None)),
        (None, Format::Csv) => String::new(),
        (None, Format::Json) => {
            let mut doc = serde_json::json!({ "rows_affected": result.rows_affected });
            if let Some(id) = result.last_insert_id {
                doc["last_insert_id"] = id.into();
            }
            format!("{doc}\n")
        }
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
    fn json_keeps_types() {
        assert_eq!(
            json(&sample()),
            "[{\"id\":1,\"name\":\"alice\"},{\"id\":22,\"name\":null},{\"id\":3,\"name\":\"a,\\\"b\\\"\"}]\n"
        );
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
