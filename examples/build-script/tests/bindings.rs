//! The build script generated the bindings of every example tool.

use std::path::Path;

#[test]
fn the_build_script_generated_every_language() {
    let dir = Path::new(buril_build_script_example::BINDINGS_DIR);
    for folder in ["csharp", "typescript", "skills"] {
        let entries = std::fs::read_dir(dir.join(folder))
            .unwrap_or_else(|e| panic!("{folder}: {e}"))
            .count();
        assert!(entries > 0, "{folder} is empty");
    }
    let count: usize = buril_build_script_example::FILE_COUNT.parse().unwrap();
    assert!(count >= 6, "{count}");
    assert!(buril_build_script_example::SCENE_SKILL.contains("## `scene_open`"));
}
