//! Error types of the protocol layer and their mapping to wire errors.
//!
//! Each operation has its own error type. Errors that a peer caused map to a [`WireError`], the
//! `Error` message the server sends back, through a row of [`crate::codes`]; whether the connection
//! survives is part of that mapping ([`WireError::closes_connection`]).

use std::fmt;

use crate::codes::{self, ErrorCode, Severity};

/// An `Error` message as it travels on the wire: severity, code, SQL state and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError {
    /// ERROR ends the request; FATAL ends the session, or the connection on sid 0.
    pub severity: Severity,
    /// Numeric code, from [`crate::codes`] or passed through from an engine.
    pub code: u32,
    /// Five-character SQL state.
    pub sql_state: String,
    /// Human-readable text.
    pub message: String,
}

impl WireError {
    /// An error from a table row, with the row's own message.
    pub fn from_code(code: &ErrorCode) -> Self {
        Self::with_message(code, code.message)
    }

    /// An error from a table row with a more specific message.
    pub fn with_message(code: &ErrorCode, message: impl Into<String>) -> Self {
        Self {
            severity: code.severity,
            code: code.code,
            sql_state: code.sql_state.to_owned(),
            message: message.into(),
        }
    }

    /// The same error sent with another severity.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Whether a peer that sends this error on sid 0 closes the connection afterwards: every
    /// FATAL on sid 0 does (docs/PROTOCOL.md, "FATAL: one rule").
    pub fn closes_connection(&self) -> bool {
        self.severity == Severity::Fatal
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} ({}): {}",
            self.severity, self.code, self.sql_state, self.message
        )
    }
}

impl std::error::Error for WireError {}

/// A frame header that cannot be accepted. The stream has lost its framing, so the connection is
/// closed after the matching wire error is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The header announces more than `max_allowed_packet`.
    #[error("packet of {length} bytes on sid {sid} exceeds max_allowed_packet ({max} bytes)")]
    PacketTooLarge {
        /// Session id in the header.
        sid: u64,
        /// The `length` field: type byte plus body.
        length: u32,
        /// The configured limit.
        max: u32,
    },
    /// The `length` field is 0, which leaves no room for the type byte.
    #[error("frame on sid {sid} has length 0; the length must count the type byte")]
    ZeroLength {
        /// Session id in the header.
        sid: u64,
    },
    /// A galaxy header with a version other than the configured one.
    #[error("galaxy protocol version mismatch: expected {expected}, got {got}")]
    GalaxyVersionMismatch {
        /// The configured version.
        expected: u8,
        /// The version byte received.
        got: u8,
    },
}

impl FrameError {
    /// The error the server sends before closing the connection.
    pub fn to_wire(&self) -> WireError {
        match self {
            FrameError::PacketTooLarge { .. } => {
                WireError::with_message(&codes::PACKET_TOO_LARGE, self.to_string())
            }
            FrameError::ZeroLength { .. } | FrameError::GalaxyVersionMismatch { .. } => {
                WireError::with_message(&codes::MALFORMED_FRAME, self.to_string())
            }
        }
    }

    /// The sid the offending header named, where it could be read.
    pub fn sid(&self) -> Option<u64> {
        match self {
            FrameError::PacketTooLarge { sid, .. } | FrameError::ZeroLength { sid } => Some(*sid),
            FrameError::GalaxyVersionMismatch { .. } => None,
        }
    }
}

/// A frame configuration outside its documented ranges.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameConfigError {
    /// `max_allowed_packet` outside 4 KiB–1 GiB.
    #[error("max_allowed_packet must be between 4096 and 1073741824 bytes, got {value}")]
    InvalidMaxPacket {
        /// The value given.
        value: u32,
    },
    /// A galaxy version above 127.
    #[error("galaxy_version must be between 0 and 127, got {value}")]
    InvalidGalaxyVersion {
        /// The value given.
        value: u8,
    },
}

impl crate::messages::MessageError {
    /// The error the server sends before closing the connection: an unknown type means the peer speaks
    /// another protocol, and an undecodable body means its encoder cannot be trusted with the rest of the
    /// stream.
    pub fn to_wire(&self) -> WireError {
        match self {
            crate::messages::MessageError::UnknownType { .. } => {
                WireError::with_message(&codes::UNKNOWN_MESSAGE_TYPE, self.to_string())
            }
            crate::messages::MessageError::Body { .. } => {
                WireError::with_message(&codes::MALFORMED_FRAME, self.to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_packet_maps_to_fatal_1153_and_closes() {
        let wire = FrameError::PacketTooLarge {
            sid: 1,
            length: 70_000_000,
            max: 67_108_864,
        }
        .to_wire();
        assert_eq!(wire.severity, Severity::Fatal);
        assert_eq!((wire.code, wire.sql_state.as_str()), (1153, "S1000"));
        assert!(wire.message.contains("max_allowed_packet"));
        assert!(wire.closes_connection());
    }

    #[test]
    fn zero_length_maps_to_malformed_frame() {
        let wire = FrameError::ZeroLength { sid: 3 }.to_wire();
        assert_eq!(wire.code, codes::MALFORMED_FRAME.code);
        assert_eq!(wire.severity, Severity::Fatal);
        assert!(wire.closes_connection());
    }

    #[test]
    fn unknown_types_and_bad_bodies_are_fatal_and_close() {
        use crate::messages::ClientMessage;
        let unknown = ClientMessage::decode(250, bytes::Bytes::new())
            .unwrap_err()
            .to_wire();
        assert_eq!((unknown.code, unknown.sql_state.as_str()), (1047, "08S01"));
        assert_eq!(unknown.severity, Severity::Fatal);
        assert!(unknown.closes_connection());
        // A KillSession without its required fields.
        let bad = ClientMessage::decode(111, bytes::Bytes::new())
            .unwrap_err()
            .to_wire();
        assert_eq!(bad.code, codes::MALFORMED_FRAME.code);
        assert!(bad.closes_connection());
    }

    #[test]
    fn sql_errors_do_not_close_the_connection() {
        let wire = WireError::with_message(&codes::PARSE_ERROR, "near \"selec\": syntax error");
        assert_eq!(wire.severity, Severity::Error);
        assert!(!wire.closes_connection());
        assert_eq!(
            wire.to_string(),
            "ERROR 1064 (42000): near \"selec\": syntax error"
        );
    }
}
