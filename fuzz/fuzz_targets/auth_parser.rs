//! Authentication payloads come from unauthenticated peers: parsing must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xrpc_proto::auth::{Mysql41Response, PasswordHash, PlainCredentials};

fuzz_target!(|data: &[u8]| {
    if let Ok(response) = Mysql41Response::parse(data) {
        let challenge = xrpc_proto::auth::Challenge::from_bytes([b'a'; 20]);
        let _ = PasswordHash::from_password(b"pw").verify(&challenge, response.scramble.as_ref());
    }
    let _ = PlainCredentials::parse(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = PasswordHash::parse(text);
    }
});
