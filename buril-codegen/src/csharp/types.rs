//! `Buril.Types.cs`: the classes, enums and unions of the tools' inputs and outputs, with the
//! converters of the unions.

use std::fmt::{self, Display};

use crate::HashMap;
use crate::ir::{Api, EnumDef, Field, StructDef, TaggedUnionDef, TypeDef, TypeRef, UntaggedDef};
use crate::writer::{SourceWriter, WriterError};

use super::names::{Ident, Members, What, error, identifier, member_name};
use super::text::{Code, Literal, code, remarks, string_literal, summary, xml_inline};

/// Newtonsoft.Json's namespace.
pub(crate) const JSON: &str = "global::Newtonsoft.Json";
/// A JSON value.
pub(crate) const JTOKEN: &str = "global::Newtonsoft.Json.Linq.JToken";
/// Integers beyond 32 bits.
const BIG_INTEGER: &str = "global::System.Numerics.BigInteger";

/// What the top of the types file says about the mapping.
pub(crate) const PREAMBLE: &[&str] = &[
    "Types of the tools' inputs and outputs, for Newtonsoft.Json (C# 7.2 and later).",
    "",
    "Integers that may exceed 32 bits (Rust i64, u64, u32, isize, usize) are",
    "System.Numerics.BigInteger: the schemas do not tell a signed 64-bit integer from an unsigned",
    "one, and no fixed-size C# type holds both ranges (long stops at 2^63 - 1, ulong at 0).",
    "BigInteger converts implicitly from int, long and ulong and explicitly back, and",
    "Newtonsoft.Json reads and writes it as a plain JSON integer, so every value round-trips.",
    "Integers of 32 bits or fewer are int, other numbers double, free-form JSON JToken.",
    "",
    "Required properties are always written. Optional properties are left out of the JSON until",
    "set; for those that also admit null, setting null writes null (ShouldSerialize{Name}).",
    "",
    "References: Newtonsoft.Json, System.Numerics, System.Runtime.Serialization.",
];

/// The C# type of a use of a type.
pub(crate) fn type_name(api: &Api, ty: &TypeRef) -> Result<String, WriterError> {
    Ok(cs_type(api, ty, false)?.to_string())
}

/// The C# type of a use of a type, written where it is formatted; `nullable` adds the `?` a
/// value type needs to admit null. Fails if a named type is not defined.
fn cs_type<'a>(api: &'a Api, ty: &'a TypeRef, nullable: bool) -> Result<CsType<'a>, WriterError> {
    fn check(api: &Api, ty: &TypeRef) -> Result<(), WriterError> {
        match ty {
            TypeRef::Named(name) if !api.types.contains_key(name) => {
                Err(error(format!("the type `{name}` is used but not defined")))
            }
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                check(api, inner)
            }
            _ => Ok(()),
        }
    }
    check(api, ty)?;
    Ok(CsType { api, ty, nullable })
}

/// See [`cs_type`].
struct CsType<'a> {
    api: &'a Api,
    ty: &'a TypeRef,
    nullable: bool,
}

impl Display for CsType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = |ty, nullable| CsType {
            api: self.api,
            ty,
            nullable,
        };
        match self.ty {
            TypeRef::String => f.write_str("string")?,
            TypeRef::Bool => f.write_str("bool")?,
            TypeRef::Int32 => f.write_str("int")?,
            TypeRef::Int64 => f.write_str(BIG_INTEGER)?,
            TypeRef::Float64 => f.write_str("double")?,
            TypeRef::Json => f.write_str(JTOKEN)?,
            TypeRef::Named(name) => Ident(name).fmt(f)?,
            TypeRef::Array(item) => write!(
                f,
                "global::System.Collections.Generic.List<{}>",
                inner(item, false)
            )?,
            TypeRef::Map(value) => write!(
                f,
                "global::System.Collections.Generic.Dictionary<string, {}>",
                inner(value, false)
            )?,
            TypeRef::Nullable(ty) => inner(ty, true).fmt(f)?,
        }
        if self.nullable
            && !matches!(self.ty, TypeRef::Nullable(_))
            && is_value_type(self.api, self.ty)
        {
            f.write_str("?")?;
        }
        Ok(())
    }
}

/// Whether the C# type of `ty` is a value type (and so needs `?` to admit null).
pub(crate) fn is_value_type(api: &Api, ty: &TypeRef) -> bool {
    match ty {
        TypeRef::Bool | TypeRef::Int32 | TypeRef::Int64 | TypeRef::Float64 => true,
        TypeRef::Named(name) => matches!(api.types.get(name), Some(TypeDef::Enum(_))),
        _ => false,
    }
}

