//! `xrpc status` and the shell's `\status`: the node's `SHOW STATUS` and its stage histograms
//! (`CALL xrpc.perf_hist('all')`), rendered for a person.
//!
//! The status variables are split into the node's own and the framework's (`xrpc_net_*`), each a
//! two-column table with numbers right-aligned. Each stage histogram gets a summary line (samples,
//! and the bucket bounds under which 50/90/99 % of them fall, read off the cumulative column) and
//! one bar per bucket holding at least 0.5 % of its samples. The buckets are 25 % wide, so the
//! percentiles are upper bounds with that resolution, not interpolations.

use std::fmt::Write as _;

use xrpc_client::blocking::Session;
use xrpc_client::{ClientError, ResultSet, Value};

use crate::format::{grid, value_text};

/// Buckets below this share of a stage's samples are not drawn.
const MIN_BAR_PERCENT: f64 = 0.5;
/// Width of a 100 % bar, in characters.
const BAR_WIDTH: f64 = 40.0;

/// Queries the node and renders both parts.
pub fn render(session: &mut Session) -> Result<String, ClientError> {
    let status = session.query("SHOW GLOBAL STATUS")?;
    let hist = session.query("CALL xrpc.perf_hist('all')")?;
    let mut out = render_status(&status);
    out.push('\n');
    out.push_str(&render_histograms(&hist));
    Ok(out)
}

/// The two status tables.
pub fn render_status(rs: &ResultSet) -> String {
    let pairs: Vec<(String, String)> = rs
        .rows
        .iter()
        .map(|row| {
            let text = |i: usize| {
                row.get(i)
                    .and_then(|v| value_text(v, false))
                    .unwrap_or_else(|| "NULL".into())
            };
            (text(0), text(1))
        })
        .collect();
    let (net, node): (Vec<_>, Vec<_>) = pairs
        .into_iter()
        .partition(|(n, _)| n.starts_with("xrpc_net_"));
    let mut out = String::new();
    for (title, part) in [
        ("Node status", node),
        ("Framework counters (xrpc_net_*)", net),
    ] {
        if part.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}");
        let rows: Vec<Vec<String>> = part.into_iter().map(|(n, v)| vec![n, v]).collect();
        let numeric = rows.iter().all(|r| r[1].parse::<f64>().is_ok());
        out.push_str(&grid(&["Variable_name", "Value"], &rows, &[false, numeric]));
    }
    out
}

/// One summary line and the bars of each stage.
pub fn render_histograms(rs: &ResultSet) -> String {
    let mut out = String::from("Stage histograms (CALL xrpc.perf_hist('all'))\n");
    if rs.rows.is_empty() {
        out.push_str(
            "  no samples: the histograms are off or empty (SET GLOBAL xrpc_enable_perf_hist = ON)\n",
        );
        return out;
    }
    let col = |name: &str| rs.column_index(name);
    let (Some(stage), Some(lower), Some(upper), Some(count), Some(percent), Some(cumulative)) = (
        col("stage"),
        col("lower"),
        col("upper"),
        col("count"),
        col("percent"),
        col("cumulative_percent"),
    ) else {
        out.push_str("  (unexpected columns)\n");
        return out;
    };
    let text = |v: &Value| value_text(v, false).unwrap_or_default();
    let number = |v: &Value| match v {
        Value::Double(d) => *d,
        Value::Uint(u) => *u as f64,
        Value::Sint(i) => *i as f64,
        other => text(other).parse().unwrap_or(0.0),
    };
    let mut start = 0;
    while start < rs.rows.len() {
        let name = text(&rs.rows[start][stage]);
        let end = rs.rows[start..]
            .iter()
            .position(|r| text(&r[stage]) != name)
            .map_or(rs.rows.len(), |n| start + n);
        let rows = &rs.rows[start..end];
        let total: f64 = rows.iter().map(|r| number(&r[count])).sum();
        let under = |q: f64| {
            rows.iter()
                .find(|r| number(&r[cumulative]) >= q)
                .map_or_else(|| "?".into(), |r| text(&r[upper]))
        };
        let _ = writeln!(
            out,
            "  {name:<11} {total:>10} samples   p50 < {}   p90 < {}   p99 < {}",
            under(50.0),
            under(90.0),
            under(99.0),
        );
        let mut hidden = 0;
        for r in rows {
            let p = number(&r[percent]);
            if p < MIN_BAR_PERCENT {
                hidden += 1;
                continue;
            }
            let bar = "#".repeat(((p / 100.0) * BAR_WIDTH).ceil() as usize);
            let _ = writeln!(
                out,
                "    {:>8} - {:<8} {:>10} {:>6.2}% {bar}",
                text(&r[lower]),
                text(&r[upper]),
                text(&r[count]),
                p
            );
        }
        if hidden > 0 {
            let _ = writeln!(
                out,
                "    ({hidden} bucket(s) under {MIN_BAR_PERCENT}% not drawn)"
            );
        }
        start = end;
    }
    out
}
