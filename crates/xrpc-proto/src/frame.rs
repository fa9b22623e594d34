//! Frame headers and the incremental frame decoder.
//!
//! Every packet on an xrpc connection is a header followed by one proto2 message body:
//!
//! | format   | layout (little-endian, packed)                          | size     |
//! |----------|---------------------------------------------------------|----------|
//! | standard | `sid: u64 \| length: u32 \| type: u8`                   | 13 bytes |
//! | galaxy   | `sid: u64 \| version: u8 \| length: u32 \| type: u8`    | 14 bytes |
//!
//! `length` counts the type byte plus the body, so a frame's body is `length - 1` bytes and `length`
//! is never zero. Both peers are configured for one format; nothing on the wire negotiates it.
//!
//! # Invariants
//!
//! - A header is validated against `max_packet` *before* anything is allocated for its body, so an
//!   attacker announcing a 4 GiB packet costs nothing but the 13 bytes it sent.
//! - [`FrameDecoder`] accepts the byte stream in any split, down to one byte at a time, and yields
//!   the same frames as if it had been given the whole stream at once.
//! - Once the decoder has returned an error it is poisoned: the stream has lost its framing and the
//!   only safe reaction is to close the connection, so every later call returns the same error.
//! - Bodies are handed out as [`Bytes`] slices of the decoder's buffer, so decoding a frame copies
//!   nothing beyond the one copy from the caller's read buffer into the decoder.

use bytes::{Buf, BufMut, Bytes, BytesMut};

use crate::error::{FrameConfigError, FrameError};

/// Size of the standard header: `sid u64 | length u32 | type u8`.
pub const STANDARD_HEADER_LEN: usize = 13;
/// Size of the galaxy header: `sid u64 | version u8 | length u32 | type u8`.
pub const GALAXY_HEADER_LEN: usize = 14;

/// Smallest configurable `max_allowed_packet`: 4 KiB.
pub const MIN_MAX_PACKET: u32 = 4 * 1024;
/// Largest configurable `max_allowed_packet`: 1 GiB.
pub const MAX_MAX_PACKET: u32 = 1024 * 1024 * 1024;
/// Default `max_allowed_packet`: 64 MiB.
pub const DEFAULT_MAX_PACKET: u32 = 64 * 1024 * 1024;

/// The session id of the connection itself: authentication and the capabilities probe.
pub const CONNECTION_SID: u64 = 0;
/// Sids with this bit set are auto-commit sids, served by a pooled shared session.
pub const AUTO_COMMIT_SID_BIT: u64 = 1 << 63;

/// Returns whether `sid` names an auto-commit session, which needs no SESS_NEW.
#[inline]
pub const fn is_auto_commit_sid(sid: u64) -> bool {
    sid & AUTO_COMMIT_SID_BIT != 0
}

/// Which of the two header layouts a connection uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum HeaderFormat {
    /// The 13-byte PolarDB-X header.
    #[default]
    Standard,
    /// The 14-byte galaxy header; frames carrying any other version are rejected.
    Galaxy {
        /// The version byte both peers are configured with (0–127).
        version: u8,
    },
}

impl HeaderFormat {
    /// Number of header bytes that precede every body.
    #[inline]
    pub const fn header_len(self) -> usize {
        match self {
            HeaderFormat::Standard => STANDARD_HEADER_LEN,
            HeaderFormat::Galaxy { .. } => GALAXY_HEADER_LEN,
        }
    }
}

/// Settings shared by the encoder and decoder of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameConfig {
    /// Header layout.
    pub format: HeaderFormat,
    /// Largest accepted `length` field (type byte plus body), the `max_allowed_packet` setting.
    pub max_packet: u32,
}

impl FrameConfig {
    /// A configuration with the given format and packet limit, checking the limit's range.
    pub fn new(format: HeaderFormat, max_packet: u32) -> Result<Self, FrameConfigError> {
        if !(MIN_MAX_PACKET..=MAX_MAX_PACKET).contains(&max_packet) {
            return Err(FrameConfigError::InvalidMaxPacket { value: max_packet });
        }
        if let HeaderFormat::Galaxy { version } = format
            && version > 127
        {
            return Err(FrameConfigError::InvalidGalaxyVersion { value: version });
        }
        Ok(Self { format, max_packet })
    }
}

impl Default for FrameConfig {
    fn default() -> Self {
        Self {
            format: HeaderFormat::Standard,
            max_packet: DEFAULT_MAX_PACKET,
        }
    }
}

