//! A crate that denies unsafe code: the registration's linker attributes (`link_section`,
//! `export_name`) are the library's, allowed on its own items.
#![deny(unsafe_code)]

/// Opens a scene.
#[buril::tool]
fn scene_open() {}

fn main() {
    assert!(buril::registry().get("scene_open").is_some());
}
