//! MySQL column metadata and text-protocol values, mapped to the X Protocol as MySQL's X Plugin
//! maps them; and statements made ready for the backend: arguments rendered as escaped SQL
//! literals, the session's own values for `CONNECTION_ID()`, `LAST_INSERT_ID()` and the
//! version, and what of the session state the statement touches (user variables, named locks).
//!
//! See the table in the [module docs](super) for the column mapping.
//!
//! # Statement text
//!
//! The statement is read through the node's MySQL front end ([`xrpc_sql::parse_cached`], one
//! lookup for a text seen before): placeholders, calls, system and user variables are nodes of
//! its tree, found by sqlparser's visitor, and their spans say which bytes of the text to
//! replace; the rest of the text goes to the backend byte for byte.
//!
//! The backend reads more of MySQL's grammar than the front end (MariaDB's forms, `SELECT … INTO
//! @a` after `FROM`, …). A text the front end cannot read is still sent: its `?` placeholders
//! are found by the front end's tokenizer ([`xrpc_sql::unparsed`]) and replaced, nothing else
//! is changed (so `CONNECTION_ID()` there is the backend connection's and `VERSION()` the
//! backend's), and what it touches is judged from its tokens on the safe side: any `@name`
//! counts as an assigned user variable (a statement that returns rows then pins its
//! connection), any `GET_LOCK(` as a lock of a name the engine cannot ask about (pins until
//! the session ends). The same holds for a text with a backslash under `NO_BACKSLASH_ESCAPES`
//! (the front end reads backslash escapes), and for a placeholder in a versioned comment the
//! front end's version skips (`/*!90000 … */`).

use std::cell::RefCell;
use std::fmt::Write as _;
use std::ops::{ControlFlow, Range};

use bytes::Bytes;
use xrpc_mysql_proto::mysql_common::constants::{ColumnFlags, ColumnType as MyType};
use xrpc_proto::codes;
use xrpc_proto::value::{ColumnType, Value, XDateTime, XDecimal, XTime};

use xrpc_engine::result::{COLLATION_BINARY, ColumnInfo, SqlError, column_flags};
use xrpc_sql::ast::{
    BinaryOperator, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments,
    ObjectNamePart, Query, SetExpr, ShowStatementFilter, Spanned, Statement, Value as SqlValue,
    Visit, Visitor, visit_expressions,
};
use xrpc_sql::sqlparser::tokenizer::Span;
use xrpc_sql::{Assignment, Session};

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
pub fn map_column(column: &xrpc_mysql_proto::mysql_common::packets::Column) -> (ColumnInfo, Conv) {
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

/// [`convert`] of a value of `row` (the row's packet): the text of a BYTES or ENUM value is a
/// slice of the packet, shared rather than copied.
pub fn convert_in(conv: Conv, raw: Option<&[u8]>, row: &Bytes) -> Result<Value, SqlError> {
    match (conv, raw) {
        (Conv::Bytes, Some(raw)) => Ok(Value::Bytes(row.slice_ref(raw))),
        (Conv::Enum, Some(raw)) => Ok(Value::Enum(row.slice_ref(raw))),
        _ => convert(conv, raw),
    }
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rewritten {
    /// The SQL to send.
    pub sql: String,
    /// Whether the statement names a user variable (`@name`, not `@@name`).
    pub user_variable: bool,
    /// Whether it assigns one (`@name :=`, `INTO @name`): a statement that returns rows has no
    /// tracker data to say so.
    pub user_variable_assigned: bool,
    /// Whether the statement calls GET_LOCK, RELEASE_LOCK or RELEASE_ALL_LOCKS: named locks
    /// are not reported by the backend's session tracker, so the engine asks the backend which
    /// locks the connection holds after it.
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
    /// In a `SHOW … VARIABLES` statement, its scope and filter, for [`VariableAlias::probe`].
    pub show_filter: Option<ShowFilter>,
    /// The front end cannot read the statement (see "Statement text" in the module docs): it
    /// went with its `?` arguments replaced and nothing else changed, and the flags above were
    /// judged from its tokens, on the safe side.
    pub unread: bool,
}

/// The scope and filter of a `SHOW … VARIABLES` statement, as [`VariableAlias::probe`] needs
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShowFilter {
    /// `GLOBAL ` or `SESSION ` as written, else empty.
    pub scope: &'static str,
    /// The filter.
    pub filter: Option<ShowCondition>,
}

/// The filter of a `SHOW … VARIABLES` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShowCondition {
    /// `LIKE pattern`: the pattern as an SQL literal.
    Like(String),
    /// `WHERE condition`: the condition's text as sent, cut where it names the column
    /// `Variable_name` (between each two pieces).
    Where(Vec<String>),
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
        let mut missing = String::new();
        write_string(&mut missing, self.missing.as_bytes(), backslash_escapes);
        let (scope, filter) = show
            .show_filter
            .as_ref()
            .map_or(("", None), |show| (show.scope, show.filter.as_ref()));
        let condition = match filter {
            Some(ShowCondition::Like(pattern)) => format!("{missing} LIKE {pattern}"),
            Some(ShowCondition::Where(pieces)) => format!("({})", pieces.join(&missing)),
            None => "TRUE".to_owned(),
        };
        format!(
            "SHOW {scope}VARIABLES WHERE Variable_name = '{}' AND {condition}",
            self.present
        )
    }
}

