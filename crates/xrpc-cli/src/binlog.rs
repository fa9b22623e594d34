//! `xrpc binlog FILE…`: prints a node's binary log (docs/PROTOCOL.md, "Binary log") as one JSON
//! object per line, oldest first, with filters, and `--follow` for a file still being written
//! (on into the next one after a rotation).
//!
//! Each line has the entry's fields (`seq`, `time_ns`, `time`, `conn`, `peer`, `sid`, `kind`,
//! `type`, `type_id`, `length`, `truncated`, `user`, `detail`), then the payload: for a whole
//! payload of a known type, `message` holds the decoded message (as its Rust debug text, with the
//! statement text in `sql` for EXEC_SQL and the error fields in `error` for ERROR); otherwise,
//! or in addition, `payload_hex` holds the bytes kept.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use prost::Message;
use serde_json::{Map, Value, json};
use xrpc_proto::binlog::{BinlogEntry, EntryKind};
use xrpc_proto::messages::{ClientMessage, ClientType, ServerMessage, ServerType};

/// `xrpc binlog` arguments.
#[derive(Debug, clap::Args)]
pub struct BinlogArgs {
    /// Binary log files, read in the order given (`DIR/binlog-*.xbl` sorts oldest first).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Only entries of this sid (repeatable).
    #[arg(long)]
    pub sid: Vec<u64>,
    /// Only entries of this message type (EXEC_SQL, ERROR, …) or kind (RECEIVED, SENT,
    /// CONNECTION_OPEN, CONNECTION_CLOSE, AUTH_OK, AUTH_FAILED); repeatable, case-insensitive.
    #[arg(long = "type")]
    pub types: Vec<String>,
    /// Only entries of this peer: an IP (any port) or IP:port (repeatable).
    #[arg(long)]
    pub peer: Vec<String>,
    /// Only entries at or after this time: Unix seconds (fractions allowed) or an RFC 3339 UTC
    /// time such as 2026-11-23T05:00:00Z.
    #[arg(long, value_parser = parse_since)]
    pub since: Option<u64>,
    /// After the last file's end, wait for more entries, and go on into the next file when the node
    /// rotates (Ctrl-C to stop).
    #[arg(long)]
    pub follow: bool,
}

/// Why the log could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BinlogReadError {
    /// A file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the OS said.
        source: io::Error,
    },
    /// A file holds something that is not an entry.
    #[error("{path}: damaged entry at byte {offset}: {message}")]
    Damaged {
        /// The file.
        path: String,
        /// Where the entry starts.
        offset: u64,
        /// The decoder's message.
        message: String,
    },
}

/// Parses `--since` into nanoseconds since the Unix epoch.
pub fn parse_since(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<f64>()
        && seconds.is_finite()
        && seconds >= 0.0
    {
        return Ok((seconds * 1e9) as u64);
    }
    parse_rfc3339_utc(text).ok_or_else(|| {
        format!("`{text}` is neither Unix seconds nor a UTC time like 2026-11-23T05:00:00Z")
    })
}

