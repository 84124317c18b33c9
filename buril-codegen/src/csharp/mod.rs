//! The C# writer (Unity editor side, Newtonsoft.Json).
//!
//! Four files under `csharp/` (five with editor tools), all in the block-scoped namespace `Buril.Generated`, written for
//! C# 7.2 (Mono's `mcs -langversion:7.2`, Unity) and Newtonsoft.Json 6 or later:
//!
//! - `Buril.Client.cs`: `BurilClient`'s typed methods, a blocking `{Tool}` and a `{Tool}Async`
//!   per tool, plus `[Obsolete]` ones for deprecated aliases; each sends the bindings' metadata
//!   hash (`MetadataHash`) and the tool's own.
//! - `Buril.Runtime.cs`: what does not depend on the tools: `ITool`, `IToolTransport` and
//!   `IMcpToolTransport`, the MCP transports (`BurilProcessTransport` over `tools serve`'s stdio,
//!   `BurilHttpTransport` over Streamable HTTP), the exceptions (`BurilToolException`,
//!   `ToolValidationException`, `BurilTransportException`), `BurilJson` (settings and
//!   envelopes) and the client's plumbing.
//! - `Buril.Tools.cs`: one abstract `{Tool}Tool : ITool` per tool done here, whose `Run` reads
//!   the input into `{Tool}Input` and calls `Execute`, and `BurilCatalog`.
//! - `Buril.EditorTools.cs`, when some tools are declared in Rust and done in the editor
//!   (`#[tool(editor)]`): their abstract classes, the same way, which the editor's
//!   implementations subclass and the Unity package's host serves.
//! - `Buril.Types.cs`: the inputs, outputs and the types they use: sealed partial classes,
//!   string enums, tagged unions (an abstract base, a class per variant and a converter) and
//!   untagged unions (the JSON value and typed accessors).
//!
//! Integers are `int`, `uint`, `long`, `ulong` or `System.Numerics.BigInteger`, by the range
//! their schema admits ([`TypeRef::integer`](crate::ir::TypeRef::integer); the top of
//! `Buril.Types.cs` says it too), read exactly by the runtime's `BurilIntegerConverter`. Every
//! name is decided before anything is written (`plan.rs`), as the TypeScript writer
//! does: names that would clash are reported as [`WriterError`]s; nothing is renamed silently
//! except a property named like its class or an `object` member, which gets a trailing `_`.
//!
//! No generated type takes a name that `UnityEngine`, `UnityEditor` or `System` gives a type an
//! editor script commonly uses (`reserved.rs`): `Color` is written `ColorData`, saying so at the
//! top of `Buril.Types.cs` and in the generator's report, so that `using UnityEngine;` and
//! `using Buril.Generated;` sit in one file without an ambiguous reference.
//!
//! `Buril.Runtime.cs` is the C# files of this crate's `runtime/csharp/`, one per concern,
//! joined into one namespace block (`runtime.rs`) and written out after the header as they are.

mod classes;
mod client;
mod doc;
mod error;
mod identifiers;
mod literal;
mod name_tables;
mod plan;
mod properties;
mod reserved;
mod runtime;
mod tools;
mod type_refs;
mod types;
mod unions;

use self::error::LANGUAGE;
use self::plan::CSharpPlan;
use crate::ir::Api;
use crate::writer::{GeneratedFile, LanguageWriter, SourceWriter, WriterError, header_lines};

pub use self::runtime::NAMESPACE;
pub(crate) use self::runtime::UNITY_RUNTIME;

/// Each type whose name a Unity editor script already has (`Color`, `Component`, `Object`…),
/// and the name the C# bindings give it instead (`ColorData`): notes for the report.
pub fn renamed_types(api: &Api) -> Vec<(String, String)> {
    reserved::renames(api)
}

/// Writes C# for Mono's `mcs -langversion:7.2` and Newtonsoft.Json.
#[derive(Debug, Clone, Default)]
pub struct CSharp;

impl LanguageWriter for CSharp {
    fn language(&self) -> &'static str {
        LANGUAGE
    }

    fn write(&self, api: &Api) -> Result<Vec<GeneratedFile>, WriterError> {
        let renamed = reserved::renames(api);
        let api = &*reserved::avoid(api, &renamed);
        let plan = CSharpPlan::new(api)?;

        let mut files = Vec::new();

        let mut w = file(api, &[], 1024);
        client::write_client(&mut w, api, &plan);
        files.push(finish(w, "csharp/Buril.Client.cs"));

        let mut w = SourceWriter::new("    ");
        for line in header_lines(api) {
            w.line_fmt(format_args!("// {line}"));
        }
        w.blank();
        w.line(runtime::runtime_for(api).trim_end());
        files.push(GeneratedFile {
            path: "csharp/Buril.Runtime.cs".to_owned(),
            contents: w.finish(),
        });

        let mut w = file(api, &[], 4096);
        tools::write_tools(&mut w, api, &plan);
        files.push(finish(w, "csharp/Buril.Tools.cs"));

        if tools::has_editor_tools(api) {
            let mut w = file(api, &[], 4096);
            tools::write_editor_tools(&mut w, api, &plan);
            files.push(finish(w, "csharp/Buril.EditorTools.cs"));
        }

        let mut preamble: Vec<String> = types::PREAMBLE
            .iter()
            .map(|&line| line.to_owned())
            .collect();
        if !renamed.is_empty() {
            preamble.push(String::new());
            preamble.push(
                "Renamed, so that a script that also has `using UnityEngine;`, `using UnityEditor;` or"
                    .to_owned(),
            );
            preamble.push("`using System;` can name both (the JSON is unchanged):".to_owned());
            for (from, to) in &renamed {
                preamble.push(format!("  {from} is {to}"));
            }
        }
        let preamble: Vec<&str> = preamble.iter().map(String::as_str).collect();
        let mut w = file(api, &preamble, 4096);
        types::write_types(&mut w, api, &plan)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The runtime file is in the namespace of everything generated, block-scoped.
    #[test]
    fn the_runtime_is_in_the_namespace() {
        let opening = format!("\nnamespace {NAMESPACE}\n{{\n");
        assert_eq!(runtime::RUNTIME.matches(&opening).count(), 1);
        assert!(runtime::RUNTIME.ends_with("\n}\n"));
    }
}