/// A parsed and validated frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameHeader {
    /// Session id; 0 is the connection itself.
    pub sid: u64,
    /// Message type id; its meaning depends on the direction.
    pub type_id: u8,
    /// Length of the body that follows the header, in bytes (`length - 1`).
    pub body_len: u32,
}

impl FrameHeader {
    /// Parses and validates a header from the start of `buf`.
    ///
    /// Returns `Ok(None)` while fewer than `config.format.header_len()` bytes are available. The
    /// length check happens here, before the caller reserves room for the body.
    pub fn parse(buf: &[u8], config: &FrameConfig) -> Result<Option<Self>, FrameError> {
        let header_len = config.format.header_len();
        if buf.len() < header_len {
            return Ok(None);
        }
        let mut cursor = &buf[..header_len];
        let sid = cursor.get_u64_le();
        if let HeaderFormat::Galaxy { version } = config.format {
            let got = cursor.get_u8();
            if got != version {
                return Err(FrameError::GalaxyVersionMismatch {
                    expected: version,
                    got,
                });
            }
        }
        let length = cursor.get_u32_le();
        let type_id = cursor.get_u8();
        if length == 0 {
            return Err(FrameError::ZeroLength { sid });
        }
        if length > config.max_packet {
            return Err(FrameError::PacketTooLarge {
                sid,
                length,
                max: config.max_packet,
            });
        }
        Ok(Some(Self {
            sid,
            type_id,
            body_len: length - 1,
        }))
    }

    /// Total bytes this frame occupies on the wire, header included.
    #[inline]
    pub fn wire_len(&self, format: HeaderFormat) -> usize {
        format.header_len() + self.body_len as usize
    }
}

/// Writes one header. `body_len` is the size of the body that the caller writes next.
///
/// # Panics
///
/// Panics if `body_len + 1` does not fit in a `u32`; such a body can never be a valid packet, and
/// callers check `max_packet` (at most 1 GiB) first.
pub fn put_header<B: BufMut>(
    out: &mut B,
    format: HeaderFormat,
    sid: u64,
    type_id: u8,
    body_len: usize,
) {
    let length = u32::try_from(body_len + 1).expect("frame body exceeds the u32 length field");
    out.put_u64_le(sid);
    if let HeaderFormat::Galaxy { version } = format {
        out.put_u8(version);
    }
    out.put_u32_le(length);
    out.put_u8(type_id);
}

/// Appends a whole frame: header and body.
pub fn encode_frame<B: BufMut>(
    out: &mut B,
    format: HeaderFormat,
    sid: u64,
    type_id: u8,
    body: &[u8],
) {
    put_header(out, format, sid, type_id, body.len());
    out.put_slice(body);
}

/// Appends a frame whose body is `message`, encoded in place after its header.
pub fn encode_message_frame<M: prost::Message, B: BufMut>(
    out: &mut B,
    format: HeaderFormat,
    sid: u64,
    type_id: u8,
    message: &M,
) {
    put_header(out, format, sid, type_id, message.encoded_len());
    message
        .encode(out)
        .expect("BufMut grows, or has room reserved by the caller");
}

/// One complete frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Session id.
    pub sid: u64,
    /// Message type id.
    pub type_id: u8,
    /// The proto2 message body, without the header.
    pub body: Bytes,
}

impl Frame {
    /// Appends this frame to `out` in the given header format.
    pub fn encode<B: BufMut>(&self, format: HeaderFormat, out: &mut B) {
        encode_frame(out, format, self.sid, self.type_id, &self.body);
    }
}

/// Incremental decoder: feed it bytes in any split, take complete frames out.
///
/// The decoder owns a growable buffer. [`FrameDecoder::feed`] appends to it, and
/// [`FrameDecoder::next_frame`] splits complete frames off its front.
#[derive(Debug)]
pub struct FrameDecoder {
    config: FrameConfig,
    buf: BytesMut,
    /// Header of a frame whose body has not fully arrived; kept so the header is parsed once.
    pending: Option<FrameHeader>,
    poisoned: Option<FrameError>,
}

impl FrameDecoder {
    /// A decoder for one connection.
    pub fn new(config: FrameConfig) -> Self {
        Self {
            config,
            buf: BytesMut::with_capacity(4096),
            pending: None,
            poisoned: None,
        }
    }

    /// The configuration this decoder enforces.
    pub fn config(&self) -> &FrameConfig {
        &self.config
    }

