//! `xrpc status` and the shell's `\status`: the connection as the mysql client's `status` shows
//! it, then the node's `SHOW STATUS` and its stage histograms (`CALL xrpc.perf_hist('all')`),
//! rendered for a person.
//!
//! The connection part comes first, one `label: value` line each: the connection id, current
//! database and server version as the node answers `SELECT CONNECTION_ID(), DATABASE(),
//! VERSION()` and `SELECT @@version_comment`; the account the client authenticated as and the address it
//! reached; the protocol and frame header; TLS (the version and cipher agreed, or `Not in use`);
//! and the uptime, from the `Uptime` status variable as MySQL names it (said to be missing when
//! the node reports none, never guessed). On the mysql engine the node passes on its backend's
//! status variables, so there it is the backend server's uptime.
//!
//! The status variables are split into the node's own and the framework's (`xrpc_net_*`), each a
//! two-column table; numeric values are right-aligned, as in every table the tool prints, and the
//! others left-aligned. Each stage histogram gets a summary line (samples, and the bucket bounds
//! under which 50/90/99 % of them fall, read off the cumulative column) and one bar per bucket
//! holding at least 0.5 % of its samples. The buckets are 25 % wide, so the percentiles are upper
//! bounds with that resolution, not interpolations.

use std::fmt::Write as _;

use xrpc_client::blocking::Session;
use xrpc_client::{ClientError, ResultSet, Value};
use xrpc_proto::frame::HeaderFormat;

use crate::conn::ConnArgs;
use crate::errors::{MysqlError, Phase};
use crate::format::{Align, grid, value_text};

/// Buckets below this share of a stage's samples are not drawn.
const MIN_BAR_PERCENT: f64 = 0.5;
/// Width of a 100 % bar, in characters.
const BAR_WIDTH: f64 = 40.0;

/// Runs `xrpc status`: connects with `args` and renders everything.
pub fn run(args: &ConnArgs) -> Result<String, MysqlError> {
    let addr = args.addr();
    let mut session = args
        .session()
        .map_err(|err| MysqlError::from_client(&err, Phase::Connecting, &addr))?;
    render(&mut session, args).map_err(|err| MysqlError::from_client(&err, Phase::Running, &addr))
}

/// Queries the node and renders the connection, the status tables and the histograms; `args`
/// are the flags `session` was opened with.
pub fn render(session: &mut Session, args: &ConnArgs) -> Result<String, ClientError> {
    let who = session.query("SELECT CONNECTION_ID(), DATABASE(), VERSION()")?;
    let comment = session.query("SELECT @@version_comment")?;
    let status = session.query("SHOW GLOBAL STATUS")?;
    let hist = session.query("CALL xrpc.perf_hist('all')")?;
    let conn = session.connection();
    let cell = |i: usize| {
        who.rows
            .first()
            .and_then(|row| row.get(i))
            .and_then(|v| value_text(v, false))
    };
    let comment = comment
        .rows
        .first()
        .and_then(|row| row.first())
        .and_then(|v| value_text(v, false));
    let version = match (cell(2), comment) {
        (Some(v), Some(comment)) => format!("{v} {comment}"),
        (v, _) => v.unwrap_or_default(),
    };
    let header = args
        .options()
        .map_or(HeaderFormat::Standard, |o| o.header_format);
    let facts = ConnectionFacts {
        connection_id: cell(0).unwrap_or_default(),
        database: cell(1).unwrap_or_default(),
        user: args.user.clone(),
        server_version: version,
        protocol: protocol_text(header),
        address: conn.peer_addr().to_string(),
        tls_cipher: conn.tls_cipher(),
        uptime_seconds: status_value(&status, "Uptime").and_then(|v| v.parse().ok()),
    };
    let mut out = render_connection(&facts);
    out.push('\n');
    out.push_str(&render_status(&status));
    out.push('\n');
    out.push_str(&render_histograms(&hist));
    Ok(out)
}

/// What `\status` shows about the connection before the node's counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionFacts {
    /// `CONNECTION_ID()`.
    pub connection_id: String,
    /// `DATABASE()`; empty when none is selected.
    pub database: String,
    /// The account the client authenticated as.
    pub user: String,
    /// `VERSION()` and `@@version_comment`.
    pub server_version: String,
    /// The protocol and frame header.
    pub protocol: String,
    /// The node's address, as connected.
    pub address: String,
    /// TLS version and cipher suite; `None` on a plain connection.
    pub tls_cipher: Option<String>,
    /// The node's `Uptime` status variable, when it reports one.
    pub uptime_seconds: Option<u64>,
}

