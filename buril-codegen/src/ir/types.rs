//! The named types of the IR and the uses of types in fields and unions.

/// A named type.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeDef {
    /// An object with known properties.
    Struct(StructDef),
    /// A string with a fixed set of values.
    Enum(EnumDef),
    /// Objects told apart by a string property (`oneOf` of objects with a `const` property).
    TaggedUnion(TaggedUnionDef),
    /// Any one of several shapes, told apart by trying each (`anyOf`, other `oneOf`).
    Untagged(UntaggedDef),
}

impl TypeDef {
    /// The type's name.
    pub fn name(&self) -> &str {
        match self {
            TypeDef::Struct(def) => &def.name,
            TypeDef::Enum(def) => &def.name,
            TypeDef::TaggedUnion(def) => &def.name,
            TypeDef::Untagged(def) => &def.name,
        }
    }

    /// The type's description.
    pub fn description(&self) -> Option<&str> {
        match self {
            TypeDef::Struct(def) => def.description.as_deref(),
            TypeDef::Enum(def) => def.description.as_deref(),
            TypeDef::TaggedUnion(def) => def.description.as_deref(),
            TypeDef::Untagged(def) => def.description.as_deref(),
        }
    }
}

/// An object with known properties.
#[derive(Debug, Clone, PartialEq)]
pub struct StructDef {
    /// The type name (PascalCase).
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// The properties, in schema order (sorted by wire name).
    pub fields: Vec<Field>,
}

/// One property of a struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name on the wire.
    pub wire: String,
    /// The property's type. Nullable types are [`TypeRef::Nullable`].
    pub ty: TypeRef,
    /// Whether the property must be present.
    pub required: bool,
    /// Its description.
    pub description: Option<String>,
}

/// A string enum.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumDef {
    /// The type name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// The values, in schema order.
    pub variants: Vec<EnumVariant>,
}

/// One value of a string enum.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumVariant {
    /// The value on the wire.
    pub wire: String,
    /// Its description.
    pub description: Option<String>,
}

/// A union of objects told apart by a tag property.
#[derive(Debug, Clone, PartialEq)]
pub struct TaggedUnionDef {
    /// The type name of the union (the base class).
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// The tag property's wire name.
    pub tag: String,
    /// The variants, in schema order.
    pub variants: Vec<TaggedVariant>,
}

/// One variant of a tagged union.
#[derive(Debug, Clone, PartialEq)]
pub struct TaggedVariant {
    /// The tag's value for this variant.
    pub tag_value: String,
    /// The variant's type name (`{Union}{PascalTag}`).
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// The variant's other properties.
    pub fields: Vec<Field>,
}

/// A union without a tag.
#[derive(Debug, Clone, PartialEq)]
pub struct UntaggedDef {
    /// The type name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// The alternatives.
    pub variants: Vec<TypeRef>,
}

/// A use of a type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeRef {
    /// A JSON string.
    String,
    /// A JSON boolean.
    Bool,
    /// An integer that fits 32 bits (schemars formats `int8` to `int32`, `uint8`, `uint16`).
    Int32,
    /// Any other integer: 64 bits (`int64`, `uint32`, `uint64`, or no format).
    Int64,
    /// A floating-point number.
    Float64,
    /// Any JSON value.
    Json,
    /// A named type, defined in the `types` of the `Api`.
    Named(String),
    /// An array.
    Array(Box<TypeRef>),
    /// An object with string keys and values of one type.
    Map(Box<TypeRef>),
    /// The type, or `null`.
    Nullable(Box<TypeRef>),
}

impl TypeRef {
    /// Whether the type admits `null`.
    pub fn is_nullable(&self) -> bool {
        matches!(self, TypeRef::Nullable(_) | TypeRef::Json)
    }

    /// The type without its nullability.
    pub fn non_null(&self) -> &TypeRef {
        match self {
            TypeRef::Nullable(inner) => inner,
            other => other,
        }
    }
}
