//! `Buril.Tools.cs`: one abstract `ITool` class per tool, for the editor side to implement, and
//! the catalog of every tool.

use super::doc::{Code, code, remarks, summary};
use super::identifiers::{Ident, identifier};
use super::literal::{Literal, string_literal};
use super::plan::CSharpPlan;
use crate::ir::{Api, ToolDef};
use crate::writer::SourceWriter;

/// Writes the classes of the tools done here (not in the editor) and the catalog of every tool.
pub(crate) fn write_tools(w: &mut SourceWriter, api: &Api, plan: &CSharpPlan<'_>) {
    for (tool, class) in api.tools.iter().zip(&plan.tool_classes) {
        if !tool.meta.editor {
            write_tool(w, tool, class);
            w.blank();
        }
    }
    write_catalog(w, api, plan);
}

/// Whether `api` has tools done in the editor (`#[tool(editor)]`), whose classes
/// [`write_editor_tools`] writes.
pub(crate) fn has_editor_tools(api: &Api) -> bool {
    api.tools.iter().any(|tool| tool.meta.editor)
}

/// Writes the classes of the tools declared in Rust and done in the editor: the editor's
/// implementations subclass them, and the package's host serves them.
pub(crate) fn write_editor_tools(w: &mut SourceWriter, api: &Api, plan: &CSharpPlan<'_>) {
    let mut first = true;
    for (tool, class) in api.tools.iter().zip(&plan.tool_classes) {
        if tool.meta.editor {
            if !first {
                w.blank();
            }
            first = false;
            write_tool(w, tool, class);
        }
    }
}

/// Writes the abstract class `class` of one tool (a checked identifier, from the plan).
fn write_tool(w: &mut SourceWriter, tool: &ToolDef, class: &str) {
    let meta = &tool.meta;
    let input = identifier(&tool.input_type);
    let output = identifier(&tool.output_type);
    let hash = tool.metadata_hash();
    summary(w, Code(&meta.name), Some(&meta.description));
    let mut notes = vec![format!(
        "The tool {}. Subclass it and implement <see cref=\"Execute\"/>; <see cref=\"Run\"/> reads the input and wraps the output in the envelope.",
        Code(&meta.name)
    )];
    if meta.editor {
        notes.push("Declared in Rust and done in the editor: buril validates each call's input against <see cref=\"InputSchema\"/>, then the editor's host runs <see cref=\"Execute\"/>; buril refuses a class whose <see cref=\"MetadataHash\"/> is not its declaration's.".to_owned());
    }
    if meta.dangerous {
        notes.push("Dangerous: it stays off until a host enables it.".to_owned());
    }
    if !meta.aliases.is_empty() {
        let aliases: Vec<String> = meta.alias_names().map(code).collect();
        notes.push(format!("Deprecated former names: {}.", aliases.join(", ")));
    }
    remarks(w, &notes);
    if meta.threading.is_off_thread() {
        w.line("[OffThreadAttribute]");
    }
    w.line_fmt(format_args!(
        "public abstract partial class {class} : ITool, IBurilDeclaredTool"
    ));
    w.line("{");
    w.indent();
    let constants = [
        ("ToolName", "The wire name.", meta.name.as_ref()),
        (
            "ToolDescription",
            "The description.",
            meta.description.as_ref(),
        ),
        (
            "InputSchema",
            "The JSON Schema of the input, as JSON text.",
            tool.input_schema_json.as_str(),
        ),
        (
            "OutputSchema",
            "The JSON Schema of the output (the envelope's <c>data</c>), as JSON text.",
            tool.output_schema_json.as_str(),
        ),
        (
            "ToolMetadata",
            "The hash of the contract (metadata and schemas) this class was generated from.",
            hash.as_str(),
        ),
    ];
    for (name, doc, value) in constants {
        w.line_fmt(format_args!("/// <summary>{doc}</summary>"));
        w.line_fmt(format_args!(
            "public const string {name} = {};",
            Literal(value)
        ));
        w.blank();
    }
    let properties = [
        ("Name", "ToolName", "The wire name."),
        ("Description", "ToolDescription", "The description."),
        (
            "InputSchemaJson",
            "InputSchema",
            "The JSON Schema of the input, as JSON text.",
        ),
        (
            "OutputSchemaJson",
            "OutputSchema",
            "The JSON Schema of the output, as JSON text.",
        ),
        (
            "MetadataHash",
            "ToolMetadata",
            "The hash of the contract this class was generated from.",
        ),
    ];
    for (name, constant, doc) in properties {
        w.line_fmt(format_args!("/// <summary>{doc}</summary>"));
        w.line_fmt(format_args!("public string {name}"));
        w.line("{");
        w.indent();
        w.line_fmt(format_args!("get {{ return {constant}; }}"));
        w.dedent();
        w.line("}");
        w.blank();
    }
    w.line("/// <summary>Reads the input, runs <see cref=\"Execute\"/> and returns the envelope.</summary>");
    w.line("/// <param name=\"input\">The input object (null reads as <c>{}</c>).</param>");
    w.line("/// <returns>The envelope, as a <c>JObject</c>.</returns>");
    w.line("public object Run(global::Newtonsoft.Json.Linq.JObject input)");
    w.line("{");
    w.indent();
    w.line_fmt(format_args!(
        "return BurilJson.RunTool<{input}, {output}>(ToolName, input, Execute);"
    ));
    w.dedent();
    w.line("}");
    w.blank();
    w.line("/// <summary>Does the tool's work.</summary>");
    w.line("/// <param name=\"input\">The input, read and checked against the required properties.</param>");
    w.line("/// <returns>The output; never null.</returns>");
    w.line("/// <exception cref=\"ToolValidationException\">The input is refused; the agent sees why and may retry.</exception>");
    w.line_fmt(format_args!(
        "protected abstract {output} Execute({input} input);"
    ));
    w.dedent();
    w.line("}");
}