fn parse_rfc3339_utc(text: &str) -> Option<u64> {
    let text = text
        .strip_suffix('Z')
        .or_else(|| text.strip_suffix("+00:00"))?;
    let (date, time) = text.split_once(['T', ' '])?;
    let mut d = date.split('-').map(|p| p.parse::<i64>());
    let (year, month, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    let mut t = hms.split(':').map(|p| p.parse::<i64>());
    let (hour, minute, second) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let nanos: u64 = if fraction.is_empty() {
        0
    } else {
        let digits: String = fraction.chars().take(9).collect();
        digits.parse::<u64>().ok()? * 10u64.pow(9 - digits.len() as u32)
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second;
    u64::try_from(seconds)
        .ok()
        .map(|s| s * 1_000_000_000 + nanos)
}

/// Formats nanoseconds since the epoch as an RFC 3339 UTC time.
pub fn format_time(ns: u64) -> String {
    let seconds = (ns / 1_000_000_000) as i64;
    let days = seconds.div_euclid(86_400);
    let rem = seconds.rem_euclid(86_400);
    // Civil date from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:09}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ns % 1_000_000_000
    )
}

impl BinlogArgs {
    /// Whether `entry` passes the filters.
    pub fn selects(&self, entry: &BinlogEntry) -> bool {
        if !self.sid.is_empty() && !self.sid.contains(&entry.sid) {
            return false;
        }
        if let Some(since) = self.since
            && entry.timestamp_ns < since
        {
            return false;
        }
        if !self.peer.is_empty()
            && !self.peer.iter().any(|p| {
                entry.peer == *p
                    || entry
                        .peer
                        .rsplit_once(':')
                        .is_some_and(|(ip, _)| ip == p || ip.trim_matches(['[', ']']) == p)
            })
        {
            return false;
        }
        if !self.types.is_empty() {
            let kind = entry.kind().name();
            let name = type_name(entry);
            if !self.types.iter().any(|t| {
                t.eq_ignore_ascii_case(kind) || name.is_some_and(|n| t.eq_ignore_ascii_case(n))
            }) {
                return false;
            }
        }
        true
    }
}

/// The message type's name, for frame entries of a known type.
pub fn type_name(entry: &BinlogEntry) -> Option<&'static str> {
    let id = u8::try_from(entry.type_id).ok()?;
    match entry.kind() {
        EntryKind::Received => ClientType::from_id(id).map(ClientType::name),
        EntryKind::Sent => ServerType::from_id(id).map(ServerType::name),
        _ => None,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One entry as a JSON object.
pub fn to_json(entry: &BinlogEntry) -> Value {
    let mut out = Map::new();
    out.insert("seq".into(), json!(entry.sequence));
    out.insert("time_ns".into(), json!(entry.timestamp_ns));
    out.insert("time".into(), json!(format_time(entry.timestamp_ns)));
    out.insert("conn".into(), json!(entry.connection_id));
    out.insert("peer".into(), json!(entry.peer));
    out.insert("sid".into(), json!(entry.sid));
    out.insert("kind".into(), json!(entry.kind().name()));
    let frame = matches!(entry.kind(), EntryKind::Received | EntryKind::Sent);
    if frame {
        out.insert("type".into(), json!(type_name(entry).unwrap_or("UNKNOWN")));
        out.insert("type_id".into(), json!(entry.type_id));
        out.insert("length".into(), json!(entry.payload_length));
        out.insert("truncated".into(), json!(entry.truncated));
    }
    if !entry.user.is_empty() {
        out.insert("user".into(), json!(entry.user));
    }
    if !entry.detail.is_empty() {
        out.insert("detail".into(), json!(entry.detail));
    }
    if frame {
        let decoded = (!entry.truncated).then(|| decode(entry)).flatten();
        match decoded {
            Some(fields) => {
                out.extend(fields);
            }
            None if !entry.payload.is_empty() => {
                out.insert("payload_hex".into(), json!(hex(&entry.payload)));
            }
            None => {}
        }
    }
    Value::Object(out)
}

fn decode(entry: &BinlogEntry) -> Option<Map<String, Value>> {
    let id = u8::try_from(entry.type_id).ok()?;
    let body = Bytes::copy_from_slice(&entry.payload);
    let mut out = Map::new();
    match entry.kind() {
        EntryKind::Received => {
            let message = ClientMessage::decode(id, body).ok()?;
            if let ClientMessage::ExecSql(stmt) = &message
                && let Some(sql) = &stmt.stmt
            {
                out.insert("sql".into(), json!(String::from_utf8_lossy(sql)));
            }
            out.insert("message".into(), json!(format!("{message:?}")));
        }
        EntryKind::Sent => {
            let message = ServerMessage::decode(id, body).ok()?;
            if let ServerMessage::Error(err) = &message {
                out.insert(
                    "error".into(),
                    json!({
                        "code": err.code,
                        "sql_state": err.sql_state,
                        "message": err.msg,
                        "severity": if err.severity == Some(1) { "FATAL" } else { "ERROR" },
                    }),
                );
            }
            out.insert("message".into(), json!(format!("{message:?}")));
        }
        _ => return None,
    }
    Some(out)
}

/// Reads complete entries from `buf`, returning them and the bytes consumed; a partial entry at
/// the end is left for later (a file being written), a damaged one is an error.
fn split_entries(buf: &[u8]) -> Result<(Vec<BinlogEntry>, usize), (usize, String)> {
    let mut entries = Vec::new();
    let mut at = 0;
    while at < buf.len() {
        let mut rest = &buf[at..];
        let Ok(len) = prost::encoding::decode_varint(&mut rest) else {
            if buf.len() - at < 10 {
                break;
            }
            return Err((at, "bad length prefix".into()));
        };
        let header = buf.len() - at - rest.len();
        let Ok(len) = usize::try_from(len) else {
            return Err((at, "length out of range".into()));
        };
        if rest.len() < len {
            break;
        }
        let entry = BinlogEntry::decode(&rest[..len]).map_err(|e| (at, e.to_string()))?;
        entries.push(entry);
        at += header + len;
    }
    Ok((entries, at))
}

/// Runs `xrpc binlog`; the exit code.
pub fn run(args: &BinlogArgs) -> i32 {
    match print(args, &mut BufWriter::new(io::stdout().lock())) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("xrpc binlog: {err}");
            1
        }
    }
}

