//! `client.ts`: `callTool` (fixed: `runtime/typescript/client.ts`), one typed function per
//! tool, and a deprecated forwarding function per alias.

use super::jsdoc::{Doc, escape};
use super::plan::TypeScriptPlan;
use super::strings::string_literal;
use crate::ir::{Api, ToolDef, TypeDef};
use crate::writer::SourceWriter;

/// The fixed start of `client.ts`: its imports, a blank line, and `callTool`.
const FIXED: &str = include_str!("../../runtime/typescript/client.ts");

/// The import the typed functions need, written after the fixed imports when there are tools
/// (an unused import would fail `--noUnusedLocals`).
const TYPES_IMPORT: &str = "import type * as Types from \"./types.js\";";

/// Writes the body of `client.ts` (after the header).
pub(crate) fn write(w: &mut SourceWriter, api: &Api, plan: &TypeScriptPlan) {
    let (imports, call_tool) = FIXED.split_once("\n\n").unwrap_or(("", FIXED));
    for line in imports.lines() {
        w.line(line);
    }
    if !api.tools.is_empty() {
        w.line(TYPES_IMPORT);
    }
    w.blank();
    for line in call_tool.lines() {
        w.line(line);
    }
    for (tool, names) in api.tools.iter().zip(&plan.tools) {
        w.blank();
        let name = escape(&tool.meta.name);
        let doc = Doc::new().text(&tool.meta.description).paragraph(format!(
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
    let default = match api.types.get(&tool.input_type) {
        Some(TypeDef::Struct(input)) if input.fields.iter().all(|f| !f.required) => " = {}",
        _ => "",
    };
    w.line_fmt(format_args!("export function {function}("));
    w.indent();
    w.line("transport: ToolTransport,");
    w.line_fmt(format_args!("input: Types.{}{default},", tool.input_type));
    w.line("options?: CallOptions,");
    w.dedent();
    w.line_fmt(format_args!("): Promise<Types.{}> {{", tool.output_type));
    w.indent();
    w.line_fmt(format_args!(
        "return callTool(transport, {}, input, options);",
        string_literal(&tool.meta.name)
    ));
    w.dedent();
    w.line("}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed part is imports only up to its first blank line, and `callTool` after it.
    #[test]
    fn the_fixed_part_is_imports_then_call_tool() {
        let (imports, call_tool) = FIXED.split_once("\n\n").expect("a blank line");
        assert!(imports.lines().all(|line| line.starts_with("import ")));
        assert!(call_tool.starts_with("/**\n"));
        assert!(call_tool.contains("export function callTool<"));
        assert!(!FIXED.contains(TYPES_IMPORT));
    }
}
