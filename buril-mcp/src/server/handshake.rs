//! Telling bindings older than the server: generated clients send the metadata hash they were
//! generated from with each call, the server compares it with its own and answers with its own.
//!
//! | `_meta` key | sent by | value |
//! | --- | --- | --- |
//! | `buril/metadata` | the client, in `tools/call` | the hash of the tool metadata the bindings were generated from |
//! | `buril/tool-metadata` | the client, in `tools/call` | the hash of the called tool's own metadata in the bindings |
//! | `buril/metadata` | the server, in the `initialize` result and every `tools/call` and `tools/list` result | the hash of the server's tool metadata |
//!
//! Equal hashes change nothing. Different ones add a warning to the call's envelope naming the
//! called tool when its own metadata changed since the bindings were generated; a call whose
//! input no longer fits is refused as any other, with its problems.

use serde_json::{Map, Value};

use buril_core::Registry;
use buril_core::ToolDescriptor;

/// The `_meta` key of the bindings' (in a call) or the server's (in a result) metadata hash.
pub(crate) const METADATA_META: &str = "buril/metadata";

/// The `_meta` key of the called tool's own metadata hash in the bindings.
pub(crate) const TOOL_METADATA_META: &str = "buril/tool-metadata";

/// What a call's bindings said of themselves when it is not what this server is: the makings
/// of the warning, kept from the request until the call has ended. Equal hashes (the common
/// case) keep nothing: one lookup and a comparison, no copy.
#[derive(Debug, PartialEq)]
pub(crate) struct StaleBindings {
    /// The metadata hash the bindings were generated from.
    theirs: String,
    /// The called tool's own hash in the bindings, if they sent it.
    tool: Option<String>,
}

/// The bindings' hashes of a call, from the request's `_meta` or else the context's, when they
/// are not this server's.
pub(crate) fn stale_bindings(
    request: Option<&Map<String, Value>>,
    context: &Map<String, Value>,
    registry: &Registry,
) -> Option<StaleBindings> {
    let get = |key: &str| {
        request
            .and_then(|meta| meta.get(key))
            .or_else(|| context.get(key))
            .and_then(Value::as_str)
    };
    let theirs = get(METADATA_META)?;
    if theirs == registry.metadata_hash() {
        return None;
    }
    Some(StaleBindings {
        theirs: theirs.to_owned(),
        tool: get(TOOL_METADATA_META).map(str::to_owned),
    })
}

impl StaleBindings {
    /// The warning for the call of `tool` (when it is known).
    pub(crate) fn warning(&self, registry: &Registry, tool: Option<&ToolDescriptor>) -> String {
        let StaleBindings {
            theirs,
            tool: tool_hash,
        } = self;
        let ours = registry.metadata_hash();
        let start = format!(
            "these bindings were generated from tool metadata {theirs}, and this server's is {ours}"
        );
        let detail = match (tool, tool_hash) {
            (Some(tool), Some(hash)) if hash != tool.metadata_hash() => format!(
                "`{}` changed since (its schemas, description or flags); regenerate the bindings",
                tool.name()
            ),
            (Some(tool), Some(_)) => format!(
                "`{}` is unchanged, other tools changed; regenerate the bindings",
                tool.name()
            ),
            _ => "regenerate the bindings".to_owned(),
        };
        format!("{start}: {detail}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn equal_hashes_say_nothing_and_different_ones_name_the_tool() {
        let registry = buril_core::registry();
        let meta = |value: Value| value.as_object().cloned().unwrap();
        let stale = |value: Value| stale_bindings(None, &meta(value), registry);
        assert_eq!(stale(json!({})), None);
        assert_eq!(
            stale(json!({METADATA_META: registry.metadata_hash()})),
            None
        );
        // The request's own `_meta` first, the context's otherwise.
        let current = meta(json!({METADATA_META: registry.metadata_hash()}));
        let old = meta(json!({METADATA_META: "0123456789abcdef"}));
        assert_eq!(stale_bindings(Some(&current), &old, registry), None);
        assert!(stale_bindings(Some(&old), &current, registry).is_some());
        let warning = stale(json!({METADATA_META: "0123456789abcdef"}))
            .unwrap()
            .warning(registry, None);
        assert!(
            warning
                .starts_with("these bindings were generated from tool metadata 0123456789abcdef"),
            "{warning}"
        );
        assert!(warning.ends_with("regenerate the bindings"), "{warning}");
    }
}
