//! Identifiers and property keys: which names are valid, which must be escaped, and a registry
//! that reports two things wanting the same exported name instead of renaming one.

use std::borrow::Cow;

use crate::HashMap;

use super::literal::write_string;

/// Words that cannot name a function, a constant or a parameter in a strict-mode ES module,
/// or that the compiler reserves at the top level of a module compiled to CommonJS.
const RESERVED: &[&str] = &[
    // ECMAScript reserved words.
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    // Reserved in strict mode and in modules.
    "await",
    "implements",
    "interface",
    "let",
    "package",
    "private",
    "protected",
    "public",
    "static",
    "yield",
    // Not bindable in strict mode.
    "arguments",
    "eval",
    // Global values a module should not shadow.
    "undefined",
    "NaN",
    "Infinity",
    // Reserved by TypeScript at the top level of a CommonJS module.
    "require",
    "exports",
    "module",
    "__dirname",
    "__filename",
];

/// Whether `text` is an ASCII identifier (`[A-Za-z_$][A-Za-z0-9_$]*`).
pub(crate) fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Whether `name` is a reserved word (see [`RESERVED`]).
pub(crate) fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// A value name (function, constant) for `name`: reserved words get a trailing `_`
/// (`delete` -> `delete_`). The registry still checks the result for collisions.
pub(crate) fn value_name(name: &str) -> String {
    if is_reserved(name) {
        format!("{name}_")
    } else {
        name.to_owned()
    }
}

/// A property key in a type: bare when it is an identifier (keywords included, which are valid
/// property names), quoted otherwise (`"with-dash"`).
pub(crate) fn type_key(wire: &str) -> String {
    let mut out = String::with_capacity(wire.len() + 2);
    write_type_key(&mut out, wire);
    out
}

/// [`type_key`], written where it is formatted.
pub(crate) struct TypeKey<'a>(pub(crate) &'a str);

impl std::fmt::Display for TypeKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if is_identifier(self.0) {
            f.write_str(self.0)
        } else {
            f.write_str(&type_key(self.0))
        }
    }
}

/// [`type_key`], written at the end of `out`.
pub(crate) fn write_type_key(out: &mut String, wire: &str) {
    if is_identifier(wire) {
        out.push_str(wire);
    } else {
        write_string(out, wire);
    }
}

/// A property key in an object literal. Like [`type_key`], except that `__proto__` is written
/// as a computed key: `{ "__proto__": x }` would set the prototype instead of a property.
pub(crate) fn literal_key(wire: &str) -> String {
    let mut out = String::with_capacity(wire.len() + 4);
    write_literal_key(&mut out, wire);
    out
}

/// [`literal_key`], written at the end of `out`.
pub(crate) fn write_literal_key(out: &mut String, wire: &str) {
    if wire == "__proto__" {
        out.push('[');
        write_string(out, wire);
        out.push(']');
    } else {
        write_type_key(out, wire);
    }
}

/// What an exported name names, for the message when two things would share it. Worded only
/// then: with thousands of tools, a message built for every name was a tenth of the writer's
/// allocations.
#[derive(Debug, Clone, Copy)]
pub(crate) enum What<'a> {
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

impl std::fmt::Display for What<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Runtime { name, file } => write!(f, "the runtime item `{name}` of `{file}`"),
            What::Int64 => f.write_str("the 64-bit integer alias of `types.ts`"),
            What::Type(name) => write!(f, "the type `{name}`"),
            What::Variant { tag, union } => {
                write!(f, "the `{tag}` variant of the tagged union `{union}`")
            }
            What::EnumValues(name) => write!(f, "the list of values of the enum `{name}`"),
            What::ClientFunction(tool) => write!(f, "the client function of the tool `{tool}`"),
            What::DefinitionConstant(tool) => {
                write!(f, "the definition constant of the tool `{tool}`")
            }
            What::AliasFunction { alias, tool } => {
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
pub(crate) struct Registry<'a> {
    names: HashMap<Cow<'a, str>, What<'a>>,
}

impl<'a> Registry<'a> {
    /// Claims `name` for a type. Fails when it is not an identifier or is taken.
    pub(crate) fn claim_type(
        &mut self,
        name: impl Into<Cow<'a, str>>,
        what: What<'a>,
    ) -> Result<(), String> {
        self.claim(name.into(), what, false)
    }

    /// Claims `name` for a value (function, constant). Fails when it is not an identifier, is a
    /// reserved word, or is taken.
    pub(crate) fn claim_value(
        &mut self,
        name: impl Into<Cow<'a, str>>,
        what: What<'a>,
    ) -> Result<(), String> {
        self.claim(name.into(), what, true)
    }

    fn claim(&mut self, name: Cow<'a, str>, what: What<'a>, value: bool) -> Result<(), String> {
        if !is_identifier(&name) || (value && is_reserved(&name)) {
            return Err(format!(
                "{what} would be named `{name}`, which is not a valid TypeScript identifier; \
                 rename it"
            ));
        }
        if let Some(first) = self.names.get(name.as_ref()) {
            return Err(format!(
                "`{name}` would name both {first} and {what}; rename one of them (nothing is \
                 renamed silently)"
            ));
        }
        self.names.insert(name, what);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert!(is_identifier("sceneOpen"));
        assert!(is_identifier("_3d"));
        assert!(is_identifier("$x"));
        assert!(!is_identifier("with-dash"));
        assert!(!is_identifier("3d"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("é"));
    }

    #[test]
    fn keys_and_values() {
        assert_eq!(type_key("class"), "class");
        assert_eq!(type_key("with-dash"), "\"with-dash\"");
        assert_eq!(literal_key("__proto__"), "[\"__proto__\"]");
        assert_eq!(type_key("__proto__"), "__proto__");
        assert_eq!(value_name("delete"), "delete_");
        assert_eq!(value_name("sceneOpen"), "sceneOpen");
    }

    #[test]
    fn a_second_claim_is_an_error() {
        let mut registry = Registry::default();
        let runtime = What::Runtime {
            name: "ToolMap",
            file: "tools.ts",
        };
        registry.claim_type("ToolMap", runtime).unwrap();
        let error = registry
            .claim_type(String::from("ToolMap"), What::Type("ToolMap"))
            .unwrap_err();
        assert_eq!(
            error,
            "`ToolMap` would name both the runtime item `ToolMap` of `tools.ts` and the type \
             `ToolMap`; rename one of them (nothing is renamed silently)"
        );
        let error = registry
            .claim_value("delete", What::ClientFunction("delete"))
            .unwrap_err();
        assert_eq!(
            error,
            "the client function of the tool `delete` would be named `delete`, which is not a \
             valid TypeScript identifier; rename it"
        );
        let alias = What::AliasFunction {
            alias: "a-b",
            tool: "t",
        };
        let error = registry.claim_value("a-b", alias).unwrap_err();
        assert!(
            error.starts_with("the deprecated function of `a-b` (an alias of `t`) would be"),
            "{error}"
        );
        assert!(registry.claim_type("NaN", What::Type("NaN")).is_ok());
        let error = registry
            .claim_value("NaN", What::EnumValues("E"))
            .unwrap_err();
        // `NaN` is a global value: reserved for values, free for types.
        assert!(
            error.starts_with("the list of values of the enum `E` would be named `NaN`"),
            "{error}"
        );
        let error = registry
            .claim_type(
                "NaN",
                What::Variant {
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
