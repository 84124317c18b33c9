//! [`check_crate`]: one crate's files, edges and cycles.

use std::path::{Path, PathBuf};

use crate::cycles::{Cycle, cycles};
use crate::edges::{Edge, edges};
use crate::error::Error;
use crate::tree::ModuleTree;

/// What the check found in one crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateCheck {
    /// The crate's root file (`src/lib.rs`, `src/main.rs`).
    pub root: PathBuf,
    /// Every file of the crate, in path order.
    pub files: Vec<PathBuf>,
    /// Every edge between them, in file and line order.
    pub edges: Vec<Edge>,
    /// The edges left out of the cycle check because an [`Allowed`] names them.
    pub allowed: Vec<Edge>,
    /// The import cycles between module folders (or files of the crate's root), in the order
    /// of their first files; empty when there are none.
    pub cycles: Vec<Cycle>,
    /// The cycles among the files of one module folder, which the rule allows (see
    /// [`folder_of`]).
    pub within_folders: Vec<Cycle>,
}

/// The unit of the cycle rule `file` belongs to: a file of the crate's root folder (`lib.rs`,
/// `registry.rs`) is a unit of its own; a file below it belongs to its module folder with every
/// other file directly in that folder and the folder's own module file (`dispatch/mod.rs`, or
/// `dispatch.rs` beside `dispatch/`). So the files of `dispatch/` may name each other, and a
/// cycle between `dispatch/` and `context/`, or between `server/` and `server/fast_path/`, is
/// one.
pub fn folder_of(root_file: &Path, file: &Path) -> PathBuf {
    let src = root_file.parent().unwrap_or(Path::new(""));
    let parent = file.parent().unwrap_or(Path::new(""));
    if file.file_name().is_some_and(|name| name == "mod.rs") && parent != src {
        return parent.to_owned();
    }
    let beside = file.with_extension("");
    if beside.is_dir() {
        return beside;
    }
    if parent == src {
        return file.to_owned();
    }
    parent.to_owned()
}

/// An edge the cycle check leaves out: a file that must name a file above it, because the
/// types themselves refer to each other in a ring that no order of files can break (a call's
/// context names the dispatcher that made it, whose registry's tools take contexts). Each
/// names its two files (relative to the workspace) and says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowed {
    /// The file that names the other.
    pub from: &'static str,
    /// The file it names.
    pub to: &'static str,
    /// Why no order of files can do without it.
    pub why: &'static str,
}

/// Reads the crate whose root file is `root_file`, following its `mod` declarations, and
/// finds the edges between its files and the cycles they make.
pub fn check_crate(root_file: &Path) -> Result<CrateCheck, Error> {
    check_crate_allowing(root_file, Path::new(""), &[])
}

/// [`check_crate`], leaving out of the cycles the edges `allowed` names (their paths relative
/// to `base`).
pub fn check_crate_allowing(
    root_file: &Path,
    base: &Path,
    allowed: &[Allowed],
) -> Result<CrateCheck, Error> {
    let tree = ModuleTree::load(root_file)?;
    let (left_out, edges): (Vec<Edge>, Vec<Edge>) = edges(&tree).into_iter().partition(|edge| {
        allowed
            .iter()
            .any(|allowed| edge.from == base.join(allowed.from) && edge.to == base.join(allowed.to))
    });
    let mut files: Vec<PathBuf> = tree.files.iter().map(|file| file.path.clone()).collect();
    files.sort();
    let (within_folders, cycles): (Vec<Cycle>, Vec<Cycle>) =
        cycles(&files, &edges).into_iter().partition(|cycle| {
            let first = folder_of(root_file, &cycle.files[0]);
            cycle
                .files
                .iter()
                .all(|file| folder_of(root_file, file) == first)
        });
    Ok(CrateCheck {
        root: root_file.to_owned(),
        files,
        edges,
        allowed: left_out,
        cycles,
        within_folders,
    })
}
