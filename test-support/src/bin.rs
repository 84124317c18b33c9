//! A binary of the workspace, built as the test runs (`cargo build -p PACKAGE --bin NAME`, as
//! the test's own cargo would), so that a test of another crate never runs a stale one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

/// The binaries built so far by this test process.
static BUILT: Mutex<Vec<((String, String), PathBuf)>> = Mutex::new(Vec::new());

/// The workspace's folder: the first one up from this crate with the lock file.
pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").exists())
        .expect("the workspace")
}

/// The path of the binary `bin` of `package`, built first (once a test process).
pub fn cargo_bin(package: &str, bin: &str) -> PathBuf {
    let key = (package.to_owned(), bin.to_owned());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, path)) = built.iter().find(|(k, _)| *k == key) {
        return path.clone();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "-q", "--locked", "-p", package, "--bin", bin])
        .arg("--message-format=json")
        .current_dir(workspace())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo build -p {package} --bin {bin} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reports no executable for {package}'s {bin}"));
    built.push((key, path.clone()));
    path
}

/// The example tools' binary, `tools`.
pub fn tools() -> PathBuf {
    cargo_bin("tools", "tools")
}
