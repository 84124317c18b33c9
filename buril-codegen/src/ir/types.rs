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
    /// An integer whose values all fit a signed 32-bit integer (Rust `i8`, `i16`, `i32`, `u8`,
    /// `u16`). See [`TypeRef::integer`] for how the kind of an integer schema is
    /// decided.
    Int32,
    /// An integer from 0 to 2^32 - 1 that does not fit [`TypeRef::Int32`] (Rust `u32`).
    UInt32,
    /// An integer that fits a signed 64-bit integer and neither 32-bit kind (Rust `i64`,
    /// `isize`).
    Int64,
    /// An integer from 0 to 2^64 - 1 that does not fit [`TypeRef::Int64`] (Rust `u64`,
    /// `usize`, and `u128` as buril publishes it).
    UInt64,
    /// An integer that no fixed-size kind holds: a schema without bounds (nor a `format` that
    /// stands for them), or with bounds wider than every fixed kind (Rust `i128`, which buril
    /// publishes as `i64::MIN..=u64::MAX`).
    BigInteger,
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
    /// The integer kind of an integer schema (`"type": "integer"`) whose values run from `min`
    /// to `max` (`None`: unbounded on that side).
    ///
    /// Normalisation takes the range from the schema's `minimum` and `maximum` (an
    /// `exclusiveMinimum` or `exclusiveMaximum` counts as the next integer inside it, a
    /// fractional bound as the first integer inside it), intersected with the range of its
    /// `format` when that names a Rust integer type (`int8` to `int128`, `uint8` to `uint128`,
    /// `int`, `uint` taken as 64 bits: schemars' formats, which buril drops from the schemas it
    /// publishes but sources from elsewhere may still carry). A `const` integer's range is its
    /// value. The kind is the first of these that holds the whole range:
    ///
    /// | kind | range | Rust types, as buril publishes them |
    /// | --- | --- | --- |
    /// | [`Int32`](TypeRef::Int32) | `-2^31..=2^31 - 1` | `i8`, `i16`, `i32`, `u8`, `u16` |
    /// | [`UInt32`](TypeRef::UInt32) | `0..=2^32 - 1` | `u32` |
    /// | [`Int64`](TypeRef::Int64) | `-2^63..=2^63 - 1` | `i64`, `isize` |
    /// | [`UInt64`](TypeRef::UInt64) | `0..=2^64 - 1` | `u64`, `usize`, `u128` |
    /// | [`BigInteger`](TypeRef::BigInteger) | anything else, or a side without a bound | `i128` |
    ///
    /// (buril publishes `i128` and `u128` with the range a JSON parser keeps exactly,
    /// `i64::MIN..=u64::MAX` and `0..=u64::MAX`.)
    ///
    /// A range the author narrowed takes the kind of what it admits: an `i64` with
    /// `#[schemars(range(min = 0, max = 100))]` is an `Int32`.
    ///
    /// ```
    /// use buril_codegen::ir::TypeRef;
    ///
    /// assert_eq!(TypeRef::integer(Some(0), Some(u32::MAX.into())), TypeRef::UInt32);
    /// assert_eq!(TypeRef::integer(Some(-1), Some(u32::MAX.into())), TypeRef::Int64);
    /// assert_eq!(TypeRef::integer(Some(0), None), TypeRef::BigInteger);
    /// ```
    pub fn integer(min: Option<i128>, max: Option<i128>) -> TypeRef {
        let (Some(min), Some(max)) = (min, max) else {
            return TypeRef::BigInteger;
        };
        let within = |low: i128, high: i128| low <= min && max <= high;
        if within(i32::MIN.into(), i32::MAX.into()) {
            TypeRef::Int32
        } else if within(0, u32::MAX.into()) {
            TypeRef::UInt32
        } else if within(i64::MIN.into(), i64::MAX.into()) {
            TypeRef::Int64
        } else if within(0, u64::MAX.into()) {
            TypeRef::UInt64
        } else {
            TypeRef::BigInteger
        }
    }

    /// Whether the type is one of the integer kinds.
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            TypeRef::Int32
                | TypeRef::UInt32
                | TypeRef::Int64
                | TypeRef::UInt64
                | TypeRef::BigInteger
        )
    }

    /// Whether an integer of this kind may be beyond what a double holds exactly (2^53).
    pub fn is_wide_integer(&self) -> bool {
        matches!(self, TypeRef::Int64 | TypeRef::UInt64 | TypeRef::BigInteger)
    }

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
