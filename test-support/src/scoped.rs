//! The tools one module of a test binary defines, as a registry of their own: for a test that
//! shares its binary with other files' tools and asserts the exact set of tools it serves.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use buril_core::Registry;

/// The linked tools defined in `module` (its `module_path!()`) or in a module inside it, as a
/// registry: made once per module, kept for the life of the process.
pub fn tools_of(module: &str) -> &'static Registry {
    static MADE: OnceLock<Mutex<HashMap<String, &'static Registry>>> = OnceLock::new();
    let mut made = MADE.get_or_init(Mutex::default).lock().unwrap();
    made.entry(module.to_owned()).or_insert_with(|| {
        let inside = format!("{module}::");
        let tools = buril_core::registry()
            .linked()
            .iter()
            .copied()
            .filter(|tool| {
                let at = tool.location().module;
                at == module || at.starts_with(&inside)
            });
        let registry = Registry::leaked(tools).expect("a module's tools have names of their own");
        assert!(!registry.is_empty(), "`{module}` defines no tool");
        registry
    })
}
