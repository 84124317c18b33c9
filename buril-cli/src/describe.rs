//! `describe`: one tool in full, its schema read back as a list of parameters.

use std::io::{self, Write};
use std::process::ExitCode;

use serde_json::{Value, json};

use super::messages::unknown_tool;
use buril_core::Registry;
use buril_core::frontend::{mcp_annotations, mcp_listing};
use buril_core::{TaskSupport, Threading};

pub(crate) fn describe(
    registry: &Registry,
    name: &str,
    as_json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    let Some(tool) = registry.get(name) else {
        writeln!(err, "{}", unknown_tool(registry, name))?;
        return Ok(ExitCode::from(1));
    };
    let tool = &*tool;
    if as_json {
        let mut value = mcp_listing(tool);
        if let Value::Object(map) = &mut value {
            map.insert("family".into(), tool.family().into());
            map.insert("aliases".into(), json!(tool.aliases()));
            let threading = tool.threading();
            map.insert("threading".into(), threading.as_str().into());
            map.insert("offThread".into(), threading.is_off_thread().into());
            map.insert("inline".into(), (threading == Threading::Inline).into());
            map.insert("task".into(), tool.meta().task.as_str().into());
            map.insert("dangerous".into(), tool.is_dangerous().into());
            map.insert("confirm".into(), tool.meta().confirm.into());
            map.insert("async".into(), tool.is_async().into());
            if let Some(reason) = &tool.meta().fixed_name {
                map.insert("fixedName".into(), reason.as_ref().into());
            }
            if let Some(provenance) = tool.provenance() {
                let mut from = serde_json::Map::new();
                from.insert("provider".into(), provenance.provider().name().into());
                if let Some(original) = provenance.original_name() {
                    from.insert("originalName".into(), original.into());
                }
                from.insert("enabled".into(), provenance.provider().is_enabled().into());
                if let Some(reason) = tool.unavailable() {
                    from.insert("unavailable".into(), reason.as_ref().into());
                }
                map.insert("providedBy".into(), Value::Object(from));
            }
            map.insert("location".into(), tool.location().to_string().into());
            map.insert("metadataHash".into(), tool.metadata_hash().into());
            map.insert(
                "registryMetadataHash".into(),
                registry.metadata_hash().into(),
            );
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{}", tool.name())?;
    if let Some(title) = &tool.annotations().title {
        writeln!(out, "  {title}")?;
    }
    writeln!(out)?;
    for line in tool.description().lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(out)?;
    writeln!(out, "family:    {}", tool.family())?;
    if let Some(provenance) = tool.provenance() {
        let provider = provenance.provider();
        match provenance.original_name() {
            Some(original) => writeln!(
                out,
                "from:      `{}`, where it is `{original}` (a third party's tool)",
                provider.name()
            )?,
            None => writeln!(
                out,
                "from:      `{}` (a third party's tool)",
                provider.name()
            )?,
        }
        if !provider.is_enabled() {
            writeln!(
                out,
                "enabled:   only by a rule (`--enable family:{}`), as a third party's tool",
                tool.family()
            )?;
        }
        if let Some(reason) = tool.unavailable() {
            writeln!(out, "now:       unavailable: {reason}")?;
        }
    }
    if let Some(reason) = &tool.meta().fixed_name {
        writeln!(
            out,
            "name:      fixed by someone else, exempt from the naming rule: {reason}"
        )?;
    }
    let thread = match tool.threading() {
        Threading::Inline => "the calling thread (off_thread, inline)",
        Threading::OffThread => "a thread that may block, off the main thread (off_thread)",
        _ => "main thread",
    };
    writeln!(out, "runs on:   {thread}")?;
    let task = match tool.meta().task {
        TaskSupport::Optional => Some(
            "a task where the caller can follow one (MCP's tasks extension, `call --detach`); \
             otherwise the call waits for the work",
        ),
        TaskSupport::Required => Some(
            "always a task; a caller that cannot follow tasks is refused (`call --detach` \
             follows it)",
        ),
        TaskSupport::Handle => Some(
            "always a task; a caller that cannot follow tasks gets its handle and follows it \
             with `task_get`, `task_wait`, `task_cancel`",
        ),
        TaskSupport::Deferred => Some(
            "a plain call until the tool starts its task, then a task where the caller can \
             follow one",
        ),
        _ => None,
    };
    if let Some(task) = task {
        writeln!(out, "task:      {task}")?;
    }
    if tool.is_async() {
        writeln!(out, "async:     yes")?;
    }
    if tool.is_dangerous() {
        writeln!(out, "dangerous: yes (off until the host enables it)")?;
    }
    if tool.meta().confirm {
        writeln!(
            out,
            "confirm:   yes (each call asks the caller's user first, when the caller can ask)"
        )?;
    }
    if !tool.aliases().is_empty() {
        writeln!(out, "aliases:   {} (deprecated)", tool.aliases().join(", "))?;
    }
    let annotations = mcp_annotations(tool);
    if annotations.as_object().is_some_and(|a| !a.is_empty()) {
        writeln!(out, "hints:     {annotations}")?;
    }
    for icon in tool.meta().icons.iter() {
        // A `data:` URI can be long: its start says what it is.
        let shown: String = if icon.chars().count() > 60 {
            let start: String = icon.chars().take(48).collect();
            format!("{start}… ({} characters)", icon.len())
        } else {
            icon.to_string()
        };
        writeln!(out, "icon:      {shown}")?;
    }
    for (key, value) in tool.meta().meta.iter() {
        writeln!(out, "_meta:     {key} = {value}")?;
    }
    writeln!(
        out,
        "defined:   {} ({})",
        tool.location(),
        tool.location().module
    )?;
    writeln!(
        out,
        "metadata:  {} (all tools: {}; bindings generated from other metadata are told so)",
        tool.metadata_hash(),
        registry.metadata_hash()
    )?;
    writeln!(out)?;
    write_parameters(tool.input_schema(), out)?;
    writeln!(out, "\ninput schema:")?;
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(tool.input_schema())?
    )?;
    writeln!(out, "\noutput schema:")?;
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(tool.output_schema())?
    )?;
    Ok(ExitCode::SUCCESS)
}

fn write_parameters(schema: &Value, out: &mut dyn Write) -> io::Result<()> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = properties.filter(|p| !p.is_empty()) else {
        return writeln!(out, "parameters: none");
    };
    writeln!(out, "parameters:")?;
    for (name, property) in properties {
        let need = if required.contains(&name.as_str()) {
            "required"
        } else {
            "optional"
        };
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        writeln!(
            out,
            "  {name}: {} ({need})  {}",
            type_summary(property),
            description.lines().next().unwrap_or_default()
        )?;
    }
    Ok(())
}

/// A short type name for a property schema: `string`, `number | null`, `array of string`,
/// `SceneInfo`.
fn type_summary(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values.iter().map(Value::to_string).collect();
        return names.join(" | ");
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            let items = schema.get("items").map(type_summary).unwrap_or_default();
            format!("array of {items}")
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => {
            for key in ["anyOf", "oneOf"] {
                if let Some(variants) = schema.get(key).and_then(Value::as_array) {
                    return variants
                        .iter()
                        .map(type_summary)
                        .collect::<Vec<_>>()
                        .join(" | ");
                }
            }
            "any".to_owned()
        }
    }
}
