//! Packet framing: the 4-byte header (3-byte little-endian length, sequence id), and logical
//! packets of 16 MiB or more split into chunks of 0xFFFFFF bytes followed by a shorter one.

use bytes::{Buf, Bytes, BytesMut};

use crate::error::DecodeError;

/// The longest chunk; a chunk this long is continued by the next one.
const MAX_CHUNK: usize = 0xff_ffff;
const HEADER: usize = 4;

/// One logical packet taken off the receive buffer.
#[derive(Debug)]
pub(crate) struct Packet {
    /// The payload, chunks joined.
    pub(crate) payload: Bytes,
    /// Bytes it took on the wire, headers included.
    pub(crate) wire_len: usize,
    /// The sequence id after it.
    pub(crate) next_seq: u8,
}

/// Takes the next whole packet off the front of `buf`, if it has arrived, checking that its
/// chunks carry the sequence ids `seq`, `seq + 1`, … and that it is at most `max` bytes long.
/// Leaves `buf` untouched when the packet is incomplete, and never looks past its end.
pub(crate) fn take(buf: &mut BytesMut, seq: u8, max: usize) -> Result<Option<Packet>, DecodeError> {
    let mut offset = 0;
    let mut total = 0;
    let mut expected = seq;
    let mut chunks = 0;
    loop {
        let Some(header) = buf.get(offset..offset + HEADER) else {
            return Ok(None);
        };
        let len =
            usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
        let found = header[3];
        if found != expected {
            return Err(DecodeError::Sequence { expected, found });
        }
        expected = expected.wrapping_add(1);
        total += len;
        if total > max {
            return Err(DecodeError::TooLarge { len: total, max });
        }
        chunks += 1;
        offset += HEADER + len;
        if buf.len() < offset {
            return Ok(None);
        }
        if len < MAX_CHUNK {
            break;
        }
    }
    let payload = if chunks == 1 {
        buf.advance(HEADER);
        buf.split_to(total).freeze()
    } else {
        let mut joined = Vec::with_capacity(total);
        let mut wire = buf.split_to(offset);
        while !wire.is_empty() {
            let len = usize::from(wire[0]) | usize::from(wire[1]) << 8 | usize::from(wire[2]) << 16;
            wire.advance(HEADER);
            joined.extend_from_slice(&wire.split_to(len));
        }
        Bytes::from(joined)
    };
    Ok(Some(Packet {
        payload,
        wire_len: offset,
        next_seq: expected,
    }))
}

/// Appends `payload` as a packet starting at sequence id `seq`; returns the id after it.
pub(crate) fn put(out: &mut BytesMut, seq: u8, payload: &[u8]) -> u8 {
    mysql_common::proto::codec::packet_to_chunks(seq, &mut &*payload, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_taken_only_once_whole() {
        let mut wire = BytesMut::new();
        put(&mut wire, 3, b"hello");
        let mut buf = BytesMut::from(&wire[..wire.len() - 1]);
        assert!(take(&mut buf, 3, 100).unwrap().is_none());
        assert_eq!(
            buf.len(),
            wire.len() - 1,
            "an incomplete packet stays in the buffer"
        );
        buf.extend_from_slice(&wire[wire.len() - 1..]);
        buf.extend_from_slice(b"\x01\x00\x00\x04x");
        let packet = take(&mut buf, 3, 100).unwrap().unwrap();
        assert_eq!(&packet.payload[..], b"hello");
        assert_eq!(packet.next_seq, 4);
        assert_eq!(
            &buf[..],
            b"\x01\x00\x00\x04x",
            "the next packet is left alone"
        );
    }

    #[test]
    fn chunks_of_sixteen_mebibytes_are_joined() {
        let big = vec![7u8; MAX_CHUNK + 10];
        let mut wire = BytesMut::new();
        assert_eq!(put(&mut wire, 1, &big), 3);
        let packet = take(&mut wire, 1, usize::MAX).unwrap().unwrap();
        assert_eq!(packet.payload.len(), big.len());
        assert_eq!(packet.next_seq, 3);
        assert!(wire.is_empty());

        let exact = vec![1u8; MAX_CHUNK];
        let mut wire = BytesMut::new();
        assert_eq!(
            put(&mut wire, 0, &exact),
            2,
            "an exact multiple ends with an empty chunk"
        );
        let packet = take(&mut wire, 0, usize::MAX).unwrap().unwrap();
        assert_eq!(packet.payload.len(), MAX_CHUNK);
    }

    #[test]
    fn a_wrong_sequence_id_or_an_oversized_packet_is_refused() {
        let mut wire = BytesMut::new();
        put(&mut wire, 5, b"abc");
        assert_eq!(
            take(&mut wire.clone(), 1, 100).unwrap_err(),
            DecodeError::Sequence {
                expected: 1,
                found: 5
            }
        );
        assert!(matches!(
            take(&mut wire, 5, 2).unwrap_err(),
            DecodeError::TooLarge { len: 3, max: 2 }
        ));
    }
}
