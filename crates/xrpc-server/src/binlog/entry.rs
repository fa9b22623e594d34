//! Building entries: splitting a send buffer into frames, what to keep of a payload, and which
//! payloads are never kept.

use std::time::{SystemTime, UNIX_EPOCH};

use xrpc_proto::HeaderFormat;
use xrpc_proto::binlog::{BinlogEntry, EntryKind};
use xrpc_proto::messages::{ClientType, ServerType};

use super::config::{Direction, PayloadLimit};

/// Why a payload was withheld, in the entry's `detail`.
pub const WITHHELD: &str = "payload withheld: authentication data";

/// Whether frames of `type_id` going `direction` carry authentication secrets (the client's user
/// name and password hash or PLAIN password, the server's scramble). Their payloads are never
/// logged, whatever the config: only their length is.
pub fn carries_secrets(direction: Direction, type_id: u8) -> bool {
    match direction {
        Direction::Received => {
            type_id == ClientType::AuthenticateStart.id()
                || type_id == ClientType::AuthenticateContinue.id()
        }
        Direction::Sent => type_id == ServerType::AuthenticateContinue.id(),
    }
}

/// One frame of a buffer the node sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentFrame<'a> {
    /// The frame's sid.
    pub sid: u64,
    /// Its message type id.
    pub type_id: u8,
    /// Its body.
    pub body: &'a [u8],
}

/// The frames of `buf`, a run of whole frames in `format` as the node hands them to a
/// connection. Stops at the first header that does not fit (never the case for the node's own
/// buffers).
pub fn sent_frames(buf: &[u8], format: HeaderFormat) -> impl Iterator<Item = SentFrame<'_>> {
    let header_len = format.header_len();
    let length_at = header_len - 5;
    let mut rest = buf;
    std::iter::from_fn(move || {
        if rest.len() < header_len {
            return None;
        }
        let sid = u64::from_le_bytes(rest[..8].try_into().ok()?);
        let length = u32::from_le_bytes(rest[length_at..length_at + 4].try_into().ok()?) as usize;
        let type_id = rest[header_len - 1];
        let body_len = length.checked_sub(1)?;
        let end = header_len.checked_add(body_len)?;
        if rest.len() < end {
            return None;
        }
        let frame = SentFrame {
            sid,
            type_id,
            body: &rest[header_len..end],
        };
        rest = &rest[end..];
        Some(frame)
    })
}

/// Nanoseconds since the Unix epoch.
pub fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// An entry for a frame: the payload copied (up to `limit`), never borrowed, so the caller's
/// buffer, which may be pooled and reused as soon as it returns, is never referenced afterwards.
pub fn frame_entry(
    direction: Direction,
    sid: u64,
    type_id: u8,
    body: &[u8],
    limit: PayloadLimit,
) -> BinlogEntry {
    let secret = carries_secrets(direction, type_id);
    let keep = if secret { 0 } else { limit.keep(body.len()) };
    BinlogEntry {
        sid,
        kind: match direction {
            Direction::Received => EntryKind::Received,
            Direction::Sent => EntryKind::Sent,
        } as i32,
        type_id: u32::from(type_id),
        payload_length: body.len() as u32,
        truncated: keep < body.len(),
        payload: body[..keep].to_vec(),
        detail: if secret && !body.is_empty() {
            WITHHELD.to_owned()
        } else {
            String::new()
        },
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use bytes::BytesMut;
    use xrpc_proto::frame::encode_frame;

    use super::*;

    #[test]
    fn splits_buffers_of_both_header_formats() {
        for format in [HeaderFormat::Standard, HeaderFormat::Galaxy { version: 3 }] {
            let mut buf = BytesMut::new();
            encode_frame(&mut buf, format, 7, 13, b"row one");
            encode_frame(&mut buf, format, 7, 14, b"");
            encode_frame(&mut buf, format, 1 << 63, 1, b"err");
            let frames: Vec<_> = sent_frames(&buf, format).collect();
            assert_eq!(
                frames,
                vec![
                    SentFrame {
                        sid: 7,
                        type_id: 13,
                        body: b"row one"
                    },
                    SentFrame {
                        sid: 7,
                        type_id: 14,
                        body: b""
                    },
                    SentFrame {
                        sid: 1 << 63,
                        type_id: 1,
                        body: b"err"
                    },
                ],
                "{format:?}"
            );
            // A cut buffer yields its whole frames only.
            assert_eq!(sent_frames(&buf[..buf.len() - 1], format).count(), 2);
        }
    }

    #[test]
    fn payloads_are_truncated_and_secrets_withheld() {
        let body = b"0123456789";
        let full = frame_entry(Direction::Received, 1, 101, body, PayloadLimit::Full);
        assert_eq!(
            (full.payload.as_slice(), full.truncated),
            (&body[..], false)
        );
        let cut = frame_entry(Direction::Received, 1, 101, body, PayloadLimit::Bytes(4));
        assert_eq!(
            (cut.payload.as_slice(), cut.truncated, cut.payload_length),
            (&b"0123"[..], true, 10)
        );
        let header = frame_entry(Direction::Sent, 1, 13, body, PayloadLimit::HeaderOnly);
        assert_eq!((header.payload.len(), header.truncated), (0, true));
        for (direction, type_id) in [
            (Direction::Received, ClientType::AuthenticateStart.id()),
            (Direction::Received, ClientType::AuthenticateContinue.id()),
            (Direction::Sent, ServerType::AuthenticateContinue.id()),
        ] {
            let entry = frame_entry(direction, 0, type_id, body, PayloadLimit::Full);
            assert!(
                entry.payload.is_empty() && entry.truncated,
                "{direction:?} {type_id}"
            );
            assert_eq!(entry.detail, WITHHELD);
        }
    }
}
