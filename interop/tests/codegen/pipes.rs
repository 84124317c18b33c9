//! An example project where `asset_search` blocks: what the cancellation tests cancel.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh example project at `project` whose `Assets/Blocking` holds two named pipes,
/// `a.fifo` and `b.fifo`. `asset_search` over that folder reports `a.fifo`, then blocks reading
/// it until something writes to it, so a call cannot end on its own first; after it, a tool
/// that did not see its call cancelled would report `b.fifo` and block there. Returns `a.fifo`.
#[cfg(unix)]
pub fn project_with_pipes(project: &Path) -> PathBuf {
    tools::Project::open_or_create(project).expect("the example project");
    let blocking = project.join("Assets/Blocking");
    std::fs::create_dir_all(&blocking).expect("a folder");
    let fifo = blocking.join("a.fifo");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .arg(blocking.join("b.fifo"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo failed");
    fifo
}

/// A path as the programs under test take it.
pub fn text(path: &Path) -> String {
    path.to_str().expect("a UTF-8 path").to_owned()
}
