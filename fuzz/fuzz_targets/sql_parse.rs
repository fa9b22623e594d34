//! Any text through the MySQL front end alone: reading a script, a prepared statement's text and
//! the lexical pass for unread texts never panics, and every statement read points into the text
//! it was read from (its start and length fall on character boundaries of the input).
#![no_main]

use libfuzzer_sys::fuzz_target;
use xrpc_sql::{Options, Session, classify};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let options = Options::default();
    for parsed in xrpc_sql::parse(&text, &options) {
        let Ok(parsed) = parsed else { break };
        let end = parsed.start + parsed.text.len();
        assert!(
            text.get(parsed.start..end).is_some(),
            "statement at {}..{end} is not a slice of the text",
            parsed.start
        );
        if let Some(statement) = parsed.statement() {
            assert_eq!(classify(statement), parsed.kind);
            let _ = Session::of(statement);
        }
    }
    let _ = xrpc_sql::parse_one_statement(&text, &options);
    for backslash_escapes in [true, false] {
        if let Ok(read) = xrpc_sql::unparsed(&text, backslash_escapes) {
            for at in read.placeholders {
                assert_eq!(text.as_bytes().get(at), Some(&b'?'), "placeholder at {at}");
            }
        }
    }
    if let Some(end) = xrpc_sql::empty_arguments_end(&text) {
        assert!(text.is_char_boundary(end) && text[..end].ends_with(')'));
    }
});
