//! Agent skills: one `SKILL.md` per family, for clients that load skills.

use std::collections::BTreeMap;

use crate::ir::{Api, Field, ToolDef, TypeDef, TypeRef};
use crate::writer::{GeneratedFile, LanguageWriter, WriterError, header_lines};

/// Writes `skills/<family>/SKILL.md`: YAML front matter (`name`, `description`), then each
/// tool's purpose, parameters and result.
#[derive(Debug, Clone)]
pub struct Skills {
    command: String,
}

impl Default for Skills {
    fn default() -> Self {
        Skills {
            command: "tools".to_owned(),
        }
    }
}

/// Skill names: lowercase letters, digits and hyphens, at most 64 characters.
const MAX_NAME: usize = 64;
/// Skill descriptions: at most 1024 characters.
const MAX_DESCRIPTION: usize = 1024;

impl Skills {
    /// Skills whose examples call the tools through `command` (default `tools`), the binary
    /// that serves them.
    pub fn with_command(command: impl Into<String>) -> Self {
        Skills {
            command: command.into(),
        }
    }
}

impl LanguageWriter for Skills {
    fn language(&self) -> &'static str {
        "skills"
    }

    fn write(&self, api: &Api) -> Result<Vec<GeneratedFile>, WriterError> {
        let mut families: BTreeMap<&str, Vec<&ToolDef>> = BTreeMap::new();
        for tool in &api.tools {
            families
                .entry(tool.meta.family.as_ref())
                .or_default()
                .push(tool);
        }
        let mut files = Vec::new();
        for (family, tools) in families {
            let name = format!("{}-tools", family.replace('_', "-"));
            if name.len() > MAX_NAME {
                return Err(WriterError {
                    language: "skills",
                    message: format!(
                        "the skill name `{name}` is longer than {MAX_NAME} characters"
                    ),
                });
            }
            files.push(GeneratedFile {
                path: format!("skills/{name}/SKILL.md"),
                contents: self.skill(api, family, &name, &tools),
            });
        }
        Ok(files)
    }
}

impl Skills {
    fn skill(&self, api: &Api, family: &str, name: &str, tools: &[&ToolDef]) -> String {
        let summaries: Vec<String> = tools
            .iter()
            .map(|t| {
                format!(
                    "{}: {}",
                    t.meta.name,
                    lowercase_first(&first_sentence(&t.meta.description))
                )
            })
            .collect();
        let mut description = format!("Tools of the `{family}` family. {}", summaries.join(" "));
        if description.len() > MAX_DESCRIPTION {
            let mut cut = MAX_DESCRIPTION - 3;
            while !description.is_char_boundary(cut) {
                cut -= 1;
            }
            description.truncate(cut);
            description.push_str("...");
        }
        let mut out = String::new();
        out.push_str("---\n");
        out.push_str(&format!("name: {name}\n"));
        out.push_str(&format!("description: {}\n", yaml_string(&description)));
        out.push_str("---\n");
        out.push_str("<!--\n");
        for line in header_lines(api) {
            out.push_str(&format!("  {line}\n"));
        }
        out.push_str("-->\n\n");
        out.push_str(&format!("# The `{family}` tools\n\n"));
        out.push_str(&format!(
            "Call a tool with `{} call <name> '<json input>'`; it prints `{{\"ok\": true, \"data\": ...}}` \
             or `{{\"ok\": false, \"type\": ..., \"error\": ...}}` and exits 0 only on success. \
             `{} describe <name>` shows the full schemas.\n",
            self.command, self.command
        ));
        for tool in tools {
            out.push('\n');
            self.tool(api, tool, &mut out);
        }
        out
    }

