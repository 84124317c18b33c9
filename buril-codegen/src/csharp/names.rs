//! C# identifiers: keywords, member names derived from wire names, and collision checks.
//!
//! Generated identifiers are PascalCase, so they can only clash with C# keywords if the naming
//! changes; they are escaped anyway. A property whose name equals its class's name or an
//! inherited `object` member gets a trailing `_` (the wire name stays in `[JsonProperty]`).
//! Any other clash, between two generated types or two members of one type, is reported as a
//! [`WriterError`]: nothing is renamed or overwritten silently.

use std::borrow::Cow;
use std::fmt;

use crate::HashMap;
use crate::ir::pascal_case;
use crate::writer::WriterError;

use super::LANGUAGE;

/// The reserved words of C# (contextual keywords are valid identifiers and are not listed).
const KEYWORDS: &[&str] = &[
    "abstract",
    "as",
    "base",
    "bool",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "checked",
    "class",
    "const",
    "continue",
    "decimal",
    "default",
    "delegate",
    "do",
    "double",
    "else",
    "enum",
    "event",
    "explicit",
    "extern",
    "false",
    "finally",
    "fixed",
    "float",
    "for",
    "foreach",
    "goto",
    "if",
    "implicit",
    "in",
    "int",
    "interface",
    "internal",
    "is",
    "lock",
    "long",
    "namespace",
    "new",
    "null",
    "object",
    "operator",
    "out",
    "override",
    "params",
    "private",
    "protected",
    "public",
    "readonly",
    "ref",
    "return",
    "sbyte",
    "sealed",
    "short",
    "sizeof",
    "stackalloc",
    "static",
    "string",
    "struct",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "uint",
    "ulong",
    "unchecked",
    "unsafe",
    "ushort",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
];

/// Members every class inherits from `object`: a property of that name would hide them.
pub(crate) const OBJECT_MEMBERS: &[&str] = &[
    "Equals",
    "Finalize",
    "GetHashCode",
    "GetType",
    "MemberwiseClone",
    "ReferenceEquals",
    "ToString",
];

/// The types the runtime file declares; no generated type may take these names.
pub(crate) const RUNTIME_TYPES: &[&str] = &[
    "BurilCatalog",
    "BurilClient",
    "BurilJson",
    "BurilNoConverter",
    "BurilProblem",
    "BurilToolException",
    "BurilToolInfo",
    "ITool",
    "IToolTransport",
    "OffThreadAttribute",
    "ToolValidationException",
];

/// The members of `BurilClient` that are not tool methods.
pub(crate) const CLIENT_MEMBERS: &[&str] = &["BurilClient", "Call", "Transport"];

/// Whether `word` is a C# keyword.
pub(crate) fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// `word`, escaped with `@` when it is a keyword.
pub(crate) fn identifier(word: &str) -> String {
    Ident(word).to_string()
}

/// [`identifier`], written where it is formatted.
pub(crate) struct Ident<'a>(pub(crate) &'a str);

impl fmt::Display for Ident<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if is_keyword(self.0) {
            f.write_str("@")?;
        }
        f.write_str(self.0)
    }
}

/// Whether `name` is a plain C# identifier (ASCII letters, digits and `_`, not starting with a
/// digit). Every generated name must be one.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Fails unless `name` can name a generated type or member.
pub(crate) fn check_type_name(name: &str, origin: What<'_>) -> Result<(), WriterError> {
    if is_identifier(name) && !is_keyword(name) {
        Ok(())
    } else {
        Err(error(format!(
            "{origin} would be named `{name}`, which is not a C# identifier; rename it (a tool, \
             or a Rust type with `#[schemars(rename = \"...\")]`)"
        )))
    }
}

/// The C# name of a property or enum member from its wire name: PascalCase, `Property{index}`
/// when nothing of the wire name is left, and a trailing `_` when the name would equal the
/// enclosing type's name (`class_name`) or an inherited `object` member.
pub(crate) fn member_name(wire: &str, index: usize, class_name: &str) -> String {
    let mut name = pascal_case(wire);
    if name.is_empty() {
        name = format!("Property{index}");
    }
    if name == class_name || OBJECT_MEMBERS.contains(&name.as_str()) {
        name.push('_');
    }
    if is_keyword(&name) {
        name.insert(0, '@');
    }
    name
}

/// What takes a name, for the message when two things would share it. Worded only then:
/// with thousands of tools, a message built for every name was a tenth of the C# writer's
/// allocations.
#[derive(Debug, Clone, Copy)]
pub(crate) enum What<'a> {
    /// The type whose members these are.
    TypeItself,
    /// A type the runtime file declares.
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

impl fmt::Display for What<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            What::TypeItself => f.write_str("the type itself"),
            What::Runtime => f.write_str("a type of the buril runtime"),
            What::ClientItself => f.write_str("a member of the client itself"),
            What::JsonValue => f.write_str("the JSON value"),
            What::JsonText => f.write_str("the JSON text"),
            What::Property(wire) => write!(f, "the property `{wire}`"),
            What::PresenceCheck(wire) => write!(f, "the presence check of `{wire}`"),
            What::Value(wire) => write!(f, "the value `{wire}`"),
            What::Tag(wire) => write!(f, "the tag `{wire}`"),
            What::Alternative(label) => write!(f, "the alternative {label}"),
            What::Class(name) => write!(f, "the class `{name}`"),
            What::Enum(name) => write!(f, "the enum `{name}`"),
            What::TaggedUnion(name) => write!(f, "the tagged union `{name}`"),
            What::Union(name) => write!(f, "the union `{name}`"),
            What::Converter(name) => write!(f, "the converter of `{name}`"),
            What::Variant { tag, union } => write!(f, "the `{tag}` variant of `{union}`"),
            What::ToolClass(tool) => write!(f, "the tool class of `{tool}`"),
            What::ToolMethod(tool) => write!(f, "the client method of the tool `{tool}`"),
            What::AliasMethod(alias) => write!(f, "the client method of the alias `{alias}`"),
            What::Alias { alias, tool } => write!(f, "`{alias}`, a deprecated name of `{tool}`"),
        }
    }
}