/// Substitutes `args` for the `?` placeholders, the session number for `connection_id()` and the
/// session's last generated id for `last_insert_id()`. (Both functions would otherwise name the
/// backend connection, which changes from statement to statement.)
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
///
/// Everything is read from the front end's parse tree ([`xrpc_sql::parse_cached`]). A text the
/// front end cannot read (or reads differently from the backend: a backslash in it under
/// `NO_BACKSLASH_ESCAPES`, or a versioned comment the front end's version skips that holds a
/// placeholder) is sent with only its `?` placeholders replaced, found by the front end's
/// tokenizer, and [`Rewritten::unread`].
pub fn rewrite_with_version(
    sql: &str,
    args: &[Value],
    connection_id: u64,
    last_insert_id: u64,
    backslash_escapes: bool,
    version: Option<&str>,
    alias: Option<VariableAlias>,
) -> Result<Rewritten, SqlError> {
    let script = xrpc_sql::parse_cached(sql, &xrpc_sql::Options::default());
    rewrite_parsed(
        sql,
        &script,
        args,
        connection_id,
        last_insert_id,
        backslash_escapes,
        version,
        alias,
    )
}

/// [`rewrite_with_version`] of a text the caller has read already: `script` is `sql` as the
/// front end parses it (`xrpc_sql::parse_cached` with the default options). A text longer than
/// the parse cache keeps is parsed once per call, so the caller's parse is passed down.
#[allow(clippy::too_many_arguments)]
pub fn rewrite_parsed(
    sql: &str,
    script: &xrpc_sql::Script,
    args: &[Value],
    connection_id: u64,
    last_insert_id: u64,
    backslash_escapes: bool,
    version: Option<&str>,
    alias: Option<VariableAlias>,
) -> Result<Rewritten, SqlError> {
    let repeated = LAST_PLAIN.with_borrow(|last| {
        last.is(sql, version, alias, args.len())
            .then(|| substitute(sql, &last.placeholders, args, backslash_escapes))
    });
    if let Some(rewritten) = repeated {
        return rewritten;
    }
    let readable = script
        .iter()
        .all(|statement| matches!(statement, Ok(_) | Err(xrpc_sql::ParseError::Empty)))
        && (backslash_escapes || !sql.contains('\\'));
    if !readable {
        return unread(sql, args, backslash_escapes);
    }
    let mut pass = TreePass {
        sql,
        lines: xrpc_sql::Lines::new(sql),
        version,
        alias,
        connection_id,
        last_insert_id,
        backslash_escapes,
        in_set: false,
        placeholders: Vec::new(),
        edits: Vec::new(),
        lock_args: Vec::new(),
        out: Rewritten::default(),
    };
    for parsed in script.iter().flatten() {
        if let Some(statement) = parsed.statement() {
            pass.statement(statement, parsed.start + parsed.text.len());
        }
    }
    if pass.placeholders.len() != args.len() {
        // A placeholder in a versioned comment the front end's version skips: the tokens see it.
        if xrpc_sql::unparsed(sql, backslash_escapes)
            .is_ok_and(|read| read.placeholders.len() == args.len())
        {
            return unread(sql, args, backslash_escapes);
        }
        return Err(argument_count(pass.placeholders.len(), args.len()));
    }
    pass.placeholders.sort_unstable();
    let plain = pass.edits.is_empty()
        && pass.lock_args.is_empty()
        && pass.out == Rewritten::default()
        && !sql.contains('\\');
    let placeholders = plain.then(|| pass.placeholders.clone());
    let rewritten = pass.finish(args)?;
    if let Some(placeholders) = placeholders {
        LAST_PLAIN.with_borrow_mut(|last| last.keep(sql, version, alias, placeholders));
    }
    Ok(rewritten)
}

