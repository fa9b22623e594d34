//! Decodes arbitrary bodies as every client and server message type: decoding must never panic, a
//! message that decodes must re-encode to bytes that decode to the same message, and decoding a
//! borrowed body (`decode_slice`, what the node does) must give what decoding an owned copy gives.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use xrpc_proto::messages::{ClientMessage, ServerMessage};

fuzz_target!(|data: &[u8]| {
    let Some((&type_id, body)) = data.split_first() else {
        return;
    };
    let borrowed = body;
    let body = Bytes::copy_from_slice(body);

    let client = ClientMessage::decode(type_id, body.clone());
    assert_eq!(ClientMessage::decode_slice(type_id, borrowed), client);
    let server = ServerMessage::decode(type_id, body.clone());
    assert_eq!(ServerMessage::decode_slice(type_id, borrowed), server);

    if let Ok(message) = client {
        assert_eq!(message.type_id(), type_id);
        let mut again = Vec::with_capacity(message.encoded_len());
        message.encode(&mut again);
        let reparsed = ClientMessage::decode(type_id, Bytes::from(again))
            .expect("re-encoded client message decodes");
        assert_eq!(reparsed, message);
    }
    if let Ok(message) = server {
        assert_eq!(message.type_id(), type_id);
        let mut again = Vec::with_capacity(message.encoded_len());
        message.encode(&mut again);
        let reparsed = ServerMessage::decode(type_id, Bytes::from(again))
            .expect("re-encoded server message decodes");
        assert_eq!(reparsed, message);
    }
});
