//! MySQL column metadata and text-protocol values, mapped to the X Protocol as MySQL's X Plugin
//! maps them; and statement arguments rendered as escaped SQL literals.
//!
//! See the table in the [module docs](super) for the column mapping.

use std::fmt::Write as _;

use bytes::Bytes;
use mysql::consts::{ColumnFlags, ColumnType as MyType};
use xrpc_proto::codes;
use xrpc_proto::value::{ColumnType, Value, XDateTime, XDecimal, XTime};

use xrpc_engine::result::{COLLATION_BINARY, ColumnInfo, SqlError, column_flags};

/// How a column's text values become [`Value`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conv {
    /// Signed integer text.
    Sint,
    /// Unsigned integer text (also YEAR).
    Uint,
    /// FLOAT text.
    Float,
    /// DOUBLE text.
    Double,
    /// DECIMAL text.
    Decimal,
    /// `YYYY-MM-DD HH:MM:SS[.ffffff]` (DATETIME, TIMESTAMP).
    DateTime,
    /// `YYYY-MM-DD` (DATE).
    Date,
    /// `[-]HHH:MM:SS[.ffffff]`.
    Time,
    /// BIT: big-endian bytes.
    Bit,
    /// Comma-separated SET members.
    Set,
    /// ENUM member.
    Enum,
    /// Raw bytes.
    Bytes,
}

/// Maps one backend column to its X Protocol metadata and the conversion of its values.
pub fn map_column(column: &mysql::Column) -> (ColumnInfo, Conv) {
    let my_flags = column.flags();
    let my_type = column.column_type();
    let unsigned = my_flags.contains(ColumnFlags::UNSIGNED_FLAG);
    let mut mysql_type = my_type as u32;
    let mut flags = 0;
    let (x_type, conv) = match my_type {
        MyType::MYSQL_TYPE_TINY
        | MyType::MYSQL_TYPE_SHORT
        | MyType::MYSQL_TYPE_INT24
        | MyType::MYSQL_TYPE_LONG
        | MyType::MYSQL_TYPE_LONGLONG => {
            if unsigned {
                if my_flags.contains(ColumnFlags::ZEROFILL_FLAG) {
                    flags |= column_flags::UINT_ZEROFILL;
                }
                (ColumnType::Uint, Conv::Uint)
            } else {
                (ColumnType::Sint, Conv::Sint)
            }
        }
        MyType::MYSQL_TYPE_YEAR => (ColumnType::Uint, Conv::Uint),
        MyType::MYSQL_TYPE_FLOAT => {
            if unsigned {
                flags |= column_flags::NUMBER_UNSIGNED;
            }
            (ColumnType::Float, Conv::Float)
        }
        MyType::MYSQL_TYPE_DOUBLE => {
            if unsigned {
                flags |= column_flags::NUMBER_UNSIGNED;
            }
            (ColumnType::Double, Conv::Double)
        }
        MyType::MYSQL_TYPE_DECIMAL | MyType::MYSQL_TYPE_NEWDECIMAL => {
            if unsigned {
                flags |= column_flags::NUMBER_UNSIGNED;
            }
            (ColumnType::Decimal, Conv::Decimal)
        }
        MyType::MYSQL_TYPE_TIMESTAMP | MyType::MYSQL_TYPE_TIMESTAMP2 => {
            flags |= column_flags::DATETIME_TIMESTAMP;
            mysql_type = MyType::MYSQL_TYPE_TIMESTAMP as u32;
            (ColumnType::DateTime, Conv::DateTime)
        }
        MyType::MYSQL_TYPE_DATETIME | MyType::MYSQL_TYPE_DATETIME2 => {
            mysql_type = MyType::MYSQL_TYPE_DATETIME as u32;
            (ColumnType::DateTime, Conv::DateTime)
        }
        MyType::MYSQL_TYPE_DATE | MyType::MYSQL_TYPE_NEWDATE => {
            mysql_type = MyType::MYSQL_TYPE_DATE as u32;
            (ColumnType::DateTime, Conv::Date)
        }
        MyType::MYSQL_TYPE_TIME | MyType::MYSQL_TYPE_TIME2 => {
            mysql_type = MyType::MYSQL_TYPE_TIME as u32;
            (ColumnType::Time, Conv::Time)
        }
        MyType::MYSQL_TYPE_BIT => (ColumnType::Bit, Conv::Bit),
        MyType::MYSQL_TYPE_ENUM => (ColumnType::Enum, Conv::Enum),
        MyType::MYSQL_TYPE_SET => (ColumnType::Set, Conv::Set),
        // The text protocol sends ENUM and SET columns as STRING with a flag.
        _ if my_flags.contains(ColumnFlags::ENUM_FLAG) => {
            mysql_type = MyType::MYSQL_TYPE_ENUM as u32;
            (ColumnType::Enum, Conv::Enum)
        }
        _ if my_flags.contains(ColumnFlags::SET_FLAG) => {
            mysql_type = MyType::MYSQL_TYPE_SET as u32;
            (ColumnType::Set, Conv::Set)
        }
        MyType::MYSQL_TYPE_STRING => {
            flags |= column_flags::BYTES_RIGHTPAD;
            (ColumnType::Bytes, Conv::Bytes)
        }
        MyType::MYSQL_TYPE_VARCHAR => {
            mysql_type = MyType::MYSQL_TYPE_VAR_STRING as u32;
            (ColumnType::Bytes, Conv::Bytes)
        }
        // VAR_STRING, the BLOB family, JSON, GEOMETRY, NULL and anything newer: bytes. JSON and
        // GEOMETRY keep their MySQL type, from which the content type follows
        // (`ColumnInfo::content_type`).
        _ => (ColumnType::Bytes, Conv::Bytes),
    };
    for (mine, x) in [
        (ColumnFlags::NOT_NULL_FLAG, column_flags::NOT_NULL),
        (ColumnFlags::PRI_KEY_FLAG, column_flags::PRIMARY_KEY),
        (ColumnFlags::UNIQUE_KEY_FLAG, column_flags::UNIQUE_KEY),
        (ColumnFlags::MULTIPLE_KEY_FLAG, column_flags::MULTIPLE_KEY),
        (
            ColumnFlags::AUTO_INCREMENT_FLAG,
            column_flags::AUTO_INCREMENT,
        ),
    ] {
        if my_flags.contains(mine) {
            flags |= x;
        }
    }
    let info = ColumnInfo {
        name: column.name_str().into_owned(),
        original_name: column.org_name_str().into_owned(),
        table: column.table_str().into_owned(),
        original_table: column.org_table_str().into_owned(),
        schema: column.schema_str().into_owned(),
        x_type,
        mysql_type,
        // The backend's own collation: 63 for binary strings and for every non-string type.
        collation: match x_type {
            ColumnType::Bytes | ColumnType::Enum | ColumnType::Set => {
                u64::from(column.character_set())
            }
            _ => COLLATION_BINARY,
        },
        fractional_digits: u32::from(column.decimals()),
        length: column.column_length(),
        flags,
    };
    (info, conv)
}