/// The text a thread rewrote last, when the walk over its tree found `?` placeholders and
/// nothing else to change or note: the next rewrite of the same text (a prepared statement run
/// again, the usual case) puts the arguments at the same offsets without walking the tree. Kept
/// only for a text without a backslash, whose reading no escape mode changes, and for the
/// version and alias it was walked with; the connection id and last insert id never matter, as
/// a text that calls for them is not plain.
#[derive(Default)]
struct PlainText {
    sql: String,
    version: Option<String>,
    alias: Option<VariableAlias>,
    placeholders: Vec<usize>,
    kept: bool,
}

impl PlainText {
    fn is(
        &self,
        sql: &str,
        version: Option<&str>,
        alias: Option<VariableAlias>,
        args: usize,
    ) -> bool {
        self.kept
            && self.placeholders.len() == args
            && self.sql == sql
            && self.version.as_deref() == version
            && self.alias == alias
    }

    fn keep(
        &mut self,
        sql: &str,
        version: Option<&str>,
        alias: Option<VariableAlias>,
        placeholders: Vec<usize>,
    ) {
        self.sql.clear();
        self.sql.push_str(sql);
        if self.version.as_deref() != version {
            self.version = version.map(str::to_owned);
        }
        self.alias = alias;
        self.placeholders = placeholders;
        self.kept = true;
    }
}

thread_local! {
    static LAST_PLAIN: RefCell<PlainText> = RefCell::default();
}

/// `sql` with the `?` at each of `placeholders` (ascending byte offsets) replaced by its
/// argument's literal, and nothing else noted.
fn substitute(
    sql: &str,
    placeholders: &[usize],
    args: &[Value],
    backslash_escapes: bool,
) -> Result<Rewritten, SqlError> {
    let mut out = String::with_capacity(sql.len() + args.len() * 8);
    let mut copied = 0;
    for (index, (&at, value)) in placeholders.iter().zip(args).enumerate() {
        out.push_str(&sql[copied..at]);
        write_literal(&mut out, index, value, backslash_escapes)?;
        copied = at + 1;
    }
    out.push_str(&sql[copied..]);
    Ok(Rewritten {
        sql: out,
        ..Rewritten::default()
    })
}

fn argument_count(placeholders: usize, args: usize) -> SqlError {
    SqlError::new(
        &codes::WRONG_ARGUMENTS,
        format!(
            "Incorrect arguments: the statement has {placeholders} placeholders but {args} \
             arguments were given"
        ),
    )
}

/// A text the front end cannot read: its placeholders replaced, nothing else; what session
/// state it may touch is judged from its tokens, on the safe side.
fn unread(sql: &str, args: &[Value], backslash_escapes: bool) -> Result<Rewritten, SqlError> {
    let read = match xrpc_sql::unparsed(sql, backslash_escapes) {
        Ok(read) => read,
        // Not even tokens: nothing to replace, and the backend's error to give.
        Err(_) if args.is_empty() => xrpc_sql::Unparsed::default(),
        Err(err) => return Err(SqlError::new(&codes::PARSE_ERROR, err.to_string())),
    };
    if read.placeholders.len() != args.len() {
        return Err(argument_count(read.placeholders.len(), args.len()));
    }
    let calls = |names: &[&str]| read.calls.iter().any(|call| names.contains(&call.as_str()));
    Ok(Rewritten {
        // Any user variable may be assigned; any lock name is one the engine cannot ask about.
        user_variable: read.user_variables,
        user_variable_assigned: read.user_variables,
        named_lock: calls(&["get_lock", "release_lock", "release_all_locks"]),
        unnamed_lock: calls(&["get_lock"]),
        unread: true,
        ..substitute(sql, &read.placeholders, args, backslash_escapes)?
    })
}

