//! The dependency picture in `README.md` and `docs/ARCHITECTURE.md` matches the workspace: every
//! crate under `crates/` appears once, with exactly the `xrpc-*` crates its `[dependencies]` name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .parent()
        .unwrap()
}

/// Each crate's `xrpc-*` entries of `[dependencies]`, from its Cargo.toml.
fn from_manifests() -> Graph {
    let mut graph = Graph::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut section = String::new();
        let mut deps = BTreeSet::new();
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line.to_owned();
            } else if section == "[dependencies]" && line.starts_with("xrpc-") {
                let dep = line.split(['.', ' ', '=']).next().unwrap();
                deps.insert(dep.to_owned());
            }
        }
        graph.insert(name, deps);
    }
    graph
}

/// The `→` lines of the first code block after `marker` in `doc`.
fn from_doc(doc: &str, marker: &str) -> Graph {
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let after = &text[text
        .find(marker)
        .unwrap_or_else(|| panic!("{doc} lacks {marker:?}"))..];
    let block = after.split("```").nth(1).expect("a code block");
    let mut graph = Graph::new();
    for line in block.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| w.starts_with("xrpc-")) else {
            continue;
        };
        let mut deps = BTreeSet::new();
        if words.get(at + 1) == Some(&"→") {
            for word in &words[at + 2..] {
                let dep = word.trim_end_matches(',');
                if !dep.starts_with("xrpc-") {
                    break;
                }
                deps.insert(dep.to_owned());
                if !word.ends_with(',') {
                    break;
                }
            }
        }
        let previous = graph.insert(words[at].to_owned(), deps);
        assert!(previous.is_none(), "{doc}: {} appears twice", words[at]);
    }
    graph
}

#[test]
fn the_readme_picture_matches_the_manifests() {
    assert_eq!(
        from_doc("README.md", "Dependencies point one way"),
        from_manifests()
    );
}

#[test]
fn the_architecture_picture_matches_the_manifests() {
    assert_eq!(
        from_doc(
            "docs/ARCHITECTURE.md",
            "## Crates and the direction of dependencies"
        ),
        from_manifests()
    );
}
