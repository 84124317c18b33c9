//! File-system helpers: walking a folder and writing a file in one step.

use std::fs;
use std::io;
use std::path::Path;

/// One file or folder found by [`walk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The path relative to the project folder, with forward slashes.
    pub path: String,
    /// Whether it is a folder.
    pub is_dir: bool,
    /// The size in bytes (0 for a folder).
    pub bytes: u64,
}

/// Everything under `folder` (a project-relative path below `root`), sorted by path. Hidden
/// names (starting with `.`) and `.meta` files (an asset's, not assets) are skipped, and
/// symbolic links are not followed. With
/// `recursive` unset only the folder's direct entries are listed.
pub fn walk(root: &Path, folder: &str, recursive: bool) -> io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    let mut pending = vec![folder.to_owned()];
    while let Some(current) = pending.pop() {
        for item in fs::read_dir(root.join(&current))? {
            let item = item?;
            let name = item.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || super::meta::is_meta(&name) {
                continue;
            }
            let kind = item.file_type()?;
            if kind.is_symlink() {
                continue;
            }
            let path = format!("{current}/{name}");
            if kind.is_dir() {
                if recursive {
                    pending.push(path.clone());
                }
                out.push(Entry {
                    path,
                    is_dir: true,
                    bytes: 0,
                });
            } else {
                let bytes = item.metadata()?.len();
                out.push(Entry {
                    path,
                    is_dir: false,
                    bytes,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Writes `contents` to `file` through a temporary file and a rename, so a reader never sees
/// half a file. Creates missing folders.
pub fn write_atomic(file: &Path, contents: &[u8]) -> io::Result<()> {
    if let Some(folder) = file.parent() {
        fs::create_dir_all(folder)?;
    }
    let mut temporary = file.as_os_str().to_owned();
    temporary.push(format!(".tmp{}", std::process::id()));
    fs::write(&temporary, contents)?;
    fs::rename(&temporary, file).inspect_err(|_| {
        let _ = fs::remove_file(&temporary);
    })
}
