//! A crate's module tree, read from its root file by following `mod` declarations.
//!
//! Every module is kept, whether a file of its own (`mod a;`) or a block inside a file
//! (`mod tests { … }`); a block belongs to the file it is written in. `#[path = "…"]` is
//! honoured, and `#[cfg]` is not looked at: every module of every configuration is read.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use syn::ext::IdentExt;
use syn::{Item, ItemMod};

use crate::error::Error;

/// A module's index in [`ModuleTree::modules`].
pub(crate) type ModId = usize;

/// A file's index in [`ModuleTree::files`].
pub(crate) type FileId = usize;

pub(crate) struct Module {
    parent: Option<ModId>,
    file: FileId,
    children: BTreeMap<String, ModId>,
}

pub(crate) struct SourceFile {
    pub(crate) path: PathBuf,
    pub(crate) syntax: syn::File,
    /// The module the file is (its blocks are modules of their own).
    pub(crate) module: ModId,
}

/// The modules of one crate and the files they are written in.
pub(crate) struct ModuleTree {
    modules: Vec<Module>,
    pub(crate) files: Vec<SourceFile>,
    /// The module of each `mod name { … }` block, by file and the line and column of its name.
    blocks: HashMap<(FileId, usize, usize), ModId>,
}

/// The crate root.
pub(crate) const ROOT: ModId = 0;

impl ModuleTree {
    /// Reads the crate whose root file (`src/lib.rs`, `src/main.rs`) is `root_file`.
    pub(crate) fn load(root_file: &Path) -> Result<Self, Error> {
        let mut tree = ModuleTree {
            modules: vec![Module {
                parent: None,
                file: 0,
                children: BTreeMap::new(),
            }],
            files: Vec::new(),
            blocks: HashMap::new(),
        };
        let dir = parent_dir(root_file);
        tree.load_file(root_file, ROOT, &dir)?;
        Ok(tree)
    }

    pub(crate) fn parent(&self, module: ModId) -> Option<ModId> {
        self.modules[module].parent
    }

    pub(crate) fn child(&self, module: ModId, name: &str) -> Option<ModId> {
        self.modules[module].children.get(name).copied()
    }

    pub(crate) fn file_of(&self, module: ModId) -> FileId {
        self.modules[module].file
    }

    /// The module of a `mod name { … }` block of `file`.
    pub(crate) fn block(&self, file: FileId, block: &ItemMod) -> Option<ModId> {
        self.blocks.get(&block_key(file, block)).copied()
    }

    /// Reads `path` as the file of `module`, whose child modules' files are under `dir`.
    fn load_file(&mut self, path: &Path, module: ModId, dir: &Path) -> Result<(), Error> {
        let text = fs::read_to_string(path)
            .map_err(|e| Error::new(format!("{}: cannot be read: {e}", path.display())))?;
        let syntax = syn::parse_file(&text)
            .map_err(|e| Error::new(format!("{}: cannot be parsed: {e}", path.display())))?;
        let file = self.files.len();
        self.files.push(SourceFile {
            path: path.to_owned(),
            syntax: syn::File {
                shebang: None,
                attrs: Vec::new(),
                items: Vec::new(),
            },
            module,
        });
        self.modules[module].file = file;
        let place = Place {
            file,
            file_dir: parent_dir(path),
            dir: dir.to_owned(),
            in_block: false,
        };
        self.load_items(&syntax.items, module, &place)?;
        self.files[file].syntax = syntax;
        Ok(())
    }

    fn load_items(&mut self, items: &[Item], module: ModId, place: &Place) -> Result<(), Error> {
        for item in items {
            let Item::Mod(declared) = item else {
                continue;
            };
            let name = declared.ident.unraw().to_string();
            let path_attr = path_attribute(declared);
            let child = self.modules.len();
            self.modules.push(Module {
                parent: Some(module),
                file: place.file,
                children: BTreeMap::new(),
            });
            // Of two modules with one name (under exclusive `#[cfg]`s), paths reach the first.
            self.modules[module]
                .children
                .entry(name.clone())
                .or_insert(child);
            match &declared.content {
                Some((_, items)) => {
                    self.blocks.insert(block_key(place.file, declared), child);
                    let inner = Place {
                        dir: place.dir.join(path_attr.as_deref().unwrap_or(&name)),
                        in_block: true,
                        ..place.clone()
                    };
                    self.load_items(items, child, &inner)?;
                }
                None => {
                    let (path, dir) = match path_attr {
                        // Relative to the file's directory, or in a block, to the block's.
                        Some(relative) => {
                            let base = if place.in_block {
                                &place.dir
                            } else {
                                &place.file_dir
                            };
                            let path = base.join(relative);
                            let dir = parent_dir(&path);
                            (path, dir)
                        }
                        None => {
                            let flat = place.dir.join(format!("{name}.rs"));
                            let nested = place.dir.join(&name).join("mod.rs");
                            let path = if flat.is_file() || !nested.is_file() {
                                flat
                            } else {
                                nested
                            };
                            (path, place.dir.join(&name))
                        }
                    };
                    if !path.is_file() {
                        return Err(Error::new(format!(
                            "{}: `mod {name};` has no file at {}",
                            self.files[place.file].path.display(),
                            path.display()
                        )));
                    }
                    self.load_file(&path, child, &dir)?;
                }
            }
        }
        Ok(())
    }
}

/// Where the items being read are: their file, and the directory of their child modules.
#[derive(Clone)]
struct Place {
    file: FileId,
    file_dir: PathBuf,
    dir: PathBuf,
    /// Inside a `mod name { … }` block.
    in_block: bool,
}

fn block_key(file: FileId, block: &ItemMod) -> (FileId, usize, usize) {
    let start = block.ident.span().start();
    (file, start.line, start.column)
}

/// The value of a `#[path = "…"]` attribute.
fn path_attribute(declared: &ItemMod) -> Option<String> {
    declared.attrs.iter().find_map(|attr| {
        let syn::Meta::NameValue(pair) = &attr.meta else {
            return None;
        };
        if !pair.path.is_ident("path") {
            return None;
        }
        match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Some(text.value()),
            _ => None,
        }
    })
}

fn parent_dir(path: &Path) -> PathBuf {
    path.parent().map(Path::to_owned).unwrap_or_default()
}
