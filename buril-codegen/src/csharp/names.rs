//! C# identifiers: keywords, member names derived from wire names, and collision checks.
//!
//! Generated identifiers are PascalCase, so they can only clash with C# keywords if the naming
//! changes; they are escaped anyway. A property whose name equals its class's name or an
//! inherited `object` member gets a trailing `_` (the wire name stays in `[JsonProperty]`).
//! Any other clash, between two generated types or two members of one type, is reported as a
//! [`WriterError`]: nothing is renamed or overwritten silently.

use std::collections::BTreeMap;
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
pub(crate) fn check_type_name(name: &str, origin: &str) -> Result<(), WriterError> {
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

/// The members of one type, checked for duplicates as they are added.
pub(crate) struct Members<'a> {
    owner: &'a str,
    seen: BTreeMap<String, String>,
}

impl<'a> Members<'a> {
    /// The members of the type `owner`; the type's own name is taken (a member cannot share it).
    pub(crate) fn new(owner: &'a str) -> Self {
        let mut seen = BTreeMap::new();
        seen.insert(owner.to_owned(), "the type itself".to_owned());
        Members { owner, seen }
    }

    /// Takes `name` for `what`, failing if another member has it.
    pub(crate) fn add(&mut self, name: &str, what: impl Into<String>) -> Result<(), WriterError> {
        let what = what.into();
        if let Some(first) = self.seen.get(name) {
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

/// Every type name the generated files declare, checked for duplicates.
#[derive(Default)]
pub(crate) struct TypeNames {
    seen: HashMap<String, String>,
}

impl TypeNames {
    /// The runtime's type names, taken.
    pub(crate) fn with_runtime() -> Self {
        let mut names = TypeNames::default();
        for name in RUNTIME_TYPES {
            names
                .seen
                .insert((*name).to_owned(), "a type of the buril runtime".to_owned());
        }
        names
    }

    /// Takes `name` for `what`.
    pub(crate) fn add(&mut self, name: &str, what: impl Into<String>) -> Result<(), WriterError> {
        let what = what.into();
        check_type_name(name, &what)?;
        if let Some(first) = self.seen.get(name) {
            return Err(error(format!(
                "two C# types would both be named `{name}` ({first}; {what}); rename one of \
                 the Rust types or tools, nothing is renamed or overwritten silently"
            )));
        }
        self.seen.insert(name.to_owned(), what);
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
        members.add("WithDash", "`with-dash`").unwrap();
        assert!(members.add("WithDash", "`with_dash`").is_err());
        assert!(members.add("Keywords", "`keywords`").is_err());
        let mut types = TypeNames::with_runtime();
        assert!(types.add("BurilClient", "a struct").is_err());
        types.add("Shape", "a union").unwrap();
        assert!(types.add("Shape", "a struct").is_err());
        assert!(types.add("", "a struct").is_err());
    }
}
