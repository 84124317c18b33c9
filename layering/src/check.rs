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
    /// The import cycles, in the order of their first files; empty when there are none.
    pub cycles: Vec<Cycle>,
}

/// Reads the crate whose root file is `root_file`, following its `mod` declarations, and
/// finds the edges between its files and the cycles they make.
pub fn check_crate(root_file: &Path) -> Result<CrateCheck, Error> {
    let tree = ModuleTree::load(root_file)?;
    let edges = edges(&tree);
    let mut files: Vec<PathBuf> = tree.files.iter().map(|file| file.path.clone()).collect();
    files.sort();
    let cycles = cycles(&files, &edges);
    Ok(CrateCheck {
        root: root_file.to_owned(),
        files,
        edges,
        cycles,
    })
}
