//! The C# spelling of a use of a type: `string`, `int?`, `List<Shape>`, and which are value
//! types.

use std::fmt::{self, Display};

use super::error::error;
use super::identifiers::Ident;
use crate::ir::{Api, TypeDef, TypeRef};
use crate::writer::WriterError;

/// Newtonsoft.Json's namespace.
pub(crate) const JSON: &str = "global::Newtonsoft.Json";
/// A JSON value.
pub(crate) const JTOKEN: &str = "global::Newtonsoft.Json.Linq.JToken";
/// Integers beyond 64 bits.
const BIG_INTEGER: &str = "global::System.Numerics.BigInteger";

/// The C# type of a use of a type.
pub(crate) fn type_name(api: &Api, ty: &TypeRef) -> Result<String, WriterError> {
    Ok(cs_type(api, ty, false)?.to_string())
}

/// The C# type of a use of a type, written where it is formatted; `nullable` adds the `?` a
/// value type needs to admit null. Fails if a named type is not defined.
pub(crate) fn cs_type<'a>(
    api: &'a Api,
    ty: &'a TypeRef,
    nullable: bool,
) -> Result<CsType<'a>, WriterError> {
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
pub(crate) struct CsType<'a> {
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
            TypeRef::UInt32 => f.write_str("uint")?,
            TypeRef::Int64 => f.write_str("long")?,
            TypeRef::UInt64 => f.write_str("ulong")?,
            TypeRef::BigInteger => f.write_str(BIG_INTEGER)?,
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
        TypeRef::Bool | TypeRef::Float64 => true,
        ty if ty.is_integer() => true,
        TypeRef::Named(name) => matches!(api.types.get(name), Some(TypeDef::Enum(_))),
        _ => false,
    }
}
