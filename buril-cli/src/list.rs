//! `list`: every tool, sorted, as text or JSON.

use std::io::{self, Write};
use std::process::ExitCode;

use serde_json::Value;

use buril_core::Registry;
use buril_core::ToolRef;
use buril_core::frontend::mcp_listing;

pub(crate) fn list(
    registry: &Registry,
    as_json: bool,
    family: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<ExitCode> {
    let tools: Vec<ToolRef> = registry
        .iter()
        .filter(|t| family.is_none_or(|f| t.family() == f))
        .collect();
    if as_json {
        let array: Vec<Value> = tools
            .iter()
            .map(|t| {
                let mut listing = mcp_listing(t);
                listing["metadataHash"] = t.metadata_hash().into();
                listing
            })
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&array)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = tools.iter().map(|t| t.name().len()).max().unwrap_or(0);
    for tool in &tools {
        let summary = summary(tool.description(), 100);
        let mut marks = String::new();
        if tool.is_dangerous() {
            marks.push_str(" [dangerous]");
        }
        writeln!(out, "{:width$}  {summary}{marks}", tool.name())?;
    }
    let families = tools
        .iter()
        .map(|t| t.family())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    writeln!(
        out,
        "\n{} {} in {} {} (tool metadata {})",
        tools.len(),
        if tools.len() == 1 { "tool" } else { "tools" },
        families,
        if families == 1 { "family" } else { "families" },
        registry.metadata_hash()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The first paragraph of `text`, cut at a word boundary to about `width` characters.
fn summary(text: &str, width: usize) -> String {
    let first = text
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .replace('\n', " ");
    if first.chars().count() <= width {
        return first;
    }
    let mut cut: String = first.chars().take(width).collect();
    if let Some(space) = cut.rfind(' ') {
        cut.truncate(space);
    }
    cut.push('…');
    cut
}
