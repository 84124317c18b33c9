//! `script_check`: the mistakes the editor's compiler and analyzers report first.

use std::collections::BTreeMap;

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use super::csharp::{self, SourceFile, Token, TypeDecl};
use crate::project::Project;
use crate::project::paths::{self, ASSETS};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Severity {
    /// The script does not compile, or the editor cannot use it.
    Error,
    /// It works, but should be fixed.
    Warning,
}

/// One finding.
#[derive(Debug, Serialize, JsonSchema)]
struct Diagnostic {
    /// The script.
    path: String,
    /// The line, from 1.
    line: usize,
    /// How bad it is.
    severity: Severity,
    /// The compiler's or analyzer's code, e.g. `CS1513`.
    code: String,
    /// What is wrong and how to fix it.
    message: String,
}

/// The findings for the scripts checked.
#[derive(Debug, Serialize, JsonSchema)]
struct CheckResult {
    /// How many scripts were checked.
    files_checked: usize,
    /// How many errors were found.
    error_count: usize,
    /// How many warnings were found.
    warning_count: usize,
    /// Every finding, by file and line.
    diagnostics: Vec<Diagnostic>,
}

/// The Unity messages that cost a call per frame (or per event) even when empty.
const MESSAGES: &[&str] = &[
    "Awake",
    "FixedUpdate",
    "LateUpdate",
    "OnGUI",
    "Start",
    "Update",
];

/// Checks C# scripts for the mistakes the editor reports first: unbalanced braces and
/// parentheses, a component or ScriptableObject class whose name differs from its file's, a
/// `MonoBehaviour` without `using UnityEngine;`, a type declared in two files, and empty
/// Unity messages such as `Update` (warnings). Run it after editing scripts.
#[buril::tool(off_thread, read_only, idempotent, title = "Check scripts")]
fn script_check(
    /// A script or a folder to check, e.g. `Assets/Scripts/Player.cs`. Default: `Assets`.
    path: Option<String>,
    ctx: &buril::Context,
) -> Result<CheckResult, ToolError> {
    let target = paths::asset(path.as_deref().unwrap_or(ASSETS), "path")?;
    let project = ctx.state::<Project>()?;
    let all = csharp::sources(project, ASSETS)?;
    let checked: Vec<&SourceFile> = all
        .iter()
        .filter(|f| paths::is_within(&f.path, &target))
        .collect();
    if checked.is_empty() && !project.file(&target)?.exists() {
        return Err(ToolError::invalid(format!(
            "`{target}` does not exist; script_list lists the scripts"
        )));
    }
    let declared: Vec<(String, TypeDecl)> = all
        .iter()
        .flat_map(|f| {
            csharp::declarations(&f.text)
                .into_iter()
                .map(|d| (f.path.clone(), d))
        })
        .collect();
    let types: Vec<TypeDecl> = declared.iter().map(|(_, d)| d.clone()).collect();
    let behaviours = csharp::behaviours(&types);
    let mut diagnostics = Vec::new();
    for file in &checked {
        ctx.check_cancelled()?;
        let code = csharp::code_only(&file.text);
        let tokens = csharp::tokens(&code);
        let mut report = |line: usize, severity: Severity, code: &str, message: String| {
            diagnostics.push(Diagnostic {
                path: file.path.clone(),
                line,
                severity,
                code: code.to_owned(),
                message,
            });
        };
        balance(&tokens, &mut report);
        let decls = csharp::declarations(&file.text);
        file_name(file, &decls, &behaviours, &mut report);
        using_unity(&tokens, &decls, &mut report);
        duplicates(file, &declared, &mut report);
        empty_messages(&tokens, &mut report);
    }
    diagnostics.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    let error_count = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    Ok(CheckResult {
        files_checked: checked.len(),
        error_count,
        warning_count: diagnostics.len() - error_count,
        diagnostics,
    })
}

type Report<'a> = dyn FnMut(usize, Severity, &str, String) + 'a;

