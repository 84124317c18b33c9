//! Unions: a tagged union as an abstract base class, a class per variant and a converter that
//! reads the tag; an untagged union as the JSON value with typed accessors, and its converter.

use std::fmt::Display;

use super::doc::{Code, code, remarks, summary, xml_inline};
use super::identifiers::identifier;
use super::literal::string_literal;
use super::plan::Property;
use super::properties::{has_backing_fields, write_backing_fields, write_properties};
use super::type_refs::{JSON, JTOKEN, type_name};
use crate::ir::{Api, TaggedUnionDef, TypeDef, TypeRef, UntaggedDef};
use crate::writer::{SourceWriter, WriterError};

/// The names a tagged union's classes use, from the plan.
#[derive(Clone, Copy)]
pub(crate) struct TaggedNames<'p> {
    /// The converter class.
    pub(crate) converter: &'p str,
    /// The tag property's name.
    pub(crate) tag: &'p str,
    /// The properties of each variant, in schema order.
    pub(crate) variants: &'p [Vec<Property<'p>>],
}

/// Writes a tagged union: an abstract base class with the tag, a class per variant, and the
/// converter that reads the tag to pick the variant, with the names of `names`.
pub(crate) fn write_tagged(
    w: &mut SourceWriter,
    api: &Api,
    def: &TaggedUnionDef,
    names: TaggedNames<'_>,
    fallback: &dyn Display,
) -> Result<(), WriterError> {
    let TaggedNames {
        converter,
        tag,
        variants: variant_properties,
    } = names;
    let base = identifier(&def.name);

    summary(w, fallback, def.description.as_deref());
    let variants: Vec<String> = def
        .variants
        .iter()
        .map(|v| format!("<see cref=\"{}\"/>", v.name))
        .collect();
    remarks(
        w,
        &[format!(
            "One of {}, told apart by {}.",
            variants.join(", "),
            code(&def.tag)
        )],
    );
    w.line_fmt(format_args!("[{JSON}.JsonConverter(typeof({converter}))]"));
    w.line_fmt(format_args!("public abstract partial class {base}"));
    w.line("{");
    w.indent();
    w.line_fmt(format_args!(
        "/// <summary>The tag, {} on the wire: fixed by each variant.</summary>",
        code(&def.tag)
    ));
    w.line_fmt(format_args!(
        "[{JSON}.JsonProperty({}, Order = -2)]",
        string_literal(&def.tag)
    ));
    w.line_fmt(format_args!("public abstract string {tag} {{ get; }}"));
    w.dedent();
    w.line("}");

    for (variant, properties) in def.variants.iter().zip(variant_properties) {
        let name = identifier(&variant.name);
        w.blank();
        summary(
            w,
            format_args!(
                "The {} variant of <see cref=\"{base}\"/>.",
                Code(&variant.tag_value)
            ),
            variant.description.as_deref(),
        );
        w.line_fmt(format_args!(
            "[{JSON}.JsonConverter(typeof(BurilNoConverter))]"
        ));
        w.line_fmt(format_args!("public sealed partial class {name} : {base}"));
        w.line("{");
        w.indent();
        write_backing_fields(w, api, properties)?;
        if has_backing_fields(properties) {
            w.blank();
        }
        w.line_fmt(format_args!(
            "/// <summary>Always {}.</summary>",
            code(&variant.tag_value)
        ));
        w.line_fmt(format_args!(
            "public override string {tag} {{ get {{ return {}; }} }}",
            string_literal(&variant.tag_value)
        ));
        write_properties(w, api, properties, true)?;
        w.dedent();
        w.line("}");
    }

    w.blank();
    w.line_fmt(format_args!(
        "/// <summary>Reads a <see cref=\"{base}\"/> by its {} tag.</summary>",
        code(&def.tag)
    ));
    w.line_fmt(format_args!(
        "internal sealed class {converter} : {JSON}.JsonConverter"
    ));
    w.line("{");
    w.indent();
    write_can_convert(w, &base);
    w.blank();
    w.line("public override bool CanWrite");
    w.line("{");
    w.indent();
    w.line("get { return false; }");
    w.dedent();
    w.line("}");
    w.blank();
    w.line_fmt(format_args!(
        "public override object ReadJson({JSON}.JsonReader reader, global::System.Type objectType, object existingValue, {JSON}.JsonSerializer serializer)"
    ));
    w.line("{");
    w.indent();
    w.line_fmt(format_args!(
        "if (reader.TokenType == {JSON}.JsonToken.Null)"
    ));
    w.line("{");
    w.indent();
    w.line("return null;");
    w.dedent();
    w.line("}");
    let type_literal = string_literal(&def.name);
    let tag_literal = string_literal(&def.tag);
    w.line_fmt(format_args!(
        "var json = BurilJson.ReadObject(reader, {type_literal});"
    ));
    w.line_fmt(format_args!("{base} value;"));
    w.line_fmt(format_args!(
        "switch (BurilJson.ReadTag(json, {tag_literal}, {type_literal}))"
    ));
    w.line("{");
    w.indent();
    for variant in &def.variants {
        w.line_fmt(format_args!("case {}:", string_literal(&variant.tag_value)));
        w.indent();
        w.line_fmt(format_args!("value = new {}();", identifier(&variant.name)));
        w.line("break;");
        w.dedent();
    }
    w.line("default:");
    w.indent();
    w.line_fmt(format_args!(
        "throw BurilJson.UnknownTag(json, {tag_literal}, {type_literal});"
    ));
    w.dedent();
    w.dedent();
    w.line("}");
    w.line("BurilJson.Populate(json, value, serializer);");
    w.line("return value;");
    w.dedent();
    w.line("}");
    w.blank();
    w.line_fmt(format_args!(
        "public override void WriteJson({JSON}.JsonWriter writer, object value, {JSON}.JsonSerializer serializer)"
    ));
    w.line("{");
    w.indent();
    w.line("throw new global::System.NotSupportedException(\"the variants are written as plain objects\");");
    w.dedent();
    w.line("}");
    w.dedent();
    w.line("}");
    Ok(())
}

