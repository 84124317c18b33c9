//! The edges between a crate's files: file A has an edge to file B when A names an item of a
//! module written in B, through a `use` tree or a path; the edge goes to the deepest module
//! the path names.
//!
//! Not edges: `mod b;` itself; visibilities (`pub(crate)`, `pub(super)`, `pub(in path)`); a
//! path inside a macro's tokens (`quote!`, `json!`, `assert_eq!`), which stay unparsed; doc
//! links; a file's names of its own modules (a `mod tests { use super::*; }` block names its
//! own file).

use std::path::PathBuf;

use syn::ext::IdentExt;
use syn::visit::{self, Visit};

use crate::resolve::{Resolver, use_leaves};
use crate::tree::{FileId, ModId, ModuleTree};

/// File `from` names, at `line`, an item of a module written in file `to`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    /// The file that names the item.
    pub from: PathBuf,
    /// The line of `from` where the path is.
    pub line: usize,
    /// The file of the module the path names.
    pub to: PathBuf,
    /// The path as written (a `use` tree flattened: `crate::a::c::d`, `super::*`).
    pub path: String,
}

/// Every edge between the files of `tree`, in file and line order.
pub(crate) fn edges(tree: &ModuleTree) -> Vec<Edge> {
    let resolver = Resolver::new(tree);
    let mut edges = Vec::new();
    for (file, source) in tree.files.iter().enumerate() {
        let mut walker = Walker {
            tree,
            resolver: &resolver,
            file,
            scopes: vec![source.module],
            edges: &mut edges,
        };
        walker.visit_file(&source.syntax);
    }
    edges.sort();
    edges.dedup();
    edges
}

struct Walker<'a, 't> {
    tree: &'t ModuleTree,
    resolver: &'a Resolver<'t>,
    file: FileId,
    /// The module the walk is in: the file's, then the blocks it entered.
    scopes: Vec<ModId>,
    edges: &'a mut Vec<Edge>,
}

impl Walker<'_, '_> {
    fn scope(&self) -> ModId {
        *self.scopes.last().expect("the walk is always in a module")
    }

    fn names(&mut self, segments: &[String], line: usize, path: String) {
        let Some(module) = self.resolver.deepest_module(self.scope(), segments) else {
            return;
        };
        let to = self.tree.file_of(module);
        if to != self.file {
            self.edges.push(Edge {
                from: self.tree.files[self.file].path.clone(),
                line,
                to: self.tree.files[to].path.clone(),
                path,
            });
        }
    }
}

impl<'ast> Visit<'ast> for Walker<'_, '_> {
    fn visit_item_mod(&mut self, declared: &'ast syn::ItemMod) {
        if declared.content.is_none() {
            // `mod b;` is not an edge; its attributes are walked all the same.
            for attr in &declared.attrs {
                self.visit_attribute(attr);
            }
            return;
        }
        // A block in a function body is no module of the tree: its paths are read as the
        // function's.
        let block = self.tree.block(self.file, declared);
        self.scopes.extend(block);
        visit::visit_item_mod(self, declared);
        if block.is_some() {
            self.scopes.pop();
        }
    }

    fn visit_item_use(&mut self, declared: &'ast syn::ItemUse) {
        if declared.leading_colon.is_some() {
            return;
        }
        for attr in &declared.attrs {
            self.visit_attribute(attr);
        }
        for leaf in use_leaves(&declared.tree) {
            self.names(&leaf.segments, leaf.line, leaf.text);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // One segment names an item in scope already (brought in by a `use`, which is the
        // edge), or a local; `::name` is another crate.
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            let segments: Vec<String> = path
                .segments
                .iter()
                .map(|segment| segment.ident.unraw().to_string())
                .collect();
            let line = path.segments[0].ident.span().start().line;
            self.names(&segments, line, segments.join("::"));
        }
        visit::visit_path(self, path);
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}
