//! Bindings for servers no one here wrote: `tools codegen --from-command` on npm's
//! server-everything and server-memory. The C# compiles with mcs and Newtonsoft.Json, the
//! TypeScript passes strict `tsc`, and a typed call through each generated client (the
//! bindings' own stdio transports, and `mcpTransport` over the MCP SDK's client) reaches the
//! real server. Node, the npm servers, the SDK, mcs and Newtonsoft.Json are installed by
//! `bash scripts/test.sh`; a missing one fails the test.

#[allow(dead_code)]
#[path = "../csharp/support.rs"]
mod csharp_support;
#[allow(dead_code)]
#[path = "../typescript/support.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use buril_test_support::bin;
use serde_json::{Value, json};

use crate::common::externals::{Spawned, everything, free_port, memory, node, wait_for_port};

/// `tools codegen --out DIR --server-name NAME --from-command COMMAND…`: the folder, and what
/// it said on standard error (its notes).
fn generate_for(name: &str, command: &[String]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let output = Command::new(bin::tools())
        .arg("codegen")
        .arg("--out")
        .arg(dir.path())
        .args(["--server-name", name, "--from-command"])
        .args(command)
        .current_dir(dir.path())
        .output()
        .expect("the tools binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "codegen --from-command failed:\n{}\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    (dir, stderr)
}

/// Strict `tsc` over the generated TypeScript and `program`, emitted to `out/`, with the MCP
/// SDK linked in; runs `out/<program>.js ARGS` and reads what it printed.
fn typescript_run(generated: &Path, program: &str, source: &str, args: &[&str]) -> Value {
    let folder = support::Folder::with(&[]);
    copy_dir(
        &generated.join("typescript"),
        &folder.path().join("typescript"),
    );
    folder.write(&format!("{program}.ts"), source);
    let modules = bin::workspace().join("interop/node_modules");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&modules, folder.path().join("node_modules")).expect("a link");
    let mut options = support::compiler_options(support::Module::CommonJs);
    options["noEmit"] = json!(false);
    options["outDir"] = json!("out");
    options["rootDir"] = json!(".");
    options["types"] = json!(["node"]);
    options["typeRoots"] = json!([modules.join("@types")]);
    options["skipLibCheck"] = json!(true);
    let config = json!({
        "compilerOptions": options,
        "include": [format!("{program}.ts"), "typescript/*.ts"],
    });
    folder.write(
        "tsconfig.json",
        &serde_json::to_string_pretty(&config).expect("JSON"),
    );
    let output = Command::new(support::tsc())
        .arg("-p")
        .arg(folder.path().join("tsconfig.json"))
        .current_dir(folder.path())
        .output()
        .expect("tsc runs");
    support::assert_success("tsc", &output);
    let printed = folder.node(&format!("out/{program}.js"), args);
    serde_json::from_str(printed.trim())
        .unwrap_or_else(|error| panic!("{program} printed no JSON ({error}): {printed}"))
}

/// mcs over the generated C# and `Foreign.cs` (with `define`), run with `args`.
fn csharp_run(generated: &Path, define: &str, args: &[&str]) -> Value {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(generated.join("csharp"))
        .expect("the C# folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    sources.sort();
    sources.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hub/foreign/Foreign.cs"));
    let exe = dir.path().join("Foreign.exe");
    let mut extra = vec!["-r:System.Core.dll".to_owned()];
    if !define.is_empty() {
        extra.push(format!("-define:{define}"));
    }
    csharp_support::mcs(&exe, "exe", &sources, &extra);
    std::fs::copy(
        csharp_support::NEWTONSOFT,
        dir.path().join("Newtonsoft.Json.dll"),
    )
    .expect("a copy");
    let mut all = vec![exe.display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let output = csharp_support::run("mono", &all, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "mono {all:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|error| panic!("Foreign.exe printed no JSON ({error}): {stdout}"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a folder") {
        let entry = entry.expect("an entry");
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("a copy");
    }
}

#[test]
fn bindings_for_server_everything_compile_and_call_it() {
    let (dir, said) = generate_for("everything", &[node(), everything(), "stdio".to_owned()]);
    assert!(!said.contains("error"), "{said}");
    let tools = std::fs::read_to_string(dir.path().join("typescript/tools.ts")).unwrap();
    assert!(
        tools.contains("name: \"get-sum\""),
        "the wire names are the server's"
    );
    let skill = dir.path().join("skills/everything-tools/SKILL.md");
    assert!(
        skill.exists(),
        "the skills are grouped under the server's name"
    );

    let report = typescript_run(
        dir.path(),
        "everything",
        include_str!("foreign/everything.ts"),
        &[&node(), &everything()],
    );
    assert_eq!(
        report["sumText"], "The sum of 1 and 2.5 is 3.5.",
        "{report}"
    );
    assert_eq!(report["echoBlocks"], 1, "{report}");
    assert!(report["weather"]["temperature"].is_number(), "{report}");

    let report = csharp_run(
        dir.path(),
        "EVERYTHING",
        &["everything", &node(), &everything()],
    );
    assert_eq!(
        report["sumText"], "The sum of 1 and 2.5 is 3.5.",
        "{report}"
    );
}

#[test]
fn bindings_for_server_memory_compile_and_call_it() {
    let (dir, said) = generate_for("memory", &[node(), memory()]);
    assert!(!said.contains("error"), "{said}");
    let graph = tempfile::tempdir().expect("a folder");
    let file = |name: &str| graph.path().join(name).display().to_string();
    let report = typescript_run(
        dir.path(),
        "memory",
        include_str!("foreign/memory.ts"),
        &[&node(), &memory(), &file("ts.jsonl")],
    );
    assert_eq!(
        report,
        json!({"names": ["Ada"], "observations": ["typed, in TypeScript"]})
    );
    let report = csharp_run(
        dir.path(),
        "",
        &["memory", &node(), &memory(), &file("cs.jsonl")],
    );
    assert_eq!(
        report,
        json!({"names": ["Ada"], "observations": ["typed, in C#"]})
    );
}

#[test]
fn bindings_from_a_server_at_a_url_call_it_over_http() {
    let port = free_port();
    let server = Spawned(
        Command::new(node())
            .args([everything(), "streamableHttp".to_owned()])
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("server-everything starts"),
    );
    wait_for_port(port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let output = Command::new(bin::tools())
        .arg("codegen")
        .arg("--out")
        .arg(dir.path())
        .args(["--server-name", "everything", "--from-server", &url])
        .current_dir(dir.path())
        .output()
        .expect("the tools binary runs");
    assert!(
        output.status.success(),
        "codegen --from-server failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = typescript_run(
        dir.path(),
        "over_http",
        include_str!("foreign/over_http.ts"),
        &[&url],
    );
    assert_eq!(report["sumText"], "The sum of 2 and 3 is 5.", "{report}");
    drop(server);
}