/// Writes a converter's `CanConvert`: the one type `ty`.
fn write_can_convert(w: &mut SourceWriter, ty: &str) {
    w.line("public override bool CanConvert(global::System.Type objectType)");
    w.line("{");
    w.indent();
    w.line_fmt(format_args!("return objectType == typeof({ty});"));
    w.dedent();
    w.line("}");
}

/// A C# condition: whether `var` (a JToken) has the JSON type `ty` is written as.
fn shape_check(api: &Api, ty: &TypeRef, var: &str) -> String {
    let is = |kind: &str| format!("{var}.Type == global::Newtonsoft.Json.Linq.JTokenType.{kind}");
    match ty {
        TypeRef::String => is("String"),
        TypeRef::Bool => is("Boolean"),
        TypeRef::Int32
        | TypeRef::UInt32
        | TypeRef::Int64
        | TypeRef::UInt64
        | TypeRef::BigInteger => is("Integer"),
        TypeRef::Float64 => format!("({} || {})", is("Integer"), is("Float")),
        TypeRef::Json => "true".to_owned(),
        TypeRef::Named(name) => match api.types.get(name) {
            Some(TypeDef::Enum(_)) => is("String"),
            Some(TypeDef::Struct(_) | TypeDef::TaggedUnion(_)) => is("Object"),
            _ => "true".to_owned(),
        },
        TypeRef::Array(_) => is("Array"),
        TypeRef::Map(_) => is("Object"),
        TypeRef::Nullable(inner) => {
            format!("({} || {})", is("Null"), shape_check(api, inner, var))
        }
    }
}