fn bad_value(conv: Conv, text: &[u8]) -> SqlError {
    SqlError::new(
        &codes::ENGINE_ERROR,
        format!(
            "the backend sent {:?} for a {conv:?} column",
            String::from_utf8_lossy(text)
        ),
    )
}

/// Converts one text-protocol value (`None` is NULL).
pub fn convert(conv: Conv, raw: Option<&[u8]>) -> Result<Value, SqlError> {
    let Some(raw) = raw else {
        return Ok(Value::Null);
    };
    let bad = || bad_value(conv, raw);
    let text = || std::str::from_utf8(raw).map_err(|_| bad());
    Ok(match conv {
        Conv::Bytes => Value::Bytes(Bytes::copy_from_slice(raw)),
        Conv::Enum => Value::Enum(Bytes::copy_from_slice(raw)),
        Conv::Set if raw.is_empty() => Value::Set(Vec::new()),
        Conv::Set => Value::Set(
            raw.split(|&b| b == b',')
                .map(Bytes::copy_from_slice)
                .collect(),
        ),
        Conv::Sint => Value::Sint(text()?.parse().map_err(|_| bad())?),
        Conv::Uint => Value::Uint(text()?.parse().map_err(|_| bad())?),
        Conv::Float => Value::Float(text()?.parse().map_err(|_| bad())?),
        Conv::Double => Value::Double(text()?.parse().map_err(|_| bad())?),
        Conv::Decimal => Value::Decimal(XDecimal::parse(text()?).map_err(|_| bad())?),
        Conv::Bit => {
            if raw.len() > 8 {
                return Err(bad());
            }
            Value::Bit(raw.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
        }
        Conv::Date | Conv::DateTime => Value::DateTime(parse_datetime(text()?).ok_or_else(bad)?),
        Conv::Time => Value::Time(parse_time(text()?).ok_or_else(bad)?),
    })
}

/// `YYYY-MM-DD[ HH:MM:SS[.ffffff]]`, zero dates included.
fn parse_datetime(text: &str) -> Option<XDateTime> {
    let (date, time) = match text.split_once(' ') {
        Some((date, time)) => (date, Some(time)),
        None => (text, None),
    };
    let mut ymd = date.splitn(3, '-').map(|p| p.parse::<u32>().ok());
    let (year, month, day) = (ymd.next()??, ymd.next()??, ymd.next()??);
    match time {
        None => XDateTime::date(year, month, day).ok(),
        Some(time) => {
            let (h, m, s, micros) = parse_hms(time)?;
            XDateTime::new(year, month, day, h, m, s, micros).ok()
        }
    }
}

/// `[-]HHH:MM:SS[.ffffff]`.
fn parse_time(text: &str) -> Option<XTime> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (h, m, s, micros) = parse_hms(rest)?;
    XTime::new(negative, h, m, s, micros).ok()
}

fn parse_hms(text: &str) -> Option<(u32, u32, u32, u32)> {
    let (hms, frac) = text.split_once('.').unwrap_or((text, ""));
    let mut parts = hms.splitn(3, ':').map(|p| p.parse::<u32>().ok());
    let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
    if frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // `.5` is 500000 microseconds.
    let micros = if frac.is_empty() {
        0
    } else {
        frac.parse::<u32>().ok()? * 10u32.pow(6 - frac.len() as u32)
    };
    Some((h, m, s, micros))
}