    /// Appends received bytes.
    pub fn feed(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// Number of buffered bytes that do not yet form a complete frame (plus any complete frames
    /// not yet taken).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Takes the next complete frame, if one has fully arrived.
    ///
    /// After an error the decoder is poisoned and returns that error forever: the connection has
    /// lost its framing and must be closed.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        if let Some(err) = &self.poisoned {
            return Err(err.clone());
        }
        let header = match self.pending {
            Some(header) => header,
            None => match FrameHeader::parse(&self.buf, &self.config) {
                Ok(Some(header)) => {
                    self.buf.advance(self.config.format.header_len());
                    header
                }
                Ok(None) => return Ok(None),
                Err(err) => {
                    self.poisoned = Some(err.clone());
                    return Err(err);
                }
            },
        };
        let body_len = header.body_len as usize;
        if self.buf.len() < body_len {
            // Reserve only what the validated header announced, so a large frame arriving in
            // pieces is not copied again at every doubling.
            self.buf.reserve(body_len - self.buf.len());
            self.pending = Some(header);
            return Ok(None);
        }
        self.pending = None;
        let body = self.buf.split_to(body_len).freeze();
        Ok(Some(Frame {
            sid: header.sid,
            type_id: header.type_id,
            body,
        }))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn frame(sid: u64, type_id: u8, body: &[u8]) -> Frame {
        Frame {
            sid,
            type_id,
            body: Bytes::copy_from_slice(body),
        }
    }

    #[test]
    fn standard_header_is_thirteen_little_endian_bytes() {
        let mut out = Vec::new();
        encode_frame(&mut out, HeaderFormat::Standard, 0x0102, 101, b"xy");
        assert_eq!(
            out,
            [0x02, 0x01, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 101, b'x', b'y']
        );
    }

    #[test]
    fn galaxy_header_carries_the_version_byte_before_the_length() {
        let mut out = Vec::new();
        encode_frame(&mut out, HeaderFormat::Galaxy { version: 7 }, 1, 0, b"");
        assert_eq!(out, [1, 0, 0, 0, 0, 0, 0, 0, 7, 1, 0, 0, 0, 0]);
    }

    #[test]
    fn decoder_yields_frames_fed_one_byte_at_a_time() {
        let frames = [
            frame(1, 101, b"select 1"),
            frame(u64::MAX, 0, b""),
            frame(0, 1, b"\x01"),
        ];
        let mut wire = Vec::new();
        for f in &frames {
            f.encode(HeaderFormat::Standard, &mut wire);
        }
        let mut decoder = FrameDecoder::new(FrameConfig::default());
        let mut got = Vec::new();
        for byte in wire {
            decoder.feed(&[byte]);
            while let Some(f) = decoder.next_frame().unwrap() {
                got.push(f);
            }
        }
        assert_eq!(got, frames);
        assert_eq!(decoder.buffered(), 0);
    }

    #[test]
    fn oversized_packet_is_rejected_from_the_header_alone() {
        let max = 1024 * 1024;
        let config = FrameConfig::new(HeaderFormat::Standard, max).unwrap();
        let mut decoder = FrameDecoder::new(config);
        let mut header = Vec::new();
        put_header(&mut header, HeaderFormat::Standard, 9, 101, max as usize);
        decoder.feed(&header);
        let err = decoder.next_frame().unwrap_err();
        assert_eq!(
            err,
            FrameError::PacketTooLarge {
                sid: 9,
                length: max + 1,
                max
            }
        );
        assert!(
            decoder.buf.capacity() < 64 * 1024,
            "no allocation for the body"
        );
        // Poisoned: the same error again, even after more bytes arrive.
        decoder.feed(&[0; 64]);
        assert_eq!(decoder.next_frame().unwrap_err(), err);
    }

    #[test]
    fn packet_of_exactly_max_packet_is_accepted() {
        let config = FrameConfig::new(HeaderFormat::Standard, MIN_MAX_PACKET).unwrap();
        let mut decoder = FrameDecoder::new(config);
        let body = vec![0xab; MIN_MAX_PACKET as usize - 1];
        let mut wire = Vec::new();
        encode_frame(&mut wire, HeaderFormat::Standard, 3, 101, &body);
        decoder.feed(&wire);
        assert_eq!(
            decoder.next_frame().unwrap().unwrap().body.len(),
            body.len()
        );
    }

