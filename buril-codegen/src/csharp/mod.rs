//! The C# writer (Unity editor side, Newtonsoft.Json).
//!
//! Four files under `csharp/`, all in the block-scoped namespace `Buril.Generated`, written for
//! C# 7.2 (Mono's `mcs -langversion:7.2`, Unity) and Newtonsoft.Json 6 or later:
//!
//! - `Buril.Client.cs`: `BurilClient`'s typed methods, one per tool, plus `[Obsolete]` ones for
//!   deprecated aliases.
//! - `Buril.Runtime.cs`: what does not depend on the tools: `ITool`, `IToolTransport`, the
//!   exceptions, `BurilJson` (settings and envelopes) and the client's plumbing.
//! - `Buril.Tools.cs`: one abstract `{Tool}Tool : ITool` per tool, whose `Run` reads the input
//!   into `{Tool}Input` and calls `Execute`, and `BurilCatalog`.
//! - `Buril.Types.cs`: the inputs, outputs and the types they use: sealed partial classes,
//!   string enums, tagged unions (an abstract base, a class per variant and a converter) and
//!   untagged unions (the JSON value and typed accessors).
//!
//! Integers beyond 32 bits are `System.Numerics.BigInteger` (the top of `Buril.Types.cs` says why). Names
//! that would clash are reported as [`WriterError`]s; nothing is renamed silently except a
//! property named like its class or an `object` member, which gets a trailing `_`.

mod client;
mod names;
mod runtime;
mod text;
mod tools;
mod types;

use crate::HashMap;

use crate::ir::{Api, TypeDef};
use crate::writer::{GeneratedFile, LanguageWriter, SourceWriter, WriterError, header_lines};

use names::{TypeNames, What};

/// The language's name in errors.
const LANGUAGE: &str = "C#";

/// The namespace of everything generated.
pub const NAMESPACE: &str = "Buril.Generated";

/// Writes C# for Mono's `mcs -langversion:7.2` and Newtonsoft.Json.
#[derive(Debug, Clone, Default)]
pub struct CSharp;

impl LanguageWriter for CSharp {
    fn language(&self) -> &'static str {
        LANGUAGE
    }

    fn write(&self, api: &Api) -> Result<Vec<GeneratedFile>, WriterError> {
        check_type_names(api)?;
        client::check(api)?;

        let mut files = Vec::new();

        let mut w = file(api, &[], 1024);
        client::write_client(&mut w, api)?;
        files.push(finish(w, "csharp/Buril.Client.cs"));

        let mut w = SourceWriter::new("    ");
        for line in header_lines(api) {
            w.line_fmt(format_args!("// {line}"));
        }
        w.blank();
        w.line(runtime::RUNTIME.trim_end());
        files.push(GeneratedFile {
            path: "csharp/Buril.Runtime.cs".to_owned(),
            contents: w.finish(),
        });

        let mut w = file(api, &[], 4096);
        tools::write_tools(&mut w, api)?;
        files.push(finish(w, "csharp/Buril.Tools.cs"));

        let mut w = file(api, types::PREAMBLE, 4096);
        types::write_types(&mut w, api, &fallback_summaries(api))?;
        files.push(finish(w, "csharp/Buril.Types.cs"));

        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }
}

/// A file's header, preamble and namespace opening, with room for about `per_tool` bytes per
/// tool (the file then grows without being copied).
fn file(api: &Api, preamble: &[&str], per_tool: usize) -> SourceWriter {
    let mut w = SourceWriter::with_capacity("    ", 4096 + per_tool * api.tools.len());
    for line in header_lines(api) {
        w.line_fmt(format_args!("// {line}"));
    }
    if !preamble.is_empty() {
        w.blank();
        for line in preamble {
            if line.is_empty() {
                w.line("//");
            } else {
                w.line_fmt(format_args!("// {line}"));
            }
        }
    }
    w.blank();
    w.line_fmt(format_args!("namespace {NAMESPACE}"));
    w.line("{");
    w.indent();
    w
}

/// Closes the namespace.
fn finish(mut w: SourceWriter, path: &str) -> GeneratedFile {
    w.dedent();
    w.line("}");
    GeneratedFile {
        path: path.to_owned(),
        contents: w.finish(),
    }
}

/// Takes every generated type name, failing on a clash with another or with the runtime.
fn check_type_names(api: &Api) -> Result<(), WriterError> {
    let mut names = TypeNames::with_runtime();
    for def in api.types.values() {
        let name = def.name();
        match def {
            TypeDef::Struct(_) => names.add(name, What::Class(name))?,
            TypeDef::Enum(_) => names.add(name, What::Enum(name))?,
            TypeDef::TaggedUnion(union) => {
                names.add(name, What::TaggedUnion(name))?;
                names.add(types::converter_name(name), What::Converter(name))?;
                for variant in &union.variants {
                    names.add(
                        variant.name.as_str(),
                        What::Variant {
                            tag: &variant.tag_value,
                            union: name,
                        },
                    )?;
                }
            }
            TypeDef::Untagged(_) => {
                names.add(name, What::Union(name))?;
                names.add(types::converter_name(name), What::Converter(name))?;
            }
        }
    }
    for tool in &api.tools {
        names.add(tools::tool_class(tool), What::ToolClass(&tool.name))?;
    }
    Ok(())
}

/// Summaries for types without a description: the inputs and outputs of the tools.
fn fallback_summaries(api: &Api) -> HashMap<&str, Fallback<'_>> {
    let mut out = HashMap::with_capacity_and_hasher(2 * api.tools.len(), Default::default());
    for tool in &api.tools {
        out.insert(tool.input.as_str(), Fallback::Input(&tool.name));
        out.insert(tool.output.as_str(), Fallback::Output(&tool.name));
    }
    out
}

/// The summary of a tool's input or output type, by the tool's wire name; worded as it is
/// written.
#[derive(Clone, Copy)]
pub(crate) enum Fallback<'a> {
    /// "The input of `tool`."
    Input(&'a str),
    /// "What `tool` answers."
    Output(&'a str),
}

impl std::fmt::Display for Fallback<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fallback::Input(tool) => write!(f, "The input of {}.", text::Code(tool)),
            Fallback::Output(tool) => write!(
                f,
                "What {} answers (the envelope's <c>data</c>).",
                text::Code(tool)
            ),
        }
    }
}
