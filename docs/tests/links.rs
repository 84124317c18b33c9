//! The guide's links: every relative link of every chapter (`[text](file.md)`,
//! `[text](file.md#anchor)`, `[text](#anchor)`) points to a chapter of `docs/src` and to a
//! heading there, as mdBook makes its anchors; every chapter is listed in `SUMMARY.md` and
//! every entry of `SUMMARY.md` exists. Links to other sites are not fetched.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `*.md` file of `docs/src`, by file name, with its text.
fn chapters() -> BTreeMap<String, String> {
    let mut chapters = BTreeMap::new();
    for entry in fs::read_dir(src()).expect("docs/src can be read") {
        let path = entry.expect("an entry of docs/src").path();
        if path.extension().is_some_and(|extension| extension == "md") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("{} cannot be read: {error}", path.display()));
            chapters.insert(name, text);
        }
    }
    chapters
}

/// The lines of `text` outside fenced code blocks, with their numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<String> = None;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker: String = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        if marker.len() >= 3 {
            match &fence {
                None => {
                    fence = Some(marker);
                    continue;
                }
                Some(open) if marker.starts_with(open.as_str()) && trimmed.trim() == marker => {
                    fence = None;
                    continue;
                }
                Some(_) => {}
            }
        }
        if fence.is_none() {
            lines.push((index + 1, line));
        }
    }
    lines
}

/// `line` without its inline code spans (a link inside backticks is not a link).
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links of `line` (`[text](target)` and `[text](target "title")`).
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code(line);
    let bytes = line.as_bytes();
    let mut targets = Vec::new();
    let mut i = 0;
    while let Some(found) = line[i..].find("](") {
        let open = i + found + 2;
        let mut depth = 0usize;
        let mut end = None;
        for (offset, &byte) in bytes[open..].iter().enumerate() {
            match byte {
                b'(' => depth += 1,
                b')' if depth == 0 => {
                    end = Some(open + offset);
                    break;
                }
                b')' => depth -= 1,
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let target = line[open..end]
            .split_whitespace()
            .next()
            .unwrap_or_default();
        targets.push(target.trim_matches(|c| c == '<' || c == '>').to_owned());
        i = end + 1;
    }
    targets
}

/// The anchor mdBook gives a heading: its text without markup, lowercased, spaces as `-`, and
/// every character other than letters, digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    // Links keep their text; code spans and emphasis lose their markers.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(start) = rest.find('[') {
        text.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(close), Some(paren)) if close < paren => {
                text.push_str(&after[..close]);
                rest = &after[paren + 1..];
            }
            _ => {
                text.push('[');
                rest = after;
            }
        }
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().collect::<String>())
            } else if c.is_whitespace() {
                Some("-".to_owned())
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a chapter's headings (ATX headings outside code blocks), with mdBook's
/// suffixes for repeats (`-1`, `-2`, ...).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeMap::<String, usize>::new();
    let mut anchors = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let heading = line[hashes..].trim().trim_end_matches('#').trim();
        let base = slug(heading);
        let count = seen.entry(base.clone()).or_insert(0);
        let anchor = if *count == 0 {
            base.clone()
        } else {
            format!("{base}-{count}")
        };
        *count += 1;
        anchors.insert(anchor);
    }
    anchors
}

/// The chapter files `SUMMARY.md` lists, with the line of each.
fn summary_entries(summary: &str) -> Vec<(usize, String)> {
    prose_lines(summary)
        .into_iter()
        .flat_map(|(number, line)| {
            link_targets(line)
                .into_iter()
                .map(move |target| (number, target))
        })
        .collect()
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

#[test]
fn every_relative_link_points_to_a_chapter_and_a_heading() {
    let chapters = chapters();
    let anchors: BTreeMap<&str, BTreeSet<String>> = chapters
        .iter()
        .map(|(name, text)| (name.as_str(), anchors(text)))
        .collect();
    let mut broken = Vec::new();
    for (name, text) in &chapters {
        for (number, line) in prose_lines(text) {
            for target in link_targets(line) {
                if is_external(&target) {
                    continue;
                }
                let (file, anchor) = match target.split_once('#') {
                    Some((file, anchor)) => (file, Some(anchor)),
                    None => (target.as_str(), None),
                };
                let file = if file.is_empty() { name.as_str() } else { file };
                // A picture (or any other file that is not a chapter) must be there.
                if !file.ends_with(".md") {
                    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file);
                    if !path.is_file() {
                        broken.push(format!(
                            "docs/src/{name}:{number}: `{target}`: no file `{file}` in docs/src"
                        ));
                    }
                    continue;
                }
                let Some(headings) = anchors.get(file) else {
                    broken.push(format!(
                        "docs/src/{name}:{number}: `{target}`: no chapter `{file}` in docs/src"
                    ));
                    continue;
                };
                if let Some(anchor) = anchor
                    && !headings.contains(anchor)
                {
                    broken.push(format!(
                        "docs/src/{name}:{number}: `{target}`: `{file}` has no heading whose \
                         anchor is `#{anchor}` (its anchors: {})",
                        headings.iter().cloned().collect::<Vec<_>>().join(", ")
                    ));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} broken link(s):\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn the_summary_lists_every_chapter_and_only_chapters_that_exist() {
    let chapters = chapters();
    let summary = chapters
        .get("SUMMARY.md")
        .expect("docs/src/SUMMARY.md exists");
    let entries = summary_entries(summary);
    let mut problems = Vec::new();
    for (number, target) in &entries {
        if is_external(target) || target.contains('#') {
            problems.push(format!(
                "docs/src/SUMMARY.md:{number}: `{target}` is not a chapter file of docs/src"
            ));
        } else if !chapters.contains_key(target) {
            problems.push(format!(
                "docs/src/SUMMARY.md:{number}: `{target}` does not exist in docs/src"
            ));
        }
    }
    let listed: BTreeSet<&str> = entries.iter().map(|(_, target)| target.as_str()).collect();
    for name in chapters.keys() {
        if name != "SUMMARY.md" && !listed.contains(name.as_str()) {
            problems.push(format!(
                "docs/src/{name}: not listed in SUMMARY.md (mdBook would leave it out)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_chapter_is_included_in_the_crate_so_that_its_examples_run() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("lib.rs"))
        .expect("docs/lib.rs can be read");
    let missing: Vec<String> = chapters()
        .keys()
        .filter(|name| *name != "SUMMARY.md")
        .filter(|name| !lib.contains(&format!("include_str!(\"src/{name}\")")))
        .map(|name| format!("docs/src/{name}"))
        .collect();
    assert!(
        missing.is_empty(),
        "not included in docs/lib.rs, so their examples never run: {}",
        missing.join(", ")
    );
}

#[test]
fn the_checker_reads_links_and_anchors_as_mdbook_does() {
    assert_eq!(slug("The envelope and errors"), "the-envelope-and-errors");
    assert_eq!(
        slug("`Context::confirm` and `ctx.log`"),
        "contextconfirm-and-ctxlog"
    );
    assert_eq!(
        slug("Tasks: `task_get`, `task_wait`"),
        "tasks-task_get-task_wait"
    );
    assert_eq!(slug("[Links](other.md) inside"), "links-inside");
    assert_eq!(
        link_targets("see [a](a.md), [b](b.md#x) and `[c](c.md)` or [d](https://e.org/(f))"),
        vec!["a.md", "b.md#x", "https://e.org/(f)"]
    );
    let text = "# One\n\n```rust\n# not a heading\n```\n\n## One\n";
    assert_eq!(
        anchors(text),
        BTreeSet::from(["one".to_owned(), "one-1".to_owned()])
    );
}