    #[test]
    fn zero_length_is_a_framing_error() {
        let mut decoder = FrameDecoder::new(FrameConfig::default());
        decoder.feed(&[5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(decoder.next_frame(), Err(FrameError::ZeroLength { sid: 5 }));
    }

    #[test]
    fn galaxy_version_mismatch_is_rejected() {
        let config =
            FrameConfig::new(HeaderFormat::Galaxy { version: 2 }, DEFAULT_MAX_PACKET).unwrap();
        let mut decoder = FrameDecoder::new(config);
        let mut wire = Vec::new();
        encode_frame(&mut wire, HeaderFormat::Galaxy { version: 3 }, 1, 1, b"");
        decoder.feed(&wire);
        assert_eq!(
            decoder.next_frame(),
            Err(FrameError::GalaxyVersionMismatch {
                expected: 2,
                got: 3
            })
        );
    }

    #[test]
    fn max_packet_outside_4k_to_1g_is_refused() {
        assert!(FrameConfig::new(HeaderFormat::Standard, MIN_MAX_PACKET - 1).is_err());
        assert!(FrameConfig::new(HeaderFormat::Standard, MAX_MAX_PACKET + 1).is_err());
        assert!(FrameConfig::new(HeaderFormat::Standard, MAX_MAX_PACKET).is_ok());
        assert!(
            FrameConfig::new(HeaderFormat::Galaxy { version: 128 }, DEFAULT_MAX_PACKET).is_err()
        );
    }

    #[test]
    fn auto_commit_sids_have_the_top_bit() {
        assert!(is_auto_commit_sid(0x8000_0000_0000_0001));
        assert!(!is_auto_commit_sid(1));
        assert!(!is_auto_commit_sid(CONNECTION_SID));
    }

    fn arb_frame() -> impl Strategy<Value = Frame> {
        (
            any::<u64>(),
            any::<u8>(),
            proptest::collection::vec(any::<u8>(), 0..300),
        )
            .prop_map(|(sid, type_id, body)| Frame {
                sid,
                type_id,
                body: body.into(),
            })
    }

    fn arb_format() -> impl Strategy<Value = HeaderFormat> {
        prop_oneof![
            Just(HeaderFormat::Standard),
            (0u8..=127).prop_map(|version| HeaderFormat::Galaxy { version }),
        ]
    }

    proptest! {
        #[test]
        fn random_frames_in_random_splits_decode_to_the_same_frames(
            frames in proptest::collection::vec(arb_frame(), 0..20),
            format in arb_format(),
            cuts in proptest::collection::vec(1usize..64, 0..200),
        ) {
            let mut wire = Vec::new();
            for f in &frames {
                f.encode(format, &mut wire);
            }
            let mut decoder = FrameDecoder::new(FrameConfig { format, max_packet: DEFAULT_MAX_PACKET });
            let mut got = Vec::new();
            let mut rest = &wire[..];
            let mut cuts = cuts.into_iter().cycle();
            while !rest.is_empty() {
                let n = cuts.next().unwrap_or(rest.len()).min(rest.len());
                decoder.feed(&rest[..n]);
                rest = &rest[n..];
                while let Some(f) = decoder.next_frame().unwrap() {
                    got.push(f);
                }
            }
            prop_assert_eq!(got, frames);
        }

        #[test]
        fn arbitrary_bytes_never_panic_and_errors_are_typed(
            bytes in proptest::collection::vec(any::<u8>(), 0..512),
            format in arb_format(),
        ) {
            let config = FrameConfig { format, max_packet: MIN_MAX_PACKET };
            let mut decoder = FrameDecoder::new(config);
            decoder.feed(&bytes);
            loop {
                match decoder.next_frame() {
                    Ok(Some(f)) => prop_assert!(f.body.len() < MIN_MAX_PACKET as usize),
                    Ok(None) => break,
                    Err(err) => {
                        let typed = matches!(
                            err,
                            FrameError::PacketTooLarge { .. }
                                | FrameError::ZeroLength { .. }
                                | FrameError::GalaxyVersionMismatch { .. }
                        );
                        prop_assert!(typed, "untyped error {:?}", err);
                        break;
                    }
                }
            }
        }

        #[test]
        fn headers_over_max_packet_always_fail(length in (MIN_MAX_PACKET + 1)..=u32::MAX, sid: u64) {
            let mut wire = Vec::new();
            wire.extend_from_slice(&sid.to_le_bytes());
            wire.extend_from_slice(&length.to_le_bytes());
            wire.push(101);
            let config = FrameConfig { format: HeaderFormat::Standard, max_packet: MIN_MAX_PACKET };
            prop_assert_eq!(
                FrameHeader::parse(&wire, &config),
                Err(FrameError::PacketTooLarge { sid, length, max: MIN_MAX_PACKET })
            );
        }
    }
}