/// The protocol line: the RPC protocol and the frame header it was spoken with.
fn protocol_text(header: HeaderFormat) -> String {
    match header {
        HeaderFormat::Standard => {
            "PolarDB-X RPC (X Protocol messages, 13-byte standard frame header)".to_owned()
        }
        HeaderFormat::Galaxy { version } => {
            format!("PolarDB-X RPC (X Protocol messages, 14-byte galaxy header, version {version})")
        }
    }
}

/// The connection part, one aligned `label: value` line each, as the mysql client's `status`.
pub fn render_connection(facts: &ConnectionFacts) -> String {
    let tls = facts.tls_cipher.as_ref().map_or_else(
        || "Not in use".to_owned(),
        |c| format!("Cipher in use is {c}"),
    );
    let uptime = facts.uptime_seconds.map_or_else(
        || "not reported (the node has no Uptime status variable)".to_owned(),
        uptime_text,
    );
    let lines = [
        ("Connection id", facts.connection_id.as_str()),
        ("Current database", facts.database.as_str()),
        ("Current user", facts.user.as_str()),
        ("TLS", tls.as_str()),
        ("Server version", facts.server_version.as_str()),
        ("Protocol", facts.protocol.as_str()),
        ("Connection", &format!("{} via TCP/IP", facts.address)),
        ("Uptime", uptime.as_str()),
    ];
    let mut out = String::from("--------------\n");
    for (label, value) in lines {
        let _ = writeln!(out, "{:<18}{value}", format!("{label}:"));
    }
    out.push_str("--------------\n");
    out
}

/// Seconds as the mysql client prints an uptime: `2 days 3 hours 4 min 5 sec`, days, hours and
/// minutes left out when zero, seconds always shown.
pub fn uptime_text(seconds: u64) -> String {
    let units = [
        (seconds / 86_400, "day", "days"),
        (seconds / 3_600 % 24, "hour", "hours"),
        (seconds / 60 % 60, "min", "min"),
    ];
    let mut text = String::new();
    for (n, one, many) in units {
        if n > 0 {
            let _ = write!(text, "{n} {} ", if n == 1 { one } else { many });
        }
    }
    let _ = write!(text, "{} sec", seconds % 60);
    text
}

/// A `SHOW STATUS` variable's value as text; the last row of that name, since on an engine with
/// its own status the node's rows follow the engine's.
fn status_value(rs: &ResultSet, name: &str) -> Option<String> {
    rs.rows.iter().rev().find_map(|row| {
        let text = |i: usize| row.get(i).and_then(|v| value_text(v, false));
        text(0)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
            .then(|| text(1))
            .flatten()
    })
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
        out.push_str(&grid(
            &["Variable_name", "Value"],
            &rows,
            &[Align::Left, Align::Number],
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uptime_reads_like_the_mysql_clients() {
        assert_eq!(uptime_text(0), "0 sec");
        assert_eq!(uptime_text(61), "1 min 1 sec");
        assert_eq!(uptime_text(3_600), "1 hour 0 sec");
        assert_eq!(uptime_text(86_400 + 5), "1 day 5 sec");
        assert_eq!(
            uptime_text(2 * 86_400 + 3 * 3_600 + 4 * 60 + 5),
            "2 days 3 hours 4 min 5 sec"
        );
    }

    #[test]
    fn the_connection_part_lists_each_fact_on_an_aligned_line() {
        let facts = ConnectionFacts {
            connection_id: "7".into(),
            database: "shop".into(),
            user: "app".into(),
            server_version: "8.0.32-xrpc-0.1.0 xrpc data node".into(),
            protocol: protocol_text(HeaderFormat::Galaxy { version: 3 }),
            address: "127.0.0.1:33660".into(),
            tls_cipher: Some("TLSv1_3 TLS13_AES_256_GCM_SHA384".into()),
            uptime_seconds: Some(3_725),
        };
        assert_eq!(
            render_connection(&facts),
            "--------------\n\
             Connection id:    7\n\
             Current database: shop\n\
             Current user:     app\n\
             TLS:              Cipher in use is TLSv1_3 TLS13_AES_256_GCM_SHA384\n\
             Server version:   8.0.32-xrpc-0.1.0 xrpc data node\n\
             Protocol:         PolarDB-X RPC (X Protocol messages, 14-byte galaxy header, version 3)\n\
             Connection:       127.0.0.1:33660 via TCP/IP\n\
             Uptime:           1 hour 2 min 5 sec\n\
             --------------\n"
        );
        let plain = ConnectionFacts {
            tls_cipher: None,
            uptime_seconds: None,
            ..facts
        };
        let text = render_connection(&plain);
        assert!(text.contains("\nTLS:              Not in use\n"), "{text}");
        assert!(text.contains("\nUptime:           not reported"), "{text}");
    }
}
