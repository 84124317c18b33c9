//! Which module of the crate a path names, as seen from a module: `crate::`, `self::`,
//! `super::`, a child module's name, or a name a `use` brought in (renamed, or through a glob).

use std::collections::HashMap;

use syn::ext::IdentExt;
use syn::{Item, UseTree};

use crate::tree::{FileId, ModId, ModuleTree, ROOT};

/// How deep one name may lead to another before the resolver gives up (`use a::b; use b::c;`
/// chains, globs of globs).
const MAX_DEPTH: u32 = 16;

/// The modules of a crate with the names each module's `use` declarations bring in.
pub(crate) struct Resolver<'t> {
    tree: &'t ModuleTree,
    /// Per module: `use x::y as name;` gives `name -> [x, y]`.
    imports: HashMap<ModId, Vec<(String, Vec<String>)>>,
    /// Per module: `use x::y::*;` gives `[x, y]`.
    globs: HashMap<ModId, Vec<Vec<String>>>,
}

/// One path a `use` tree names, with the place of its last part.
pub(crate) struct UseLeaf {
    /// The segments up to the name imported (for a glob, up to the module globbed).
    pub(crate) segments: Vec<String>,
    /// The name it is known by in the importing module; `None` for a glob.
    pub(crate) name: Option<String>,
    /// How the source writes it, flattened: `crate::a::c::d`, `crate::a::*`.
    pub(crate) text: String,
    pub(crate) line: usize,
}

impl<'t> Resolver<'t> {
    pub(crate) fn new(tree: &'t ModuleTree) -> Self {
        let mut resolver = Resolver {
            tree,
            imports: HashMap::new(),
            globs: HashMap::new(),
        };
        for (file, source) in tree.files.iter().enumerate() {
            resolver.collect(file, source.module, &source.syntax.items);
        }
        resolver
    }

    /// The imports of a module's own items (a function body's `use` stays in the function).
    fn collect(&mut self, file: FileId, module: ModId, items: &[Item]) {
        for item in items {
            match item {
                Item::Use(declared) if declared.leading_colon.is_none() => {
                    for leaf in use_leaves(&declared.tree) {
                        match leaf.name {
                            Some(name) => self
                                .imports
                                .entry(module)
                                .or_default()
                                .push((name, leaf.segments)),
                            None => self.globs.entry(module).or_default().push(leaf.segments),
                        }
                    }
                }
                // `extern crate self as name;` makes `name::` another spelling of `crate::`.
                Item::ExternCrate(declared) if declared.ident == "self" => {
                    if let Some((_, name)) = &declared.rename {
                        self.imports
                            .entry(module)
                            .or_default()
                            .push((name.unraw().to_string(), vec!["crate".to_owned()]));
                    }
                }
                Item::Mod(block) => {
                    if let (Some((_, inner)), Some(child)) =
                        (&block.content, self.tree.block(file, block))
                    {
                        self.collect(file, child, inner);
                    }
                }
                _ => {}
            }
        }
    }

    /// The deepest module of the crate that `segments`, written in `scope`, names; `None` when
    /// the path does not start in the crate (another crate, a local item, the prelude).
    pub(crate) fn deepest_module(&self, scope: ModId, segments: &[String]) -> Option<ModId> {
        self.walk(scope, segments, 0).map(|(module, _)| module)
    }

    /// The module `segments` names and how many segments name modules.
    fn walk(&self, scope: ModId, segments: &[String], depth: u32) -> Option<(ModId, usize)> {
        let first = segments.first()?;
        let (mut module, mut used) = match first.as_str() {
            "crate" => (ROOT, 1),
            "self" => (scope, 1),
            // Read below, as every `super` (`super::super::`, `self::super::`).
            "super" => (scope, 0),
            name => (self.lookup(scope, name, depth, true)?, 1),
        };
        while let Some(segment) = segments.get(used) {
            let next = if segment == "super" {
                self.tree.parent(module)
            } else {
                self.lookup(module, segment, depth, false)
            };
            match next {
                Some(next) => {
                    module = next;
                    used += 1;
                }
                None => break,
            }
        }
        Some((module, used))
    }

    /// The module known as `name` in `scope`: a child module, or a module a `use` brings in
    /// (through a glob too, when `globs`).
    fn lookup(&self, scope: ModId, name: &str, depth: u32, globs: bool) -> Option<ModId> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Some(child) = self.tree.child(scope, name) {
            return Some(child);
        }
        let imported = self.imports.get(&scope).into_iter().flatten();
        for (alias, segments) in imported {
            if alias == name
                && let Some(module) = self.module_at(scope, segments, depth + 1)
            {
                return Some(module);
            }
        }
        if globs {
            for segments in self.globs.get(&scope).into_iter().flatten() {
                if let Some(globbed) = self.module_at(scope, segments, depth + 1)
                    && let Some(module) = self.lookup(globbed, name, depth + 1, false)
                {
                    return Some(module);
                }
            }
        }
        None
    }

    /// The module `segments` names when every segment names a module.
    fn module_at(&self, scope: ModId, segments: &[String], depth: u32) -> Option<ModId> {
        match self.walk(scope, segments, depth)? {
            (module, used) if used == segments.len() => Some(module),
            _ => None,
        }
    }
}

/// Every path a `use` tree names: `use crate::a::{b, c::d as e, f::*}` names `crate::a::b`,
/// `crate::a::c::d` (known as `e`) and the module `crate::a::f` (globbed).
pub(crate) fn use_leaves(tree: &UseTree) -> Vec<UseLeaf> {
    let mut leaves = Vec::new();
    gather(tree, &mut Vec::new(), &mut leaves);
    leaves
}

fn gather(tree: &UseTree, prefix: &mut Vec<String>, leaves: &mut Vec<UseLeaf>) {
    match tree {
        UseTree::Path(path) => {
            prefix.push(path.ident.unraw().to_string());
            gather(&path.tree, prefix, leaves);
            prefix.pop();
        }
        UseTree::Name(name) => {
            let ident = name.ident.unraw().to_string();
            leaves.push(leaf(prefix, &ident, None, name.ident.span()));
        }
        UseTree::Rename(rename) => {
            let ident = rename.ident.unraw().to_string();
            let alias = rename.rename.unraw().to_string();
            leaves.push(leaf(prefix, &ident, Some(alias), rename.ident.span()));
        }
        UseTree::Glob(glob) => leaves.push(UseLeaf {
            segments: prefix.clone(),
            name: None,
            text: format!("{}::*", prefix.join("::")),
            line: glob.star_token.spans[0].start().line,
        }),
        UseTree::Group(group) => {
            for tree in &group.items {
                gather(tree, prefix, leaves);
            }
        }
    }
}

/// `prefix::ident`, or `prefix` itself for `self`, known as `alias` or as its last segment.
fn leaf(prefix: &[String], ident: &str, alias: Option<String>, span: proc_macro2::Span) -> UseLeaf {
    let mut segments = prefix.to_vec();
    if ident != "self" {
        segments.push(ident.to_owned());
    }
    let mut text = segments.join("::");
    if let Some(alias) = &alias {
        text = format!("{text} as {alias}");
    }
    let name = alias.or_else(|| segments.last().cloned());
    UseLeaf {
        segments,
        name,
        text,
        line: span.start().line,
    }
}
