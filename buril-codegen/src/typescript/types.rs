//! `types.ts`: one declaration per named type of the IR, and the `Int64` alias.
//!
//! The file refers to no global type (`Record`, `Array`, `Promise`, ...), so a tool type named
//! like one of them cannot change the meaning of another declaration.

use std::fmt;

use crate::collections::HashMap;

use super::fixed_exports::INT64;
use super::jsdoc::{Doc, escape};
use super::keys::{TypeKey, type_key};
use super::layout::write_list;
use super::plan::TypeScriptPlan;
use super::strings::string_literal;
use crate::ir::{Api, EnumDef, Field, StructDef, TaggedUnionDef, TypeDef, TypeRef, UntaggedDef};
use crate::writer::SourceWriter;

/// Writes the body of `types.ts` (after the header).
pub(crate) fn write(w: &mut SourceWriter, api: &Api, plan: &TypeScriptPlan) {
    Doc::new()
        .text(
            "An integer that may be beyond what a double holds exactly: 64 bits (Rust `i64`, \
             `isize`, `u64`, `usize`) or wider (`i128`, or a schema without bounds). \
             It is a plain `number`, because that is what `JSON.parse` produces, so it is exact \
             only within ±`Number.MAX_SAFE_INTEGER` (2^53 - 1); beyond that, `JSON.parse` rounds \
             to the nearest double (9007199254740993 reads as 9007199254740992, and `u64::MAX` \
             as 18446744073709552000). `callTool` refuses to send an integer that is not a safe \
             integer (a `BurilToolError` of type `validation`, before the transport is called) \
             rather than send a rounded one. Keep values that need all 64 bits (hashes, random \
             ids) in strings on the Rust side. Integers of 32 bits or fewer (`i32`, `u32`, ...) \
             are plain `number`s: every one of them is exact.",
        )
        .write(w);
    w.line_fmt(format_args!("export type {INT64} = number;"));
    let purposes = purposes(api);
    for def in api.types.values() {
        w.blank();
        let purpose = purposes.get(def.name()).map(String::as_str);
        match def {
            TypeDef::Struct(def) => write_struct(w, def, purpose),
            TypeDef::Enum(def) => write_enum(w, def, plan),
            TypeDef::TaggedUnion(def) => write_tagged(w, def),
            TypeDef::Untagged(def) => write_untagged(w, def),
        }
    }
}

/// "The input of `scene_open`." for the input and output structs of each tool.
fn purposes(api: &Api) -> HashMap<&str, String> {
    let mut out = HashMap::with_capacity_and_hasher(2 * api.tools.len(), Default::default());
    for tool in &api.tools {
        let name = escape(&tool.meta.name);
        out.insert(tool.input_type.as_str(), format!("The input of `{name}`."));
        out.insert(
            tool.output_type.as_str(),
            format!("The output of `{name}` (the envelope's `data`)."),
        );
    }
    out
}

fn write_struct(w: &mut SourceWriter, def: &StructDef, purpose: Option<&str>) {
    let doc = match purpose {
        Some(purpose) => Doc::new()
            .text_opt(def.description.as_deref())
            .paragraph(purpose),
        None => Doc::new().text_opt(def.description.as_deref()),
    };
    doc.write(w);
    if def.fields.is_empty() {
        // `{}` would admit any value but `null` and `undefined`.
        w.line_fmt(format_args!(
            "export type {} = {{ [key: string]: never }};",
            def.name
        ));
        return;
    }
    w.line_fmt(format_args!("export interface {} {{", def.name));
    w.indent();
    write_fields(w, &def.fields);
    w.dedent();
    w.line("}");
}

fn write_fields(w: &mut SourceWriter, fields: &[Field]) {
    for field in fields {
        let note = wide_integer_note(&field.ty);
        Doc::new()
            .text_opt(field.description.as_deref())
            .text_opt(note.as_deref())
            .write(w);
        let optional = if field.required { "" } else { "?" };
        w.line_fmt(format_args!(
            "{}{optional}: {};",
            TypeKey(&field.wire),
            TsType(&field.ty)
        ));
    }
}

fn write_enum(w: &mut SourceWriter, def: &EnumDef, plan: &TypeScriptPlan) {
    Doc::new().text_opt(def.description.as_deref()).write(w);
    if def.variants.is_empty() {
        w.line_fmt(format_args!("export type {} = never;", def.name));
    } else {
        w.line_fmt(format_args!("export type {} =", def.name));
        w.indent();
        let last = def.variants.len() - 1;
        for (i, variant) in def.variants.iter().enumerate() {
            Doc::new().text_opt(variant.description.as_deref()).write(w);
            let end = if i == last { ";" } else { "" };
            w.line_fmt(format_args!("| {}{end}", string_literal(&variant.wire)));
        }
        w.dedent();
    }
    w.blank();
    let values: Vec<String> = def
        .variants
        .iter()
        .map(|v| string_literal(&v.wire))
        .collect();
    let name = escape(&def.name);
    Doc::new()
        .text(&format!("Every value of `{name}`, in schema order."))
        .write(w);
    let constant = plan.enum_values.get(&def.name).map_or("", String::as_str);
    write_list(
        w,
        &format!("export const {constant} = ["),
        &values,
        "] as const;",
    );
}

