//! The bindings committed in `bindings/` are what the `tools` binary generates today: the Rust
//! tools, the C# and the TypeScript never drift. When this fails, regenerate them with
//! `cargo run -p tools -- codegen --out bindings --unity-package com.buril.tools` and commit the
//! result.

use std::path::Path;
use std::process::Command;

#[test]
fn committed_bindings_are_current() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let project = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_tools"))
        .args(["codegen", "--out"])
        .arg(workspace.join("bindings"))
        .args(["--unity-package", "com.buril.tools", "--check"])
        .env("BURIL_PROJECT", project.path().join("project"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "bindings/ is stale; run `cargo run -p tools -- codegen --out bindings --unity-package com.buril.tools` and commit:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