/// Braces, brackets and parentheses pair up.
fn balance(tokens: &[Token<'_>], report: &mut Report<'_>) {
    let mut open: Vec<&Token<'_>> = Vec::new();
    for token in tokens {
        let closes = match token.text {
            "{" | "(" | "[" => {
                open.push(token);
                continue;
            }
            "}" => "{",
            ")" => "(",
            "]" => "[",
            _ => continue,
        };
        match open.pop() {
            Some(opener) if opener.text == closes => {}
            Some(opener) => {
                report(
                    token.line,
                    Severity::Error,
                    "CS1513",
                    format!(
                        "`{}` does not close the `{}` opened on line {}",
                        token.text, opener.text, opener.line
                    ),
                );
                return;
            }
            None => {
                report(
                    token.line,
                    Severity::Error,
                    "CS1022",
                    format!("`{}` closes nothing; remove it", token.text),
                );
                return;
            }
        }
    }
    if let Some(opener) = open.first() {
        report(
            opener.line,
            Severity::Error,
            "CS1513",
            format!(
                "`{}` opened on line {} is never closed",
                opener.text, opener.line
            ),
        );
    }
}

/// A component or ScriptableObject class lives in a file of the same name.
fn file_name(
    file: &SourceFile,
    decls: &[TypeDecl],
    behaviours: &std::collections::BTreeSet<String>,
    report: &mut Report<'_>,
) {
    let stem = paths::stem(&file.path);
    let needs_match: Vec<&TypeDecl> = decls
        .iter()
        .filter(|d| {
            d.keyword == "class"
                && (behaviours.contains(&d.name) || d.base.as_deref() == Some("ScriptableObject"))
        })
        .collect();
    if needs_match.is_empty() || needs_match.iter().any(|d| d.name == stem) {
        return;
    }
    let first = needs_match[0];
    report(
        first.line,
        Severity::Error,
        "file_name",
        format!(
            "the class `{}` must be in a file named `{}.cs` for the editor to use it (this file \
             is `{stem}.cs`); rename the file with asset_move or the class",
            first.name, first.name
        ),
    );
}

/// `MonoBehaviour` and `ScriptableObject` need `using UnityEngine;` unless qualified.
fn using_unity(tokens: &[Token<'_>], decls: &[TypeDecl], report: &mut Report<'_>) {
    let has_using = tokens
        .windows(3)
        .any(|w| w[0].text == "using" && w[1].text == "UnityEngine" && w[2].text == ";");
    if has_using {
        return;
    }
    for (i, token) in tokens.iter().enumerate() {
        let unity_type = matches!(token.text, "MonoBehaviour" | "ScriptableObject");
        let qualified = i > 0 && tokens[i - 1].text == ".";
        if unity_type && !qualified && decls.iter().any(|d| d.base.as_deref() == Some(token.text)) {
            report(
                token.line,
                Severity::Error,
                "CS0246",
                format!(
                    "the type `{}` could not be found; add `using UnityEngine;` at the top",
                    token.text
                ),
            );
            return;
        }
    }
}

/// A type name is declared once in the project.
fn duplicates(file: &SourceFile, declared: &[(String, TypeDecl)], report: &mut Report<'_>) {
    let mut by_name: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (path, decl) in declared {
        by_name.entry(&decl.name).or_default().push(path);
    }
    for (path, decl) in declared.iter().filter(|(p, _)| *p == file.path) {
        let places = &by_name[decl.name.as_str()];
        if places.len() < 2 {
            continue;
        }
        let others: Vec<&str> = places.iter().copied().filter(|p| *p != path).collect();
        let elsewhere = if others.is_empty() {
            "this file".to_owned()
        } else {
            others.join(", ")
        };
        report(
            decl.line,
            Severity::Error,
            "CS0101",
            format!(
                "the type `{}` is declared more than once (also in {elsewhere}); rename or remove \
                 one",
                decl.name
            ),
        );
    }
}

/// `void Update() { }` and friends, empty: each still costs a call.
fn empty_messages(tokens: &[Token<'_>], report: &mut Report<'_>) {
    for window in tokens.windows(6) {
        let texts: Vec<&str> = window.iter().map(|t| t.text).collect();
        if let ["void", name, "(", ")", "{", "}"] = texts.as_slice()
            && MESSAGES.contains(name)
        {
            report(
                window[1].line,
                Severity::Warning,
                "UNT0001",
                format!(
                    "the Unity message `{name}` is empty but is still called by the engine; \
                     remove it"
                ),
            );
        }
    }
}