/// The converter class of a union.
pub(crate) fn converter_name(union: &str) -> String {
    format!("{union}Converter")
}

/// How a property is present on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    /// Always present, never null.
    Always,
    /// Always present, maybe null.
    AllowNull,
    /// May be absent, never null: null in C# means absent.
    Optional,
    /// May be absent, may be null: tracked, so that absent and null stay apart.
    OptionalNullable,
}

impl Presence {
    fn of(field: &Field) -> Self {
        match (field.required, field.ty.is_nullable()) {
            (true, false) => Presence::Always,
            (true, true) => Presence::AllowNull,
            (false, false) => Presence::Optional,
            (false, true) => Presence::OptionalNullable,
        }
    }

    /// Writes the `[JsonProperty]` attribute.
    fn write_attribute(self, w: &mut SourceWriter, wire: &str) {
        let wire = Literal(wire);
        match self {
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
}

/// One property, named.
struct Property<'a> {
    field: &'a Field,
    name: String,
    presence: Presence,
}

/// Names the properties of `owner`, taking each name in `members`.
fn properties<'a>(
    owner: &str,
    fields: &'a [Field],
    members: &mut Members<'a>,
) -> Result<Vec<Property<'a>>, WriterError> {
    let mut out = Vec::with_capacity(fields.len());
    for (index, field) in fields.iter().enumerate() {
        let name = member_name(&field.wire, index, owner);
        let presence = Presence::of(field);
        members.add(&name, What::Property(&field.wire))?;
        if presence == Presence::OptionalNullable {
            members.add(
                &format!("ShouldSerialize{}", bare(&name)),
                What::PresenceCheck(&field.wire),
            )?;
        }
        out.push(Property {
            field,
            name,
            presence,
        });
    }
    // Newtonsoft.Json reads a property `{Name}Specified` as whether `{Name}` is written.
    for property in &out {
        let Some(base) = bare(&property.name).strip_suffix("Specified") else {
            continue;
        };
        if let Some(other) = out.iter().find(|p| bare(&p.name) == base) {
            return Err(error(format!(
                "`{owner}` has the properties `{}` and `{}`: Newtonsoft.Json would take `{}` \
                 as whether `{}` is set; rename one of them (`#[serde(rename = \"...\")]`)",
                other.field.wire, property.field.wire, property.name, other.name
            )));
        }
    }
    Ok(out)
}

/// An identifier without its keyword escape.
fn bare(name: &str) -> &str {
    name.strip_prefix('@').unwrap_or(name)
}

