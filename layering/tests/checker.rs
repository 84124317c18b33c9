//! The checker on small trees written here: the cycles it must find, and the names that are
//! no edges.

use std::fs;
use std::path::{Path, PathBuf};

use layering::{CrateCheck, check_crate};
use tempfile::TempDir;

/// A crate made of `files` (paths relative to its `src/`), checked from `src/lib.rs`.
fn check(files: &[(&str, &str)]) -> (TempDir, CrateCheck) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join("src").join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let check = check_crate(&dir.path().join("src/lib.rs")).unwrap_or_else(|e| panic!("{e}"));
    (dir, check)
}

fn rel(dir: &TempDir, path: &Path) -> String {
    path.strip_prefix(dir.path().join("src"))
        .unwrap()
        .display()
        .to_string()
}

/// Each cycle's files, relative to `src/`.
fn cycles(dir: &TempDir, check: &CrateCheck) -> Vec<Vec<String>> {
    check
        .cycles
        .iter()
        .map(|cycle| cycle.files.iter().map(|f| rel(dir, f)).collect())
        .collect()
}

/// Every edge as `from:line -> to via path`.
fn edges(dir: &TempDir, check: &CrateCheck) -> Vec<String> {
    check
        .edges
        .iter()
        .map(|e| {
            format!(
                "{}:{} -> {} via {}",
                rel(dir, &e.from),
                e.line,
                rel(dir, &e.to),
                e.path
            )
        })
        .collect()
}

fn files(dir: &TempDir, check: &CrateCheck) -> Vec<String> {
    check.files.iter().map(|f| rel(dir, f)).collect()
}

#[test]
fn a_two_file_cycle_is_found_with_its_steps() {
    let (dir, check) = check(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
        (
            "b.rs",
            "pub struct B;\n\nfn f() -> crate::a::A {\n    todo!()\n}\n",
        ),
    ]);
    assert_eq!(cycles(&dir, &check), [["a.rs", "b.rs"]]);
    let steps: Vec<String> = check.cycles[0]
        .steps
        .iter()
        .map(|s| {
            format!(
                "{}:{} -> {} via {}",
                rel(&dir, &s.edge.from),
                s.edge.line,
                rel(&dir, &s.edge.to),
                s.edge.path
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            "a.rs:1 -> b.rs via crate::b::B",
            "b.rs:3 -> a.rs via crate::a::A"
        ]
    );
    // The report names the files, and the line and path of each step.
    let report = check.to_string();
    assert!(report.contains("1 cycle"), "{report}");
    assert!(report.contains("a.rs:1 -> "), "{report}");
    assert!(report.contains("via `crate::a::A`"), "{report}");
}

#[test]
fn a_three_file_cycle_is_found() {
    let (dir, check) = check(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\nmod leaf;\n"),
        // A group, a rename and a glob.
        (
            "a.rs",
            "use crate::{b::{self as bee}, leaf::*};\npub fn a() { bee::b() }\n",
        ),
        ("b.rs", "pub fn b() {\n    super::c::c();\n}\n"),
        (
            "c.rs",
            "use crate::a::a;\npub fn c() { a(); crate::leaf::l() }\n",
        ),
        ("leaf.rs", "pub fn l() {}\n"),
    ]);
    assert_eq!(cycles(&dir, &check), [["a.rs", "b.rs", "c.rs"]]);
    assert_eq!(check.cycles[0].steps.len(), 3);
    assert_eq!(
        edges(&dir, &check),
        [
            "a.rs:1 -> b.rs via crate::b as bee",
            "a.rs:1 -> leaf.rs via crate::leaf::*",
            "a.rs:2 -> b.rs via bee::b",
            "b.rs:2 -> c.rs via super::c::c",
            "c.rs:1 -> a.rs via crate::a::a",
            "c.rs:2 -> leaf.rs via crate::leaf::l",
        ]
    );
}

