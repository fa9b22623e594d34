//! What the state machine reports: [`Event`]s and the values they carry.

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use mysql_common::Value;
use mysql_common::constants::StatusFlags;
use mysql_common::packets::session_state_change::SessionStateChange;
use mysql_common::packets::{Column, OkPacket};
use mysql_common::row::{Row, new_row};

use crate::columns::ColumnSet;
use crate::error::{ConnectError, DecodeError, StatementError};

/// The caller's name for a command; every event about the command carries it. Tags must be
/// unique among the commands in flight on one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(pub u64);

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Something the caller must act on, from [`Connection::poll_event`](crate::Connection::poll_event).
///
/// For each submitted command exactly one *terminal* event comes out: [`Event::Done`] or
/// [`Event::Failed`]. Before it, a query may yield, per result set, [`Event::Columns`], any
/// number of [`Event::Row`]s and (for all but the last result) [`Event::ResultEnd`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The handshake finished; commands may be submitted.
    Connected {
        /// The backend's connection (thread) id, for `KILL QUERY <id>`.
        thread_id: u32,
        /// The server's version string (`5.5.5-10.11.6-MariaDB-…` for MariaDB).
        server_version: String,
    },
    /// A result set starts; rows with these columns follow.
    Columns {
        /// The query.
        tag: Tag,
        /// The column definitions, as decoded by `mysql_common`: the same set as an earlier
        /// result's when its definitions were the same bytes ([`ColumnSet`]).
        columns: Arc<ColumnSet>,
    },
    /// One row of the current result set, in the text protocol.
    Row {
        /// The query.
        tag: Tag,
        /// The row.
        row: TextRow,
    },
    /// A result set or an OK ended and another result of the same query follows (the server
    /// set SERVER_MORE_RESULTS_EXISTS: a multi-statement or a CALL).
    ResultEnd {
        /// The query.
        tag: Tag,
        /// The result's OK data.
        ok: OkInfo,
    },
    /// Terminal: the command succeeded; its last OK data.
    Done {
        /// The command.
        tag: Tag,
        /// The final OK data.
        ok: OkInfo,
    },
    /// Terminal: the command failed (the server's error, 2013 when the connection was lost,
    /// 1317 when it was withdrawn before being sent).
    Failed {
        /// The command.
        tag: Tag,
        /// Why.
        error: StatementError,
    },
    /// The query's answer has grown past the configured large-result size; reported once per
    /// query. A driver should stop pipelining behind this connection until the query ends.
    LargeResult {
        /// The query.
        tag: Tag,
    },
    /// The query's deadline passed after it was sent: the server must be asked to stop it (see
    /// "Kill" in the crate docs). Its terminal event still comes from the server's answer.
    KillRequired {
        /// The query.
        tag: Tag,
        /// What a side connection needs to kill it.
        target: KillTarget,
    },
    /// The connection is finished: nothing more comes out and nothing more can be submitted.
    /// Every command had its terminal event before this one.
    Closed {
        /// Why.
        reason: CloseReason,
    },
}

impl Event {
    /// The command the event is about, if any.
    pub fn tag(&self) -> Option<Tag> {
        match self {
            Event::Columns { tag, .. }
            | Event::Row { tag, .. }
            | Event::ResultEnd { tag, .. }
            | Event::Done { tag, .. }
            | Event::Failed { tag, .. }
            | Event::LargeResult { tag }
            | Event::KillRequired { tag, .. } => Some(*tag),
            Event::Connected { .. } | Event::Closed { .. } => None,
        }
    }

    /// Whether this is the command's last event.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Event::Done { .. } | Event::Failed { .. })
    }
}

/// Why a connection closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseReason {
    /// COM_QUIT was sent and the transport then closed.
    Quit,
    /// The transport closed (end of stream, an I/O error, or the driver gave up).
    TransportClosed,
    /// The server's bytes broke the protocol.
    Protocol(DecodeError),
    /// The server sent an error outside any command (before closing: a killed connection, an
    /// idle timeout).
    Server(StatementError),
    /// The handshake failed.
    Connect(ConnectError),
}

/// What a side connection needs to stop a statement that was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KillTarget {
    /// The backend's connection id: `KILL QUERY <thread_id>` stops whatever that connection
    /// runs at the moment the kill lands, which may be a later pipelined statement.
    pub thread_id: u32,
    /// The comment the statement was sent with (when [`Config::mark_statements`] is on), which
    /// `information_schema.PROCESSLIST.INFO` shows at its start: the way to find its `QUERY_ID`
    /// for MariaDB's `KILL QUERY ID <query_id>`, which stops that statement only.
    ///
    /// [`Config::mark_statements`]: crate::Config::mark_statements
    pub marker: Option<String>,
}

