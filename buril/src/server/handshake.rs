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

use crate::descriptor::ToolDescriptor;
use crate::registry::Registry;

/// The `_meta` key of the bindings' (in a call) or the server's (in a result) metadata hash.
pub(crate) const METADATA_META: &str = "buril/metadata";

/// The `_meta` key of the called tool's own metadata hash in the bindings.
pub(crate) const TOOL_METADATA_META: &str = "buril/tool-metadata";

/// The bindings' hashes a call carries, from the request's `_meta` or else the context's.
pub(crate) fn bindings_of(
    request: Option<&Map<String, Value>>,
    context: &Map<String, Value>,
) -> Map<String, Value> {
    let mut found = Map::new();
    for key in [METADATA_META, TOOL_METADATA_META] {
        let value = request
            .and_then(|meta| meta.get(key))
            .or_else(|| context.get(key));
        if let Some(value) = value {
            found.insert(key.to_owned(), value.clone());
        }
    }
    found
}

/// The warning for a call from bindings generated from other metadata, if they were.
pub(crate) fn stale_bindings(
    meta: &Map<String, Value>,
    registry: &Registry,
    tool: Option<&ToolDescriptor>,
) -> Option<String> {
    let theirs = meta.get(METADATA_META)?.as_str()?;
    let ours = registry.metadata_hash();
    if theirs == ours {
        return None;
    }
    let start = format!(
        "these bindings were generated from tool metadata {theirs}, and this server's is {ours}"
    );
    let tool_hash = meta.get(TOOL_METADATA_META).and_then(Value::as_str);
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
    Some(format!("{start}: {detail}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn equal_hashes_say_nothing_and_different_ones_name_the_tool() {
        let registry = crate::registry::registry();
        let meta = |value: Value| value.as_object().cloned().unwrap();
        assert_eq!(stale_bindings(&meta(json!({})), registry, None), None);
        let current = meta(json!({METADATA_META: registry.metadata_hash()}));
        assert_eq!(stale_bindings(&current, registry, None), None);
        let old = meta(json!({METADATA_META: "0123456789abcdef"}));
        let warning = stale_bindings(&old, registry, None).unwrap();
        assert!(
            warning
                .starts_with("these bindings were generated from tool metadata 0123456789abcdef"),
            "{warning}"
        );
        assert!(warning.ends_with("regenerate the bindings"), "{warning}");
    }
}
