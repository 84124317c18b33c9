//! No crate of the workspace has an import cycle between its files (the definition is in
//! `layering/src/lib.rs`). When one does, the test fails with every cycle: its files and, for
//! each step, the file, line and path that make it.

use std::path::Path;

/// The edges left out of the check: each a ring of types that refer to each other, which no
/// order of files can break.
const ALLOWED: &[layering::Allowed] = &[layering::Allowed {
    from: "buril-core/src/context/env.rs",
    to: "buril-core/src/dispatch/core.rs",
    why: "a call's context holds the dispatcher that made it (`Context::dispatcher`), whose \
          registry's tools are functions of contexts",
}];

#[test]
fn no_crate_of_the_workspace_has_an_import_cycle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the layering crate is in the workspace's directory");
    let check =
        layering::check_workspace_allowing(workspace, ALLOWED).unwrap_or_else(|e| panic!("{e}"));

    // The check read the crates it is meant to read, `#[path]` modules included.
    for root in [
        "buril/src/lib.rs",
        "buril-core/src/lib.rs",
        "buril-mcp/src/lib.rs",
        "buril-cli/src/lib.rs",
        "buril-macros/src/lib.rs",
        "buril-codegen/src/lib.rs",
        "buril-team/src/lib.rs",
        "tools/src/lib.rs",
        "tools/src/main.rs",
        "layering/src/lib.rs",
    ] {
        assert!(check.get(root).is_some(), "{root} was not checked");
    }
    let buril = check.get("buril-core/src/lib.rs").unwrap();
    assert!(
        buril
            .files
            .contains(&workspace.join("buril-core/src/private.rs")),
        "`#[path = \"private.rs\"] pub mod __private;` was not followed"
    );
    assert!(!buril.edges.is_empty());

    assert!(check.is_clean(), "\n{check}");
    // Seen with `cargo test -p layering -- --nocapture`.
    println!("{check}");
}