impl KillTarget {
    /// `KILL QUERY <thread_id>`.
    pub fn kill_query_sql(&self) -> String {
        format!("KILL QUERY {}", self.thread_id)
    }

    /// The side connection's look-up of the statement's query id (MariaDB), when it was marked:
    /// one row (`QUERY_ID`) while the statement runs, none once it has ended or before it starts.
    pub fn query_id_lookup_sql(&self) -> Option<String> {
        self.marker.as_ref().map(|marker| {
            format!(
                "SELECT QUERY_ID FROM information_schema.PROCESSLIST WHERE ID = {} AND INFO LIKE '{}%'",
                self.thread_id, marker
            )
        })
    }
}

/// MariaDB's `KILL QUERY ID <query_id>`: stops the statement with that query id and nothing
/// else; if it has ended, the kill fails with 1957 (unknown query id) and harms no one.
pub fn kill_query_id_sql(query_id: u64) -> String {
    format!("KILL QUERY ID {query_id}")
}

/// The data of an OK packet (or of the packet that ends a result set).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OkInfo {
    /// Rows changed (or matched, with CLIENT_FOUND_ROWS); 0 after a result set.
    pub affected_rows: u64,
    /// The first id generated by the statement, if any.
    pub last_insert_id: Option<u64>,
    /// The number of warnings.
    pub warnings: u16,
    /// The server status flags.
    pub status: StatusFlags,
    /// The human-readable info (`Rows matched: 1  Changed: 1  Warnings: 0`).
    pub info: String,
    /// What the session-state trackers reported (CLIENT_SESSION_TRACK); empty when nothing changed.
    pub session_changes: Vec<SessionChange>,
}

impl OkInfo {
    /// A transaction is open (SERVER_STATUS_IN_TRANS).
    pub fn in_transaction(&self) -> bool {
        self.status.contains(StatusFlags::SERVER_STATUS_IN_TRANS)
    }

    /// Autocommit is on (SERVER_STATUS_AUTOCOMMIT).
    pub fn autocommit(&self) -> bool {
        self.status.contains(StatusFlags::SERVER_STATUS_AUTOCOMMIT)
    }

    /// Another result of the same statement follows (SERVER_MORE_RESULTS_EXISTS).
    pub fn more_results(&self) -> bool {
        self.status
            .contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS)
    }

    /// The session state changed (SERVER_SESSION_STATE_CHANGED).
    pub fn session_state_changed(&self) -> bool {
        self.status
            .contains(StatusFlags::SERVER_SESSION_STATE_CHANGED)
    }

    pub(crate) fn from_packet(ok: &OkPacket<'_>) -> Self {
        Self {
            affected_rows: ok.affected_rows(),
            last_insert_id: ok.last_insert_id(),
            warnings: ok.warnings(),
            status: ok.status_flags(),
            info: ok
                .info_str()
                .map(|info| info.into_owned())
                .unwrap_or_default(),
            session_changes: SessionChange::decode_all(ok),
        }
    }
}

/// One record of the session-state trackers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChange {
    /// A session system variable and its new value (`session_track_system_variables`).
    SystemVariable {
        /// The variable's name, as the server spells it.
        name: String,
        /// Its new value.
        value: String,
    },
    /// The new current database (`session_track_schema`).
    Schema(String),
    /// Some session state changed (`session_track_state_change`): user variables, temporary
    /// tables, prepared statements, … — the tracker does not say which.
    StateChanged,
    /// The transaction state, eight characters (`T_______`, `________`, …).
    TransactionState(String),
    /// The transaction characteristics (`SET TRANSACTION …; START TRANSACTION;`, empty once the
    /// transaction ended).
    TransactionCharacteristics(String),
    /// GTIDs (MySQL `session_track_gtids`).
    Gtids(String),
    /// A record `mysql_common` does not decode (MariaDB sends a state-change record this way
    /// alongside variable changes). Treat it as a state change.
    Undecodable {
        /// The record's type byte.
        kind: u8,
        /// Its data.
        data: Vec<u8>,
    },
}

