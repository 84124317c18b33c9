//! A tool view resolved against a dispatcher: the tools a specialist sees, and the patterns
//! that match none of them. Listing only: every call still goes through the dispatcher, which
//! enforces the view itself.

use buril::{Dispatcher, ToolRef, ToolView};

/// The tools of `dispatcher` that `view` lets through and its policy allows, sorted by name
/// (linked ones, and those of providers that can answer now: an external server's
/// `cascadeur_*` tools, say), and the view's patterns that match none of the allowed tools.
pub fn resolve_view(dispatcher: &Dispatcher, view: &ToolView) -> (Vec<ToolRef>, Vec<String>) {
    let policy = dispatcher.policy();
    let available: Vec<ToolRef> = dispatcher
        .registry()
        .iter()
        .filter(|tool| policy.allows(tool))
        .collect();
    let tools = available
        .iter()
        .filter(|tool| view.allows(tool.name()))
        .cloned()
        .collect();
    let missing = view
        .patterns()
        .iter()
        .filter(|pattern| !available.iter().any(|tool| pattern.matches(tool.name())))
        .map(ToString::to_string)
        .collect();
    (tools, missing)
}
