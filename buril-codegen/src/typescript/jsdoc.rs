//! JSDoc comments from descriptions, escaped so that no description can end the comment, start
//! a tag (`@deprecated`, `{@link}`) or otherwise change the code around it.

use std::borrow::Cow;

use crate::writer::SourceWriter;

/// A JSDoc comment being built: paragraphs of escaped text, then tags. Lines that need no
/// escaping or wrapping are borrowed from the text they come from.
#[derive(Debug, Default)]
pub(crate) struct Doc<'a> {
    lines: Vec<Cow<'a, str>>,
}

impl<'a> Doc<'a> {
    /// An empty comment (written as nothing).
    pub(crate) fn new() -> Self {
        Doc::default()
    }

    /// Adds a paragraph of untrusted text (a description), escaped.
    pub(crate) fn text(mut self, text: &'a str) -> Self {
        let text = text.trim();
        if text.is_empty() {
            return self;
        }
        if !self.lines.is_empty() {
            self.lines.push(Cow::Borrowed(""));
        }
        if text.contains("\r\n") {
            for line in text.replace("\r\n", "\n").split(is_line_break) {
                let escaped = escape(line).into_owned();
                wrap(Cow::Owned(escaped), &mut self.lines);
            }
        } else {
            for line in text.split(is_line_break) {
                wrap(escape(line), &mut self.lines);
            }
        }
        self
    }

    /// Adds a paragraph of untrusted text when there is one.
    pub(crate) fn text_opt(self, text: Option<&'a str>) -> Self {
        match text {
            Some(text) => self.text(text),
            None => self,
        }
    }

    /// Adds a line written by the generator itself. Any untrusted part of it must have gone
    /// through [`escape`] already.
    pub(crate) fn raw(mut self, line: impl Into<Cow<'a, str>>) -> Self {
        self.lines.push(line.into());
        self
    }

    /// Adds a blank line and then a line written by the generator (see [`Doc::raw`]).
    pub(crate) fn paragraph(mut self, line: impl Into<Cow<'a, str>>) -> Self {
        if !self.lines.is_empty() {
            self.lines.push(Cow::Borrowed(""));
        }
        self.lines.push(line.into());
        self
    }

    /// Writes the comment (nothing when it is empty): one line when it fits, else a block.
    pub(crate) fn write(&self, w: &mut SourceWriter) {
        match self.lines.as_slice() {
            [] => {}
            [one] if one.len() <= 90 => {
                w.line_fmt(format_args!("/** {one} */"));
            }
            lines => {
                w.line("/**");
                for line in lines {
                    if line.is_empty() {
                        w.line(" *");
                    } else {
                        w.line_fmt(format_args!(" * {line}"));
                    }
                }
                w.line(" */");
            }
        }
    }
}

/// Lines of text longer than this are wrapped at spaces.
const WIDTH: usize = 96;

/// Appends `line` to `out`, wrapped at spaces to [`WIDTH`] characters where it can be. Only
/// spaces are replaced, so escaped text stays escaped.
fn wrap<'a>(line: Cow<'a, str>, out: &mut Vec<Cow<'a, str>>) {
    if line.len() <= WIDTH || line.chars().count() <= WIDTH {
        out.push(line);
        return;
    }
    let mut current = String::new();
    for word in line.split(' ') {
        if !current.is_empty()
            && current.chars().count() + 1 + word.chars().count() > WIDTH
            && !word.is_empty()
        {
            out.push(Cow::Owned(
                std::mem::take(&mut current).trim_end().to_owned(),
            ));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    out.push(Cow::Owned(current));
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// One line of untrusted text made safe inside a JSDoc comment: `*/` cannot end it, `@` cannot
/// start a tag (a backslash goes before an `@` that follows a space, a `{` or the line start),
/// `</` and `<!` cannot end or confuse an HTML `<script>` the compiled code is inlined into
/// (they become `<\/` and `<\!`), and control characters are shown as `\u{…}`. Line breaks
/// must be split off first.
/// The line is borrowed as it is (without trailing spaces) when nothing needs escaping.
pub(crate) fn escape(line: &str) -> Cow<'_, str> {
    use std::fmt::Write as _;
    /// What a character becomes.
    enum Escaped {
        /// This text.
        Text(&'static str),
        /// Its code point, as `\u{…}`.
        CodePoint,
    }
    let line = line.trim_end();
    // Made at the first character that needs escaping, holding everything before it.
    let mut out: Option<String> = None;
    let mut previous: Option<char> = None;
    for (at, c) in line.char_indices() {
        let escaped = match c {
            '/' if matches!(previous, Some('*' | '<')) => Some(Escaped::Text("\\/")),
            '!' if previous == Some('<') => Some(Escaped::Text("\\!")),
            '@' if previous.is_none_or(|p| p.is_whitespace() || p == '{') => {
                Some(Escaped::Text("\\@"))
            }
            '\t' => Some(Escaped::Text(" ")),
            c if c.is_control() || is_line_break(c) => Some(Escaped::CodePoint),
            _ => None,
        };
        previous = Some(c);
        let Some(escaped) = escaped else {
            if let Some(out) = &mut out {
                out.push(c);
            }
            continue;
        };
        let out = out.get_or_insert_with(|| {
            let mut out = String::with_capacity(line.len() + 8);
            out.push_str(&line[..at]);
            out
        });
        match escaped {
            Escaped::Text(text) => out.push_str(text),
            Escaped::CodePoint => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    match out {
        Some(out) => Cow::Owned(out),
        None => Cow::Borrowed(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(doc: Doc) -> String {
        let mut w = SourceWriter::new("  ");
        doc.write(&mut w);
        w.finish()
    }

    #[test]
    fn escapes() {
        assert_eq!(escape("a */ b"), "a *\\/ b");
        assert_eq!(escape("**/"), "**\\/");
        assert_eq!(
            escape("@deprecated x {@link y} a@b"),
            "\\@deprecated x {\\@link y} a@b"
        );
        assert_eq!(escape("nul \u{0} end  "), "nul \\u{0} end");
        assert_eq!(escape("</script> <!-- x"), "<\\/script> <\\!-- x");
        assert_eq!(escape("a\tb\u{85}c"), "a b\\u{85}c");
        assert_eq!(escape("@x"), "\\@x");
        assert_eq!(escape("é */"), "é *\\/");
        // Text that needs nothing is borrowed, without its trailing spaces.
        assert!(matches!(escape("plain @ text"), Cow::Owned(text) if text == "plain \\@ text"));
        assert!(matches!(
            escape("plain text, a@b  "),
            Cow::Borrowed("plain text, a@b")
        ));
    }

    #[test]
    fn long_lines_wrap_at_spaces() {
        let mut out = Vec::new();
        let text = "word ".repeat(40);
        wrap(Cow::Borrowed(text.trim_end()), &mut out);
        assert!(
            out.len() == 3 && out.iter().all(|l| l.len() <= WIDTH),
            "{out:?}"
        );
        assert_eq!(out.join(" "), text.trim_end());
    }

    #[test]
    fn comments() {
        assert_eq!(render(Doc::new()), "");
        assert_eq!(render(Doc::new().text("One line.")), "/** One line. */\n");
        assert_eq!(
            render(Doc::new().text("A\r\nB\u{2028}C").raw("@deprecated x")),
            "/**\n * A\n * B\n * C\n * @deprecated x\n */\n"
        );
        assert_eq!(
            render(Doc::new().text("A").paragraph("B")),
            "/**\n * A\n *\n * B\n */\n"
        );
    }
}