impl SessionChange {
    fn decode_all(ok: &OkPacket<'_>) -> Vec<SessionChange> {
        let Ok(infos) = ok.session_state_info() else {
            return vec![SessionChange::Undecodable {
                kind: 0xff,
                data: ok.session_state_info_ref().unwrap_or_default().to_vec(),
            }];
        };
        let mut changes = Vec::with_capacity(infos.len());
        for info in infos {
            let kind = info.data_type();
            match info.decode() {
                Ok(SessionStateChange::SystemVariables(vars)) => {
                    changes.extend(vars.into_iter().map(|var| SessionChange::SystemVariable {
                        name: var.name_str().into_owned(),
                        value: var.value_str().into_owned(),
                    }));
                }
                Ok(SessionStateChange::Schema(schema)) => {
                    changes.push(SessionChange::Schema(schema.as_str().into_owned()));
                }
                Ok(SessionStateChange::IsTracked(true)) => {
                    changes.push(SessionChange::StateChanged)
                }
                Ok(SessionStateChange::IsTracked(false)) => {}
                Ok(SessionStateChange::TransactionState(state)) => {
                    changes.push(SessionChange::TransactionState(
                        String::from_utf8_lossy(state.as_bytes()).into(),
                    ))
                }
                Ok(SessionStateChange::TransactionCharacteristics(chars)) => {
                    changes.push(SessionChange::TransactionCharacteristics(
                        String::from_utf8_lossy(chars.as_bytes()).into(),
                    ));
                }
                Ok(SessionStateChange::Gtids(gtids)) => {
                    changes.push(SessionChange::Gtids(gtids.as_str().into_owned()));
                }
                Ok(SessionStateChange::Unsupported(_)) | Err(_) => {
                    changes.push(SessionChange::Undecodable {
                        kind: kind as u8,
                        data: info.data_ref().to_vec(),
                    });
                }
            }
        }
        changes
    }
}

/// A row in the text protocol: the packet as received (no copy), checked when it was decoded to
/// hold exactly one value or NULL per column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRow {
    payload: Bytes,
    columns: usize,
}

impl TextRow {
    /// Checks that `payload` holds exactly `columns` length-encoded values or NULLs.
    pub(crate) fn new(payload: Bytes, columns: usize) -> Result<Self, DecodeError> {
        let mut values = TextValues {
            rest: &payload,
            left: columns,
        };
        for value in values.by_ref() {
            value?;
        }
        if !values.rest.is_empty() {
            return Err(DecodeError::malformed(
                "row",
                format!(
                    "{} bytes after the last of {columns} values",
                    values.rest.len()
                ),
            ));
        }
        Ok(Self { payload, columns })
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.columns
    }

    /// Whether the row has no values (never, for a result set).
    pub fn is_empty(&self) -> bool {
        self.columns == 0
    }

    /// The packet the values are read from: a value's text from [`TextRow::values`] can be
    /// shared rather than copied (`Bytes::slice_ref`).
    pub fn payload(&self) -> &Bytes {
        &self.payload
    }

    /// The values in column order: `None` for NULL, else the value's text.
    pub fn values(&self) -> impl Iterator<Item = Option<&[u8]>> {
        TextValues {
            rest: &self.payload,
            left: self.columns,
        }
        .map(|value| value.ok().flatten())
    }

    /// The value at `index` (`None` for NULL or out of range).
    pub fn get(&self, index: usize) -> Option<&[u8]> {
        self.values().nth(index).flatten()
    }

    /// The row as `mysql_common` values (`Value::Bytes` or `Value::NULL`), for typed conversion.
    ///
    /// # Panics
    ///
    /// If `columns` does not have the row's length (they must be this result set's columns).
    pub fn to_row(&self, columns: Arc<[Column]>) -> Row {
        let values = self
            .values()
            .map(|value| value.map_or(Value::NULL, |bytes| Value::Bytes(bytes.to_vec())))
            .collect();
        new_row(values, columns)
    }
}

/// Walks the values of a text row.
struct TextValues<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Iterator for TextValues<'a> {
    type Item = Result<Option<&'a [u8]>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.rest.first() == Some(&0xfb) {
            self.rest = &self.rest[1..];
            return Some(Ok(None));
        }
        if self.rest.first() == Some(&0xff) {
            return Some(Err(DecodeError::malformed("row", "0xff length prefix")));
        }
        let mut buf = mysql_common::io::ParseBuf(self.rest);
        match buf.checked_eat_lenenc_str() {
            Some(value) => {
                self.rest = buf.0;
                Some(Ok(Some(value)))
            }
            None => {
                self.left = 0;
                Some(Err(DecodeError::malformed(
                    "row",
                    "a value runs past the packet's end",
                )))
            }
        }
    }
}
