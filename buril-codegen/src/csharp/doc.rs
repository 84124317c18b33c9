//! Text from the tools (descriptions, wire names) in XML doc comments, escaped so that no text
//! can end a comment or add a tag.

use std::fmt::{self, Display};

use crate::writer::SourceWriter;

/// Whether C# ends a line at `c` (and so a `//` comment).
fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `text` as XML character data for a doc comment, one entry per line: `&`, `<` and `>` are
/// escaped, other control characters become visible `\uXXXX` text, and every C# line
/// terminator starts a new line (so each line gets its own `///`).
pub(crate) fn xml_lines(text: &str) -> Vec<String> {
    if let Some(line) = plain_line(text) {
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

/// Most descriptions and names are one plain line: nothing to escape, nothing to split. Such a
/// text is its own XML (without trailing spaces); `None` for any other.
fn plain_line(text: &str) -> Option<&str> {
    (!text
        .bytes()
        .any(|b| matches!(b, b'&' | b'<' | b'>') || !(0x20..0x7f).contains(&b)))
    .then(|| text.trim_end())
}

/// `text` as XML on one line (line breaks become spaces).
pub(crate) fn xml_inline(text: &str) -> String {
    XmlInline(text).to_string()
}

/// [`xml_inline`], written where it is formatted.
pub(crate) struct XmlInline<'a>(pub(crate) &'a str);

impl Display for XmlInline<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match plain_line(self.0) {
            Some(line) => f.write_str(line),
            None => f.write_str(&xml_lines(self.0).join(" ")),
        }
    }
}

/// `<c>text</c>`, escaped.
pub(crate) fn code(text: &str) -> String {
    Code(text).to_string()
}

/// [`code`], written where it is formatted.
pub(crate) struct Code<'a>(pub(crate) &'a str);

impl Display for Code<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<c>{}</c>", XmlInline(self.0))
    }
}

/// Writes a `<summary>` doc comment: `description`, when given and not blank (plain text), or
/// else `summary` (XML already, on one line: built with [`Code`], [`XmlInline`] and literal
/// markup).
pub(crate) fn summary(w: &mut SourceWriter, summary: impl Display, description: Option<&str>) {
    let lines = match description.map(|d| (d, plain_line(d))) {
        Some((_, Some(line))) if !line.is_empty() => {
            w.line_fmt(format_args!("/// <summary>{line}</summary>"));
            return;
        }
        Some((description, None)) => xml_lines(description),
        _ => Vec::new(),
    };
    match lines.as_slice() {
        [] => {
            w.line_fmt(format_args!("/// <summary>{summary}</summary>"));
        }
        [only] => {
            w.line_fmt(format_args!("/// <summary>{only}</summary>"));
        }
        lines => {
            w.line("/// <summary>");
            for line in lines {
                doc_line(w, line);
            }
            w.line("/// </summary>");
        }
    }
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
pub(crate) fn remarks(w: &mut SourceWriter, lines: &[impl AsRef<str>]) {
    if lines.is_empty() {
        return;
    }
    w.line("/// <remarks>");
    for line in lines {
        doc_line(w, line.as_ref());
    }
    w.line("/// </remarks>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_xml_and_code() {
        assert_eq!(code("scene_open  "), "<c>scene_open</c>");
        assert_eq!(code("a<b\nc"), "<c>a&lt;b c</c>");
        assert_eq!(xml_inline("\n x \n\n y"), " x   y");
        assert_eq!(code(""), "<c></c>");
    }

    #[test]
    fn summaries_prefer_the_description() {
        let written = |description: Option<&str>| {
            let mut w = SourceWriter::new("    ");
            summary(&mut w, Code("x"), description);
            w.finish()
        };
        assert_eq!(written(None), "/// <summary><c>x</c></summary>\n");
        assert_eq!(written(Some("  ")), "/// <summary><c>x</c></summary>\n");
        assert_eq!(written(Some("\n\n")), "/// <summary><c>x</c></summary>\n");
        assert_eq!(
            written(Some("Says hi. ")),
            "/// <summary>Says hi.</summary>\n"
        );
        assert_eq!(
            written(Some("a & b\n")),
            "/// <summary>a &amp; b</summary>\n"
        );
        assert_eq!(
            written(Some("One.\n\nTwo.")),
            "/// <summary>\n/// One.\n///\n/// Two.\n/// </summary>\n"
        );
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
