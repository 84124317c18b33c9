//! The schema IR: what every writer reads.
//!
//! JSON Schemas from the registry are normalised into a small set of shapes first ([`TypeDef`]
//! and [`TypeRef`]), with every `$ref` resolved, so that the C#, TypeScript and skills writers
//! never look at JSON Schema themselves.

mod api;
mod names;
mod normalize;
mod types;

pub use api::{Api, ToolDef};
pub use names::{camel_case, pascal_case};
pub use normalize::{NormalizeError, normalize, normalize_noting};
pub use types::{
    EnumDef, EnumVariant, Field, StructDef, TaggedUnionDef, TaggedVariant, TypeDef, TypeRef,
    UntaggedDef,
};
