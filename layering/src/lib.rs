//! Checks that no crate of the workspace has an import cycle between its module folders.
//!
//! Each `.rs` file of a crate is a node; a `mod x { … }` block (such as `#[cfg(test)] mod
//! tests`) belongs to its file. File A has an edge to file B when A names an item of a module
//! written in B through a `use` tree or a path: `crate::b::…`, `super::…`, `self::child::…`, a
//! child module's name (`child::…`), or a name a `use` brought in (renamed, or through a glob);
//! the edge goes to the deepest module the path names, so `use crate::dispatch::Dispatcher`
//! is an edge to the file of `dispatch`, and `crate::X` with `X` a root item is an edge to the
//! root file. The `mod b;` declaration itself is no edge, nor is a path in a macro's tokens
//! (`quote!`, `json!`). A cycle is a strongly connected component of more than one file: a
//! child using `super::Thing` while its parent uses `child::f` is one; what both need belongs
//! in a leaf module.
//!
//! The rule holds between module folders, not single files ([`folder_of`]): the files directly
//! in one folder (`dispatch/admit.rs`, `dispatch/place.rs`, `dispatch/mod.rs`) may name each
//! other, since they are one module's parts; a cycle that crosses folders (`dispatch/` and
//! `context/`, `server/` and `server/fast_path/`) or joins two files of the crate's root
//! folder fails. The cycles within a folder are listed in the report.
//!
//! A few edges may be left out of the check ([`Allowed`], [`check_workspace_allowing`]): those
//! of a ring of types that refer to each other, which no order of files can break. Each names
//! its two files and why; the report lists them.
//!
//! Files are found from the crate's root by following `mod` declarations, `#[path = "…"]`
//! included, whatever their `#[cfg]`. Sources are parsed with `syn`.
//!
//! `cargo test -p layering` checks the workspace and prints, when it fails, every cycle with
//! its files and, for each step, the file, line and path that make it.

mod check;
mod cycles;
mod edges;
mod error;
mod report;
mod resolve;
mod tree;
mod workspace;

pub use crate::check::{Allowed, CrateCheck, check_crate, check_crate_allowing, folder_of};
pub use crate::cycles::{Cycle, Step};
pub use crate::edges::Edge;
pub use crate::error::Error;
pub use crate::workspace::{WorkspaceCheck, check_workspace, check_workspace_allowing};
