//! The Unity package in `bindings/unity`, as Unity would meet it: its manifest, assembly
//! definition and `.meta` files; its code, the sample window and a user's editor script
//! compiled by Mono's `mcs` against stand-in `UnityEngine`/`UnityEditor` assemblies
//! (`tests/csharp/unity/`), with Unity's names imported beside the bindings; and domain
//! reloads made with AppDomains: the connection released without waiting, a task followed
//! across the reload, callbacks on the caller's thread, and no server left behind or started
//! twice.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use buril_test_support::bin;
use serde_json::Value;

use crate::common::poll;

const NEWTONSOFT: &str = "/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll";

fn package() -> PathBuf {
    bin::workspace().join("bindings/unity")
}

/// The stand-in Unity assemblies, the user's script and the reload host.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/csharp/unity")
}

/// Every file of the package, relative to it, sorted.
fn files(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(
                    path.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    found.sort();
    found
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap())
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn the_package_is_laid_out_as_unity_reads_it() {
    let root = package();
    let manifest = json(&root.join("package.json"));
    assert_eq!(manifest["name"], "com.buril.tools");
    assert!(manifest["version"].as_str().unwrap().split('.').count() == 3);
    assert_eq!(manifest["unity"], "2021.3");
    assert!(
        manifest["dependencies"]["com.unity.nuget.newtonsoft-json"]
            .as_str()
            .unwrap()
            .starts_with("3.2."),
        "{manifest}"
    );
    let sample = &manifest["samples"][0];
    assert!(
        root.join(sample["path"].as_str().unwrap()).is_dir(),
        "{sample}"
    );
    assert!(root.join("CHANGELOG.md").is_file());
    assert!(root.join("Documentation~/index.md").is_file());

    let asmdef = json(&root.join("Editor/Buril.Generated.asmdef"));
    assert_eq!(asmdef["name"], "Buril.Generated");
    assert_eq!(asmdef["includePlatforms"], serde_json::json!(["Editor"]));
    assert_eq!(asmdef["overrideReferences"], true);
    assert_eq!(
        asmdef["precompiledReferences"],
        serde_json::json!(["Newtonsoft.Json.dll"])
    );
    assert_eq!(asmdef["versionDefines"][0]["name"], "com.cysharp.unitask");
    assert_eq!(asmdef["versionDefines"][0]["define"], "BURIL_UNITASK");
    // The server-side stubs stay out of a client's package.
    assert!(!root.join("Editor/Buril.Tools.cs").exists());

    // Every asset and folder Unity imports has a .meta (a git package is read-only, and Unity
    // ignores assets without one there); the `~` folders and dot files have none.
    let all = files(&root);
    let listed: BTreeSet<&str> = all.iter().map(String::as_str).collect();
    let mut guids = BTreeSet::new();
    let mut folders = BTreeSet::new();
    for file in &all {
        if file.ends_with(".meta") {
            let meta = fs::read_to_string(root.join(file)).unwrap();
            let guid = meta
                .lines()
                .find_map(|line| line.strip_prefix("guid: "))
                .unwrap_or_else(|| panic!("{file} has no guid"));
            assert!(
                guid.len() == 32 && guid.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')),
                "{file}: {guid}"
            );
            assert!(
                guids.insert(guid.to_owned()),
                "{file}: its GUID is another's"
            );
            assert!(meta.starts_with("fileFormatVersion: 2\n"), "{file}");
            let asset = file.trim_end_matches(".meta");
            assert!(
                listed.contains(asset) || root.join(asset).is_dir(),
                "{file} has no asset"
            );
            continue;
        }
        let hidden = file.starts_with('.')
            || file
                .split('/')
                .rev()
                .skip(1)
                .any(|folder| folder.ends_with('~'));
        assert_eq!(
            listed.contains(format!("{file}.meta").as_str()),
            !hidden,
            "{file}: a .meta {}",
            if hidden {
                "where Unity wants none"
            } else {
                "is missing"
            }
        );
        let mut parent = file.as_str();
        while let Some((folder, _)) = parent.rsplit_once('/') {
            if !hidden {
                folders.insert(folder.to_owned());
            }
            parent = folder;
        }
    }
    for folder in folders {
        let meta = fs::read_to_string(root.join(format!("{folder}.meta")))
            .unwrap_or_else(|_| panic!("the folder {folder} has no .meta"));
        assert!(meta.contains("folderAsset: yes"), "{folder}");
    }

    // The GUIDs are the same when generated again (here, into another folder).
    let again = tempfile::tempdir().unwrap();
    let output = Command::new(bin::tools())
        .args(["codegen", "--out"])
        .arg(again.path())
        .args(["--unity-package", "com.buril.tools"])
        .env("BURIL_PROJECT", again.path().join("project"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for file in all.iter().filter(|file| file.ends_with(".meta")) {
        assert_eq!(
            fs::read_to_string(again.path().join("unity").join(file)).unwrap(),
            fs::read_to_string(root.join(file)).unwrap(),
            "{file} changed between two runs"
        );
    }
    // The generator says which types it renamed away from Unity's names.
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        said.contains("C# types named apart from Unity's") && said.contains("Color is ColorData"),
        "{said}"
    );
}

/// Runs `program`, failing with a hint when it is not installed.
fn run(program: &str, args: &[String]) -> std::process::Output {
    Command::new(program).args(args).output().unwrap_or_else(|error| {
        panic!("cannot run `{program}` ({error}): scripts/test.sh installs Mono (mono-mcs, mono-runtime)")
    })
}

/// `mcs -langversion:7.2 -warnaserror` of `sources` into `out`, failing on any error or
/// warning.
pub(crate) fn mcs(
    out: &Path,
    target: &str,
    references: &[PathBuf],
    defines: &str,
    sources: &[PathBuf],
) {
    assert!(
        Path::new(NEWTONSOFT).exists(),
        "{NEWTONSOFT} is missing: scripts/test.sh installs libnewtonsoft-json-cil-dev"
    );
    let mut args = vec![
        "-langversion:7.2".to_owned(),
        format!("-target:{target}"),
        "-warnaserror".to_owned(),
        "-warn:4".to_owned(),
        format!("-out:{}", out.display()),
        "-r:System.Numerics.dll".to_owned(),
        "-r:System.Runtime.Serialization.dll".to_owned(),
        "-r:System.Net.Http.dll".to_owned(),
        "-r:System.Core.dll".to_owned(),
        format!("-r:{NEWTONSOFT}"),
    ];
    if !defines.is_empty() {
        args.push(format!("-define:{defines}"));
    }
    args.extend(references.iter().map(|r| format!("-r:{}", r.display())));
    args.extend(sources.iter().map(|s| s.display().to_string()));
    let output = run("mcs", &args);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && !text.contains("warning"),
        "mcs {}:\n{text}",
        args.join(" ")
    );
}

/// The stand-in Unity assemblies and the package's assembly, built in `dir` with `defines`.
pub(crate) struct Built {
    pub(crate) engine: PathBuf,
    pub(crate) editor: PathBuf,
    pub(crate) unitask: PathBuf,
    pub(crate) package: PathBuf,
}

pub(crate) fn build(dir: &Path, defines: &str) -> Built {
    let engine = dir.join("UnityEngine.dll");
    mcs(
        &engine,
        "library",
        &[],
        "",
        &[fixtures().join("UnityEngine.cs")],
    );
    let editor = dir.join("UnityEditor.dll");
    mcs(
        &editor,
        "library",
        std::slice::from_ref(&engine),
        "",
        &[fixtures().join("UnityEditor.cs")],
    );
    let unitask = dir.join("UniTask.dll");
    mcs(
        &unitask,
        "library",
        &[],
        "",
        &[fixtures().join("UniTask.cs")],
    );
    let sources: Vec<PathBuf> = files(&package().join("Editor"))
        .into_iter()
        .filter(|file| file.ends_with(".cs"))
        .map(|file| package().join("Editor").join(file))
        .collect();
    assert!(sources.len() >= 4, "{sources:?}");
    let package = dir.join("Buril.Generated.dll");
    mcs(
        &package,
        "library",
        &[engine.clone(), editor.clone(), unitask.clone()],
        defines,
        &sources,
    );
    Built {
        engine,
        editor,
        unitask,
        package,
    }
}

#[test]
fn the_package_and_a_users_script_compile_beside_unityengine_and_unityeditor() {
    // As Unity 2021 compiles it, and as Unity 6 with UniTask in the project does.
    for defines in ["", "UNITY_2023_1_OR_NEWER;BURIL_UNITASK"] {
        let dir = tempfile::tempdir().unwrap();
        let built = build(dir.path(), defines);
        let references = [
            built.engine.clone(),
            built.editor.clone(),
            built.unitask.clone(),
            built.package.clone(),
        ];
        mcs(
            &dir.path().join("UserScript.dll"),
            "library",
            &references,
            defines,
            &[fixtures().join("UserScript.cs")],
        );
        mcs(
            &dir.path().join("ToolBrowser.dll"),
            "library",
            &references,
            defines,
            &[package().join("Samples~/ToolBrowser/Editor/ToolBrowserWindow.cs")],
        );
    }
}

/// The server processes running in `folder` (their working folder): how many there are.
fn servers_in(folder: &Path) -> usize {
    let folder = fs::canonicalize(folder).unwrap();
    let mut count = 0;
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name();
        if !pid.to_string_lossy().chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Ok(cwd) = fs::read_link(entry.path().join("cwd")) else {
            continue;
        };
        let Ok(command) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let command = String::from_utf8_lossy(&command);
        if cwd == folder && command.contains("serve") && !command.contains("mono") {
            count += 1;
        }
    }
    count
}

