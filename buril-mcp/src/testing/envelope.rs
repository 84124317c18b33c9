//! A `CallToolResult` read back as the envelope, as the generated clients read it: a failure's
//! envelope from its `_meta`; a success's data from its structured content, or from its content
//! blocks for a tool that answers with blocks.

use serde_json::{Map, Value, json};

/// The envelope a `CallToolResult` (as JSON) carries: `{"ok": true, "data": …}` (with
/// `warnings` when it has some) or `{"ok": false, "type": …, "error": …}`.
pub fn envelope_of(result: &Value) -> Value {
    let meta = result.get("_meta").and_then(Value::as_object);
    if result.get("isError") == Some(&Value::Bool(true)) {
        if let Some(envelope) = meta.and_then(|meta| meta.get("buril/envelope")) {
            return envelope.clone();
        }
        // Not a buril server's failure: its text is the error.
        return json!({"ok": false, "type": "runtime", "error": text_of(result)});
    }
    let warnings: Vec<Value> = meta
        .and_then(|meta| meta.get("buril/warnings"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut blocks: Vec<Value> = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // The warnings follow the tool's own blocks, one text block each.
    blocks.truncate(blocks.len().saturating_sub(warnings.len()));
    let data = match meta
        .and_then(|meta| meta.get("buril/result"))
        .and_then(Value::as_str)
    {
        Some("content") => json!({"content": blocks}),
        Some("rich") => {
            let mut rest = blocks.into_iter();
            // The first text block is the JSON of the structured data.
            let structured = rest
                .next()
                .and_then(|block| block.get("text").and_then(Value::as_str).map(str::to_owned))
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or(Value::Null);
            json!({"structured": structured, "content": rest.collect::<Vec<_>>()})
        }
        _ => result
            .get("structuredContent")
            .cloned()
            .unwrap_or_else(|| json!({"result": text_of(result)})),
    };
    let mut envelope = Map::new();
    envelope.insert("ok".into(), Value::Bool(true));
    envelope.insert("data".into(), data);
    if !warnings.is_empty() {
        envelope.insert("warnings".into(), Value::Array(warnings));
    }
    Value::Object(envelope)
}

/// The text of a result's text blocks, joined.
fn text_of(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}
