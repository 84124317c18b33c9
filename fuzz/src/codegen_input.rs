//! How the codegen fuzz target turns bytes into a tool: shared with `codegen_sample`.

use buril_codegen::ToolSource;
use serde_json::{Value, json};

/// Fields separated by `\u{1}`: name, description, a property's name, its description, and
/// optionally a whole input schema (used when it is a JSON object).
pub fn tool_from(data: &[u8]) -> ToolSource {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\u{1}');
    let name = parts.next().unwrap_or_default().to_owned();
    let description = parts.next().unwrap_or_default().to_owned();
    let property = parts.next().unwrap_or("value").to_owned();
    let property_description = parts.next().unwrap_or_default().to_owned();
    let schema: Option<Value> = parts
        .next()
        .and_then(|text| serde_json::from_str(text).ok())
        .filter(Value::is_object);
    let input_schema = schema.unwrap_or_else(|| {
        json!({
            "type": "object",
            "description": description,
            "properties": {
                property.clone(): {"type": "string", "description": property_description},
                "mode": {"type": "string", "enum": [property.clone(), description.clone()]}
            },
            "required": [property]
        })
    });
    let output_schema = json!({
        "type": "object",
        "properties": {"echo": {"type": "string", "description": description}},
        "required": ["echo"]
    });
    let mut source = ToolSource::new(name.clone(), input_schema, output_schema);
    source.meta.description = description.into();
    source.meta.aliases = vec![format!("{name}_old").into()].into();
    source.meta.threading = buril::Threading::OffThread;
    source.meta.annotations.title = Some(property_description.into());
    source
}
