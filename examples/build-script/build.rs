//! Generates the bindings of the example tools into `OUT_DIR` at build time.
//!
//! A build script cannot read its own crate's tools (they are not linked into the script), so
//! the tools come from a dependency: here the `tools` crate, a build-dependency named below so
//! that its tools are linked into this script and registered.

use std::path::PathBuf;

use tools as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("bindings");
    let report = buril_codegen::Generator::new()
        .csharp(out.join("csharp"))
        .typescript(out.join("typescript"))
        .skills(out.join("skills"))
        .write()?;
    // Re-run only when the tools change (their crate is a build-dependency, so Cargo already
    // reruns the script when it is rebuilt).
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-env=BURIL_BINDINGS_DIR={}", out.display());
    println!(
        "cargo::rustc-env=BURIL_BINDINGS_FILES={}",
        report.files.len()
    );
    Ok(())
}