/// The first argument of a lock function.
enum LockArg {
    /// A string literal, as written.
    Literal(String),
    /// The `?` at this byte offset.
    Placeholder(usize),
    /// Anything else.
    Expression,
}

/// One walk over a script's trees, collecting the edits to its text.
struct TreePass<'a> {
    sql: &'a str,
    lines: xrpc_sql::Lines<'a>,
    version: Option<&'a str>,
    alias: Option<VariableAlias>,
    connection_id: u64,
    last_insert_id: u64,
    /// The backend reads backslash escapes in strings.
    backslash_escapes: bool,
    /// In a SET statement, whose targets are the backend's to accept or refuse.
    in_set: bool,
    /// The byte offsets of the `?` placeholders.
    placeholders: Vec<usize>,
    /// `(range, replacement)` in the text, apart from placeholders.
    edits: Vec<(Range<usize>, String)>,
    /// GET_LOCK (true) and RELEASE_LOCK (false) calls and their first arguments.
    lock_args: Vec<(bool, LockArg)>,
    out: Rewritten,
}

impl TreePass<'_> {
    fn range(&self, span: Span) -> Range<usize> {
        self.lines.at(span.start)..self.lines.at(span.end)
    }

    /// One statement, whose text ends at byte `end`.
    fn statement(&mut self, statement: &Statement, end: usize) {
        self.in_set = matches!(statement, Statement::Set(_));
        if let Some(Session::Set(assignments)) = Session::of(statement)
            && assignments
                .iter()
                .any(|a| matches!(a, Assignment::User { .. }))
        {
            self.out.user_variable = true;
        }
        if let Statement::ShowVariables {
            filter,
            global,
            session,
        } = statement
        {
            self.out.show_variables = true;
            let scope = match (global, session) {
                (true, _) => "GLOBAL ",
                (_, true) => "SESSION ",
                _ => "",
            };
            let filter = filter
                .as_ref()
                .and_then(|filter| self.show_condition(filter, end));
            self.out.show_filter = Some(ShowFilter { scope, filter });
        }
        let _ = statement.visit(self);
    }

    /// The filter of SHOW VARIABLES, the last clause of its statement, which ends at `end`.
    fn show_condition(&self, filter: &ShowStatementFilter, end: usize) -> Option<ShowCondition> {
        match filter {
            ShowStatementFilter::Like(pattern) => {
                let mut literal = String::new();
                // As sent: the backend reads it back to the pattern.
                write_string(&mut literal, pattern.as_bytes(), self.backslash_escapes);
                Some(ShowCondition::Like(literal))
            }
            ShowStatementFilter::Where(condition) => {
                // A tree records no closing parenthesis: the condition runs to the end.
                let whole = self.lines.at(condition.span().start)..end;
                let mut names = Vec::new();
                let _ = visit_expressions(condition, |expr| {
                    if let Expr::Identifier(ident) = expr
                        && ident.value.eq_ignore_ascii_case("variable_name")
                    {
                        names.push(self.range(ident.span));
                    }
                    ControlFlow::<()>::Continue(())
                });
                let mut pieces = Vec::with_capacity(names.len() + 1);
                let mut at = whole.start;
                for name in names {
                    pieces.push(self.sql[at..name.start].to_owned());
                    at = name.end;
                }
                pieces.push(self.sql[at..whole.end].to_owned());
                Some(ShowCondition::Where(pieces))
            }
            ShowStatementFilter::ILike(_) | ShowStatementFilter::NoKeyword(_) => None,
        }
    }

    /// A read of the system variable `name` (as written, without `@@` and scope) over `span`.
    fn system_variable(&mut self, span: Range<usize>, name: &str) {
        let unscoped = name.to_ascii_lowercase();
        if let (Some(version), "version") = (self.version, unscoped.as_str()) {
            let mut literal = String::new();
            write_string(&mut literal, version.as_bytes(), self.backslash_escapes);
            self.out
                .renames
                .push((version.to_owned(), self.sql[span.clone()].to_owned()));
            self.edits.push((span, literal));
        } else if let Some(alias) = self.alias.filter(|a| a.missing == unscoped && !self.in_set) {
            // In parentheses, so that the result column has a name of its own even when the
            // statement also reads the other name.
            let written = &self.sql[span.clone()];
            let scope = &written[..written.len() - name.len()];
            let replacement = format!("({scope}{})", alias.present);
            self.out
                .renames
                .push((replacement.clone(), written.to_owned()));
            self.edits.push((span, replacement));
        }
    }

    fn function(&mut self, function: &Function) {
        let [ObjectNamePart::Identifier(name)] = function.name.0.as_slice() else {
            return;
        };
        if name.quote_style.is_some() {
            return;
        }
        let args = match &function.args {
            FunctionArguments::List(list) if list.clauses.is_empty() => list.args.as_slice(),
            FunctionArguments::None => return,
            _ => &[],
        };
        let lower = name.value.to_ascii_lowercase();
        match lower.as_str() {
            "release_all_locks" => self.out.named_lock = true,
            "get_lock" | "release_lock" => {
                let arg = match args.first() {
                    Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(value)))) => {
                        match &value.value {
                            SqlValue::SingleQuotedString(_) => {
                                LockArg::Literal(self.sql[self.range(value.span)].to_owned())
                            }
                            SqlValue::Placeholder(p) if p == "?" => {
                                LockArg::Placeholder(self.lines.at(value.span.start))
                            }
                            _ => LockArg::Expression,
                        }
                    }
                    _ => LockArg::Expression,
                };
                self.lock_args.push((lower == "get_lock", arg));
            }
            "connection_id" | "last_insert_id" | "version" if args.is_empty() => {
                let start = self.lines.at(name.span.start);
                let name_end = self.lines.at(name.span.end);
                let Some(end) = xrpc_sql::empty_arguments_end(&self.sql[name_end..]) else {
                    return;
                };
                let end = name_end + end;
                let replacement = match lower.as_str() {
                    // BIGINT UNSIGNED, the functions' own type.
                    "connection_id" => format!("CAST({} AS UNSIGNED)", self.connection_id),
                    "last_insert_id" => format!("CAST({} AS UNSIGNED)", self.last_insert_id),
                    _ => {
                        let Some(version) = self.version else {
                            return;
                        };
                        let mut literal = String::new();
                        write_string(&mut literal, version.as_bytes(), self.backslash_escapes);
                        self.out
                            .renames
                            .push((version.to_owned(), self.sql[start..end].to_owned()));
                        self.edits.push((start..end, literal));
                        return;
                    }
                };
                self.out
                    .renames
                    .push((replacement.clone(), self.sql[start..end].to_owned()));
                self.edits.push((start..end, replacement));
            }
            _ => {}
        }
    }

    /// Applies the edits and the arguments.
    fn finish(mut self, args: &[Value]) -> Result<Rewritten, SqlError> {
        let backslash_escapes = self.backslash_escapes;
        self.placeholders.sort_unstable();
        for (index, (&at, value)) in self.placeholders.iter().zip(args).enumerate() {
            let mut literal = String::new();
            write_literal(&mut literal, index, value, backslash_escapes)?;
            self.edits.push((at..at + 1, literal));
        }
        for (get, arg) in std::mem::take(&mut self.lock_args) {
            self.out.named_lock = true;
            match arg {
                LockArg::Literal(literal) => self.out.lock_names.push(literal),
                LockArg::Placeholder(at) => {
                    let index = self.placeholders.binary_search(&at).unwrap_or_default();
                    let mut literal = String::new();
                    write_literal(&mut literal, 0, &args[index], backslash_escapes)?;
                    self.out.lock_names.push(literal);
                }
                // Releasing a lock of unknown name can only end a pin: the names already held
                // are asked about anyway.
                LockArg::Expression => self.out.unnamed_lock |= get,
            }
        }
        self.edits.sort_unstable_by_key(|(range, _)| range.start);
        let sql = self.sql;
        let mut out = String::with_capacity(sql.len() + args.len() * 8);
        let mut copied = 0;
        for (range, replacement) in &self.edits {
            if range.start < copied {
                continue;
            }
            out.push_str(&sql[copied..range.start]);
            out.push_str(replacement);
            copied = range.end;
        }
        out.push_str(&sql[copied..]);
        self.out.sql = out;
        Ok(self.out)
    }
}

