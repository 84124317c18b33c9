//! Text from the tools (descriptions, wire names, schemas) as C# string literals and XML doc
//! comments, escaped so that no text can end a comment or a string early.

use crate::writer::SourceWriter;

/// A C# regular string literal (with its quotes) holding `text`. The literal is pure ASCII:
/// quotes, backslashes, control characters and every non-ASCII character are escaped, so that
/// no line terminator (`\r`, `\n`, U+0085, U+2028, U+2029) reaches the source.
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// Whether C# ends a line at `c` (and so a `//` comment).
fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `text` as XML character data for a doc comment, one entry per line: `&`, `<` and `>` are
/// escaped, other control characters become visible `\uXXXX` text, and every C# line
/// terminator starts a new line (so each line gets its own `///`).
pub(crate) fn xml_lines(text: &str) -> Vec<String> {
    // Most descriptions are one plain line: nothing to escape, nothing to split.
    if !text
        .bytes()
        .any(|b| matches!(b, b'&' | b'<' | b'>') || !(0x20..0x7f).contains(&b))
    {
        let line = text.trim_end();
        return if line.is_empty() {
            Vec::new()
        } else {
            vec![line.to_owned()]
        };
    }
    let mut lines = Vec::new();
    let mut line = String::with_capacity(text.len());
    let end_line = |lines: &mut Vec<String>, line: &mut String| {
        line.truncate(line.trim_end().len());
        lines.push(std::mem::take(line));
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_line_break(c) {
            if c == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
            }
            end_line(&mut lines, &mut line);
            continue;
        }
        match c {
            '&' => line.push_str("&amp;"),
            '<' => line.push_str("&lt;"),
            '>' => line.push_str("&gt;"),
            '\t' => line.push(' '),
            c if c.is_control() => {
                use std::fmt::Write as _;
                let _ = write!(line, "\\u{:04X}", u32::from(c));
            }
            c => line.push(c),
        }
    }
    end_line(&mut lines, &mut line);
    // Drop blank lines at either end.
    match (
        lines.iter().position(|l| !l.is_empty()),
        lines.iter().rposition(|l| !l.is_empty()),
    ) {
        (Some(first), Some(last)) => {
            lines.truncate(last + 1);
            lines.drain(..first);
            lines
        }
        _ => Vec::new(),
    }
}

/// `text` as XML on one line (line breaks become spaces).
pub(crate) fn xml_inline(text: &str) -> String {
    xml_lines(text).join(" ")
}

/// `<c>text</c>`, escaped.
pub(crate) fn code(text: &str) -> String {
    format!("<c>{}</c>", xml_inline(text))
}

/// Writes a `<summary>` doc comment. `summary` is XML already (built with [`xml_lines`],
/// [`code`] and literal markup); `description`, when given, is plain text appended after it.
pub(crate) fn summary(w: &mut SourceWriter, summary: &str, description: Option<&str>) {
    let mut lines: Vec<String> = Vec::new();
    if let Some(description) = description {
        lines.extend(xml_lines(description));
    }
    if lines.is_empty() {
        lines.push(summary.to_owned());
    }
    if let [only] = lines.as_slice() {
        w.line_fmt(format_args!("/// <summary>{only}</summary>"));
        return;
    }
    w.line("/// <summary>");
    for line in &lines {
        doc_line(w, line);
    }
    w.line("/// </summary>");
}

/// Writes one `///` line of XML.
pub(crate) fn doc_line(w: &mut SourceWriter, xml: &str) {
    if xml.is_empty() {
        w.line("///");
    } else {
        w.line_fmt(format_args!("/// {xml}"));
    }
}

/// Writes a `<remarks>` doc comment of XML lines.
pub(crate) fn remarks(w: &mut SourceWriter, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    w.line("/// <remarks>");
    for line in lines {
        doc_line(w, line);
    }
    w.line("/// </remarks>");
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
    }

    #[test]
    fn doc_text_cannot_escape() {
        assert_eq!(
            xml_lines("a */ </summary> & b\r\nc\u{2028}d\re"),
            ["a */ &lt;/summary&gt; &amp; b", "c", "d", "e"]
        );
        assert_eq!(xml_lines("\n\nx\n\n"), ["x"]);
        assert_eq!(xml_lines("a\u{0}b"), ["a\\u0000b"]);
        assert!(xml_lines("  \n ").is_empty());
    }
}
