//! The properties of a class: their doc comments, `[JsonProperty]` attributes, and the backing
//! fields and presence checks of optional properties that admit `null`.

use super::doc::{Code, remarks, summary};
use super::identifiers::bare;
use super::literal::Literal;
use super::plan::{Presence, Property};
use super::type_refs::{JSON, cs_type};
use crate::ir::Api;
use crate::writer::{SourceWriter, WriterError};

/// Writes the properties of a class, each after a blank line but the first when `blank_first`
/// is false.
pub(crate) fn write_properties(
    w: &mut SourceWriter,
    api: &Api,
    properties: &[Property<'_>],
    blank_first: bool,
) -> Result<(), WriterError> {
    for (index, property) in properties.iter().enumerate() {
        let field = property.field;
        let nullable = !field.required || field.ty.is_nullable();
        let ty = cs_type(api, field.ty.non_null(), nullable)?;
        let name = &property.name;
        if index > 0 || blank_first {
            w.blank();
        }
        summary(
            w,
            format_args!("The {} property.", Code(&field.wire)),
            field.description.as_deref(),
        );
        match property.presence {
            Presence::Always | Presence::AllowNull => {}
            Presence::Optional => {
                remarks(w, &["Optional: left out of the JSON while <c>null</c>."])
            }
            Presence::OptionalNullable => remarks(
                w,
                &[
                    "Optional: left out of the JSON until set; set to <c>null</c>, it is written as <c>null</c>.",
                ],
            ),
        }
        write_json_property(w, property.presence, &field.wire);
        if property.presence != Presence::OptionalNullable {
            w.line_fmt(format_args!("public {ty} {name} {{ get; set; }}"));
            continue;
        }
        let bare = bare(name);
        w.line_fmt(format_args!("public {ty} {name}"));
        w.line("{");
        w.indent();
        w.line_fmt(format_args!("get {{ return backing{bare}; }}"));
        w.line_fmt(format_args!(
            "set {{ backing{bare} = value; has{bare} = true; }}"
        ));
        w.dedent();
        w.line("}");
        w.blank();
        w.line_fmt(format_args!(
            "/// <summary>Whether <see cref=\"{bare}\"/> is written: once it has been set, even to <c>null</c>.</summary>"
        ));
        w.line("/// <returns>Whether it is written.</returns>");
        w.line(
            "[global::System.ComponentModel.EditorBrowsable(global::System.ComponentModel.EditorBrowsableState.Never)]",
        );
        w.line_fmt(format_args!("public bool ShouldSerialize{bare}()"));
        w.line("{");
        w.indent();
        w.line_fmt(format_args!("return has{bare};"));
        w.dedent();
        w.line("}");
    }
    Ok(())
}

/// Writes the backing fields of the properties that track whether they were set.
pub(crate) fn write_backing_fields(
    w: &mut SourceWriter,
    api: &Api,
    properties: &[Property<'_>],
) -> Result<(), WriterError> {
    let mut any = false;
    for property in properties {
        if property.presence != Presence::OptionalNullable {
            continue;
        }
        let ty = cs_type(api, property.field.ty.non_null(), true)?;
        let bare = bare(&property.name);
        if any {
            w.blank();
        }
        any = true;
        w.line_fmt(format_args!("private {ty} backing{bare};"));
        w.line_fmt(format_args!("private bool has{bare};"));
    }
    Ok(())
}

/// Whether any property needs a backing field.
pub(crate) fn has_backing_fields(properties: &[Property<'_>]) -> bool {
    properties
        .iter()
        .any(|p| p.presence == Presence::OptionalNullable)
}

/// Writes the `[JsonProperty]` attribute of a property named `wire` on the wire.
fn write_json_property(w: &mut SourceWriter, presence: Presence, wire: &str) {
    let wire = Literal(wire);
    match presence {
        Presence::Always => w.line_fmt(format_args!(
            "[{JSON}.JsonProperty({wire}, Required = {JSON}.Required.Always)]"
        )),
        Presence::AllowNull => w.line_fmt(format_args!(
            "[{JSON}.JsonProperty({wire}, Required = {JSON}.Required.AllowNull, NullValueHandling = {JSON}.NullValueHandling.Include)]"
        )),
        Presence::Optional => w.line_fmt(format_args!(
            "[{JSON}.JsonProperty({wire}, Required = {JSON}.Required.Default, NullValueHandling = {JSON}.NullValueHandling.Ignore)]"
        )),
        Presence::OptionalNullable => w.line_fmt(format_args!(
            "[{JSON}.JsonProperty({wire}, Required = {JSON}.Required.Default, NullValueHandling = {JSON}.NullValueHandling.Include)]"
        )),
    };
}