/// Writes `BurilCatalog`: every tool's metadata, and lookup by name or alias.
fn write_catalog(w: &mut SourceWriter, api: &Api, plan: &CSharpPlan<'_>) {
    w.line("/// <summary>Every tool of these bindings, sorted by name.</summary>");
    w.line("public static partial class BurilCatalog");
    w.line("{");
    w.indent();
    w.line("private static readonly BurilToolInfo[] tools = new BurilToolInfo[]");
    w.line("{");
    w.indent();
    for (tool, class) in api.tools.iter().zip(&plan.tool_classes) {
        let meta = &tool.meta;
        w.line("new BurilToolInfo(");
        w.indent();
        w.line_fmt(format_args!("{class}.ToolName,"));
        match &meta.annotations.title {
            Some(title) => w.line_fmt(format_args!("{},", Literal(title))),
            None => w.line("null,"),
        };
        w.line_fmt(format_args!("{class}.ToolDescription,"));
        w.line_fmt(format_args!("{},", Literal(&meta.family)));
        if meta.aliases.is_empty() {
            w.line("new string[0],");
        } else {
            let aliases: Vec<String> = meta.alias_names().map(string_literal).collect();
            w.line_fmt(format_args!("new string[] {{ {} }},", aliases.join(", ")));
        }
        w.line_fmt(format_args!("typeof({class}),"));
        w.line_fmt(format_args!("typeof({}),", Ident(&tool.input_type)));
        w.line_fmt(format_args!("typeof({}),", Ident(&tool.output_type)));
        w.line_fmt(format_args!("{class}.InputSchema,"));
        w.line_fmt(format_args!("{class}.OutputSchema,"));
        w.line_fmt(format_args!("{},", meta.dangerous));
        w.line_fmt(format_args!("{}),", meta.threading.is_off_thread()));
        w.dedent();
    }
    w.dedent();
    w.line("};");
    w.blank();
    w.line("/// <summary>Every tool, sorted by name.</summary>");
    w.line("public static global::System.Collections.Generic.IList<BurilToolInfo> Tools");
    w.line("{");
    w.indent();
    w.line("get { return new global::System.Collections.ObjectModel.ReadOnlyCollection<BurilToolInfo>(tools); }");
    w.dedent();
    w.line("}");
    w.blank();
    w.line("/// <summary>The tool with this name or deprecated alias, or null.</summary>");
    w.line("/// <param name=\"name\">A wire name or alias.</param>");
    w.line("/// <returns>The tool, or null.</returns>");
    w.line("public static BurilToolInfo Find(string name)");
    w.line("{");
    w.indent();
    w.line("foreach (var tool in tools)");
    w.line("{");
    w.indent();
    w.line("if (tool.Name == name || tool.Aliases.Contains(name))");
    w.line("{");
    w.indent();
    w.line("return tool;");
    w.dedent();
    w.line("}");
    w.dedent();
    w.line("}");
    w.line("return null;");
    w.dedent();
    w.line("}");
    w.dedent();
    w.line("}");
}
