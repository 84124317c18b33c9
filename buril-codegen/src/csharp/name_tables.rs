//! The tables that check generated names for clashes: every type name of the generated files,
//! and the members of one type. Any clash, between two generated types or two members of one
//! type, is reported as a [`WriterError`]: nothing is renamed or overwritten silently.

use std::borrow::Cow;
use std::fmt;

use super::error::error;
use super::identifiers::{is_identifier, is_keyword};
use super::runtime::FIXED_TYPES;
use crate::collections::HashMap;
use crate::writer::WriterError;

/// Fails unless `name` can name a generated type or member.
pub(crate) fn check_type_name(name: &str, owner: NamedItem<'_>) -> Result<(), WriterError> {
    if is_identifier(name) && !is_keyword(name) {
        Ok(())
    } else {
        Err(error(format!(
            "{owner} would be named `{name}`, which is not a C# identifier; rename it (a tool, \
             or a Rust type with `#[schemars(rename = \"...\")]`)"
        )))
    }
}

/// The item a generated name is given to, for the message when two things would share the
/// name. Worded only then: with thousands of tools, a message built for every name was a tenth
/// of the C# writer's allocations.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NamedItem<'a> {
    /// The type whose members these are.
    TypeItself,
    /// A type declared whatever the tools are (by the runtime file, or `BurilCatalog`).
    Runtime,
    /// A member of `BurilClient` that is not a tool method.
    ClientItself,
    /// A union's JSON value (`Json`).
    JsonValue,
    /// A union's JSON text (`ToString`).
    JsonText,
    /// A property, by wire name.
    Property(&'a str),
    /// The `ShouldSerialize` method of a property, by wire name.
    PresenceCheck(&'a str),
    /// An enum value, by wire name.
    Value(&'a str),
    /// A union's tag property, by wire name.
    Tag(&'a str),
    /// An untagged union's alternative, by label.
    Alternative(&'a str),
    /// A class, by name.
    Class(&'a str),
    /// An enum, by name.
    Enum(&'a str),
    /// A tagged union, by name.
    TaggedUnion(&'a str),
    /// An untagged union, by name.
    Union(&'a str),
    /// A union's converter, by the union's name.
    Converter(&'a str),
    /// A variant of a tagged union.
    Variant {
        /// Its tag value.
        tag: &'a str,
        /// The union's name.
        union: &'a str,
    },
    /// The tool class of a tool, by wire name.
    ToolClass(&'a str),
    /// The client method of a tool, by wire name.
    ToolMethod(&'a str),
    /// The client method of a deprecated alias.
    AliasMethod(&'a str),
    /// A deprecated alias of a tool.
    Alias {
        /// The alias.
        alias: &'a str,
        /// The tool's wire name.
        tool: &'a str,
    },
}

impl fmt::Display for NamedItem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NamedItem::TypeItself => f.write_str("the type itself"),
            NamedItem::Runtime => f.write_str("a type of the buril runtime"),
            NamedItem::ClientItself => f.write_str("a member of the client itself"),
            NamedItem::JsonValue => f.write_str("the JSON value"),
            NamedItem::JsonText => f.write_str("the JSON text"),
            NamedItem::Property(wire) => write!(f, "the property `{wire}`"),
            NamedItem::PresenceCheck(wire) => write!(f, "the presence check of `{wire}`"),
            NamedItem::Value(wire) => write!(f, "the value `{wire}`"),
            NamedItem::Tag(wire) => write!(f, "the tag `{wire}`"),
            NamedItem::Alternative(label) => write!(f, "the alternative {label}"),
            NamedItem::Class(name) => write!(f, "the class `{name}`"),
            NamedItem::Enum(name) => write!(f, "the enum `{name}`"),
            NamedItem::TaggedUnion(name) => write!(f, "the tagged union `{name}`"),
            NamedItem::Union(name) => write!(f, "the union `{name}`"),
            NamedItem::Converter(name) => write!(f, "the converter of `{name}`"),
            NamedItem::Variant { tag, union } => write!(f, "the `{tag}` variant of `{union}`"),
            NamedItem::ToolClass(tool) => write!(f, "the tool class of `{tool}`"),
            NamedItem::ToolMethod(tool) => write!(f, "the client method of the tool `{tool}`"),
            NamedItem::AliasMethod(alias) => write!(f, "the client method of the alias `{alias}`"),
            NamedItem::Alias { alias, tool } => {
                write!(f, "`{alias}`, a deprecated name of `{tool}`")
            }
        }
    }
}

/// The members of one type, checked for duplicates as they are added.
pub(crate) struct MemberNames<'a> {
    owner: &'a str,
    seen: HashMap<String, NamedItem<'a>>,
}

impl<'a> MemberNames<'a> {
    /// The members of the type `owner`; the type's own name is taken (a member cannot share it).
    pub(crate) fn new(owner: &'a str) -> Self {
        MemberNames::with_capacity(owner, 0)
    }

    /// [`MemberNames::new`], with room for `members` members.
    pub(crate) fn with_capacity(owner: &'a str, members: usize) -> Self {
        MemberNames {
            owner,
            seen: HashMap::with_capacity_and_hasher(members, Default::default()),
        }
    }

    /// Takes `name` for `owner`, failing if another member has it.
    pub(crate) fn add(&mut self, name: &str, owner: NamedItem<'a>) -> Result<(), WriterError> {
        let first = if name == self.owner {
            Some(NamedItem::TypeItself)
        } else {
            self.seen.get(name).copied()
        };
        if let Some(first) = first {
            return Err(error(format!(
                "two members of `{}` would both be named `{name}` ({first}; {owner}); rename one \
                 of them (`#[serde(rename = \"...\")]`), nothing is renamed silently",
                self.owner
            )));
        }
        self.seen.insert(name.to_owned(), owner);
        Ok(())
    }
}

/// Every type name the generated files declare, checked for duplicates. Names are borrowed from
/// the IR where they can be.
#[derive(Default)]
pub(crate) struct TypeNames<'a> {
    seen: HashMap<Cow<'a, str>, NamedItem<'a>>,
}

impl<'a> TypeNames<'a> {
    /// The table with the fixed type names ([`FIXED_TYPES`]) taken.
    pub(crate) fn with_fixed_types() -> Self {
        let mut names = TypeNames::default();
        for name in FIXED_TYPES {
            names.seen.insert(Cow::Borrowed(*name), NamedItem::Runtime);
        }
        names
    }

    /// Takes `name` for `owner`, failing if it is not an identifier or is taken.
    pub(crate) fn add(
        &mut self,
        name: impl Into<Cow<'a, str>>,
        owner: NamedItem<'a>,
    ) -> Result<(), WriterError> {
        let name = name.into();
        check_type_name(&name, owner)?;
        if let Some(first) = self.seen.get(name.as_ref()) {
            return Err(error(format!(
                "two C# types would both be named `{name}` ({first}; {owner}); rename one of \
                 the Rust types or tools, nothing is renamed or overwritten silently"
            )));
        }
        self.seen.insert(name, owner);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_errors() {
        let mut members = MemberNames::new("Keywords");
        members
            .add("WithDash", NamedItem::Property("with-dash"))
            .unwrap();
        let error = members
            .add("WithDash", NamedItem::Property("with_dash"))
            .unwrap_err();
        assert_eq!(
            error.message,
            "two members of `Keywords` would both be named `WithDash` (the property \
             `with-dash`; the property `with_dash`); rename one of them \
             (`#[serde(rename = \"...\")]`), nothing is renamed silently"
        );
        let error = members
            .add("Keywords", NamedItem::Value("keywords"))
            .unwrap_err();
        assert!(
            error
                .message
                .contains("(the type itself; the value `keywords`)"),
            "{error}"
        );
        let mut types = TypeNames::with_fixed_types();
        let error = types
            .add("BurilClient", NamedItem::Class("BurilClient"))
            .unwrap_err();
        assert!(
            error
                .message
                .contains("(a type of the buril runtime; the class `BurilClient`)"),
            "{error}"
        );
        types.add("Shape", NamedItem::Union("Shape")).unwrap();
        let error = types
            .add(String::from("Shape"), NamedItem::Converter("Sh"))
            .unwrap_err();
        assert!(
            error
                .message
                .contains("(the union `Shape`; the converter of `Sh`)"),
            "{error}"
        );
        let error = types.add("", NamedItem::ToolClass("")).unwrap_err();
        assert!(
            error.message.starts_with(
                "the tool class of `` would be named ``, which is not a C# identifier"
            ),
            "{error}"
        );
    }
}
