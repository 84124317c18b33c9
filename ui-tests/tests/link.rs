//! Two crates with a tool of one name fail the link of a binary that uses both (the README's
//! promise: the linker reports `duplicate symbol: buril.tool.NAME`), and with different names
//! both tools are in the binary's registry.
//!
//! Builds a small workspace of its own (two tool crates and a binary) against this checkout's
//! `buril`, in the test's scratch folder, offline, with the lock file of this workspace.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MANIFEST: &str = r#"[workspace]
resolver = "3"
members = ["first", "second", "app"]

[workspace.dependencies]
buril = { path = "BURIL", default-features = false }

[profile.dev]
debug = 0
"#;

const APP: &str = r#"use first as _;
use second as _;

fn main() {
    for tool in buril::registry().linked() {
        println!("{}", tool.name());
    }
}
"#;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn package(name: &str, dependencies: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nburil.workspace = true\n{dependencies}"
    )
}

fn tool_crate(name: &str, tool: &str) -> String {
    format!("/// Opens a scene, from the crate `{name}`.\n#[buril::tool]\npub fn {tool}() {{}}\n")
}

/// The project, with the second crate's tool named `second_tool`.
fn project(second_tool: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("link-test");
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let buril = checkout.join("buril");
    write(
        &root.join("Cargo.toml"),
        &MANIFEST.replace("BURIL", buril.to_str().unwrap()),
    );
    // The versions this workspace builds with: the build below needs nothing downloaded.
    fs::copy(checkout.join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    for name in ["first", "second"] {
        write(&root.join(name).join("Cargo.toml"), &package(name, ""));
    }
    write(
        &root.join("first/src/lib.rs"),
        &tool_crate("first", "scene_open"),
    );
    write(
        &root.join("second/src/lib.rs"),
        &tool_crate("second", second_tool),
    );
    write(
        &root.join("app/Cargo.toml"),
        &package(
            "app",
            "first = { path = \"../first\" }\nsecond = { path = \"../second\" }\n",
        ),
    );
    write(&root.join("app/src/main.rs"), APP);
    root
}

fn cargo(root: &Path, command: &str) -> Output {
    Command::new(env!("CARGO"))
        .args([command, "-q", "--offline", "-p", "app"])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap()
}

#[test]
fn one_name_in_two_crates_fails_the_link_and_two_names_register_both() {
    let root = project("scene_open");
    let built = cargo(&root, "build");
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(!built.status.success(), "the link should fail:\n{stderr}");
    assert!(
        stderr.contains("buril.tool.scene_open")
            && (stderr.contains("duplicate symbol") || stderr.contains("multiple definition")),
        "the linker should name the claimed symbol:\n{stderr}"
    );

    let root = project("scene_close");
    let ran = cargo(&root, "run");
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["scene_close", "scene_open"],
        "both crates' tools are in the registry"
    );
}
