//! Property keys in types and object literals: bare when they are identifiers, quoted
//! otherwise.

use super::identifiers::is_identifier;
use super::strings::write_string;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values() {
        assert_eq!(type_key("class"), "class");
        assert_eq!(type_key("with-dash"), "\"with-dash\"");
        assert_eq!(literal_key("__proto__"), "[\"__proto__\"]");
        assert_eq!(type_key("__proto__"), "__proto__");
    }
}