/// Renders `value` as a SQL literal, appended to `out`. `backslash_escapes` is false when the
/// backend's `sql_mode` has NO_BACKSLASH_ESCAPES, so only quotes are doubled.
pub fn write_literal(
    out: &mut String,
    index: usize,
    value: &Value,
    backslash_escapes: bool,
) -> Result<(), SqlError> {
    let unbindable = |what: &str| {
        SqlError::new(
            &codes::WRONG_ARGUMENTS,
            format!("Incorrect arguments: argument {} is {what}", index + 1),
        )
    };
    match value {
        Value::Null => out.push_str("NULL"),
        Value::Sint(v) => write!(out, "{v}").expect("writing to a String"),
        Value::Uint(v) => write!(out, "{v}").expect("writing to a String"),
        Value::Bit(v) => write!(out, "b'{v:b}'").expect("writing to a String"),
        // Exponent notation makes the literal a DOUBLE, as the argument is, and keeps the
        // shortest digits that read back exactly.
        Value::Double(v) if v.is_finite() => write!(out, "{v:e}").expect("writing to a String"),
        Value::Float(v) if v.is_finite() => write!(out, "{v:e}").expect("writing to a String"),
        Value::Double(_) | Value::Float(_) => return Err(unbindable("not a finite number")),
        Value::Decimal(d) => write!(out, "{d}").expect("writing to a String"),
        Value::DateTime(d) => write!(out, "'{d}'").expect("writing to a String"),
        Value::Time(t) => write!(out, "'{t}'").expect("writing to a String"),
        Value::Bytes(b) | Value::Enum(b) => write_string(out, b, backslash_escapes),
        Value::Set(items) => write_string(out, &items.join(&b","[..]), backslash_escapes),
    }
    Ok(())
}

/// A quoted string literal; bytes that are not UTF-8 go as a hex literal, which the server reads
/// as binary.
fn write_string(out: &mut String, bytes: &[u8], backslash_escapes: bool) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        out.push_str("X'");
        for b in bytes {
            write!(out, "{b:02X}").expect("writing to a String");
        }
        out.push('\'');
        return;
    };
    out.reserve(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\'' if !backslash_escapes => out.push_str("''"),
            _ if !backslash_escapes => out.push(c),
            // mysql_real_escape_string's set.
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\x1a' => out.push_str("\\Z"),
            _ => out.push(c),
        }
    }
    out.push('\'');
}

/// What [`rewrite`] did to a statement.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rewritten {
    /// The SQL to send.
    pub sql: String,
    /// Whether the statement names a user variable (`@name`, not `@@name`) outside literals.
    pub user_variable: bool,
    /// Whether it assigns one (`@name :=`, `INTO @name`): a statement that returns rows has no
    /// tracker data to say so.
    pub user_variable_assigned: bool,
    /// Whether the statement names GET_LOCK, RELEASE_LOCK or RELEASE_ALL_LOCKS outside
    /// literals: named locks are not reported by the backend's session tracker, so the engine
    /// asks the backend which locks the connection holds after it.
    pub named_lock: bool,
    /// The names given to GET_LOCK and RELEASE_LOCK as a string literal or a `?` argument, as
    /// SQL literals: what the engine asks the backend about.
    pub lock_names: Vec<String>,
    /// A GET_LOCK whose name is an expression the engine cannot ask about again (a column, a
    /// variable, a function): the connection stays pinned until the session ends.
    pub unnamed_lock: bool,
    /// `(replacement, original)` for every substituted call or variable: a result column named
    /// by the replacement (an expression, no original name) gets the original text back, so
    /// `SELECT VERSION()` still has a column `VERSION()`.
    pub renames: Vec<(String, String)>,
    /// The statement is `SHOW … VARIABLES …`: its `version` row gets the node's version.
    pub show_variables: bool,
    /// In a `SHOW … VARIABLES` statement, where its `LIKE` or `WHERE` starts in `sql`.
    pub show_filter_at: Option<usize>,
}

/// A system variable the backend knows by its other name only (`transaction_isolation` and
/// `tx_isolation`, one value under two names in MySQL 5.7 and MariaDB 11.1 and later): the node
/// shows both, reading the one the backend has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariableAlias {
    /// The name the backend lacks.
    pub missing: &'static str,
    /// The name it has, with the same value.
    pub present: &'static str,
}

impl VariableAlias {
    /// The alias a backend needs, given the names of the pair it has (in any case).
    pub fn for_backend(has: &[String]) -> Option<Self> {
        let has = |name: &str| has.iter().any(|h| h.eq_ignore_ascii_case(name));
        let (new, old) = ("transaction_isolation", "tx_isolation");
        match (has(new), has(old)) {
            (false, true) => Some(Self {
                missing: new,
                present: old,
            }),
            (true, false) => Some(Self {
                missing: old,
                present: new,
            }),
            _ => None,
        }
    }

