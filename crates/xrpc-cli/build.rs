//! Records the compiler's version, which `xrpc bench` writes into its JSON with every result.

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=XRPC_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-changed=build.rs");
}
