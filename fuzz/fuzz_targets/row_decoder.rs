//! Decodes arbitrary bytes as a row field of every X type, and as a chunk value stream: decoding must never
//! panic, and whatever decodes must re-encode to a value that decodes the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xrpc_proto::value::{
    ColumnType, decode_chunk_value, decode_row_field, encode_chunk_value, encode_row_field,
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, field)) = data.split_first() else {
        return;
    };
    let ty = ColumnType::ALL[usize::from(selector) % ColumnType::ALL.len()];

    if let Ok(value) = decode_row_field(ty, field) {
        let mut again = Vec::new();
        encode_row_field(&value, &mut again);
        let reparsed = decode_row_field(ty, &again).expect("re-encoded row field decodes");
        assert!(
            same(&reparsed, &value),
            "{ty}: {value:?} became {reparsed:?}"
        );
    }

    let mut cursor = field;
    while !cursor.is_empty() {
        let before = cursor.len();
        match decode_chunk_value(ty, &mut cursor) {
            Ok(value) => {
                assert!(
                    cursor.len() < before,
                    "a decoded chunk value consumed nothing"
                );
                let mut again = Vec::new();
                encode_chunk_value(&value, &mut again);
                let mut slice = &again[..];
                decode_chunk_value(ty, &mut slice).expect("re-encoded chunk value decodes");
            }
            Err(_) => {
                assert_eq!(cursor.len(), before, "a failed decode moved the cursor");
                break;
            }
        }
    }
});

/// Equality that treats NaN as equal to itself, since floats round-trip bit for bit.
fn same(a: &xrpc_proto::value::Value, b: &xrpc_proto::value::Value) -> bool {
    use xrpc_proto::value::Value;
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}