    /// For a `SHOW … VARIABLES` statement (`show`, as rewritten): a statement whose one row,
    /// `present` and its value, comes back exactly when `missing` passes the statement's
    /// filter. The backend evaluates the filter on `missing` with the same value: `LIKE p`
    /// becomes `'missing' LIKE p`, and a `WHERE` condition gets `'missing'` for the name column.
    pub fn probe(&self, show: &Rewritten, backslash_escapes: bool) -> String {
        let sql = show.sql.as_str();
        let sql = sql.trim_end().trim_end_matches(';');
        let (head, filter) = sql.split_at(show.show_filter_at.unwrap_or(sql.len()).min(sql.len()));
        let mut missing = String::new();
        write_string(&mut missing, self.missing.as_bytes(), backslash_escapes);
        let keyword_end = filter
            .bytes()
            .position(|b| !is_ident(b))
            .unwrap_or(filter.len());
        let (keyword, rest) = filter.split_at(keyword_end);
        let condition = if keyword.eq_ignore_ascii_case("like") {
            format!("{missing} LIKE {rest}")
        } else if keyword.eq_ignore_ascii_case("where") {
            format!(
                "({})",
                name_column_replaced(rest, &missing, backslash_escapes)
            )
        } else {
            "TRUE".to_owned()
        };
        format!(
            "{head} WHERE Variable_name = '{}' AND {condition}",
            self.present
        )
    }
}

/// `condition` with every `Variable_name` column (outside literals and comments) replaced by
/// `literal`.
fn name_column_replaced(condition: &str, literal: &str, backslash_escapes: bool) -> String {
    let bytes = condition.as_bytes();
    let mut out = String::with_capacity(condition.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (start, end, name) = if b == b'`' {
            let end = skip_quoted(bytes, i, false);
            (i, end, condition.get(i + 1..end - 1).unwrap_or(""))
        } else if b == b'\'' || b == b'"' {
            i = skip_quoted(bytes, i, backslash_escapes);
            continue;
        } else if is_ident_start(b) && (i == 0 || !is_ident(bytes[i - 1])) {
            let mut end = i;
            while end < bytes.len() && is_ident(bytes[end]) {
                end += 1;
            }
            (i, end, &condition[i..end])
        } else {
            i += 1;
            continue;
        };
        if name.eq_ignore_ascii_case("variable_name") {
            out.push_str(&condition[copied..start]);
            out.push_str(literal);
            copied = end;
        }
        i = end;
    }
    out.push_str(&condition[copied..]);
    out
}

/// Substitutes `args` for the `?` placeholders, the session number for `connection_id()` and the
/// session's last generated id for `last_insert_id()`, only outside string literals, quoted
/// identifiers and comments. (Both functions would otherwise name the pooled backend
/// connection, which changes from statement to statement.)
pub fn rewrite(
    sql: &str,
    args: &[Value],
    connection_id: u64,
    last_insert_id: u64,
    backslash_escapes: bool,
) -> Result<Rewritten, SqlError> {
    rewrite_with_version(
        sql,
        args,
        connection_id,
        last_insert_id,
        backslash_escapes,
        None,
        None,
    )
}

