//! Hand-built tools with hostile names, descriptions, property names and enum values, and tools
//! named like keywords: the generated code must still compile and embed them unchanged.

use buril_codegen::ToolSource;
use serde_json::{Value, json};

/// Text that tries to end comments and strings and to inject tags and code.
pub const TEXT: &str = "*/ /* `tick` ${x} \"dq\" 'sq' </script> <!-- \u{2028}line\u{2029}para\n\
                        @deprecated injected\n{@link x} \\ back \r\n*/ export const pwned = 1; /*\n\
                        // comment \u{0} nul \t tab";

/// Tool names that are keywords (reserved or contextual) somewhere in JavaScript or TypeScript.
pub const KEYWORD_TOOLS: &[&str] = &[
    "abstract",
    "any",
    "arguments",
    "as",
    "async",
    "await",
    "bigint",
    "boolean",
    "class",
    "const",
    "constructor",
    "declare",
    "default",
    "delete",
    "enum",
    "eval",
    "export",
    "exports",
    "from",
    "function",
    "get",
    "global",
    "implements",
    "import",
    "infer",
    "interface",
    "is",
    "keyof",
    "let",
    "module",
    "namespace",
    "never",
    "new",
    "null",
    "number",
    "object",
    "of",
    "package",
    "readonly",
    "require",
    "satisfies",
    "set",
    "static",
    "string",
    "symbol",
    "this",
    "true",
    "type",
    "undefined",
    "unknown",
    "using",
    "var",
    "void",
    "yield",
];

fn empty() -> Value {
    json!({"type": "object", "additionalProperties": false})
}

fn source(name: &str, description: &str, input: Value, output: Value) -> ToolSource {
    let mut source = ToolSource::new(name, input, output);
    source.meta.description = description.to_owned().into();
    source.meta.family = "hostile".into();
    source
}

/// The hostile tool: every string of it is [`TEXT`] or a name that needs quoting.
pub fn hostile_tool() -> ToolSource {
    let tagged = json!({
        "description": TEXT,
        "oneOf": [
            {
                "type": "object",
                "description": TEXT,
                "properties": {
                    "k-ind": {"type": "string", "const": "x*/y"},
                    "*/": {"type": "string", "description": TEXT},
                },
                "required": ["k-ind", "*/"],
            },
            {
                "type": "object",
                "properties": {"k-ind": {"type": "string", "const": "</script>"}},
                "required": ["k-ind"],
            },
        ],
    });
    let input = json!({
        "type": "object",
        "description": TEXT,
        "properties": {
            "*/": {"type": "string", "description": TEXT},
            "with-dash": {"type": "integer", "format": "uint8"},
            "__proto__": {"type": "string", "description": "a property named `__proto__`"},
            "a\"b": {"type": "boolean"},
            "${x}": {"type": "number"},
            "line\u{2028}sep": {"type": ["string", "null"]},
            "class": {"type": "string"},
            "choice": {
                "type": "string",
                "description": TEXT,
                "enum": ["*/", "\"quote\"", "${x}", "`tick`", "</script>", "line\u{2028}", "\\"],
            },
            "tagged": tagged,
        },
        "required": ["*/", "__proto__", "choice", "tagged"],
        "additionalProperties": false,
    });
    let output = json!({
        "type": "object",
        "description": TEXT,
        "properties": {"*/": {"type": "string", "description": TEXT}},
        "required": ["*/"],
        "additionalProperties": false,
    });
    let mut tool = source("hostile.tool-name", TEXT, input, output);
    tool.meta.annotations.title = Some(TEXT.into());
    tool.meta.aliases = vec!["hostile*/alias".into()].into();
    tool.meta.annotations.read_only = Some(true);
    tool.meta.annotations.open_world = Some(false);
    tool
}

/// One tool per keyword of [`KEYWORD_TOOLS`], the first with a keyword alias too.
pub fn keyword_tools() -> Vec<ToolSource> {
    KEYWORD_TOOLS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut tool = source(name, TEXT, empty(), empty());
            if i == 0 {
                tool.meta.aliases = vec!["switch".into()].into();
            }
            tool
        })
        .collect()
}

/// A tool whose input and output are plain, for building collisions.
pub fn plain(name: &str) -> ToolSource {
    source(name, "A plain tool.", empty(), empty())
}

/// A tool whose input refers to a definition named `type_name`.
pub fn with_type(tool: &str, type_name: &str, definition: Value) -> ToolSource {
    let input = json!({
        "type": "object",
        "properties": {"value": {"$ref": format!("#/$defs/{type_name}")}},
        "required": ["value"],
        "$defs": {type_name: definition},
    });
    source(tool, "A tool with a named type.", input, empty())
}
