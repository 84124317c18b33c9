//! A binary or an example of the workspace, built as the test runs (`cargo build -p PACKAGE
//! --bin NAME` or `--example NAME`, as the test's own cargo would), so that a test of another
//! crate never runs a stale one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

/// A target of the workspace: its package, `--bin` or `--example`, and its name.
type Target = (String, &'static str, String);

/// The targets built so far by this test process, and their executables.
static BUILT: Mutex<Vec<(Target, PathBuf)>> = Mutex::new(Vec::new());

/// The workspace's folder: the first one up from this crate with the lock file.
pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").exists())
        .expect("the workspace")
}

/// The path of the binary `bin` of `package`, built first (once a test process).
pub fn cargo_bin(package: &str, bin: &str) -> PathBuf {
    build(package, "--bin", bin)
}

/// The path of the example `example` of `package` (a file of its `examples/`), built first
/// (once a test process).
pub fn cargo_example(package: &str, example: &str) -> PathBuf {
    build(package, "--example", example)
}

/// `cargo build -p PACKAGE KIND NAME` (once a test process): the executable Cargo reports.
fn build(package: &str, kind: &'static str, name: &str) -> PathBuf {
    let key = (package.to_owned(), kind, name.to_owned());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, path)) = built.iter().find(|(k, _)| *k == key) {
        return path.clone();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "-q", "--locked", "-p", package, kind, name])
        .arg("--message-format=json")
        .current_dir(workspace())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo build -p {package} {kind} {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| {
            message["reason"] == "compiler-artifact" && message["target"]["name"] == name
        })
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reports no executable for {package}'s {name}"));
    built.push((key, path.clone()));
    path
}

/// The example tools' binary, `tools`.
pub fn tools() -> PathBuf {
    cargo_bin("tools", "tools")
}
