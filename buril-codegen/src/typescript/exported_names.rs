//! The table of every name the generated files export, which reports two things wanting the
//! same name instead of renaming one.

use std::borrow::Cow;
use std::fmt;

use super::identifiers::{is_identifier, is_reserved};
use crate::collections::HashMap;

/// ExportedItem an exported name names, for the message when two things would share it. Worded only
/// then: with thousands of tools, a message built for every name was a tenth of the writer's
/// allocations.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ExportedItem<'a> {
    /// An item the runtime part of a file exports.
    Runtime {
        /// The item.
        name: &'a str,
        /// The file.
        file: &'a str,
    },
    /// The alias for 64-bit integers.
    Int64,
    /// A named type of the IR.
    Type(&'a str),
    /// A variant of a tagged union.
    Variant {
        /// Its tag value.
        tag: &'a str,
        /// The union's name.
        union: &'a str,
    },
    /// The constant listing an enum's values, by the enum's name.
    EnumValues(&'a str),
    /// The client function of a tool, by wire name.
    ClientFunction(&'a str),
    /// The definition constant of a tool, by wire name.
    DefinitionConstant(&'a str),
    /// The deprecated function of an alias.
    AliasFunction {
        /// The alias.
        alias: &'a str,
        /// The tool's wire name.
        tool: &'a str,
    },
}

impl fmt::Display for ExportedItem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportedItem::Runtime { name, file } => {
                write!(f, "the runtime item `{name}` of `{file}`")
            }
            ExportedItem::Int64 => f.write_str("the 64-bit integer alias of `types.ts`"),
            ExportedItem::Type(name) => write!(f, "the type `{name}`"),
            ExportedItem::Variant { tag, union } => {
                write!(f, "the `{tag}` variant of the tagged union `{union}`")
            }
            ExportedItem::EnumValues(name) => write!(f, "the list of values of the enum `{name}`"),
            ExportedItem::ClientFunction(tool) => {
                write!(f, "the client function of the tool `{tool}`")
            }
            ExportedItem::DefinitionConstant(tool) => {
                write!(f, "the definition constant of the tool `{tool}`")
            }
            ExportedItem::AliasFunction { alias, tool } => {
                write!(
                    f,
                    "the deprecated function of `{alias}` (an alias of `{tool}`)"
                )
            }
        }
    }
}

/// Every name the generated files export (they all meet in `index.ts`), with what each names,
/// so that a second use of a name is reported rather than silently shadowed or renamed. Names
/// are borrowed from the IR where they can be.
#[derive(Debug, Default)]
pub(crate) struct ExportedNames<'a> {
    names: HashMap<Cow<'a, str>, ExportedItem<'a>>,
}

impl<'a> ExportedNames<'a> {
    /// Claims `name` for a type. Fails when it is not an identifier or is taken.
    pub(crate) fn claim_type(
        &mut self,
        name: impl Into<Cow<'a, str>>,
        owner: ExportedItem<'a>,
    ) -> Result<(), String> {
        self.claim(name.into(), owner, false)
    }

    /// Claims `name` for a value (function, constant). Fails when it is not an identifier, is a
    /// reserved word, or is taken.
    pub(crate) fn claim_value(
        &mut self,
        name: impl Into<Cow<'a, str>>,
        owner: ExportedItem<'a>,
    ) -> Result<(), String> {
        self.claim(name.into(), owner, true)
    }

    fn claim(
        &mut self,
        name: Cow<'a, str>,
        owner: ExportedItem<'a>,
        value: bool,
    ) -> Result<(), String> {
        if !is_identifier(&name) || (value && is_reserved(&name)) {
            return Err(format!(
                "{owner} would be named `{name}`, which is not a valid TypeScript identifier; \
                 rename it"
            ));
        }
        if let Some(first) = self.names.get(name.as_ref()) {
            return Err(format!(
                "`{name}` would name both {first} and {owner}; rename one of them (nothing is \
                 renamed silently)"
            ));
        }
        self.names.insert(name, owner);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_claim_is_an_error() {
        let mut names = ExportedNames::default();
        let runtime = ExportedItem::Runtime {
            name: "ToolMap",
            file: "tools.ts",
        };
        names.claim_type("ToolMap", runtime).unwrap();
        let error = names
            .claim_type(String::from("ToolMap"), ExportedItem::Type("ToolMap"))
            .unwrap_err();
        assert_eq!(
            error,
            "`ToolMap` would name both the runtime item `ToolMap` of `tools.ts` and the type \
             `ToolMap`; rename one of them (nothing is renamed silently)"
        );
        let error = names
            .claim_value("delete", ExportedItem::ClientFunction("delete"))
            .unwrap_err();
        assert_eq!(
            error,
            "the client function of the tool `delete` would be named `delete`, which is not a \
             valid TypeScript identifier; rename it"
        );
        let alias = ExportedItem::AliasFunction {
            alias: "a-b",
            tool: "t",
        };
        let error = names.claim_value("a-b", alias).unwrap_err();
        assert!(
            error.starts_with("the deprecated function of `a-b` (an alias of `t`) would be"),
            "{error}"
        );
        assert!(names.claim_type("NaN", ExportedItem::Type("NaN")).is_ok());
        let error = names
            .claim_value("NaN", ExportedItem::EnumValues("E"))
            .unwrap_err();
        // `NaN` is a global value: reserved for values, free for types.
        assert!(
            error.starts_with("the list of values of the enum `E` would be named `NaN`"),
            "{error}"
        );
        let error = names
            .claim_type(
                "NaN",
                ExportedItem::Variant {
                    tag: "n",
                    union: "U",
                },
            )
            .unwrap_err();
        assert!(
            error.contains("both the type `NaN` and the `n` variant of the tagged union `U`"),
            "{error}"
        );
    }
}
