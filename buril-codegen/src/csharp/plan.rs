//! Every name the C# files declare, decided before anything is written: type names checked
//! against each other and the runtime, the client's methods, and the members of each type
//! (properties, enum values, a union's tag and alternatives). The writers read the names from
//! the plan and decide none themselves.

use super::error::error;
use super::identifiers::{OBJECT_MEMBERS, bare, member_name};
use super::name_tables::{MemberNames, NamedItem, TypeNames, check_type_name};
use super::runtime::CLIENT_MEMBERS;
use crate::ir::{
    Api, EnumDef, Field, StructDef, TaggedUnionDef, ToolDef, TypeDef, TypeRef, UntaggedDef,
    pascal_case,
};
use crate::writer::WriterError;

/// The names of everything the C# writer generates for an [`Api`].
#[derive(Debug)]
pub(crate) struct CSharpPlan<'a> {
    /// Per named type, in the order of [`Api::types`].
    pub(crate) types: Vec<TypePlan<'a>>,
    /// Per tool, in the order of [`Api::tools`]: its abstract class, `{Pascal}Tool` (checked
    /// to be an identifier and no keyword, so written as it is).
    pub(crate) tool_classes: Vec<String>,
    /// The typed methods of `BurilClient`, in the order they are written.
    pub(crate) methods: Vec<Method<'a>>,
}

/// One named type with the names of its members.
#[derive(Debug)]
pub(crate) enum TypePlan<'a> {
    /// A class.
    Struct {
        /// The type.
        def: &'a StructDef,
        /// Its properties, in schema order.
        properties: Vec<Property<'a>>,
    },
    /// A string enum.
    Enum {
        /// The type.
        def: &'a EnumDef,
        /// The member name of each value, in schema order.
        members: Vec<String>,
    },
    /// A tagged union.
    TaggedUnion {
        /// The type.
        def: &'a TaggedUnionDef,
        /// The converter class, `{Union}Converter`.
        converter: String,
        /// The tag property's name, on the base class and every variant.
        tag: String,
        /// The properties of each variant (the tag aside), in schema order.
        variants: Vec<Vec<Property<'a>>>,
    },
    /// An untagged union.
    Untagged {
        /// The type.
        def: &'a UntaggedDef,
        /// The converter class, `{Union}Converter`.
        converter: String,
        /// What each alternative goes by in `From{Label}` and `TryGet{Label}`, in schema order.
        labels: Vec<String>,
    },
}

/// One property of a class, named.
#[derive(Debug)]
pub(crate) struct Property<'a> {
    /// The field it writes.
    pub(crate) field: &'a Field,
    /// Its C# name (escaped when it is a keyword).
    pub(crate) name: String,
    /// How it is present on the wire.
    pub(crate) presence: Presence,
}

/// How a property is present on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// Always present, never null.
    Always,
    /// Always present, maybe null.
    AllowNull,
    /// May be absent, never null: null in C# means absent.
    Optional,
    /// May be absent, may be null: tracked, so that absent and null stay apart (a backing
    /// field, a flag and a `ShouldSerialize{Name}` method).
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
}

/// A typed method of the client.
#[derive(Debug)]
pub(crate) struct Method<'a> {
    /// The method's name: the tool's, or the alias's, in PascalCase.
    pub(crate) name: String,
    /// The tool it calls.
    pub(crate) tool: &'a ToolDef,
    /// The alias it stands for, if it is a deprecated name.
    pub(crate) alias: Option<&'a str>,
}

impl TypePlan<'_> {
    /// The type's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            TypePlan::Struct { def, .. } => &def.name,
            TypePlan::Enum { def, .. } => &def.name,
            TypePlan::TaggedUnion { def, .. } => &def.name,
            TypePlan::Untagged { def, .. } => &def.name,
        }
    }
}

