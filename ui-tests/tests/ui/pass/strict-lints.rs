//! A crate that denies the lints strict crates deny: the registration trips none of them
//! (`allow(warnings)` alone would leave a lint the crate set to `deny` as it is).
#![deny(
    warnings,
    unused,
    unreachable_pub,
    non_local_definitions,
    unused_qualifications,
    unused_results,
    missing_docs,
    missing_debug_implementations,
    rust_2018_idioms
)]

/// Opens a scene.
#[buril::tool]
fn scene_open() {}

mod scene {
    /// Renames a scene.
    #[buril::tool]
    pub(crate) fn scene_rename(
        /// The scene's path.
        path: String,
        /// Its new name.
        name: Option<String>,
    ) -> Result<String, String> {
        Ok(format!("{path}:{}", name.unwrap_or_default()))
    }
}

fn main() {
    let registry = buril::registry();
    assert!(registry.get("scene_open").is_some());
    assert!(registry.get("scene_rename").is_some());
}