/// The members of one type, checked for duplicates as they are added.
pub(crate) struct Members<'a> {
    owner: &'a str,
    seen: HashMap<String, What<'a>>,
}

impl<'a> Members<'a> {
    /// The members of the type `owner`; the type's own name is taken (a member cannot share it).
    pub(crate) fn new(owner: &'a str) -> Self {
        Members::with_capacity(owner, 0)
    }

    /// [`Members::new`], with room for `members` members.
    pub(crate) fn with_capacity(owner: &'a str, members: usize) -> Self {
        Members {
            owner,
            seen: HashMap::with_capacity_and_hasher(members, Default::default()),
        }
    }

    /// Takes `name` for `what`, failing if another member has it.
    pub(crate) fn add(&mut self, name: &str, what: What<'a>) -> Result<(), WriterError> {
        let first = if name == self.owner {
            Some(What::TypeItself)
        } else {
            self.seen.get(name).copied()
        };
        if let Some(first) = first {
            return Err(error(format!(
                "two members of `{}` would both be named `{name}` ({first}; {what}); rename one \
                 of them (`#[serde(rename = \"...\")]`), nothing is renamed silently",
                self.owner
            )));
        }
        self.seen.insert(name.to_owned(), what);
        Ok(())
    }
}

/// Every type name the generated files declare, checked for duplicates. Names are borrowed from
/// the IR where they can be.
#[derive(Default)]
pub(crate) struct TypeNames<'a> {
    seen: HashMap<Cow<'a, str>, What<'a>>,
}

impl<'a> TypeNames<'a> {
    /// The runtime's type names, taken.
    pub(crate) fn with_runtime() -> Self {
        let mut names = TypeNames::default();
        for name in RUNTIME_TYPES {
            names.seen.insert(Cow::Borrowed(*name), What::Runtime);
        }
        names
    }

    /// Takes `name` for `what`.
    pub(crate) fn add(
        &mut self,
        name: impl Into<Cow<'a, str>>,
        what: What<'a>,
    ) -> Result<(), WriterError> {
        let name = name.into();
        check_type_name(&name, what)?;
        if let Some(first) = self.seen.get(name.as_ref()) {
            return Err(error(format!(
                "two C# types would both be named `{name}` ({first}; {what}); rename one of \
                 the Rust types or tools, nothing is renamed or overwritten silently"
            )));
        }
        self.seen.insert(name, what);
        Ok(())
    }
}

/// A writer error for C#.
pub(crate) fn error(message: impl Into<String>) -> WriterError {
    WriterError {
        language: LANGUAGE,
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(identifier("class"), "@class");
        assert_eq!(identifier("Class"), "Class");
        assert!(is_keyword("namespace"));
        assert!(!is_keyword("value"));
    }

    #[test]
    fn member_names() {
        assert_eq!(member_name("with-dash", 0, "X"), "WithDash");
        assert_eq!(member_name("name", 0, "Name"), "Name_");
        assert_eq!(member_name("to_string", 0, "X"), "ToString_");
        assert_eq!(member_name("", 3, "X"), "Property3");
        assert_eq!(member_name("3d", 0, "X"), "_3d");
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("_3d"));
        assert!(is_identifier("Shape"));
        assert!(!is_identifier("3d"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("a-b"));
    }

    #[test]
    fn duplicates_are_errors() {
        let mut members = Members::new("Keywords");
        members
            .add("WithDash", What::Property("with-dash"))
            .unwrap();
        let error = members
            .add("WithDash", What::Property("with_dash"))
            .unwrap_err();
        assert_eq!(
            error.message,
            "two members of `Keywords` would both be named `WithDash` (the property \
             `with-dash`; the property `with_dash`); rename one of them \
             (`#[serde(rename = \"...\")]`), nothing is renamed silently"
        );
        let error = members
            .add("Keywords", What::Value("keywords"))
            .unwrap_err();
        assert!(
            error
                .message
                .contains("(the type itself; the value `keywords`)"),
            "{error}"
        );
        let mut types = TypeNames::with_runtime();
        let error = types
            .add("BurilClient", What::Class("BurilClient"))
            .unwrap_err();
        assert!(
            error
                .message
                .contains("(a type of the buril runtime; the class `BurilClient`)"),
            "{error}"
        );
        types.add("Shape", What::Union("Shape")).unwrap();
        let error = types
            .add(String::from("Shape"), What::Converter("Sh"))
            .unwrap_err();
        assert!(
            error
                .message
                .contains("(the union `Shape`; the converter of `Sh`)"),
            "{error}"
        );
        let error = types.add("", What::ToolClass("")).unwrap_err();
        assert!(
            error.message.starts_with(
                "the tool class of `` would be named ``, which is not a C# identifier"
            ),
            "{error}"
        );
    }
}
