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
    /// The import cycles, in the order of their first files; empty when there are none.
    pub cycles: Vec<Cycle>,
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
    let cycles = cycles(&files, &edges);
    Ok(CrateCheck {
        root: root_file.to_owned(),
        files,
        edges,
        allowed: left_out,
        cycles,
    })
}