#[test]
fn a_tree_without_cycles_passes() {
    let (dir, check) = check(&[
        (
            "lib.rs",
            "mod a;\nmod b;\npub use crate::a::A;\npub use b::B;\n",
        ),
        ("a.rs", "use crate::b::B;\npub struct A(pub B);\n"),
        // Visibilities, macro tokens and doc links name nothing; other crates are no files.
        (
            "b.rs",
            concat!(
                "/// Goes with [`A`](crate::a::A).\n",
                "pub(crate) struct B;\n",
                "pub(super) fn f() -> String {\n",
                "    quote::quote!(crate::a::A);\n",
                "    format!(\"{}\", crate::a::A(B).0 as u8)\n",
                "}\n",
                "pub(in crate::b) fn g() -> std::path::PathBuf { ::std::path::PathBuf::new() }\n",
            ),
        ),
    ]);
    assert_eq!(files(&dir, &check), ["a.rs", "b.rs", "lib.rs"]);
    assert!(check.cycles.is_empty(), "{check}");
    assert_eq!(
        edges(&dir, &check),
        [
            "a.rs:1 -> b.rs via crate::b::B",
            "lib.rs:3 -> a.rs via crate::a::A",
            "lib.rs:4 -> b.rs via b::B",
        ]
    );
}

#[test]
fn a_child_naming_its_parent_that_names_it_is_a_cycle_within_the_parent_s_folder() {
    let (dir, check) = check(&[
        ("lib.rs", "mod parent;\n"),
        (
            "parent.rs",
            "mod child;\npub struct Thing;\npub fn g() { child::f(&Thing) }\n",
        ),
        (
            "parent/child.rs",
            "use super::Thing;\npub fn f(_: &Thing) {}\n",
        ),
    ]);
    // `parent.rs` is the module file of `parent/`: one folder, which the rule allows.
    assert!(cycles(&dir, &check).is_empty());
    let within: Vec<Vec<String>> = check
        .within_folders
        .iter()
        .map(|cycle| cycle.files.iter().map(|f| rel(&dir, f)).collect())
        .collect();
    assert_eq!(within, [["parent/child.rs", "parent.rs"]]);
    assert_eq!(
        edges(&dir, &check),
        [
            "parent/child.rs:1 -> parent.rs via super::Thing",
            "parent.rs:3 -> parent/child.rs via child::f",
        ]
    );
}

#[test]
fn a_test_block_using_its_own_file_is_no_edge() {
    let (dir, check) = check(&[
        ("lib.rs", "mod a;\npub use a::f;\n"),
        (
            "a.rs",
            concat!(
                "pub fn f() {}\n",
                "#[cfg(test)]\n",
                "mod tests {\n",
                "    use super::*;\n",
                "    #[test]\n",
                "    fn works() { self::super::f(); f() }\n",
                "}\n",
            ),
        ),
    ]);
    assert!(check.cycles.is_empty(), "{check}");
    assert_eq!(edges(&dir, &check), ["lib.rs:2 -> a.rs via a::f"]);
}

#[test]
fn a_root_item_is_an_edge_to_the_root_file_and_path_attributes_are_followed() {
    let (dir, check) = check(&[
        (
            "lib.rs",
            "#[path = \"private.rs\"]\npub mod __private;\npub struct Input;\npub use __private::helper;\n",
        ),
        (
            "private.rs",
            "pub fn helper() -> crate::Input { crate::Input }\n",
        ),
    ]);
    assert_eq!(files(&dir, &check), ["lib.rs", "private.rs"]);
    assert_eq!(cycles(&dir, &check), [["lib.rs", "private.rs"]]);
}