/// Prints the selected entries of `args.files` to `out` (and, with `--follow`, keeps going).
pub fn print(args: &BinlogArgs, out: &mut impl Write) -> Result<(), BinlogReadError> {
    print_polling(args, out, || {
        std::thread::sleep(Duration::from_millis(200));
        true
    })
}

/// [`print`], calling `wait` each time a followed file has nothing new; following ends when
/// `wait` returns `false` (a test's `wait` writes more or rotates, then stops).
fn print_polling(
    args: &BinlogArgs,
    out: &mut impl Write,
    mut wait: impl FnMut() -> bool,
) -> Result<(), BinlogReadError> {
    let mut files: Vec<PathBuf> = args.files.clone();
    let mut index = 0;
    'files: while index < files.len() {
        let path = files[index].clone();
        let name = path.display().to_string();
        let io_err = |source| BinlogReadError::Io {
            path: name.clone(),
            source,
        };
        let mut file = File::open(&path).map_err(io_err)?;
        let mut pending = Vec::new();
        let mut offset = 0u64;
        loop {
            let mut chunk = Vec::new();
            file.read_to_end(&mut chunk).map_err(io_err)?;
            pending.extend_from_slice(&chunk);
            let (entries, used) =
                split_entries(&pending).map_err(|(at, message)| BinlogReadError::Damaged {
                    path: name.clone(),
                    offset: offset + at as u64,
                    message,
                })?;
            for entry in entries.iter().filter(|e| args.selects(e)) {
                writeln!(out, "{}", to_json(entry)).map_err(io_err)?;
            }
            pending.drain(..used);
            offset += used as u64;
            let following = args.follow && index == files.len() - 1;
            if following && pending.is_empty() && chunk.is_empty() {
                // The node writes one file at a time: once the next number exists, this file
                // is complete (read to its end above), and the follower moves on to it.
                if let Some(next) = next_file(&path) {
                    files.push(next);
                    break;
                }
            }
            if !following {
                if !pending.is_empty() {
                    return Err(BinlogReadError::Damaged {
                        path: name.clone(),
                        offset,
                        message: "the file ends inside an entry".into(),
                    });
                }
                break;
            }
            out.flush().map_err(io_err)?;
            // Following a file being written: poll for growth (a CLI loop, not a test).
            if !wait() {
                break 'files;
            }
            let position = file.stream_position().map_err(io_err)?;
            if file.metadata().map_err(io_err)?.len() < position {
                // Truncated or replaced: start over.
                file.seek(SeekFrom::Start(0)).map_err(io_err)?;
                pending.clear();
                offset = 0;
            }
        }
        index += 1;
    }
    out.flush().map_err(|source| BinlogReadError::Io {
        path: "stdout".into(),
        source,
    })
}

