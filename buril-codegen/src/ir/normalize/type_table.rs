//! The named types found so far, and the merging of a type seen again from another tool.

use std::collections::BTreeMap;

use super::error::NormalizeError;
use crate::collections::{HashMap, HashSet};
use crate::ir::types::{Field, StructDef, TaggedUnionDef, TaggedVariant, TypeDef, TypeRef};

/// The named types found so far. Hash maps: with thousands of tools, a sorted map's lookups
/// compare long, similar names level after level; the IR's sorted map is built once at the end.
#[derive(Default)]
pub(super) struct TypeTable {
    defs: HashMap<String, TypeDef>,
    /// Where each type was first seen, for the message when another type wants its name.
    origins: HashMap<String, String>,
    /// Definitions being resolved: a reference back to one of them is a recursive type.
    pub(super) in_progress: HashSet<String>,
}

impl TypeTable {
    /// The types, sorted by name.
    pub(super) fn into_sorted(self) -> BTreeMap<String, TypeDef> {
        self.defs.into_iter().collect()
    }

    /// Adds a named type. The same type seen again (from another tool) is merged: a property is
    /// required only where every use requires it, so one class serves input and output.
    pub(super) fn insert(&mut self, def: TypeDef, origin: &str) -> Result<(), NormalizeError> {
        let name = def.name().to_owned();
        let Some(existing) = self.defs.get(&name) else {
            self.origins.insert(name.clone(), origin.to_owned());
            self.defs.insert(name, def);
            return Ok(());
        };
        let merged = merge(existing, &def).ok_or_else(|| NormalizeError::Collision {
            name: name.clone(),
            first: self.origins[&name].clone(),
            second: origin.to_owned(),
        })?;
        self.defs.insert(name, merged);
        Ok(())
    }
}

/// One type from two uses of its name, or `None` when they are different types.
fn merge(a: &TypeDef, b: &TypeDef) -> Option<TypeDef> {
    if a == b {
        return Some(a.clone());
    }
    match (a, b) {
        (TypeDef::Struct(a), TypeDef::Struct(b)) => Some(TypeDef::Struct(StructDef {
            name: a.name.clone(),
            description: a.description.clone().or_else(|| b.description.clone()),
            fields: merge_fields(&a.fields, &b.fields)?,
        })),
        (TypeDef::TaggedUnion(a), TypeDef::TaggedUnion(b))
            if a.tag == b.tag && a.variants.len() == b.variants.len() =>
        {
            let variants = a
                .variants
                .iter()
                .zip(&b.variants)
                .map(|(x, y)| {
                    (x.tag_value == y.tag_value && x.name == y.name).then_some(())?;
                    Some(TaggedVariant {
                        fields: merge_fields(&x.fields, &y.fields)?,
                        ..x.clone()
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(TypeDef::TaggedUnion(TaggedUnionDef {
                variants,
                ..a.clone()
            }))
        }
        (TypeDef::Enum(a), TypeDef::Enum(b))
            if a.variants
                .iter()
                .map(|v| &v.wire)
                .eq(b.variants.iter().map(|v| &v.wire)) =>
        {
            Some(TypeDef::Enum(a.clone()))
        }
        _ => None,
    }
}

/// The fields of a struct seen twice, or `None` when they differ in more than presence.
fn merge_fields(a: &[Field], b: &[Field]) -> Option<Vec<Field>> {
    if a.len() != b.len() {
        return None;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            if x.wire != y.wire {
                return None;
            }
            // `Option<T>` reads as "may be absent" and writes as "present, maybe null".
            let ty = if x.ty == y.ty {
                x.ty.clone()
            } else if x.ty.non_null() == y.ty.non_null() {
                TypeRef::Nullable(Box::new(x.ty.non_null().clone()))
            } else {
                return None;
            };
            Some(Field {
                wire: x.wire.clone(),
                ty,
                required: x.required && y.required,
                description: x.description.clone().or_else(|| y.description.clone()),
            })
        })
        .collect()
}
