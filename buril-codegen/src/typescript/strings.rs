//! String literals: any text, written so that it cannot end the string early, inject code, or
//! end an HTML `<script>` element the file might be inlined into.

/// A double-quoted string literal with `JSON.stringify`'s escaping, plus `</` as `<\/`, `<!--`
/// as `\u003c!--`, and U+2028/U+2029 as `\u2028`/`\u2029`. The value is unchanged.
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_string(&mut out, text);
    out
}

/// [`string_literal`], written at the end of `out`. Runs of text that need no escape are
/// copied whole: only `"`, `\\`, control characters, `<` and U+2028/U+2029 (whose UTF-8 starts
/// with the byte 0xE2) are looked at.
pub(crate) fn write_string(out: &mut String, text: &str) {
    use std::fmt::Write as _;
    out.push('"');
    let bytes = text.as_bytes();
    // `plain..at` is text not written yet that needs no escape; `at` is always at a character
    // boundary, since every byte matched below is ASCII or the first byte of a character.
    let (mut plain, mut at) = (0, 0);
    while at < bytes.len() {
        let rest = &bytes[at..];
        let (escape, length): (&str, usize) = match rest[0] {
            b'<' if rest.starts_with(b"</") => ("<\\/", 2),
            b'<' if rest.starts_with(b"<!--") => ("\\u003c!--", 4),
            b'"' => ("\\\"", 1),
            b'\\' => ("\\\\", 1),
            b'\n' => ("\\n", 1),
            b'\r' => ("\\r", 1),
            b'\t' => ("\\t", 1),
            0x08 => ("\\b", 1),
            0x0c => ("\\f", 1),
            0xe2 if rest.starts_with("\u{2028}".as_bytes()) => ("\\u2028", 3),
            0xe2 if rest.starts_with("\u{2029}".as_bytes()) => ("\\u2029", 3),
            control @ 0x00..0x20 => {
                out.push_str(&text[plain..at]);
                let _ = write!(out, "\\u{control:04x}");
                at += 1;
                plain = at;
                continue;
            }
            _ => {
                at += 1;
                continue;
            }
        };
        out.push_str(&text[plain..at]);
        out.push_str(escape);
        at += length;
        plain = at;
    }
    out.push_str(&text[plain..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_cannot_escape() {
        assert_eq!(string_literal("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string_literal("</script>"), r#""<\/script>""#);
        assert_eq!(string_literal("<!-- x"), r#""\u003c!-- x""#);
        assert_eq!(string_literal("\u{2028}\u{2029}"), r#""\u2028\u2029""#);
        assert_eq!(string_literal("\u{0}\n"), r#""\u0000\n""#);
        assert_eq!(string_literal("${x} `t`"), r#""${x} `t`""#);
        assert_eq!(string_literal("é✓"), "\"é✓\"");
        assert_eq!(string_literal("<<//<!-<!--"), r#""<<\//<!-\u003c!--""#);
        // DEL is not a control character to `JSON.stringify`: it stays as it is.
        assert_eq!(
            string_literal("\u{1f}\u{7f}\u{8}\u{c}"),
            "\"\\u001f\u{7f}\\b\\f\""
        );
    }

    /// Character by character, as the escaping is defined: what [`write_string`] must equal.
    fn defined(text: &str) -> String {
        use std::fmt::Write as _;
        let mut out = String::from('"');
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if rest.starts_with("</") {
                out.push_str("<\\/");
                rest = &rest[2..];
                continue;
            }
            if rest.starts_with("<!--") {
                out.push_str("\\u003c!--");
                rest = &rest[4..];
                continue;
            }
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\u{2028}' | '\u{2029}' => {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                }
                c if u32::from(c) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                }
                c => out.push(c),
            }
            rest = &rest[c.len_utf8()..];
        }
        out.push('"');
        out
    }

    #[test]
    fn runs_are_escaped_as_defined() {
        let pieces = [
            "a", "é", "✓", "😀", "<", "/", "!", "-", "</", "<!--", "\"", "\\", "\n", "\r", "\t",
            "\u{0}", "\u{8}", "\u{c}", "\u{1f}", "\u{7f}", "\u{2028}", "\u{2029}", "\u{2027}",
            "\u{202a}", "\u{e2}", " ",
        ];
        // Every pair and triple of pieces, so that each piece meets every neighbour.
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = format!("{a}{b}{c}");
                    assert_eq!(string_literal(&text), defined(&text), "{text:?}");
                }
            }
        }
    }
}