fn write_tagged(w: &mut SourceWriter, def: &TaggedUnionDef) {
    let tag = escape(&def.tag);
    Doc::new()
        .text_opt(def.description.as_deref())
        .paragraph(format!("Told apart by `{tag}`."))
        .write(w);
    if def.variants.is_empty() {
        w.line_fmt(format_args!("export type {} = never;", def.name));
    } else {
        w.line_fmt(format_args!("export type {} =", def.name));
        w.indent();
        let last = def.variants.len() - 1;
        for (i, variant) in def.variants.iter().enumerate() {
            let end = if i == last { ";" } else { "" };
            w.line_fmt(format_args!("| {}{end}", variant.name));
        }
        w.dedent();
    }
    for variant in &def.variants {
        w.blank();
        let value = escape(&variant.tag_value);
        Doc::new()
            .text_opt(variant.description.as_deref())
            .paragraph(format!("The `{value}` variant of {{@link {}}}.", def.name))
            .write(w);
        w.line_fmt(format_args!("export interface {} {{", variant.name));
        w.indent();
        w.line_fmt(format_args!(
            "{}: {};",
            type_key(&def.tag),
            string_literal(&variant.tag_value)
        ));
        write_fields(w, &variant.fields);
        w.dedent();
        w.line("}");
    }
}

fn write_untagged(w: &mut SourceWriter, def: &UntaggedDef) {
    Doc::new()
        .text_opt(def.description.as_deref())
        .paragraph("Any one of these shapes, without a tag.")
        .write(w);
    if def.variants.is_empty() {
        w.line_fmt(format_args!("export type {} = never;", def.name));
        return;
    }
    w.line_fmt(format_args!("export type {} =", def.name));
    w.indent();
    let last = def.variants.len() - 1;
    for (i, variant) in def.variants.iter().enumerate() {
        let end = if i == last { ";" } else { "" };
        w.line_fmt(format_args!("| {}{end}", TsType(variant)));
    }
    w.dedent();
}

/// What the JSDoc of a field says when its values are (or hold) integers a double may not hold
/// exactly: which integers, and what the client does about them.
fn wide_integer_note(ty: &TypeRef) -> Option<String> {
    let mut scalar = ty.non_null();
    let mut held = false;
    while let TypeRef::Array(inner) | TypeRef::Map(inner) = scalar {
        scalar = inner.non_null();
        held = true;
    }
    let (kind, range) = match scalar {
        TypeRef::Int64 => ("a 64-bit signed integer", " (-2^63 to 2^63 - 1)"),
        TypeRef::UInt64 => ("a 64-bit unsigned integer", " (0 to 2^64 - 1)"),
        TypeRef::BigInteger => ("an integer of no fixed size", ""),
        _ => return None,
    };
    let what = if held {
        "Each integer in it is"
    } else {
        "This is"
    };
    Some(format!(
        "{what} {kind}{range}: a JavaScript number holds it exactly only within \
         ±`Number.MAX_SAFE_INTEGER` (2^53 - 1). `callTool` refuses to send an integer beyond \
         that, and one received beyond it was rounded by `JSON.parse`."
    ))
}

/// The TypeScript type of a use of a type, written where it is formatted.
pub(crate) struct TsType<'a>(pub(crate) &'a TypeRef);

impl fmt::Display for TsType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            TypeRef::String => f.write_str("string"),
            TypeRef::Bool => f.write_str("boolean"),
            TypeRef::Int32 | TypeRef::UInt32 | TypeRef::Float64 => f.write_str("number"),
            TypeRef::Int64 | TypeRef::UInt64 | TypeRef::BigInteger => f.write_str(INT64),
            TypeRef::Json => f.write_str("unknown"),
            TypeRef::Named(name) => f.write_str(name),
            TypeRef::Array(item) => match item.as_ref() {
                TypeRef::Nullable(_) => write!(f, "({})[]", TsType(item)),
                _ => write!(f, "{}[]", TsType(item)),
            },
            TypeRef::Map(value) => write!(f, "{{ [key: string]: {} }}", TsType(value)),
            TypeRef::Nullable(inner) => match inner.as_ref() {
                TypeRef::Json => f.write_str("unknown"),
                inner => write!(f, "{} | null", TsType(inner)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(ty: TypeRef) -> Box<TypeRef> {
        Box::new(ty)
    }

    #[test]
    fn type_refs() {
        use TypeRef::*;
        let type_ref = |ty: &TypeRef| TsType(ty).to_string();
        assert_eq!(type_ref(&Int64), "Int64");
        assert_eq!(type_ref(&Nullable(b(Json))), "unknown");
        assert_eq!(
            type_ref(&Array(b(Nullable(b(String))))),
            "(string | null)[]"
        );
        assert_eq!(type_ref(&Nullable(b(Array(b(Bool))))), "boolean[] | null");
        assert_eq!(
            type_ref(&Array(b(Map(b(Named("Shape".into())))))),
            "{ [key: string]: Shape }[]"
        );
    }
}
