//! Decodes arbitrary bytes as CHUNK message bodies and reassembles them against arbitrary column types:
//! neither the protobuf decode nor the assembler may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message;
use xrpc_proto::chunk::ChunkAssembler;
use xrpc_proto::messages::pb::resultset::Chunk;
use xrpc_proto::value::ColumnType;

fuzz_target!(|data: &[u8]| {
    let Some((&header, rest)) = data.split_first() else {
        return;
    };
    // The low bits pick how many columns the result has, the rest of the header byte and the next
    // bytes their types; the remainder is split into up to three message bodies.
    let columns = usize::from(header % 24) + 1;
    if rest.len() < columns {
        return;
    }
    let (type_bytes, bodies) = rest.split_at(columns);
    let types: Vec<ColumnType> = type_bytes
        .iter()
        .map(|b| ColumnType::ALL[usize::from(*b) % ColumnType::ALL.len()])
        .collect();
    let mut assembler = ChunkAssembler::new(types);
    let third = bodies.len() / 3;
    for body in [
        &bodies[..third],
        &bodies[third..2 * third],
        &bodies[2 * third..],
    ] {
        let Ok(chunk) = Chunk::decode(body) else {
            continue;
        };
        if assembler.push(&chunk).is_err() {
            break;
        }
    }
});
