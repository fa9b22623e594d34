//! The `mysql` engine's URL (`--engine`, `XRPC_ENGINE`, the TOML file): parsing must never panic,
//! and what parses comes back the same when written out again with every component escaped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xrpc_server::engine::mysql::parse_url;

/// Percent-encodes every byte outside the unreserved set.
fn escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(url) = parse_url(text) else {
        return;
    };
    assert!(
        !url.user.is_empty() && !url.host.is_empty() && url.port > 0,
        "{url:?}"
    );
    let written = format!(
        "mysql://{}:{}@{}{}",
        escape(&url.user),
        escape(&url.password),
        url.host_port(),
        url.database
            .as_deref()
            .map(|db| format!("/{}", escape(db)))
            .unwrap_or_default()
    );
    let again = parse_url(&written).unwrap_or_else(|err| panic!("{written}: {err}"));
    assert_eq!(again, url, "{written}");
});