/// [`rewrite`], and with `version` also `VERSION()` and `@@[global.|session.|local.]version`
/// become that string: the node's version (the backend's, suffixed `-xrpc-<version>`); with
/// `alias`, `@@[scope.]<missing>` is sent as `@@[scope.]<present>`.
pub fn rewrite_with_version(
    sql: &str,
    args: &[Value],
    connection_id: u64,
    last_insert_id: u64,
    backslash_escapes: bool,
    version: Option<&str>,
    alias: Option<VariableAlias>,
) -> Result<Rewritten, SqlError> {
    let bytes = sql.as_bytes();
    let mut renames = Vec::new();
    let mut first_word: Option<&str> = None;
    let mut show_variables = false;
    let mut show_filter_at = None;
    let version_literal = version.map(|v| {
        let mut literal = String::new();
        write_string(&mut literal, v.as_bytes(), backslash_escapes);
        literal
    });
    let mut out = String::with_capacity(sql.len() + args.len() * 8);
    let mut user_variable = false;
    let mut user_variable_assigned = false;
    let mut after_into = false;
    let mut named_lock = false;
    let mut lock_names = Vec::new();
    let mut unnamed_lock = false;
    let mut next_arg = 0;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\'' | b'"' | b'`' => {
                i = skip_quoted(bytes, i, backslash_escapes && b != b'`');
                continue;
            }
            b'#' => {
                i = skip_line(bytes, i);
                continue;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-')
                && bytes.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                i = skip_line(bytes, i);
                continue;
            }
            // `/*! … */` and `/*M! … */` are executable comments; their content is SQL, so
            // only their markers are skipped.
            b'/' if bytes.get(i + 1) == Some(&b'*') && bytes.get(i + 2) != Some(&b'!') => {
                if bytes.get(i + 2) == Some(&b'M') && bytes.get(i + 3) == Some(&b'!') {
                    i += 4;
                    continue;
                }
                i = match sql[i + 2..].find("*/") {
                    Some(end) => i + 2 + end + 2,
                    None => bytes.len(),
                };
                continue;
            }
            b'@' => {
                if bytes.get(i + 1) == Some(&b'@') {
                    let start = i;
                    i += 2;
                    while i < bytes.len() && is_ident(bytes[i]) || bytes.get(i) == Some(&b'.') {
                        i += 1;
                    }
                    let name = sql[start + 2..i].to_ascii_lowercase();
                    let unscoped = ["global.", "session.", "local."]
                        .iter()
                        .find_map(|scope| name.strip_prefix(scope))
                        .unwrap_or(&name);
                    if let (Some(literal), "version") = (&version_literal, unscoped) {
                        out.push_str(&sql[copied..start]);
                        out.push_str(literal);
                        renames.push((
                            version.unwrap_or_default().to_owned(),
                            sql[start..i].to_owned(),
                        ));
                        copied = i;
                    } else if let Some(alias) = alias.filter(|a| {
                        a.missing == unscoped
                            && first_word.is_some_and(|w| !w.eq_ignore_ascii_case("set"))
                    }) {
                        // In parentheses, so that the result column has a name of its own even
                        // when the statement also reads the other name; not in a SET, whose
                        // target is the backend's to accept or refuse.
                        let scope = &sql[start..i - unscoped.len()];
                        let replacement = format!("({scope}{})", alias.present);
                        out.push_str(&sql[copied..start]);
                        out.push_str(&replacement);
                        renames.push((replacement, sql[start..i].to_owned()));
                        copied = i;
                    }
                    continue;
                }
                user_variable = true;
                i += 1;
                // `@name`, `@'name'`, `@"name"` or `` @`name` ``.
                match bytes.get(i) {
                    Some(&q) if q == b'\'' || q == b'"' || q == b'`' => {
                        i = skip_quoted(bytes, i, backslash_escapes && q != b'`');
                    }
                    _ => {
                        while i < bytes.len() && (is_ident(bytes[i]) || bytes[i] == b'.') {
                            i += 1;
                        }
                    }
                }
                let mut j = i;
                while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                if after_into || bytes[j..].starts_with(b":=") {
                    user_variable_assigned = true;
                }
                continue;
            }
            b'?' => {
                // Past the last argument, placeholders are only counted, for the error.
                if let Some(value) = args.get(next_arg) {
                    out.push_str(&sql[copied..i]);
                    write_literal(&mut out, next_arg, value, backslash_escapes)?;
                    copied = i + 1;
                }
                next_arg += 1;
            }
            _ if is_ident_start(b) && (i == 0 || !is_ident(bytes[i - 1])) => {
                let start = i;
                while i < bytes.len() && is_ident(bytes[i]) {
                    i += 1;
                }
                let word = &sql[start..i];
                let is_show = first_word.get_or_insert(word).eq_ignore_ascii_case("show");
                if is_show && word.eq_ignore_ascii_case("variables") {
                    show_variables = true;
                } else if show_variables
                    && show_filter_at.is_none()
                    && (word.eq_ignore_ascii_case("like") || word.eq_ignore_ascii_case("where"))
                {
                    show_filter_at = Some(out.len() + start - copied);
                }
                // `INTO @a, @b`: every variable after INTO until the next word is assigned.
                after_into = word.eq_ignore_ascii_case("into");
                let preceded_by_dot = start > 0 && bytes[start - 1] == b'.';
                if preceded_by_dot {
                } else if word.eq_ignore_ascii_case("release_all_locks") {
                    named_lock = true;
                } else if word.eq_ignore_ascii_case("get_lock")
                    || word.eq_ignore_ascii_case("release_lock")
                {
                    match lock_name(sql, i, args.get(next_arg), backslash_escapes)? {
                        LockName::NotACall => {}
                        LockName::Literal(name) => {
                            named_lock = true;
                            lock_names.push(name);
                        }
                        LockName::Expression => {
                            named_lock = true;
                            // Releasing a lock of unknown name can only end a pin: the names
                            // already held are asked about anyway.
                            unnamed_lock |= word.eq_ignore_ascii_case("get_lock");
                        }
                    }
                }
                let replacement = if word.eq_ignore_ascii_case("connection_id") {
                    Some(connection_id)
                } else if word.eq_ignore_ascii_case("last_insert_id") {
                    Some(last_insert_id)
                } else {
                    None
                };
                if let (Some(value), false) = (replacement, preceded_by_dot) {
                    if let Some(end) = empty_call(bytes, i) {
                        out.push_str(&sql[copied..start]);
                        // BIGINT UNSIGNED, the functions' own type.
                        let cast = format!("CAST({value} AS UNSIGNED)");
                        out.push_str(&cast);
                        renames.push((cast, sql[start..end].to_owned()));
                        i = end;
                        copied = end;
                    }
                } else if let (Some(literal), true, false) = (
                    &version_literal,
                    word.eq_ignore_ascii_case("version"),
                    preceded_by_dot,
                ) {
                    if let Some(end) = empty_call(bytes, i) {
                        out.push_str(&sql[copied..start]);
                        out.push_str(literal);
                        renames.push((
                            version.unwrap_or_default().to_owned(),
                            sql[start..end].to_owned(),
                        ));
                        i = end;
                        copied = end;
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if next_arg != args.len() {
        return Err(SqlError::new(
            &codes::WRONG_ARGUMENTS,
            format!(
                "Incorrect arguments: the statement has {next_arg} placeholders but {} arguments were given",
                args.len()
            ),
        ));
    }
    out.push_str(&sql[copied..]);
    Ok(Rewritten {
        sql: out,
        user_variable,
        user_variable_assigned,
        named_lock,
        lock_names,
        unnamed_lock,
        renames,
        show_variables,
        show_filter_at,
    })
}

/// The first argument of a lock function whose name ends at `i`.
enum LockName {
    /// No `(` follows: a column or alias of that name.
    NotACall,
    /// A string literal or a `?` argument, as the SQL literal to ask the backend about.
    Literal(String),
    /// Anything else.
    Expression,
}

/// Reads the first argument of the lock function call whose name ends at `i`; `arg` is the
/// value of the next `?`, which is the argument when it is a placeholder.
fn lock_name(
    sql: &str,
    i: usize,
    arg: Option<&Value>,
    backslash_escapes: bool,
) -> Result<LockName, SqlError> {
    let bytes = sql.as_bytes();
    let skip_spaces = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    };
    let open = skip_spaces(i);
    if bytes.get(open) != Some(&b'(') {
        return Ok(LockName::NotACall);
    }
    let start = skip_spaces(open + 1);
    let (literal, end) = match (bytes.get(start), arg) {
        (Some(b'\''), _) => {
            let end = skip_quoted(bytes, start, backslash_escapes);
            (sql[start..end].to_owned(), end)
        }
        (Some(b'?'), Some(value)) => {
            let mut literal = String::new();
            write_literal(&mut literal, 0, value, backslash_escapes)?;
            (literal, start + 1)
        }
        _ => return Ok(LockName::Expression),
    };
    Ok(match bytes.get(skip_spaces(end)) {
        Some(b',' | b')') => LockName::Literal(literal),
        _ => LockName::Expression,
    })
}

/// After `connection_id` at `i`: optional spaces, `(`, optional spaces, `)`. Returns the index
/// after the `)`.
fn empty_call(bytes: &[u8], mut i: usize) -> Option<usize> {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if bytes.get(i) != Some(&b'(') {
        return None;
    }
    i += 1;
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    (bytes.get(i) == Some(&b')')).then_some(i + 1)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Index after the literal or quoted identifier opened at `start`; a doubled quote is a quote,
/// and with `backslash` a backslash escapes the next byte.
fn skip_quoted(bytes: &[u8], start: usize, backslash: bool) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        let b = bytes[i];
        if backslash && b == b'\\' {
            i += 2;
            continue;
        }
        if b == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

fn skip_line(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| start + p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_becomes_the_nodes_only_where_it_is_the_function_or_the_variable() {
        let r = rewrite_with_version(
            "select VERSION(), version ( ), @@version, @@global.Version, @@version_comment, \
             'version()', x.version(), my_version(), connection_id() from t where v = ?",
            &[Value::Sint(1)],
            7,
            0,
            true,
            Some("10.11-it's"),
            None,
        )
        .unwrap();
        assert_eq!(
            r.sql,
            "select '10.11-it\\'s', '10.11-it\\'s', '10.11-it\\'s', '10.11-it\\'s', \
             @@version_comment, 'version()', x.version(), my_version(), CAST(7 AS UNSIGNED) \
             from t where v = 1"
        );
        let originals: Vec<&str> = r.renames.iter().map(|(_, o)| o.as_str()).collect();
        assert_eq!(
            originals,
            [
                "VERSION()",
                "version ( )",
                "@@version",
                "@@global.Version",
                "connection_id()"
            ]
        );
        assert_eq!(r.renames[0].0, "10.11-it's");
        assert!(!r.show_variables);
        assert!(
            rewrite("SHOW GLOBAL VARIABLES LIKE 'v%'", &[], 1, 0, true)
                .unwrap()
                .show_variables
        );
        assert!(
            !rewrite("SELECT 1 AS variables", &[], 1, 0, true)
                .unwrap()
                .show_variables
        );
        // Without a version (the plain rewrite) nothing changes.
        let plain = rewrite("select version(), @@version", &[], 1, 0, true).unwrap();
        assert_eq!(plain.sql, "select version(), @@version");
    }

    #[test]
    fn json_geometry_and_dates_carry_the_x_plugins_content_types() {
        use xrpc_engine::result::content_type;
        let content = |column: mysql::Column| map_column(&column).0.content_type();
        let json = mysql::Column::new(MyType::MYSQL_TYPE_JSON).with_character_set(45);
        let (info, _) = map_column(&json);
        assert_eq!(info.x_type, ColumnType::Bytes);
        assert_eq!(info.collation, 45, "JSON is text");
        assert_eq!(content(json), Some(content_type::JSON));
        let geometry = mysql::Column::new(MyType::MYSQL_TYPE_GEOMETRY)
            .with_character_set(63)
            .with_flags(ColumnFlags::BINARY_FLAG | ColumnFlags::BLOB_FLAG);
        assert_eq!(map_column(&geometry).0.x_type, ColumnType::Bytes);
        assert_eq!(content(geometry), Some(content_type::GEOMETRY));
        let date = mysql::Column::new(MyType::MYSQL_TYPE_DATE);
        assert_eq!(content(date), Some(content_type::DATE));
        for datetime in [
            MyType::MYSQL_TYPE_DATETIME,
            MyType::MYSQL_TYPE_DATETIME2,
            MyType::MYSQL_TYPE_TIMESTAMP,
        ] {
            assert_eq!(
                content(mysql::Column::new(datetime)),
                Some(content_type::DATETIME)
            );
        }
        for other in [
            MyType::MYSQL_TYPE_BLOB,
            MyType::MYSQL_TYPE_VAR_STRING,
            MyType::MYSQL_TYPE_TIME,
            MyType::MYSQL_TYPE_LONGLONG,
        ] {
            assert_eq!(content(mysql::Column::new(other)), None, "{other:?}");
        }
    }

    fn lit(value: Value) -> String {
        let mut out = String::new();
        write_literal(&mut out, 0, &value, true).unwrap();
        out
    }

    #[test]
    fn literals_are_escaped_as_mysql_real_escape_string_does() {
        assert_eq!(
            lit(Value::Bytes(Bytes::from_static(b"it's \\ \"x\"\n\0\x1a"))),
            r#"'it\'s \\ \"x\"\n\0\Z'"#
        );
        assert_eq!(
            lit(Value::Bytes(Bytes::from_static(b"\xff\x00"))),
            "X'FF00'"
        );
        assert_eq!(lit(Value::Sint(i64::MIN)), "-9223372036854775808");
        assert_eq!(lit(Value::Uint(u64::MAX)), "18446744073709551615");
        assert_eq!(lit(Value::Double(0.1)), "1e-1");
        assert_eq!(lit(Value::Float(0.1)), "1e-1");
        assert_eq!(lit(Value::Bit(5)), "b'101'");
        assert_eq!(lit(Value::Null), "NULL");
        assert_eq!(
            lit(Value::Set(vec![
                Bytes::from_static(b"a"),
                Bytes::from_static(b"b")
            ])),
            "'a,b'"
        );
        assert_eq!(
            lit(Value::Time(XTime::new(true, 838, 59, 59, 0).unwrap())),
            "'-838:59:59'"
        );
        let mut out = String::new();
        write_literal(
            &mut out,
            0,
            &Value::Bytes(Bytes::from_static(b"a'\\")),
            false,
        )
        .unwrap();
        assert_eq!(out, r"'a''\'");
        assert!(write_literal(&mut out, 0, &Value::Double(f64::NAN), true).is_err());
    }

    #[test]
    fn placeholders_are_replaced_only_outside_literals_and_comments() {
        let r = rewrite(
            "select ?, '?', \"?\", `?`, 'it\\'s ?' -- ?\n, ? # ?\n /* ? */ /*! , ? */",
            &[Value::Sint(1), Value::Sint(2), Value::Sint(3)],
            7,
            0,
            true,
        )
        .unwrap();
        assert_eq!(
            r.sql,
            "select 1, '?', \"?\", `?`, 'it\\'s ?' -- ?\n, 2 # ?\n /* ? */ /*! , 3 */"
        );
        let err = rewrite("select ?, ?", &[Value::Sint(1)], 7, 0, true).unwrap_err();
        assert_eq!(err.code, codes::WRONG_ARGUMENTS.code);
        assert!(
            err.message.contains("2 placeholders but 1"),
            "{}",
            err.message
        );
        assert!(rewrite("select 1", &[Value::Sint(1)], 7, 0, true).is_err());
    }

    #[test]
    fn connection_id_names_the_session() {
        let r = rewrite(
            "select CONNECTION_ID(), connection_id ( ), 'connection_id()', my_connection_id(), x.connection_id(), last_insert_id(), last_insert_id(5)",
            &[],
            42,
            9,
            true,
        )
        .unwrap();
        assert_eq!(
            r.sql,
            "select CAST(42 AS UNSIGNED), CAST(42 AS UNSIGNED), 'connection_id()', my_connection_id(), x.connection_id(), CAST(9 AS UNSIGNED), last_insert_id(5)"
        );
        assert!(!r.user_variable && !r.named_lock);
    }

    #[test]
    fn user_variables_and_named_locks_are_noticed() {
        let read = rewrite("select @a, @`b` from t where x = @c", &[], 1, 0, true).unwrap();
        assert!(read.user_variable && !read.user_variable_assigned);
        for assigning in [
            "select @a := 1",
            "select @`a`:=1",
            "select x into @a from t",
            "select x, y into @a, @b from t",
            "select x from t into @a",
        ] {
            let r = rewrite(assigning, &[], 1, 0, true).unwrap();
            assert!(r.user_variable_assigned, "{assigning}");
        }
        assert!(
            rewrite("set @a = 1", &[], 1, 0, true)
                .unwrap()
                .user_variable
        );
        assert!(
            !rewrite("set @@session.time_zone = '+00:00'", &[], 1, 0, true)
                .unwrap()
                .user_variable
        );
        assert!(
            !rewrite("select '@a'", &[], 1, 0, true)
                .unwrap()
                .user_variable
        );
        assert!(
            rewrite("select get_lock('x', 1)", &[], 1, 0, true)
                .unwrap()
                .named_lock
        );
        assert!(
            !rewrite("select 'get_lock'", &[], 1, 0, true)
                .unwrap()
                .named_lock
        );
    }

    #[test]
    fn the_missing_isolation_name_is_read_as_the_other() {
        let alias = VariableAlias::for_backend(&["TX_ISOLATION".to_owned()]);
        let r = rewrite_with_version(
            "select @@transaction_isolation, @@tx_isolation, '@@transaction_isolation', \
             @@GLOBAL.Transaction_Isolation",
            &[],
            1,
            0,
            true,
            None,
            alias,
        )
        .unwrap();
        assert_eq!(
            r.sql,
            "select (@@tx_isolation), @@tx_isolation, '@@transaction_isolation', \
             (@@GLOBAL.tx_isolation)"
        );
        assert_eq!(
            r.renames[1],
            (
                "(@@GLOBAL.tx_isolation)".to_owned(),
                "@@GLOBAL.Transaction_Isolation".to_owned()
            )
        );
        let set = "set @@transaction_isolation = 'READ-COMMITTED'";
        let r = rewrite_with_version(set, &[], 1, 0, true, None, alias).unwrap();
        assert_eq!(r.sql, set, "a SET is the backend's");
    }

    #[test]
    fn the_alias_probe_asks_the_backend_to_filter_the_missing_name() {
        let alias = VariableAlias::for_backend(&["tx_isolation".to_owned()]).unwrap();
        let probe = |sql: &str| alias.probe(&rewrite(sql, &[], 1, 0, true).unwrap(), true);
        assert_eq!(
            probe("SHOW GLOBAL VARIABLES LIKE 't%';"),
            "SHOW GLOBAL VARIABLES  WHERE Variable_name = 'tx_isolation' AND \
             'transaction_isolation' LIKE  't%'"
        );
        assert_eq!(
            probe("show variables where `Variable_name` in ('a', 'variable_name') or value = 1"),
            "show variables  WHERE Variable_name = 'tx_isolation' AND \
             ( 'transaction_isolation' in ('a', 'variable_name') or value = 1)"
        );
        assert_eq!(
            probe("SHOW VARIABLES"),
            "SHOW VARIABLES WHERE Variable_name = 'tx_isolation' AND TRUE"
        );
    }

    #[test]
    fn lock_names_are_read_from_literals_and_arguments() {
        let r = rewrite(
            "select get_lock('a', 0), release_lock ( ? ), release_all_locks()",
            &[Value::Bytes("b'c".into())],
            1,
            0,
            true,
        )
        .unwrap();
        assert!(r.named_lock && !r.unnamed_lock);
        assert_eq!(r.lock_names, ["'a'", "'b\\'c'"]);
        let r = rewrite("select get_lock(concat('a', x), 0) from t", &[], 1, 0, true).unwrap();
        assert!(r.named_lock && r.unnamed_lock && r.lock_names.is_empty());
        let r = rewrite("select release_lock(@name)", &[], 1, 0, true).unwrap();
        assert!(r.named_lock && !r.unnamed_lock, "a release never pins");
        let r = rewrite("select get_lock from t", &[], 1, 0, true).unwrap();
        assert!(!r.named_lock, "a column, not a call");
    }

    #[test]
    fn text_values_parse_by_column_type() {
        let c = |conv, s: &str| convert(conv, Some(s.as_bytes())).unwrap();
        assert_eq!(c(Conv::Sint, "-9223372036854775808"), Value::Sint(i64::MIN));
        assert_eq!(c(Conv::Uint, "18446744073709551615"), Value::Uint(u64::MAX));
        assert_eq!(c(Conv::Double, "-1.5e300"), Value::Double(-1.5e300));
        assert_eq!(c(Conv::Float, "3.40282e38"), Value::Float(3.40282e38));
        assert_eq!(
            c(Conv::Decimal, "-1.50"),
            Value::Decimal(XDecimal::parse("-1.50").unwrap())
        );
        assert_eq!(
            c(Conv::DateTime, "0000-00-00 00:00:00"),
            Value::DateTime(XDateTime::new(0, 0, 0, 0, 0, 0, 0).unwrap())
        );
        assert_eq!(
            c(Conv::DateTime, "2024-02-29 23:59:59.5"),
            Value::DateTime(XDateTime::new(2024, 2, 29, 23, 59, 59, 500_000).unwrap())
        );
        assert_eq!(
            c(Conv::Date, "9999-12-31"),
            Value::DateTime(XDateTime::date(9999, 12, 31).unwrap())
        );
        assert_eq!(
            c(Conv::Time, "-838:59:59.000001"),
            Value::Time(XTime::new(true, 838, 59, 59, 1).unwrap())
        );
        assert_eq!(convert(Conv::Bit, Some(&[1, 0])).unwrap(), Value::Bit(256));
        assert_eq!(c(Conv::Set, ""), Value::Set(vec![]));
        assert_eq!(
            c(Conv::Set, "a,b"),
            Value::Set(vec![Bytes::from_static(b"a"), Bytes::from_static(b"b")])
        );
        assert_eq!(convert(Conv::Time, None).unwrap(), Value::Null);
        assert!(convert(Conv::Sint, Some(b"x")).is_err());
        assert!(convert(Conv::Time, Some(b"839:00:00")).is_err());
    }
}