/// The binary log file that follows `path` in its directory, if the node has started it.
fn next_file(path: &Path) -> Option<PathBuf> {
    let number = path
        .file_name()?
        .to_str()
        .and_then(xrpc_proto::binlog::file_number)?;
    let next = path.with_file_name(xrpc_proto::binlog::file_name(number + 1));
    next.exists().then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(
        sequence: u64,
        kind: EntryKind,
        sid: u64,
        type_id: u32,
        payload: Vec<u8>,
    ) -> BinlogEntry {
        BinlogEntry {
            sequence,
            timestamp_ns: 1_700_000_000_000_000_000 + sequence,
            connection_id: 9,
            peer: "127.0.0.1:5555".into(),
            sid,
            kind: kind as i32,
            type_id,
            payload_length: payload.len() as u32,
            payload,
            ..Default::default()
        }
    }

    fn args(files: Vec<PathBuf>) -> BinlogArgs {
        BinlogArgs {
            files,
            sid: vec![],
            types: vec![],
            peer: vec![],
            since: None,
            follow: false,
        }
    }

    fn sample() -> Vec<BinlogEntry> {
        let sql = xrpc_proto::messages::pb::sql::StmtExecute {
            stmt: Some(Bytes::from_static(b"SELECT 1")),
            ..Default::default()
        };
        let err = xrpc_proto::messages::pb::Error {
            code: 1146,
            sql_state: "42S02".into(),
            msg: "no such table".into(),
            severity: Some(0),
        };
        vec![
            entry(1, EntryKind::ConnectionOpen, 0, 0, vec![]),
            entry(
                2,
                EntryKind::Received,
                3,
                ClientType::ExecSql.id().into(),
                sql.encode_to_vec(),
            ),
            entry(
                3,
                EntryKind::Sent,
                3,
                ServerType::Error.id().into(),
                err.encode_to_vec(),
            ),
            entry(4, EntryKind::Sent, 4, 250, vec![0xab, 0xcd]),
        ]
    }

    fn run_on(entries: &[BinlogEntry], tune: impl FnOnce(&mut BinlogArgs)) -> Vec<Value> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("binlog-00000001.xbl");
        let mut bytes = Vec::new();
        for e in entries {
            e.encode_length_delimited(&mut bytes).unwrap();
        }
        std::fs::write(&path, bytes).unwrap();
        let mut a = args(vec![path]);
        tune(&mut a);
        let mut out = Vec::new();
        print(&a, &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn follow_reads_on_into_the_next_file_after_a_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("binlog-00000007.xbl");
        let second = dir.path().join("binlog-00000008.xbl");
        let encoded: Vec<Vec<u8>> = sample()
            .iter()
            .map(|e| e.encode_length_delimited_to_vec())
            .collect();
        std::fs::write(&first, &encoded[0]).unwrap();
        let append = |path: &Path, bytes: &[u8]| {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .unwrap();
            file.write_all(bytes).unwrap();
        };
        let mut a = args(vec![first.clone()]);
        a.follow = true;
        let mut out = Vec::new();
        let mut round = 0;
        print_polling(&a, &mut out, || {
            round += 1;
            match round {
                // Half an entry, then the rest: nothing is printed until it is whole.
                1 => append(&first, &encoded[1][..3]),
                2 => append(&first, &encoded[1][3..]),
                // The node rotates: the follower finishes the first file and moves on.
                3 => append(&second, &encoded[2]),
                4 => append(&second, &encoded[3]),
                _ => return false,
            }
            true
        })
        .unwrap();
        let sequences: Vec<u64> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["seq"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(sequences, [1, 2, 3, 4]);
    }

    #[test]
    fn prints_json_lines_with_decoded_fields_or_hex() {
        let lines = run_on(&sample(), |_| {});
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["kind"], "CONNECTION_OPEN");
        assert_eq!(lines[1]["type"], "EXEC_SQL");
        assert_eq!(lines[1]["sql"], "SELECT 1");
        assert_eq!(lines[2]["error"]["code"], 1146);
        assert_eq!(lines[2]["error"]["sql_state"], "42S02");
        assert_eq!(lines[3]["type"], "UNKNOWN");
        assert_eq!(lines[3]["payload_hex"], "abcd");
        assert_eq!(lines[1]["time"], "2023-11-14T22:13:20.000000002Z");
    }

    #[test]
    fn filters_by_sid_type_peer_and_time() {
        let sample = sample();
        let seqs = |lines: Vec<Value>| {
            lines
                .iter()
                .map(|l| l["seq"].as_u64().unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(seqs(run_on(&sample, |a| a.sid = vec![3])), vec![2, 3]);
        assert_eq!(
            seqs(run_on(&sample, |a| a.types =
                vec!["error".into(), "CONNECTION_OPEN".into()])),
            vec![1, 3]
        );
        assert_eq!(
            seqs(run_on(&sample, |a| a.types = vec!["SENT".into()])),
            vec![3, 4]
        );
        assert_eq!(
            seqs(run_on(&sample, |a| a.peer = vec!["127.0.0.1".into()])).len(),
            4
        );
        assert_eq!(
            seqs(run_on(&sample, |a| a.peer = vec!["127.0.0.1:1".into()])).len(),
            0
        );
        assert_eq!(
            seqs(run_on(&sample, |a| a.since = Some(1_700_000_000_000_000_003))),
            vec![3, 4]
        );
    }

    #[test]
    fn since_takes_unix_seconds_or_utc_times() {
        assert_eq!(parse_since("1700000000"), Ok(1_700_000_000_000_000_000));
        assert_eq!(parse_since("1700000000.5"), Ok(1_700_000_000_500_000_000));
        assert_eq!(
            parse_since("2023-11-14T22:13:20Z"),
            Ok(1_700_000_000_000_000_000)
        );
        assert_eq!(
            parse_since("2023-11-14T22:13:20.25Z"),
            Ok(1_700_000_000_250_000_000)
        );
        assert_eq!(
            format_time(1_700_000_000_250_000_000),
            "2023-11-14T22:13:20.250000000Z"
        );
        assert!(
            parse_since("yesterday")
                .unwrap_err()
                .contains("`yesterday`")
        );
        assert!(parse_since("2023-13-01T00:00:00Z").is_err());
    }

    #[test]
    fn a_cut_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.xbl");
        let mut bytes = Vec::new();
        sample()[1].encode_length_delimited(&mut bytes).unwrap();
        let whole = bytes.len();
        sample()[2].encode_length_delimited(&mut bytes).unwrap();
        bytes.truncate(bytes.len() - 2);
        std::fs::write(&path, bytes).unwrap();
        let err = print(&args(vec![path]), &mut Vec::new()).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("byte {whole}: the file ends inside an entry")),
            "{err}"
        );
    }
}
