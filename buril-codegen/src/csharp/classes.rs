//! Classes and string enums: the inputs and outputs of the tools and the types they use.

use std::fmt::Display;

use super::doc::{Code, summary};
use super::identifiers::Ident;
use super::literal::Literal;
use super::plan::Property;
use super::properties::{has_backing_fields, write_backing_fields, write_properties};
use super::type_refs::JSON;
use crate::ir::{Api, EnumDef, StructDef};
use crate::writer::{SourceWriter, WriterError};

/// Writes a class with its properties.
pub(crate) fn write_struct(
    w: &mut SourceWriter,
    api: &Api,
    def: &StructDef,
    properties: &[Property<'_>],
    fallback: &dyn Display,
) -> Result<(), WriterError> {
    let name = Ident(&def.name);
    summary(w, fallback, def.description.as_deref());
    w.line_fmt(format_args!("public sealed partial class {name}"));
    w.line("{");
    w.indent();
    write_backing_fields(w, api, properties)?;
    write_properties(w, api, properties, has_backing_fields(properties))?;
    w.dedent();
    w.line("}");
    Ok(())
}

/// Writes a string enum; `names` are its members' names, one per value.
pub(crate) fn write_enum(
    w: &mut SourceWriter,
    def: &EnumDef,
    names: &[String],
    fallback: &dyn Display,
) {
    summary(w, fallback, def.description.as_deref());
    w.line_fmt(format_args!(
        "[{JSON}.JsonConverter(typeof({JSON}.Converters.StringEnumConverter))]"
    ));
    w.line_fmt(format_args!("public enum {}", Ident(&def.name)));
    w.line("{");
    w.indent();
    for (index, (variant, name)) in def.variants.iter().zip(names).enumerate() {
        if index > 0 {
            w.blank();
        }
        summary(
            w,
            format_args!("{} on the wire.", Code(&variant.wire)),
            variant.description.as_deref(),
        );
        w.line_fmt(format_args!(
            "[global::System.Runtime.Serialization.EnumMember(Value = {})]",
            Literal(&variant.wire)
        ));
        w.line_fmt(format_args!("{name},"));
    }
    w.dedent();
    w.line("}");
}