#[test]
fn a_glob_is_an_edge_to_the_module_it_globs_and_brings_its_modules_in() {
    let (dir, check) = check(&[
        ("lib.rs", "mod a;\nmod user;\n"),
        ("a/mod.rs", "pub mod deep;\n"),
        ("a/deep.rs", "pub fn f() {}\n"),
        (
            "user.rs",
            "use crate::a::*;\nuse crate::a as other;\nfn g() { deep::f(); other::deep::f() }\n",
        ),
    ]);
    assert!(check.cycles.is_empty(), "{check}");
    assert_eq!(
        edges(&dir, &check),
        [
            "user.rs:1 -> a/mod.rs via crate::a::*",
            "user.rs:2 -> a/mod.rs via crate::a as other",
            "user.rs:3 -> a/deep.rs via deep::f",
            "user.rs:3 -> a/deep.rs via other::deep::f",
        ]
    );
}

#[test]
fn blocks_are_modules_of_their_file() {
    // `outer::inner` is a block of lib.rs; its `super::super` is the crate root, and the
    // file it declares is at `outer/inner/leaf.rs`.
    let (dir, check) = check(&[
        (
            "lib.rs",
            "mod other;\npub mod outer {\n    pub mod inner {\n        mod leaf;\n        pub fn f() { super::super::other::g() }\n    }\n}\n",
        ),
        (
            "other.rs",
            "pub fn g() {}\npub fn h() { crate::outer::inner::f() }\n",
        ),
        (
            "outer/inner/leaf.rs",
            "use super::f;\nuse self::super::super::super::other;\n",
        ),
    ]);
    assert_eq!(
        files(&dir, &check),
        ["lib.rs", "other.rs", "outer/inner/leaf.rs"]
    );
    assert_eq!(cycles(&dir, &check), [["lib.rs", "other.rs"]]);
    assert_eq!(
        edges(&dir, &check),
        [
            "lib.rs:5 -> other.rs via super::super::other::g",
            "other.rs:2 -> lib.rs via crate::outer::inner::f",
            "outer/inner/leaf.rs:1 -> lib.rs via super::f",
            "outer/inner/leaf.rs:2 -> other.rs via self::super::super::super::other",
        ]
    );
}

#[test]
fn a_missing_module_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let src: PathBuf = dir.path().join("src");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("lib.rs"), "mod gone;\n").unwrap();
    let error = check_crate(&src.join("lib.rs")).unwrap_err().to_string();
    assert!(error.contains("`mod gone;` has no file"), "{error}");
}

#[test]
fn the_files_of_one_folder_may_name_each_other_and_a_cycle_across_folders_fails() {
    let (dir, check) = check(&[
        ("lib.rs", "mod dispatch;\nmod context;\n"),
        (
            "dispatch/mod.rs",
            "mod admit;\nmod place;\npub use self::admit::Admitted;\n",
        ),
        (
            "dispatch/admit.rs",
            "pub struct Admitted;\npub fn f() { super::place::g() }\n",
        ),
        (
            "dispatch/place.rs",
            "pub fn g() {}\npub fn h(_: super::Admitted) {}\n",
        ),
        ("context/mod.rs", "pub struct Context;\n"),
    ]);
    // dispatch/mod.rs -> admit.rs -> place.rs -> mod.rs: one folder's files.
    assert!(cycles(&dir, &check).is_empty(), "{check}");
    assert_eq!(check.within_folders.len(), 1, "{check}");
    assert!(check.to_string().contains("within one folder:"), "{check}");

    let (dir, check) = check_across();
    assert_eq!(
        cycles(&dir, &check),
        [["context/mod.rs", "dispatch/mod.rs"]],
        "{check}"
    );
}

/// Two folders naming each other.
fn check_across() -> (TempDir, CrateCheck) {
    check(&[
        ("lib.rs", "mod dispatch;\nmod context;\n"),
        (
            "dispatch/mod.rs",
            "pub struct Core;\npub fn f(_: crate::context::Context) {}\n",
        ),
        (
            "context/mod.rs",
            "pub struct Context;\npub fn g(_: crate::dispatch::Core) {}\n",
        ),
    ])
}