/// Writes the properties of a class, each after a blank line but the first when `blank_first`
/// is false.
fn write_properties(
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
        property.presence.write_attribute(w, &field.wire);
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
fn write_backing_fields(
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

/// Writes every named type, sorted by name.
pub(crate) fn write_types(
    w: &mut SourceWriter,
    api: &Api,
    fallbacks: &HashMap<&str, super::Fallback<'_>>,
) -> Result<(), WriterError> {
    let mut first = true;
    for def in api.types.values() {
        if !first {
            w.blank();
        }
        first = false;
        let given = fallbacks.get(def.name());
        let code = Code(def.name());
        let fallback: &dyn Display = match given {
            Some(given) => given,
            None => &code,
        };
        match def {
            TypeDef::Struct(def) => write_struct(w, api, def, fallback)?,
            TypeDef::Enum(def) => write_enum(w, def, fallback)?,
            TypeDef::TaggedUnion(def) => write_tagged(w, api, def, fallback)?,
            TypeDef::Untagged(def) => write_untagged(w, api, def, fallback)?,
        }
    }
    Ok(())
}

fn write_struct(
    w: &mut SourceWriter,
    api: &Api,
    def: &StructDef,
    fallback: &dyn Display,
) -> Result<(), WriterError> {
    let name = Ident(&def.name);
    let mut members = Members::with_capacity(&def.name, def.fields.len());
    let properties = properties(&def.name, &def.fields, &mut members)?;
    summary(w, fallback, def.description.as_deref());
    w.line_fmt(format_args!("public sealed partial class {name}"));
    w.line("{");
    w.indent();
    write_backing_fields(w, api, &properties)?;
    write_properties(w, api, &properties, has_backing_fields(&properties))?;
    w.dedent();
    w.line("}");
    Ok(())
}

/// Whether any property needs a backing field.
fn has_backing_fields(properties: &[Property<'_>]) -> bool {
    properties
        .iter()
        .any(|p| p.presence == Presence::OptionalNullable)
}

fn write_enum(
    w: &mut SourceWriter,
    def: &EnumDef,
    fallback: &dyn Display,
) -> Result<(), WriterError> {
    let mut members = Members::with_capacity(&def.name, def.variants.len());
    let mut names = Vec::with_capacity(def.variants.len());
    for (index, variant) in def.variants.iter().enumerate() {
        let name = member_name(&variant.wire, index, &def.name);
        members.add(&name, What::Value(&variant.wire))?;
        names.push(name);
    }
    summary(w, fallback, def.description.as_deref());
    w.line_fmt(format_args!(
        "[{JSON}.JsonConverter(typeof({JSON}.Converters.StringEnumConverter))]"
    ));
    w.line_fmt(format_args!("public enum {}", Ident(&def.name)));
    w.line("{");
    w.indent();
    for (index, (variant, name)) in def.variants.iter().zip(&names).enumerate() {
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
    Ok(())
}

fn write_tagged(
    w: &mut SourceWriter,
    api: &Api,
    def: &TaggedUnionDef,
    fallback: &dyn Display,
) -> Result<(), WriterError> {
    let base = identifier(&def.name);
    let converter = converter_name(&def.name);
    let tag = member_name(&def.tag, 0, &def.name);
    let mut base_members = Members::new(&def.name);
    base_members.add(&tag, What::Tag(&def.tag))?;

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

    for variant in &def.variants {
        let name = identifier(&variant.name);
        let mut members = Members::new(&variant.name);
        members.add(&tag, What::Tag(&def.tag))?;
        let properties = properties(&variant.name, &variant.fields, &mut members)?;
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
        write_backing_fields(w, api, &properties)?;
        if has_backing_fields(&properties) {
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
        write_properties(w, api, &properties, true)?;
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

fn write_can_convert(w: &mut SourceWriter, ty: &str) {
    w.line("public override bool CanConvert(global::System.Type objectType)");
    w.line("{");
    w.indent();
    w.line_fmt(format_args!("return objectType == typeof({ty});"));
    w.dedent();
    w.line("}");
}

/// The name an untagged alternative goes by in `From{Label}` and `TryGet{Label}`.
fn label(ty: &TypeRef) -> String {
    match ty {
        TypeRef::String => "String".to_owned(),
        TypeRef::Bool => "Bool".to_owned(),
        TypeRef::Int32 => "Int32".to_owned(),
        TypeRef::Int64 => "Integer".to_owned(),
        TypeRef::Float64 => "Number".to_owned(),
        TypeRef::Json => "Json".to_owned(),
        TypeRef::Named(name) => name.clone(),
        TypeRef::Array(item) => format!("{}List", label(item)),
        TypeRef::Map(value) => format!("{}Map", label(value)),
        TypeRef::Nullable(inner) => format!("Nullable{}", label(inner)),
    }
}

/// A C# condition: whether `var` (a JToken) has the JSON type `ty` is written as.
fn shape_check(api: &Api, ty: &TypeRef, var: &str) -> String {
    let is = |kind: &str| format!("{var}.Type == global::Newtonsoft.Json.Linq.JTokenType.{kind}");
    match ty {
        TypeRef::String => is("String"),
        TypeRef::Bool => is("Boolean"),
        TypeRef::Int32 | TypeRef::Int64 => is("Integer"),
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

fn write_untagged(
    w: &mut SourceWriter,
    api: &Api,
    def: &UntaggedDef,
    fallback: &dyn Display,
) -> Result<(), WriterError> {
    let name = identifier(&def.name);
    let converter = converter_name(&def.name);
    let mut labels: Vec<String> = def.variants.iter().map(label).collect();
    let mut distinct = labels.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < labels.len() {
        labels = (0..def.variants.len())
            .map(|i| format!("Variant{i}"))
            .collect();
    }
    let mut members = Members::new(&def.name);
    members.add("Json", What::JsonValue)?;
    members.add("ToString", What::JsonText)?;
    for label in &labels {
        members.add(&format!("From{label}"), What::Alternative(label))?;
        members.add(&format!("TryGet{label}"), What::Alternative(label))?;
    }

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
    for (variant, label) in def.variants.iter().zip(&labels) {
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