impl Visitor for TreePass<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if let SetExpr::Select(select) = query.body.as_ref()
            && select.into.is_some()
        {
            self.out.user_variable = true;
            self.out.user_variable_assigned = true;
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if let Some(variable) = xrpc_sql::system_variable(expr) {
            self.system_variable(self.range(variable.span), variable.name);
            return ControlFlow::Continue(());
        }
        match expr {
            Expr::Value(value) => {
                if matches!(&value.value, SqlValue::Placeholder(p) if p == "?") {
                    self.placeholders.push(self.lines.at(value.span.start));
                }
            }
            Expr::Identifier(ident)
                if ident.quote_style.is_none() && ident.value.starts_with('@') =>
            {
                self.out.user_variable = true;
            }
            Expr::CompoundIdentifier(parts)
                if parts.first().is_some_and(|first| {
                    first.quote_style.is_none() && first.value.starts_with('@')
                }) =>
            {
                self.out.user_variable = true;
            }
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Assignment,
                ..
            } => {
                if matches!(left.as_ref(), Expr::Identifier(ident) if ident.value.starts_with('@'))
                {
                    self.out.user_variable = true;
                    self.out.user_variable_assigned = true;
                }
            }
            Expr::Function(function) => self.function(function),
            _ => {}
        }
        ControlFlow::Continue(())
    }
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
        let content = |column: xrpc_mysql_proto::mysql_common::packets::Column| {
            map_column(&column).0.content_type()
        };
        let json = xrpc_mysql_proto::mysql_common::packets::Column::new(MyType::MYSQL_TYPE_JSON)
            .with_character_set(45);
        let (info, _) = map_column(&json);
        assert_eq!(info.x_type, ColumnType::Bytes);
        assert_eq!(info.collation, 45, "JSON is text");
        assert_eq!(content(json), Some(content_type::JSON));
        let geometry =
            xrpc_mysql_proto::mysql_common::packets::Column::new(MyType::MYSQL_TYPE_GEOMETRY)
                .with_character_set(63)
                .with_flags(ColumnFlags::BINARY_FLAG | ColumnFlags::BLOB_FLAG);
        assert_eq!(map_column(&geometry).0.x_type, ColumnType::Bytes);
        assert_eq!(content(geometry), Some(content_type::GEOMETRY));
        let date = xrpc_mysql_proto::mysql_common::packets::Column::new(MyType::MYSQL_TYPE_DATE);
        assert_eq!(content(date), Some(content_type::DATE));
        for datetime in [
            MyType::MYSQL_TYPE_DATETIME,
            MyType::MYSQL_TYPE_DATETIME2,
            MyType::MYSQL_TYPE_TIMESTAMP,
        ] {
            assert_eq!(
                content(xrpc_mysql_proto::mysql_common::packets::Column::new(
                    datetime
                )),
                Some(content_type::DATETIME)
            );
        }
        for other in [
            MyType::MYSQL_TYPE_BLOB,
            MyType::MYSQL_TYPE_VAR_STRING,
            MyType::MYSQL_TYPE_TIME,
            MyType::MYSQL_TYPE_LONGLONG,
        ] {
            assert_eq!(
                content(xrpc_mysql_proto::mysql_common::packets::Column::new(other)),
                None,
                "{other:?}"
            );
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
    fn a_plain_text_rewritten_again_gets_its_new_arguments() {
        let sql = "select c from t where id = ? and k in (?, 'a?')";
        for (id, k) in [(1, "x"), (2, "it's"), (3, "z")] {
            let r = rewrite(
                sql,
                &[Value::Sint(id), Value::Bytes(k.as_bytes().to_vec().into())],
                7,
                0,
                false,
            )
            .unwrap();
            let k = k.replace('\'', "''");
            assert_eq!(
                r.sql,
                format!("select c from t where id = {id} and k in ('{k}', 'a?')")
            );
            assert_eq!(
                r,
                Rewritten {
                    sql: r.sql.clone(),
                    ..Rewritten::default()
                }
            );
        }
        // The same text with another argument count is the error of a fresh walk.
        let err = rewrite(sql, &[Value::Sint(1)], 7, 0, true).unwrap_err();
        assert_eq!(err.code, codes::WRONG_ARGUMENTS.code);
    }

    #[test]
    fn a_text_that_names_the_session_is_walked_every_time() {
        for connection_id in [41, 42] {
            let r = rewrite(
                "select connection_id(), ?",
                &[Value::Sint(1)],
                connection_id,
                0,
                true,
            )
            .unwrap();
            assert_eq!(
                r.sql,
                format!("select CAST({connection_id} AS UNSIGNED), 1")
            );
        }
        for version in ["10.11-a", "10.11-b"] {
            let r = rewrite_with_version(
                "select ?",
                &[Value::Sint(1)],
                7,
                0,
                true,
                Some(version),
                None,
            )
            .unwrap();
            assert_eq!(r.sql, "select 1");
            let r = rewrite_with_version("select version()", &[], 7, 0, true, Some(version), None)
                .unwrap();
            assert_eq!(r.sql, format!("select '{version}'"));
        }
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
        let read = rewrite("select @a, @b from t where x = @c", &[], 1, 0, true).unwrap();
        assert!(read.user_variable && !read.user_variable_assigned && !read.unread);
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
            "SHOW GLOBAL VARIABLES WHERE Variable_name = 'tx_isolation' AND \
             'transaction_isolation' LIKE 't%'"
        );
        assert_eq!(
            probe("show variables where `Variable_name` in ('a', 'variable_name') or value = 1"),
            "SHOW VARIABLES WHERE Variable_name = 'tx_isolation' AND \
             ('transaction_isolation' in ('a', 'variable_name') or value = 1)"
        );
        assert_eq!(
            probe("SHOW SESSION VARIABLES LIKE 'a\\_b'"),
            "SHOW SESSION VARIABLES WHERE Variable_name = 'tx_isolation' AND \
             'transaction_isolation' LIKE 'a\\\\_b'"
        );
        assert_eq!(
            probe("SHOW VARIABLES"),
            "SHOW VARIABLES WHERE Variable_name = 'tx_isolation' AND TRUE"
        );
    }

    #[test]
    fn a_text_the_front_end_cannot_read_gets_its_arguments_and_pins() {
        let r = rewrite(
            "select x from t where z = ? into @a -- ?",
            &[Value::Sint(5)],
            1,
            0,
            true,
        )
        .unwrap();
        assert!(r.unread && r.user_variable_assigned);
        assert_eq!(r.sql, "select x from t where z = 5 into @a -- ?");
        // Under NO_BACKSLASH_ESCAPES the backslash ends nothing: the string is 'a\'.
        let r = rewrite("select 'a\\', ?", &[Value::Sint(1)], 1, 0, false).unwrap();
        assert_eq!((r.sql.as_str(), r.unread), ("select 'a\\', 1", true));
        // A versioned comment the front end's version skips may hold a placeholder.
        let r = rewrite("select 1 /*!90000 + ? */", &[Value::Sint(2)], 1, 0, true).unwrap();
        assert_eq!(
            (r.sql.as_str(), r.unread),
            ("select 1 /*!90000 + 2 */", true)
        );
        assert!(
            !rewrite("select ?", &[Value::Sint(2)], 1, 0, true)
                .unwrap()
                .unread
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
