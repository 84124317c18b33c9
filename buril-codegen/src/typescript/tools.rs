//! `tools.ts`: one definition constant per tool (name, description, schemas, MCP annotations),
//! the list of them, the alias table, and the types that tie wire names to input and output
//! types (`ToolMap`, handlers).

use super::jsdoc::{Doc, escape};
use super::json_literal::json_literal;
use super::keys::{literal_key, type_key};
use super::layout::{write_list, write_multiline};
use super::plan::TypeScriptPlan;
use super::strings::string_literal;
use crate::ir::{Api, ToolDef};
use crate::writer::SourceWriter;

/// The handler types that end `tools.ts`: the same for every API.
const HANDLERS: &str = include_str!("../../runtime/typescript/tool-handlers.ts");

/// Writes the body of `tools.ts` (after the header).
pub(crate) fn write(w: &mut SourceWriter, api: &Api, plan: &TypeScriptPlan) -> Result<(), String> {
    if !api.tools.is_empty() {
        w.line("import type * as Types from \"./types.js\";");
        w.blank();
    }
    Doc::new()
        .text(
            "The hash of the tool metadata these bindings were generated from (the one in the header): \
             `callTool` sends it with every call, and the server answers with its own.",
        )
        .write(w);
    w.line_fmt(format_args!(
        "export const METADATA_HASH = {};",
        string_literal(&api.hash)
    ));
    w.blank();
    for (tool, names) in api.tools.iter().zip(&plan.tools) {
        write_definition(w, tool, &names.constant)?;
        w.blank();
    }
    Doc::new()
        .text("Every tool definition, sorted by name: the `tools/list` of an MCP server.")
        .write(w);
    let constants: Vec<String> = plan.tools.iter().map(|n| n.constant.clone()).collect();
    write_list(w, "export const tools = [", &constants, "] as const;");
    w.blank();
    write_aliases(w, api);
    w.blank();
    write_tool_map(w, api);
    w.blank();
    w.line("/** A tool's wire name. */");
    w.line("export type ToolName = keyof ToolMap;");
    w.blank();
    for line in HANDLERS.lines() {
        w.line(line);
    }
    Ok(())
}

fn write_definition(w: &mut SourceWriter, tool: &ToolDef, constant: &str) -> Result<(), String> {
    let meta = &tool.meta;
    let name = escape(&meta.name);
    Doc::new()
        .text(&meta.description)
        .paragraph(format!(
            "The definition of `{name}`, as MCP's `tools/list` shows it."
        ))
        .write(w);
    w.line_fmt(format_args!("export const {constant} = {{"));
    w.indent();
    w.line_fmt(format_args!("name: {},", string_literal(&meta.name)));
    if let Some(title) = &meta.annotations.title {
        w.line_fmt(format_args!("title: {},", string_literal(title)));
    }
    w.line_fmt(format_args!(
        "description: {},",
        string_literal(&meta.description)
    ));
    w.line_fmt(format_args!(
        "metadataHash: {},",
        string_literal(&tool.metadata_hash())
    ));
    if meta.task.is_task() {
        // How a call goes: a task (`startTask`) where the client follows tasks.
        w.line_fmt(format_args!(
            "task: {},",
            string_literal(meta.task.as_str())
        ));
    }
    for (key, json) in [
        ("inputSchema", &tool.input_schema_json),
        ("outputSchema", &tool.output_schema_json),
    ] {
        let literal = json_literal(json)
            .map_err(|e| format!("the {key} of `{}` is not JSON: {e}", meta.name))?;
        write_multiline(w, &format!("{key}: "), &literal, ",");
    }
    let annotations = &meta.annotations;
    let hints = [
        ("readOnlyHint", annotations.read_only),
        ("destructiveHint", annotations.destructive),
        ("idempotentHint", annotations.idempotent),
        ("openWorldHint", annotations.open_world),
    ];
    let hints: Vec<String> = hints
        .iter()
        .filter_map(|(key, value)| value.map(|v| format!("{key}: {v}")))
        .collect();
    if !hints.is_empty() {
        w.line_fmt(format_args!("annotations: {{ {} }},", hints.join(", ")));
    }
    w.dedent();
    w.line("} as const;");
    Ok(())
}

fn write_aliases(w: &mut SourceWriter, api: &Api) {
    Doc::new()
        .text("Deprecated former tool names, each with the name that replaced it.")
        .write(w);
    let mut entries: Vec<(&str, &str)> = api
        .tools
        .iter()
        .flat_map(|t| t.meta.alias_names().map(|a| (a, t.meta.name.as_ref())))
        .collect();
    entries.sort();
    if entries.is_empty() {
        w.line("export const toolAliases = {} as const;");
        return;
    }
    w.line("export const toolAliases = {");
    w.indent();
    for (alias, name) in entries {
        w.line_fmt(format_args!(
            "/** @deprecated `{}` was renamed to `{}`. */",
            escape(alias),
            escape(name)
        ));
        w.line_fmt(format_args!(
            "{}: {},",
            literal_key(alias),
            string_literal(name)
        ));
    }
    w.dedent();
    w.line("} as const;");
}

fn write_tool_map(w: &mut SourceWriter, api: &Api) {
    Doc::new()
        .text("Every tool's input and output types, by wire name.")
        .write(w);
    if api.tools.is_empty() {
        w.line("export interface ToolMap {}");
        return;
    }
    w.line("export interface ToolMap {");
    w.indent();
    for tool in &api.tools {
        let summary = tool
            .meta
            .description
            .split("\n\n")
            .next()
            .unwrap_or_default();
        Doc::new().text(summary).write(w);
        let task = if tool.meta.task.is_task() {
            format!("; task: {}", string_literal(tool.meta.task.as_str()))
        } else {
            String::new()
        };
        w.line_fmt(format_args!(
            "{}: {{ input: Types.{}; output: Types.{}{task} }};",
            type_key(&tool.meta.name),
            tool.input_type,
            tool.output_type
        ));
    }
    w.dedent();
    w.line("}");
}