impl<'a> CSharpPlan<'a> {
    /// Decides every name, or says which two things would share one (or which name is not a C#
    /// identifier). Type names are checked first, then the client's methods, then the members
    /// of each type.
    pub(crate) fn new(api: &'a Api) -> Result<Self, WriterError> {
        let tool_classes = type_names(api)?;
        let methods = methods(api)?;
        let mut types = Vec::with_capacity(api.types.len());
        for def in api.types.values() {
            types.push(match def {
                TypeDef::Struct(def) => {
                    let mut members = MemberNames::with_capacity(&def.name, def.fields.len());
                    TypePlan::Struct {
                        def,
                        properties: properties(&def.name, &def.fields, &mut members)?,
                    }
                }
                TypeDef::Enum(def) => TypePlan::Enum {
                    def,
                    members: enum_members(def)?,
                },
                TypeDef::TaggedUnion(def) => tagged_union(def)?,
                TypeDef::Untagged(def) => untagged_union(def)?,
            });
        }
        Ok(CSharpPlan {
            types,
            tool_classes,
            methods,
        })
    }
}

/// The converter class of a union.
fn converter_name(union: &str) -> String {
    format!("{union}Converter")
}

/// Takes every generated type name, failing on a clash with another or with the runtime.
/// Answers the tool classes, in the order of the tools.
fn type_names(api: &Api) -> Result<Vec<String>, WriterError> {
    let mut names = TypeNames::with_fixed_types();
    for def in api.types.values() {
        let name = def.name();
        match def {
            TypeDef::Struct(_) => names.add(name, NamedItem::Class(name))?,
            TypeDef::Enum(_) => names.add(name, NamedItem::Enum(name))?,
            TypeDef::TaggedUnion(union) => {
                names.add(name, NamedItem::TaggedUnion(name))?;
                names.add(converter_name(name), NamedItem::Converter(name))?;
                for variant in &union.variants {
                    names.add(
                        variant.name.as_str(),
                        NamedItem::Variant {
                            tag: &variant.tag_value,
                            union: name,
                        },
                    )?;
                }
            }
            TypeDef::Untagged(_) => {
                names.add(name, NamedItem::Union(name))?;
                names.add(converter_name(name), NamedItem::Converter(name))?;
            }
        }
    }
    let mut tool_classes = Vec::with_capacity(api.tools.len());
    for tool in &api.tools {
        let class = format!("{}Tool", tool.pascal);
        names.add(class.clone(), NamedItem::ToolClass(&tool.meta.name))?;
        tool_classes.push(class);
    }
    Ok(tool_classes)
}

/// Names the client's methods, failing on any clash.
fn methods(api: &Api) -> Result<Vec<Method<'_>>, WriterError> {
    let mut members = MemberNames::new("BurilClient");
    for name in CLIENT_MEMBERS.iter().chain(OBJECT_MEMBERS) {
        if *name != "BurilClient" {
            members.add(name, NamedItem::ClientItself)?;
        }
    }
    let mut out = Vec::new();
    for tool in &api.tools {
        let owner = NamedItem::ToolMethod(&tool.meta.name);
        check_type_name(&tool.pascal, owner)?;
        members.add(&tool.pascal, owner)?;
        members.add(&format!("{}Async", tool.pascal), owner)?;
        if tool.meta.task.is_task() {
            members.add(&format!("Start{}Async", tool.pascal), owner)?;
        }
        out.push(Method {
            name: tool.pascal.clone(),
            tool,
            alias: None,
        });
        for alias in tool.meta.alias_names() {
            let name = pascal_case(alias);
            check_type_name(&name, NamedItem::AliasMethod(alias))?;
            let item = NamedItem::Alias {
                alias,
                tool: &tool.meta.name,
            };
            members.add(&name, item)?;
            members.add(&format!("{name}Async"), item)?;
            out.push(Method {
                name,
                tool,
                alias: Some(alias),
            });
        }
    }
    Ok(out)
}

