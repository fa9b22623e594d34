//! The `xrpc-server` binary.

fn main() {
    eprintln!("xrpc-server: not wired up yet");
    std::process::exit(2);
}