/// Waits until `expected` servers run in `folder`, which must happen `within`; `why` says what
/// it means when it does not.
fn wait_for_servers(folder: &Path, expected: usize, within: Duration, why: &str) {
    poll(
        &format!("{expected} servers in {} ({why})", folder.display()),
        Duration::from_millis(50),
        within,
        || match servers_in(folder) {
            count if count == expected => Ok(()),
            count => Err(format!("{count} servers")),
        },
    );
}

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills what a test started, whatever happens to the test: the host, and every server that
/// runs in the servers' folder (a failed run would leave them holding the test's pipes).
struct Cleanup {
    child: std::process::Child,
    servers: PathBuf,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        kill_servers_in(&self.servers);
    }
}

fn kill_servers_in(folder: &Path) {
    let Ok(folder) = fs::canonicalize(folder) else {
        return;
    };
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        if fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd == folder) {
            let _ = Command::new("kill")
                .arg("-9")
                .arg(entry.file_name())
                .status();
        }
    }
}

/// What the reload host does after the editor connected.
#[derive(PartialEq)]
enum Then {
    /// Reloads, follows the task, checks the callbacks, quits.
    Reload,
    /// Crashes (the editor's process is killed).
    Crash,
}

/// Runs the reload host in `mode` (`Stdio` or `HttpStartedByEditor`), checking the servers at
/// each step.
fn reload(mode: &str, then: Then) {
    let dir = tempfile::tempdir().unwrap();
    let built = build(dir.path(), "");
    fs::copy(NEWTONSOFT, dir.path().join("Newtonsoft.Json.dll")).unwrap();
    let host = dir.path().join("ReloadHost.exe");
    mcs(
        &host,
        "exe",
        &[built.engine, built.editor, built.package],
        "",
        &[fixtures().join("ReloadHost.cs")],
    );
    // The project the tools serve, and the editor's: its settings say how to reach them.
    let project = dir.path().join("project");
    let created = Command::new(bin::tools())
        .args(["call", "editor_state", "{}"])
        .env("BURIL_PROJECT", &project)
        .output()
        .unwrap();
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    let servers = dir.path().join("servers");
    fs::create_dir_all(&servers).unwrap();
    let tasks = dir.path().join("tasks");
    let arguments = format!("serve --tasks file:{}", tasks.display());
    let settings = serde_json::json!({
        "Mode": mode,
        "Executable": bin::tools(),
        "Arguments": arguments,
        "Port": free_port(),
        "WorkingDirectory": servers,
        "TimeoutSeconds": 30,
    });
    fs::create_dir_all(project.join("ProjectSettings")).unwrap();
    fs::write(
        project.join("ProjectSettings/BurilSettings.json"),
        settings.to_string(),
    )
    .unwrap();

    let child = Command::new("mono")
        .arg(&host)
        .current_dir(dir.path())
        .env("BURIL_TEST_PROJECT", &project)
        .env("BURIL_TEST_SESSION", dir.path().join("session.txt"))
        .env("BURIL_PROJECT", &project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("mono runs (scripts/test.sh installs mono-runtime)");
    let mut cleanup = Cleanup {
        child,
        servers: servers.clone(),
    };
    let mut input = cleanup.child.stdin.take().unwrap();
    let mut lines = BufReader::new(cleanup.child.stdout.take().unwrap()).lines();
    let mut next = |what: &str| {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("the host ended before `{what}`"))
            .unwrap();
        assert!(line.starts_with(what), "expected `{what}`, got `{line}`");
        line
    };
    let mut go = || {
        writeln!(input, "go").unwrap();
        input.flush().unwrap();
    };

    let connected = next("connected");
    assert!(connected.contains("task_"), "{connected}");
    assert_eq!(servers_in(&servers), 1, "one server, started on first use");
    if then == Then::Crash {
        // The editor dies without a word: its server follows it.
        cleanup.child.kill().unwrap();
        cleanup.child.wait().unwrap();
        wait_for_servers(
            &servers,
            0,
            Duration::from_secs(5),
            "a server outlived the editor that crashed",
        );
        return;
    }
    go();
    let released = next("released");
    let millis: u64 = released["released ".len()..]
        .parse()
        .unwrap_or_else(|_| panic!("{released}"));
    assert!(
        millis < 100,
        "the release before the reload took {millis} ms"
    );
    next("unloaded");
    match mode {
        // Its input closed, the stdio server exits.
        "Stdio" => wait_for_servers(
            &servers,
            0,
            Duration::from_secs(5),
            "the stdio server outlived its domain",
        ),
        // The HTTP server is kept for the next domain.
        _ => assert_eq!(servers_in(&servers), 1),
    }
    go();
    let resumed = next("resumed");
    let matches: u64 = resumed["resumed ".len()..]
        .parse()
        .unwrap_or_else(|_| panic!("{resumed}"));
    assert!(matches > 0, "{resumed}");
    assert_eq!(
        servers_in(&servers),
        1,
        "a server after the reload, not two"
    );
    go();
    let callbacks = next("callbacks");
    assert_eq!(callbacks, "callbacks OK");
    go();
    let settings = next("settings");
    assert_eq!(settings, "settings OK");
    go();
    next("quit");
    wait_for_servers(
        &servers,
        0,
        Duration::from_secs(5),
        "a server outlived the editor",
    );
    assert!(cleanup.child.wait().unwrap().success());
}

#[test]
fn a_stdio_server_lives_and_ends_with_its_domain() {
    reload("Stdio", Then::Reload);
}

#[test]
fn an_http_server_outlives_reloads_and_its_tasks_are_followed_across_them() {
    reload("HttpStartedByEditor", Then::Reload);
}

#[test]
fn servers_the_editor_started_end_when_it_crashes() {
    reload("Stdio", Then::Crash);
    reload("HttpStartedByEditor", Then::Crash);
}
