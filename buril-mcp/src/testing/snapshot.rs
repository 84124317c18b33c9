//! The snapshot of the tool definitions a client lists: a file checked in beside the tests,
//! compared in a test, so that a changed contract shows in review as a changed file.

use std::path::Path;

use serde_json::Value;

/// The environment variable that writes snapshots instead of comparing them (`1`).
pub const SNAPSHOT_VARIABLE: &str = "BURIL_UPDATE_SNAPSHOTS";

/// The snapshot's text: the definitions sorted by name, as pretty JSON, with a final newline.
pub(crate) fn render(mut tools: Vec<Value>) -> String {
    tools.sort_by(|a, b| {
        let name = |tool: &Value| tool["name"].as_str().unwrap_or_default().to_owned();
        name(a).cmp(&name(b))
    });
    let mut text = serde_json::to_string_pretty(&tools).unwrap_or_default();
    text.push('\n');
    text
}

/// Compares `tools` with the snapshot at `path`, or writes it (see [`SNAPSHOT_VARIABLE`]).
#[track_caller]
pub(crate) fn assert_snapshot(path: &Path, tools: Vec<Value>) {
    let now = render(tools);
    if std::env::var(SNAPSHOT_VARIABLE).is_ok_and(|value| value == "1") {
        if let Some(folder) = path.parent() {
            let _ = std::fs::create_dir_all(folder);
        }
        if let Err(error) = std::fs::write(path, &now) {
            panic!(
                "the snapshot {} could not be written: {error}",
                path.display()
            );
        }
        return;
    }
    let kept = match std::fs::read_to_string(path) {
        Ok(kept) => kept,
        Err(error) => panic!(
            "no snapshot of the tools at {} ({error}); run the test with \
             {SNAPSHOT_VARIABLE}=1 to write it, and commit it",
            path.display()
        ),
    };
    if kept != now {
        panic!(
            "the tools clients see changed from the snapshot at {}:\n{}\nIf the change is \
             meant, run the test with {SNAPSHOT_VARIABLE}=1 to write the snapshot, and commit \
             it.",
            path.display(),
            difference(&kept, &now)
        );
    }
}

/// The lines that differ, first of each side, at most 40 of them.
fn difference(kept: &str, now: &str) -> String {
    let kept: Vec<&str> = kept.lines().collect();
    let now: Vec<&str> = now.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < kept.len().max(now.len()) && out.len() < 40 {
        let (a, b) = (kept.get(i), now.get(i));
        if a != b {
            if let Some(a) = a {
                out.push(format!("{:>5} - {a}", i + 1));
            }
            if let Some(b) = b {
                out.push(format!("{:>5} + {b}", i + 1));
            }
        }
        i += 1;
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_is_sorted_by_name_and_ends_with_a_newline() {
        let text = render(vec![
            serde_json::json!({"name": "b_x"}),
            serde_json::json!({"name": "a_x"}),
        ]);
        assert!(text.find("a_x").unwrap() < text.find("b_x").unwrap());
        assert!(text.ends_with("]\n"));
    }

    #[test]
    fn a_difference_shows_both_sides_of_each_changed_line() {
        let shown = difference("a\nb\nc", "a\nB\nc\nd");
        assert_eq!(shown, "    2 - b\n    2 + B\n    4 + d");
    }
}
