//! `Buril.Types.cs`: the classes, enums and unions of the tools' inputs and outputs, with the
//! converters of the unions, written in the order of [`Api::types`] with the names of the
//! plan. Classes and enums are written by `classes.rs`, unions by `unions.rs`.

use std::fmt::{self, Display};

use super::classes::{write_enum, write_struct};
use super::doc::Code;
use super::plan::{CSharpPlan, TypePlan};
use super::unions::{TaggedNames, write_tagged, write_untagged};
use crate::collections::HashMap;
use crate::ir::Api;
use crate::writer::{SourceWriter, WriterError};

/// What the top of the types file says about the mapping.
pub(crate) const PREAMBLE: &[&str] = &[
    "Types of the tools' inputs and outputs, for Newtonsoft.Json (C# 7.2 and later).",
    "",
    "Integers take the smallest C# type that holds every value their schema admits (its minimum",
    "and maximum): int (Rust i8, i16, i32, u8, u16), uint (u32), long (i64, isize), ulong (u64,",
    "usize, and u128, published up to u64::MAX), and System.Numerics.BigInteger where no",
    "fixed-size type does (i128, or a schema without bounds). BurilJson's settings read each of",
    "them exactly, to its extremes, and refuse what does not fit (BurilIntegerConverter). Other",
    "numbers are double, free-form JSON JToken.",
    "",
    "Required properties are always written. Optional properties are left out of the JSON until",
    "set; for those that also admit null, setting null writes null (ShouldSerialize{Name}).",
    "",
    "References: Newtonsoft.Json, System.Numerics, System.Runtime.Serialization.",
];

/// Writes every named type, sorted by name.
pub(crate) fn write_types(
    w: &mut SourceWriter,
    api: &Api,
    plan: &CSharpPlan<'_>,
) -> Result<(), WriterError> {
    let fallbacks = tool_type_summaries(api);
    let mut first = true;
    for names in &plan.types {
        if !first {
            w.blank();
        }
        first = false;
        let given = fallbacks.get(names.name());
        let code = Code(names.name());
        let fallback: &dyn Display = match given {
            Some(given) => given,
            None => &code,
        };
        match names {
            TypePlan::Struct { def, properties } => {
                write_struct(w, api, def, properties, fallback)?;
            }
            TypePlan::Enum { def, members } => write_enum(w, def, members, fallback),
            TypePlan::TaggedUnion {
                def,
                converter,
                tag,
                variants,
            } => {
                let names = TaggedNames {
                    converter,
                    tag,
                    variants,
                };
                write_tagged(w, api, def, names, fallback)?;
            }
            TypePlan::Untagged {
                def,
                converter,
                labels,
            } => write_untagged(w, api, def, converter, labels, fallback)?,
        }
    }
    Ok(())
}

/// Summaries for types without a description: the inputs and outputs of the tools.
fn tool_type_summaries(api: &Api) -> HashMap<&str, ToolTypeSummary<'_>> {
    let mut out = HashMap::with_capacity_and_hasher(2 * api.tools.len(), Default::default());
    for tool in &api.tools {
        out.insert(
            tool.input_type.as_str(),
            ToolTypeSummary::Input(&tool.meta.name),
        );
        out.insert(
            tool.output_type.as_str(),
            ToolTypeSummary::Output(&tool.meta.name),
        );
    }
    out
}

/// The summary of a tool's input or output type, by the tool's wire name; worded as it is
/// written.
#[derive(Clone, Copy)]
enum ToolTypeSummary<'a> {
    /// "The input of `tool`."
    Input(&'a str),
    /// "What `tool` answers."
    Output(&'a str),
}

impl Display for ToolTypeSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolTypeSummary::Input(tool) => write!(f, "The input of {}.", Code(tool)),
            ToolTypeSummary::Output(tool) => write!(
                f,
                "What {} answers (the envelope's <c>data</c>).",
                Code(tool)
            ),
        }
    }
}
