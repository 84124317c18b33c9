//! The server and the bindings agree on the tool metadata hash: the one every committed
//! generated file's header carries is the one the `tools` binary's registry (and so its MCP
//! server) answers with.

use std::path::Path;

use tools as _;

#[test]
fn the_committed_bindings_carry_the_registrys_metadata_hash() {
    let ours = buril::registry().metadata_hash();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bindings");
    let files = [
        "typescript/tools.ts",
        "typescript/types.ts",
        "unity/Editor/Buril.Client.cs",
        "unity/Editor/Buril.Types.cs",
        "skills/scene-tools/SKILL.md",
    ];
    for file in files {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let line = text
            .lines()
            .find(|line| line.contains("from tool metadata"))
            .unwrap_or_else(|| panic!("{file} has no metadata line"));
        assert!(
            line.contains(&format!("from tool metadata {ours}.")),
            "{file}: {line} (the registry's hash is {ours})"
        );
    }
}