    fn tool(&self, api: &Api, tool: &ToolDef, out: &mut String) {
        let meta = &tool.meta;
        out.push_str(&format!("## `{}`\n\n", meta.name));
        out.push_str(&markdown_text(&meta.description));
        out.push_str("\n\n");
        let mut notes = Vec::new();
        if meta.dangerous {
            notes.push("dangerous: off until the host enables it".to_owned());
        }
        if meta.annotations.read_only == Some(true) {
            notes.push("read-only".to_owned());
        }
        if meta.annotations.destructive == Some(true) {
            notes.push("destructive".to_owned());
        }
        if !meta.aliases.is_empty() {
            notes.push(format!(
                "formerly {}",
                meta.alias_names()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !notes.is_empty() {
            out.push_str(&format!("*{}*\n\n", notes.join("; ")));
        }
        match api.types.get(&tool.input_type) {
            Some(TypeDef::Struct(input)) if !input.fields.is_empty() => {
                out.push_str("Parameters:\n\n");
                for field in &input.fields {
                    out.push_str(&parameter_line(api, field));
                }
                out.push('\n');
            }
            _ => out.push_str("Parameters: none.\n\n"),
        }
        if let Some(TypeDef::Struct(output)) = api.types.get(&tool.output_type)
            && !output.fields.is_empty()
        {
            let fields: Vec<String> = output
                .fields
                .iter()
                .map(|f| format!("`{}` ({})", f.wire, type_name(api, &f.ty)))
                .collect();
            out.push_str(&format!("Returns: {}.\n\n", fields.join(", ")));
        }
        out.push_str(&format!(
            "```sh\n{} call {} '{}'\n```\n",
            self.command,
            meta.name,
            example_input(api, tool).replace('\'', "'\\''")
        ));
    }
}

fn parameter_line(api: &Api, field: &Field) -> String {
    let need = if field.required {
        "required"
    } else {
        "optional"
    };
    let mut line = format!("- `{}` ({}, {need})", field.wire, type_name(api, &field.ty));
    if let Some(description) = &field.description {
        line.push_str(": ");
        line.push_str(&markdown_text(description).replace('\n', " "));
    }
    line.push('\n');
    line
}

/// A readable type: `string`, `integer`, `array of Vec3`, `one of "a", "b"`.
fn type_name(api: &Api, ty: &TypeRef) -> String {
    match ty {
        TypeRef::String => "string".into(),
        TypeRef::Bool => "boolean".into(),
        TypeRef::Int32
        | TypeRef::UInt32
        | TypeRef::Int64
        | TypeRef::UInt64
        | TypeRef::BigInteger => "integer".into(),
        TypeRef::Float64 => "number".into(),
        TypeRef::Json => "any JSON".into(),
        TypeRef::Array(items) => format!("array of {}", type_name(api, items)),
        TypeRef::Map(values) => format!("object of {}", type_name(api, values)),
        TypeRef::Nullable(inner) => format!("{} or null", type_name(api, inner)),
        TypeRef::Named(name) => match api.types.get(name) {
            Some(TypeDef::Enum(def)) => format!(
                "one of {}",
                def.variants
                    .iter()
                    .map(|v| format!("\"{}\"", v.wire))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(TypeDef::Struct(def)) => format!(
                "object with {}",
                def.fields
                    .iter()
                    .map(|f| f.wire.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(TypeDef::TaggedUnion(def)) => format!(
                "object whose `{}` is {}",
                def.tag,
                def.variants
                    .iter()
                    .map(|v| format!("\"{}\"", v.tag_value))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
            _ => name.clone(),
        },
    }
}

/// An input with every required property, filled with placeholder values.
fn example_input(api: &Api, tool: &ToolDef) -> String {
    let mut parts = Vec::new();
    if let Some(TypeDef::Struct(input)) = api.types.get(&tool.input_type) {
        for field in input.fields.iter().filter(|f| f.required) {
            parts.push(format!(
                "\"{}\": {}",
                field.wire,
                example_value(api, &field.ty, 0)
            ));
        }
    }
    format!("{{{}}}", parts.join(", "))
}

fn example_value(api: &Api, ty: &TypeRef, depth: usize) -> String {
    match ty {
        TypeRef::String => "\"...\"".into(),
        TypeRef::Bool => "true".into(),
        TypeRef::Int32
        | TypeRef::UInt32
        | TypeRef::Int64
        | TypeRef::UInt64
        | TypeRef::BigInteger => "1".into(),
        TypeRef::Float64 => "1.0".into(),
        TypeRef::Json | TypeRef::Map(_) => "{}".into(),
        TypeRef::Array(_) => "[]".into(),
        TypeRef::Nullable(_) => "null".into(),
        TypeRef::Named(name) => match api.types.get(name) {
            Some(TypeDef::Enum(def)) => def
                .variants
                .first()
                .map_or("\"...\"".into(), |v| format!("\"{}\"", v.wire)),
            Some(TypeDef::Struct(def)) if depth < 3 => {
                let fields: Vec<String> = def
                    .fields
                    .iter()
                    .filter(|f| f.required)
                    .map(|f| format!("\"{}\": {}", f.wire, example_value(api, &f.ty, depth + 1)))
                    .collect();
                format!("{{{}}}", fields.join(", "))
            }
            Some(TypeDef::TaggedUnion(def)) => def.variants.first().map_or("{}".into(), |v| {
                format!("{{\"{}\": \"{}\"}}", def.tag, v.tag_value)
            }),
            _ => "{}".into(),
        },
    }
}

fn first_sentence(text: &str) -> String {
    let paragraph = text
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .replace('\n', " ");
    match paragraph.find(". ") {
        Some(end) => paragraph[..=end].to_owned(),
        None => paragraph,
    }
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Text from a description, kept from opening HTML comments or front matter.
fn markdown_text(text: &str) -> String {
    text.replace("<!--", "&lt;!--").replace("\n---", "\n\\---")
}

/// A YAML double-quoted scalar.
fn yaml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
