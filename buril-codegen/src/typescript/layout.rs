//! Placing text that may span several lines into a [`SourceWriter`].

use crate::writer::SourceWriter;

/// Lists longer than this on one line get one item per line.
const LIST_WIDTH: usize = 100;

/// `start item, item, ... end`, on one line when short, else one item per line (each followed
/// by a comma).
pub(crate) fn write_list(w: &mut SourceWriter, start: &str, items: &[String], end: &str) {
    let one_line = format!("{start}{}{end}", items.join(", "));
    if one_line.len() <= LIST_WIDTH || items.is_empty() {
        w.line(one_line);
        return;
    }
    w.line(start);
    w.indent();
    for item in items {
        w.line_fmt(format_args!("{item},"));
    }
    w.dedent();
    w.line(end);
}

/// Writes `text` (whose lines are indented relative to its first) after `prefix` and before
/// `suffix`, at the writer's depth.
pub(crate) fn write_multiline(w: &mut SourceWriter, prefix: &str, text: &str, suffix: &str) {
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        let start = if i == 0 { prefix } else { "" };
        let end = if i == last { suffix } else { "" };
        w.line_fmt(format_args!("{start}{line}{end}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        let mut w = SourceWriter::new("  ");
        write_list(&mut w, "x = [", &["a".into(), "b".into()], "];");
        let long: Vec<String> = (0..30).map(|i| format!("item{i}")).collect();
        write_list(&mut w, "y = [", &long[..2], "];");
        write_list(&mut w, "z = [", &long, "];");
        let text = w.finish();
        assert!(text.starts_with("x = [a, b];\ny = [item0, item1];\nz = [\n  item0,\n"));
        assert!(text.ends_with("  item29,\n];\n"));
    }

    #[test]
    fn multiline() {
        let mut w = SourceWriter::new("  ");
        w.indent();
        write_multiline(&mut w, "key: ", "{\n  a: 1,\n}", ",");
        assert_eq!(w.finish(), "  key: {\n    a: 1,\n  },\n");
    }
}
