//! C# identifiers: keywords, and member names derived from wire names.
//!
//! Generated identifiers are PascalCase, so they can only clash with C# keywords if the naming
//! changes; they are escaped anyway. A property whose name equals its class's name or an
//! inherited `object` member gets a trailing `_` (the wire name stays in `[JsonProperty]`).

use std::fmt;

use crate::ir::pascal_case;

/// The reserved words of C# (contextual keywords are valid identifiers and are not listed),
/// sorted.
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

/// Whether `word` is a C# keyword. Every keyword starts with a lowercase letter, so the
/// PascalCase names the writer mostly asks about are answered without a lookup.
pub(crate) fn is_keyword(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase()) && KEYWORDS.binary_search(&word).is_ok()
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

/// An identifier without its keyword escape.
pub(crate) fn bare(name: &str) -> &str {
    name.strip_prefix('@').unwrap_or(name)
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
        assert!(KEYWORDS.is_sorted(), "binary search needs them sorted");
        assert!(KEYWORDS.iter().all(|k| is_keyword(k)));
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
}
