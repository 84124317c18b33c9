//! `client.ts`: `callTool`, one typed function per tool, and a deprecated forwarding function
//! per alias.

use super::jsdoc::{Doc, escape};
use super::literal::string_literal;
use super::plan::Plan;
use crate::ir::{Api, ToolDef, TypeDef};
use crate::writer::SourceWriter;

/// The names `client.ts` exports besides the per-tool functions.
pub(crate) const EXPORTS: &[&str] = &["callTool"];

/// `callTool`: the same for every API.
const CALL_TOOL: &str = r#"/**
 * Calls the tool `name` through `transport`: resolves with the tool's output, or rejects with a
 * {@link BurilToolError} when the envelope says `ok: false`. Warnings of a successful call go to
 * `transport.warn`, when it is set.
 */
export async function callTool<K extends keyof ToolMap>(
  transport: ToolTransport,
  name: K,
  input: ToolMap[K]["input"],
): Promise<ToolMap[K]["output"]> {
  const envelope = await transport.call(name, input);
  if (typeof envelope !== "object" || envelope === null || typeof envelope.ok !== "boolean") {
    throw new TypeError(`${name}: the transport answered something that is not an envelope`);
  }
  if (!envelope.ok) {
    throw new BurilToolError(name, envelope);
  }
  if (envelope.warnings !== undefined && envelope.warnings.length > 0) {
    transport.warn?.(name, envelope.warnings);
  }
  return envelope.data as ToolMap[K]["output"];
}"#;

/// Writes the body of `client.ts` (after the header).
pub(crate) fn write(w: &mut SourceWriter, api: &Api, plan: &Plan) {
    w.line("import { BurilToolError } from \"./envelope.js\";");
    w.line("import type { ToolTransport } from \"./envelope.js\";");
    w.line("import type { ToolMap } from \"./tools.js\";");
    if !api.tools.is_empty() {
        w.line("import type * as Types from \"./types.js\";");
    }
    w.blank();
    for line in CALL_TOOL.lines() {
        w.line(line);
    }
    for (tool, names) in api.tools.iter().zip(&plan.tools) {
        w.blank();
        let name = escape(&tool.name);
        let doc = Doc::new().text(&tool.description).paragraph(format!(
            "Calls `{name}`; rejects with a {{@link BurilToolError}} when the call fails."
        ));
        write_function(w, api, tool, &names.function, doc);
        for (alias, function) in &names.aliases {
            w.blank();
            let doc = Doc::new().raw(format!(
                "@deprecated `{}` was renamed to `{name}`: use {{@link {}}}.",
                escape(alias),
                names.function
            ));
            write_function(w, api, tool, function, doc);
        }
    }
}

/// A typed function calling `tool` (under its current name).
fn write_function(w: &mut SourceWriter, api: &Api, tool: &ToolDef, function: &str, doc: Doc) {
    doc.write(w);
    // An input without required properties may be left out.
    let default = match api.types.get(&tool.input) {
        Some(TypeDef::Struct(input)) if input.fields.iter().all(|f| !f.required) => " = {}",
        _ => "",
    };
    w.line_fmt(format_args!("export function {function}("));
    w.indent();
    w.line("transport: ToolTransport,");
    w.line_fmt(format_args!("input: Types.{}{default},", tool.input));
    w.dedent();
    w.line_fmt(format_args!("): Promise<Types.{}> {{", tool.output));
    w.indent();
    w.line_fmt(format_args!(
        "return callTool(transport, {}, input);",
        string_literal(&tool.name)
    ));
    w.dedent();
    w.line("}");
}
