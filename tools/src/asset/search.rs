//! `asset_search`: text search over every text asset, with progress and cancellation.

use std::fs;

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::paths::{self, ASSETS};
use crate::project::{Project, glob};

/// Files larger than this are skipped.
const LARGEST_FILE: u64 = 2 * 1024 * 1024;

/// One line that contains the query.
#[derive(Debug, Serialize, JsonSchema)]
struct SearchMatch {
    /// The file.
    path: String,
    /// The line, from 1.
    line: usize,
    /// The column of the first match on the line, from 1, in characters.
    column: usize,
    /// The line's text, trimmed and cut at 200 characters.
    text: String,
}

/// What the search found.
#[derive(Debug, Serialize, JsonSchema)]
struct SearchResult {
    /// The text searched for.
    query: String,
    /// How many text files were searched.
    files_scanned: usize,
    /// Files skipped: binary or larger than 2 MiB.
    files_skipped: usize,
    /// Files and folders whose name contains the query.
    name_matches: Vec<String>,
    /// Lines containing the query, at most `max_results`.
    matches: Vec<SearchMatch>,
    /// How many lines matched in all.
    total_matches: usize,
    /// Whether lines were left out because of `max_results`.
    truncated: bool,
}

/// Searches the text of every asset under a folder (scenes, prefabs, materials, scripts, ...)
/// for a string, and the file names too. Reports progress file by file and stops early when
/// the call is cancelled.
#[buril::tool(task, off_thread, read_only, idempotent, title = "Search assets")]
fn asset_search(
    /// The text to find, e.g. `PlayerController` or `Red.mat`.
    query: String,
    /// Only files whose path matches this glob, e.g. `*.scene`.
    pattern: Option<String>,
    /// The folder to search. Default: `Assets`.
    folder: Option<String>,
    /// Match case exactly. Default: false.
    case_sensitive: Option<bool>,
    /// At most this many matching lines (1 to 1000). Default: 100.
    max_results: Option<u32>,
    ctx: &buril::Context,
) -> Result<SearchResult, ToolError> {
    if query.is_empty() {
        return Err(ToolError::invalid(
            "`query` is empty; give the text to find",
        ));
    }
    let folder = paths::asset(folder.as_deref().unwrap_or(ASSETS), "folder")?;
    let project = ctx.state::<Project>()?;
    let case_sensitive = case_sensitive.unwrap_or(false);
    let fold = |text: &str| {
        if case_sensitive {
            text.to_owned()
        } else {
            text.to_lowercase()
        }
    };
    let needle = fold(&query);
    let max = usize::try_from(max_results.unwrap_or(100).clamp(1, 1000)).unwrap_or(1000);
    let entries: Vec<_> = project
        .walk(&folder, true)?
        .into_iter()
        .filter(|e| pattern.as_ref().is_none_or(|p| glob::matches(p, &e.path)))
        .collect();
    let name_matches = entries
        .iter()
        .filter(|e| fold(paths::file_name(&e.path)).contains(&needle))
        .map(|e| e.path.clone())
        .collect();
    let files: Vec<_> = entries.into_iter().filter(|e| !e.is_dir).collect();
    let total = files.len() as f64;
    let mut result = SearchResult {
        query,
        files_scanned: 0,
        files_skipped: 0,
        name_matches,
        matches: Vec::new(),
        total_matches: 0,
        truncated: false,
    };
    for (done, entry) in files.iter().enumerate() {
        ctx.check_cancelled()?;
        ctx.report_progress(done as f64, Some(total), Some(&entry.path));
        let text = if entry.bytes <= LARGEST_FILE {
            String::from_utf8(fs::read(project.file(&entry.path)?)?).ok()
        } else {
            None
        };
        let Some(text) = text else {
            result.files_skipped += 1;
            continue;
        };
        result.files_scanned += 1;
        for (number, line) in text.lines().enumerate() {
            let Some(byte) = fold(line).find(&needle) else {
                continue;
            };
            result.total_matches += 1;
            if result.matches.len() < max {
                let folded = fold(line);
                result.matches.push(SearchMatch {
                    path: entry.path.clone(),
                    line: number + 1,
                    column: folded[..byte].chars().count() + 1,
                    text: line.trim().chars().take(200).collect(),
                });
            }
        }
    }
    ctx.report_progress(total, Some(total), Some("done"));
    result.truncated = result.total_matches > result.matches.len();
    if result.files_skipped > 0 {
        // Said to the client that asked for log messages (or the host's log): the result
        // counts them, this says why.
        ctx.log(
            buril::context::LogLevel::Notice,
            format!(
                "{} files were not searched: not UTF-8 text, or larger than {} MiB",
                result.files_skipped,
                LARGEST_FILE / (1024 * 1024)
            ),
        );
    }
    Ok(result)
}
