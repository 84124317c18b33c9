//! Identifiers: which names are valid, and which words are reserved for values.

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
    fn reserved_values_get_a_trailing_underscore() {
        assert_eq!(value_name("delete"), "delete_");
        assert_eq!(value_name("sceneOpen"), "sceneOpen");
    }
}
