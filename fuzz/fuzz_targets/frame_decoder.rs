//! Feeds arbitrary bytes, in arbitrary splits, to the frame decoder: it must never panic, never yield a
//! body over the limit, and yield the same frames whatever the split.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xrpc_proto::frame::{FrameConfig, FrameDecoder, HeaderFormat, MIN_MAX_PACKET};

fuzz_target!(|data: &[u8]| {
    let Some((&control, stream)) = data.split_first() else {
        return;
    };
    let format = if control & 1 == 0 {
        HeaderFormat::Standard
    } else {
        HeaderFormat::Galaxy {
            version: control >> 1,
        }
    };
    let config = FrameConfig::new(format, MIN_MAX_PACKET).expect("valid config");

    let whole = decode_all(config, &[stream]);
    let step = usize::from(control % 7) + 1;
    let pieces: Vec<&[u8]> = stream.chunks(step).collect();
    let split = decode_all(config, &pieces);
    assert_eq!(whole, split, "decoding depends on how the stream was split");
});

fn decode_all(
    config: FrameConfig,
    pieces: &[&[u8]],
) -> (Vec<xrpc_proto::Frame>, Option<xrpc_proto::FrameError>) {
    let mut decoder = FrameDecoder::new(config);
    let mut frames = Vec::new();
    for piece in pieces {
        decoder.feed(piece);
        loop {
            match decoder.next_frame() {
                Ok(Some(frame)) => {
                    assert!(frame.body.len() < MIN_MAX_PACKET as usize);
                    frames.push(frame);
                }
                Ok(None) => break,
                Err(err) => return (frames, Some(err)),
            }
        }
    }
    (frames, None)
}
