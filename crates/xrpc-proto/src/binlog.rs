//! The binary log's entry: one protobuf message per logged frame or connection event.
//!
//! The node's binary log (`xrpc_server::binlog`) writes these as length-delimited messages (a
//! varint byte count, then the message: protobuf's `writeDelimitedTo` framing) and `xrpc binlog`
//! reads them back. The message is declared here with `prost` attributes rather than generated
//! from a `.proto` file so the field numbers sit next to their meaning; `docs/PROTOCOL.md`
//! ("Binary log") gives the same message as `.proto` text for readers in other languages, and the
//! field numbers must never change.

/// The name of the binary log's file number `number` (`binlog-00000001.xbl`); numbers go up by
/// one per rotation, so a reader following a file knows which name comes next.
pub fn file_name(number: u64) -> String {
    format!("binlog-{number:08}.xbl")
}

/// The number of a binary log file named `name`, if it is one.
pub fn file_number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("binlog-")?.strip_suffix(".xbl")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// What an entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum EntryKind {
    /// Not set (a reader should skip the entry).
    Unspecified = 0,
    /// A frame the node received from the client.
    Received = 1,
    /// A frame the node sent to the client.
    Sent = 2,
    /// The connection was accepted.
    ConnectionOpen = 3,
    /// The connection ended.
    ConnectionClose = 4,
    /// Authentication succeeded; `user` says as whom.
    AuthOk = 5,
    /// Authentication was refused; `detail` holds the error the client got.
    AuthFailed = 6,
}

impl EntryKind {
    /// The kind's name in `xrpc binlog` output and `--type` filters (`RECEIVED`, `AUTH_OK`, …).
    pub fn name(self) -> &'static str {
        match self {
            EntryKind::Unspecified => "UNSPECIFIED",
            EntryKind::Received => "RECEIVED",
            EntryKind::Sent => "SENT",
            EntryKind::ConnectionOpen => "CONNECTION_OPEN",
            EntryKind::ConnectionClose => "CONNECTION_CLOSE",
            EntryKind::AuthOk => "AUTH_OK",
            EntryKind::AuthFailed => "AUTH_FAILED",
        }
    }
}

/// One entry of the binary log. Field numbers are part of the file format.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BinlogEntry {
    /// Entry sequence number, from 1, in the order entries were queued. A gap means entries were
    /// dropped because the writer could not keep up.
    #[prost(uint64, tag = "1")]
    pub sequence: u64,
    /// When the entry was made, in nanoseconds since the Unix epoch.
    #[prost(uint64, tag = "2")]
    pub timestamp_ns: u64,
    /// The node's id of the connection (unique while the node runs).
    #[prost(uint64, tag = "3")]
    pub connection_id: u64,
    /// The client's address (`ip:port`), empty if unknown.
    #[prost(string, tag = "4")]
    pub peer: String,
    /// The frame's session id (0 for connection-level frames and events).
    #[prost(uint64, tag = "5")]
    pub sid: u64,
    /// What the entry records.
    #[prost(enumeration = "EntryKind", tag = "6")]
    pub kind: i32,
    /// The frame's message type id (its meaning depends on the direction); 0 for events.
    #[prost(uint32, tag = "7")]
    pub type_id: u32,
    /// The full length of the frame's payload (the protobuf body), whatever was kept of it.
    #[prost(uint32, tag = "8")]
    pub payload_length: u32,
    /// Whether `payload` holds less than `payload_length` bytes (a `{m:N}` or `{h}` limit, or a
    /// payload withheld because it carries authentication secrets).
    #[prost(bool, tag = "9")]
    pub truncated: bool,
    /// The payload's first bytes, or all of it.
    #[prost(bytes = "vec", tag = "10")]
    pub payload: Vec<u8>,
    /// The authenticated user, when known.
    #[prost(string, tag = "11")]
    pub user: String,
    /// Free text for events (the refusal message of AUTH_FAILED).
    #[prost(string, tag = "12")]
    pub detail: String,
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;

    #[test]
    fn file_names_and_numbers_round_trip() {
        assert_eq!(file_name(7), "binlog-00000007.xbl");
        assert_eq!(file_number(&file_name(123_456_789)), Some(123_456_789));
        for other in ["binlog-.xbl", "binlog-1a.xbl", "binlog-01.log", "x-01.xbl"] {
            assert_eq!(file_number(other), None, "{other}");
        }
    }

    #[test]
    fn entries_round_trip_length_delimited() {
        let entries = [
            BinlogEntry {
                sequence: 1,
                timestamp_ns: 1_700_000_000_000_000_000,
                connection_id: 7,
                peer: "127.0.0.1:5000".into(),
                sid: 3,
                kind: EntryKind::Received as i32,
                type_id: 102,
                payload_length: 5,
                truncated: false,
                payload: b"hello".to_vec(),
                user: "root".into(),
                detail: String::new(),
            },
            BinlogEntry {
                sequence: 2,
                kind: EntryKind::ConnectionClose as i32,
                ..Default::default()
            },
        ];
        let mut file = Vec::new();
        for entry in &entries {
            entry.encode_length_delimited(&mut file).unwrap();
        }
        let mut rest = &file[..];
        let mut read = Vec::new();
        while !rest.is_empty() {
            read.push(BinlogEntry::decode_length_delimited(&mut rest).unwrap());
        }
        assert_eq!(read, entries);
        assert_eq!(read[1].kind(), EntryKind::ConnectionClose);
    }
}
