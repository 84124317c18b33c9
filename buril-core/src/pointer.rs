//! JSON Pointers (RFC 6901), as every problem, drift and schema location is named.
//!
//! A leaf module: it depends on nothing else in the crate, so that validation, the provider
//! profiles, the agent team's replay and codegen's normalisation all escape the same way.
//!
//! ```
//! use buril::pointer;
//!
//! assert_eq!(pointer::escape("a/b~c"), "a~1b~0c");
//! assert_eq!(pointer::child("/weights", "a/b"), "/weights/a~1b");
//! assert_eq!(pointer::unescape("a~1b~0c"), "a/b~c");
//! let mut at = String::from("/items");
//! pointer::push(&mut at, "0");
//! assert_eq!(at, "/items/0");
//! ```

use std::borrow::Cow;

/// `token` escaped for use as one reference token of a pointer: `~` becomes `~0`, `/` becomes
/// `~1`. Borrowed when nothing needs escaping, which is nearly always.
pub fn escape(token: &str) -> Cow<'_, str> {
    if !token.contains(['~', '/']) {
        return Cow::Borrowed(token);
    }
    let mut escaped = String::with_capacity(token.len() + 2);
    push_escaped(&mut escaped, token);
    Cow::Owned(escaped)
}

/// One reference token read back: `~1` becomes `/`, `~0` becomes `~` (in that order, as the
/// RFC says, so that `~01` reads `~1`).
pub fn unescape(token: &str) -> Cow<'_, str> {
    if !token.contains('~') {
        return Cow::Borrowed(token);
    }
    Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
}

/// Appends `/` and `token`, escaped, to `pointer`.
pub fn push(pointer: &mut String, token: &str) {
    pointer.push('/');
    push_escaped(pointer, token);
}

/// `pointer` extended by `token`, escaped.
pub fn child(pointer: &str, token: &str) -> String {
    let mut extended = String::with_capacity(pointer.len() + token.len() + 1);
    extended.push_str(pointer);
    push(&mut extended, token);
    extended
}

/// The pointer made of `tokens`, each escaped (`""` for none: the whole document).
pub fn from_tokens<I, T>(tokens: I) -> String
where
    I: IntoIterator<Item = T>,
    T: AsRef<str>,
{
    let mut pointer = String::new();
    for token in tokens {
        push(&mut pointer, token.as_ref());
    }
    pointer
}

fn push_escaped(out: &mut String, token: &str) {
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_reads_back() {
        for token in ["", "plain", "a/b", "~", "~1", "/~/", "ü/ß~"] {
            assert_eq!(unescape(&escape(token)), token, "{token:?}");
        }
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(escape("~1"), "~01");
        assert_eq!(unescape("~01"), "~1");
    }

    #[test]
    fn builds_pointers() {
        assert_eq!(from_tokens(["a", "b/c", "0"]), "/a/b~1c/0");
        assert_eq!(from_tokens(Vec::<String>::new()), "");
        assert_eq!(child("", "x~y"), "/x~0y");
    }
}