/// Writes an untagged union: a class holding the JSON value with a `From{Label}` and a
/// `TryGet{Label}` per alternative, and its converter.
pub(crate) fn write_untagged(
    w: &mut SourceWriter,
    api: &Api,
    def: &UntaggedDef,
    converter: &str,
    labels: &[String],
    fallback: &dyn Display,
) -> Result<(), WriterError> {
    let name = identifier(&def.name);

    summary(w, fallback, def.description.as_deref());
    let mut alternatives = Vec::new();
    for variant in &def.variants {
        alternatives.push(code(&type_name(api, variant)?));
    }
    remarks(
        w,
        &[format!(
            "One of: {}. The JSON value is kept as received (see <see cref=\"Json\"/>), and the <c>TryGet</c> methods read it as each alternative.",
            alternatives.join(", ")
        )],
    );
    w.line_fmt(format_args!("[{JSON}.JsonConverter(typeof({converter}))]"));
    w.line_fmt(format_args!("public sealed partial class {name}"));
    w.line("{");
    w.indent();
    w.line_fmt(format_args!("private readonly {JTOKEN} json;"));
    w.blank();
    w.line_fmt(format_args!(
        "/// <summary>Wraps a JSON value, which should be one of the alternatives of <see cref=\"{name}\"/>.</summary>"
    ));
    w.line("/// <param name=\"json\">The JSON value.</param>");
    w.line_fmt(format_args!("public {name}({JTOKEN} json)"));
    w.line("{");
    w.indent();
    w.line("if (json == null)");
    w.line("{");
    w.indent();
    w.line("throw new global::System.ArgumentNullException(\"json\");");
    w.dedent();
    w.line("}");
    w.line("this.json = json;");
    w.dedent();
    w.line("}");
    w.blank();
    w.line("/// <summary>The JSON value, as received or given.</summary>");
    w.line_fmt(format_args!("public {JTOKEN} Json"));
    w.line("{");
    w.indent();
    w.line("get { return json; }");
    w.dedent();
    w.line("}");
    for (variant, label) in def.variants.iter().zip(labels) {
        let ty = type_name(api, variant)?;
        let shown = xml_inline(&ty);
        w.blank();
        w.line_fmt(format_args!(
            "/// <summary>The alternative <c>{shown}</c>.</summary>"
        ));
        w.line("/// <param name=\"value\">The value.</param>");
        w.line("/// <returns>The union holding it.</returns>");
        w.line_fmt(format_args!("public static {name} From{label}({ty} value)"));
        w.line("{");
        w.indent();
        w.line_fmt(format_args!("return new {name}(BurilJson.ToToken(value));"));
        w.dedent();
        w.line("}");
        w.blank();
        w.line_fmt(format_args!(
            "/// <summary>Reads the value as the alternative <c>{shown}</c>.</summary>"
        ));
        w.line("/// <param name=\"value\">The value read, or the default.</param>");
        w.line("/// <returns>Whether the value is that alternative.</returns>");
        w.line_fmt(format_args!("public bool TryGet{label}(out {ty} value)"));
        w.line("{");
        w.indent();
        w.line_fmt(format_args!(
            "return BurilJson.TryFromToken(json, {}, out value);",
            shape_check(api, variant, "json")
        ));
        w.dedent();
        w.line("}");
    }
    w.blank();
    w.line("/// <summary>The JSON value as compact text.</summary>");
    w.line("/// <returns>The JSON text.</returns>");
    w.line("public override string ToString()");
    w.line("{");
    w.indent();
    w.line_fmt(format_args!(
        "return json.ToString({JSON}.Formatting.None);"
    ));
    w.dedent();
    w.line("}");
    w.dedent();
    w.line("}");

    w.blank();
    w.line_fmt(format_args!(
        "/// <summary>Reads and writes a <see cref=\"{name}\"/> as its JSON value, unchanged.</summary>"
    ));
    w.line_fmt(format_args!(
        "internal sealed class {converter} : {JSON}.JsonConverter"
    ));
    w.line("{");
    w.indent();
    write_can_convert(w, &name);
    w.blank();
    w.line_fmt(format_args!(
        "public override object ReadJson({JSON}.JsonReader reader, global::System.Type objectType, object existingValue, {JSON}.JsonSerializer serializer)"
    ));
    w.line("{");
    w.indent();
    w.line_fmt(format_args!(
        "if (reader.TokenType == {JSON}.JsonToken.Null)"
    ));
    w.line("{");
    w.indent();
    w.line("return null;");
    w.dedent();
    w.line("}");
    w.line_fmt(format_args!(
        "return new {name}(BurilJson.ReadToken(reader));"
    ));
    w.dedent();
    w.line("}");
    w.blank();
    w.line_fmt(format_args!(
        "public override void WriteJson({JSON}.JsonWriter writer, object value, {JSON}.JsonSerializer serializer)"
    ));
    w.line("{");
    w.indent();
    w.line_fmt(format_args!("var union = value as {name};"));
    w.line("BurilJson.WriteToken(writer, union == null ? null : union.Json);");
    w.dedent();
    w.line("}");
    w.dedent();
    w.line("}");
    Ok(())
}
