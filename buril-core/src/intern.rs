//! Names of tools provided at run time, kept for the life of the process.
//!
//! A call's context, its outcome and its events carry the tool's name as a `&'static str`, as a
//! linked tool's name is. A tool provided at run time has its name interned here: each distinct
//! name is allocated once and kept, however often its provider comes and goes, so what this
//! holds is bounded by the distinct names ever provided (a server that lists the same tools on
//! every reconnect adds nothing after the first).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();

/// `name`, as a string that lives as long as the process.
pub fn intern(name: &str) -> &'static str {
    let names = NAMES.get_or_init(Default::default);
    let mut names = names.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(kept) = names.get(name) {
        return kept;
    }
    let kept: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(kept);
    kept
}

#[cfg(test)]
mod tests {
    use super::intern;

    #[test]
    fn a_name_is_kept_once() {
        let a = intern("hub_intern_test");
        let b = intern(&String::from("hub_intern_test"));
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, "hub_intern_test");
    }
}