/// Names the properties of `owner`, taking each name in `members`.
fn properties<'a>(
    owner: &str,
    fields: &'a [Field],
    members: &mut MemberNames<'a>,
) -> Result<Vec<Property<'a>>, WriterError> {
    let mut out = Vec::with_capacity(fields.len());
    for (index, field) in fields.iter().enumerate() {
        let name = member_name(&field.wire, index, owner);
        let presence = Presence::of(field);
        members.add(&name, NamedItem::Property(&field.wire))?;
        if presence == Presence::OptionalNullable {
            members.add(
                &format!("ShouldSerialize{}", bare(&name)),
                NamedItem::PresenceCheck(&field.wire),
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

/// Names the members of an enum, one per value.
fn enum_members(def: &EnumDef) -> Result<Vec<String>, WriterError> {
    let mut members = MemberNames::with_capacity(&def.name, def.variants.len());
    let mut names = Vec::with_capacity(def.variants.len());
    for (index, variant) in def.variants.iter().enumerate() {
        let name = member_name(&variant.wire, index, &def.name);
        members.add(&name, NamedItem::Value(&variant.wire))?;
        names.push(name);
    }
    Ok(names)
}

/// Names the tag property of a tagged union, and the properties of each variant.
fn tagged_union(def: &TaggedUnionDef) -> Result<TypePlan<'_>, WriterError> {
    let tag = member_name(&def.tag, 0, &def.name);
    let mut base_members = MemberNames::new(&def.name);
    base_members.add(&tag, NamedItem::Tag(&def.tag))?;
    let mut variants = Vec::with_capacity(def.variants.len());
    for variant in &def.variants {
        let mut members = MemberNames::new(&variant.name);
        members.add(&tag, NamedItem::Tag(&def.tag))?;
        variants.push(properties(&variant.name, &variant.fields, &mut members)?);
    }
    Ok(TypePlan::TaggedUnion {
        def,
        converter: converter_name(&def.name),
        tag,
        variants,
    })
}

/// Labels the alternatives of an untagged union, and checks its members.
fn untagged_union(def: &UntaggedDef) -> Result<TypePlan<'_>, WriterError> {
    let mut labels: Vec<String> = def.variants.iter().map(label).collect();
    let mut distinct = labels.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < labels.len() {
        labels = (0..def.variants.len())
            .map(|i| format!("Variant{i}"))
            .collect();
    }
    let mut members = MemberNames::new(&def.name);
    members.add("Json", NamedItem::JsonValue)?;
    members.add("ToString", NamedItem::JsonText)?;
    for label in &labels {
        members.add(&format!("From{label}"), NamedItem::Alternative(label))?;
        members.add(&format!("TryGet{label}"), NamedItem::Alternative(label))?;
    }
    Ok(TypePlan::Untagged {
        def,
        converter: converter_name(&def.name),
        labels,
    })
}

/// The name an untagged alternative goes by in `From{Label}` and `TryGet{Label}`.
fn label(ty: &TypeRef) -> String {
    match ty {
        TypeRef::String => "String".to_owned(),
        TypeRef::Bool => "Bool".to_owned(),
        TypeRef::Int32 => "Int32".to_owned(),
        // `Integer` is the older name of the 64-bit kind, kept so that names stay.
        TypeRef::Int64 => "Integer".to_owned(),
        TypeRef::UInt32 => "UInt32".to_owned(),
        TypeRef::UInt64 => "UInt64".to_owned(),
        TypeRef::BigInteger => "BigInteger".to_owned(),
        TypeRef::Float64 => "Number".to_owned(),
        TypeRef::Json => "Json".to_owned(),
        TypeRef::Named(name) => name.clone(),
        TypeRef::Array(item) => format!("{}List", label(item)),
        TypeRef::Map(value) => format!("{}Map", label(value)),
        TypeRef::Nullable(inner) => format!("Nullable{}", label(inner)),
    }
}
