//! Text from the tools (descriptions, wire names, schemas) as C# string literals, escaped so
//! that no text can end a string or a line early.

use std::fmt::{self, Display, Write as _};

/// A C# regular string literal (with its quotes) holding `text`. The literal is pure ASCII:
/// quotes, backslashes, control characters and every non-ASCII character are escaped, so that
/// no line terminator (`\r`, `\n`, U+0085, U+2028, U+2029) reaches the source.
pub(crate) fn string_literal(text: &str) -> String {
    Literal(text).to_string()
}

/// [`string_literal`], written where it is formatted (no string of its own).
pub(crate) struct Literal<'a>(pub(crate) &'a str);

impl Display for Literal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        // Runs of printable ASCII other than `"` and `\` are written as they are.
        let mut plain = 0;
        for (at, c) in self.0.char_indices() {
            if matches!(c, ' '..='~') && c != '"' && c != '\\' {
                continue;
            }
            f.write_str(&self.0[plain..at])?;
            plain = at + c.len_utf8();
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                _ => {
                    for unit in c.encode_utf16(&mut [0; 2]) {
                        write!(f, "\\u{unit:04X}")?;
                    }
                }
            }
        }
        f.write_str(&self.0[plain..])?;
        f.write_char('"')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_ascii_and_escaped() {
        assert_eq!(string_literal("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string_literal("x\ny\r"), r#""x\ny\r""#);
        assert_eq!(string_literal("\u{2028}é"), r#""\u2028\u00E9""#);
        assert_eq!(string_literal("😀"), r#""\uD83D\uDE00""#);
        assert_eq!(string_literal("\0"), r#""\u0000""#);
        assert_eq!(string_literal(""), r#""""#);
        assert_eq!(string_literal("plain text ~"), r#""plain text ~""#);
        assert_eq!(string_literal("é\"é"), r#""\u00E9\"\u00E9""#);
        assert_eq!(string_literal("ab\tc\u{7f}d"), r#""ab\tc\u007Fd""#);
    }
}
