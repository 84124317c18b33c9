//! [`check_workspace`]: every crate of a Cargo workspace.

use std::fs;
use std::path::{Path, PathBuf};

use crate::check::{Allowed, CrateCheck, check_crate_allowing};
use crate::error::Error;

/// What the check found in every crate of a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceCheck {
    /// The workspace's directory.
    pub root: PathBuf,
    /// One check per crate root of every member, in the members' order.
    pub crates: Vec<CrateCheck>,
}

impl WorkspaceCheck {
    /// Whether no crate has a cycle.
    pub fn is_clean(&self) -> bool {
        self.crates.iter().all(|check| check.cycles.is_empty())
    }

    /// The check of the crate whose root file is `root` (relative to the workspace).
    pub fn get(&self, root: impl AsRef<Path>) -> Option<&CrateCheck> {
        let root = self.root.join(root);
        self.crates.iter().find(|check| check.root == root)
    }
}

/// Checks every crate of the workspace at `root`: for each member listed in `Cargo.toml`, its
/// `src/lib.rs`, `src/main.rs` and `src/bin/*.rs`, and the `[lib]` and `[[bin]]` paths its
/// manifest gives.
pub fn check_workspace(root: &Path) -> Result<WorkspaceCheck, Error> {
    check_workspace_allowing(root, &[])
}

/// [`check_workspace`], leaving out of the cycles the edges `allowed` names (paths relative
/// to the workspace). An allowed edge that no file makes any more is an error, so that an
/// exception does not outlive its reason.
pub fn check_workspace_allowing(root: &Path, allowed: &[Allowed]) -> Result<WorkspaceCheck, Error> {
    let manifest = read_manifest(&root.join("Cargo.toml"))?;
    let members = manifest
        .get("workspace")
        .and_then(|workspace| workspace.get("members"))
        .and_then(|members| members.as_array())
        .ok_or_else(|| Error::new(format!("{}: no [workspace] members", root.display())))?;
    let mut crates = Vec::new();
    for member in members {
        let member = member
            .as_str()
            .ok_or_else(|| Error::new(format!("a workspace member is not a path: {member:?}")))?;
        for root_file in crate_roots(&root.join(member))? {
            crates.push(check_crate_allowing(&root_file, root, allowed)?);
        }
    }
    for exception in allowed {
        let used = crates.iter().flat_map(|check| &check.allowed).any(|edge| {
            edge.from == root.join(exception.from) && edge.to == root.join(exception.to)
        });
        if !used {
            return Err(Error::new(format!(
                "{} no longer names {}: remove the exception ({})",
                exception.from, exception.to, exception.why
            )));
        }
    }
    Ok(WorkspaceCheck {
        root: root.to_owned(),
        crates,
    })
}

/// The root files of a package's library and binaries.
fn crate_roots(package: &Path) -> Result<Vec<PathBuf>, Error> {
    let manifest = read_manifest(&package.join("Cargo.toml"))?;
    let mut roots = Vec::new();
    let declared = manifest
        .get("lib")
        .into_iter()
        .chain(
            manifest
                .get("bin")
                .and_then(|bins| bins.as_array())
                .into_iter()
                .flatten(),
        )
        .filter_map(|target| target.get("path")?.as_str());
    roots.extend(declared.map(|path| package.join(path)));
    let src = package.join("src");
    roots.extend(
        [src.join("lib.rs"), src.join("main.rs")]
            .into_iter()
            .filter(|path| path.is_file()),
    );
    if let Ok(entries) = fs::read_dir(src.join("bin")) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|ext| ext == "rs") {
                roots.push(path);
            } else if path.join("main.rs").is_file() {
                roots.push(path.join("main.rs"));
            }
        }
    }
    roots.sort();
    roots.dedup();
    Ok(roots)
}

fn read_manifest(path: &Path) -> Result<toml::Table, Error> {
    let text = fs::read_to_string(path)
        .map_err(|e| Error::new(format!("{}: cannot be read: {e}", path.display())))?;
    text.parse()
        .map_err(|e| Error::new(format!("{}: cannot be parsed: {e}", path.display())))
}
