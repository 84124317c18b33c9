//! The command line: `list`, `describe` and `call`, their output and exit codes.

use std::process::ExitCode;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use buril::cli::Cli;
use buril::{Policy, ToolError};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

/// A greeting.
#[derive(Serialize, JsonSchema)]
struct Greeting {
    message: String,
}

/// Greets someone by name.
///
/// A second paragraph that the listing leaves out.
#[buril::tool(title = "Greet", read_only, idempotent)]
fn cli_greet(
    /// Who to greet.
    name: String,
    /// How many exclamation marks.
    excitement: Option<u8>,
) -> Greeting {
    let marks = "!".repeat(usize::from(excitement.unwrap_or(0)));
    Greeting {
        message: format!("hello, {name}{marks}"),
    }
}

/// Sleeps for a while.
#[buril::tool(off_thread, aliases = ["cli_nap"])]
fn cli_sleep(
    /// Milliseconds.
    ms: u64,
    ctx: &buril::Context,
) -> u64 {
    // Given a gate as host state, the call is held at it instead, until the test opens it.
    match ctx.try_state::<Arc<Gate>>() {
        Some(gate) => gate.pass(),
        // Without a gate, the sleep is the call's work.
        None => std::thread::sleep(Duration::from_millis(ms)),
    }
    ms
}

/// The longest a test waits for an event that must come, and the longest a call stays held at a
/// gate that is never opened.
const WAIT: Duration = Duration::from_secs(30);

/// Shut until the test opens it; records whether the tool held at it started and ended.
#[derive(Default)]
struct Gate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    open: bool,
    entered: bool,
    ended: bool,
}

impl Gate {
    /// The tool's side: waits until the gate is open (or `WAIT` passed).
    fn pass(&self) {
        let mut state = self.state.lock().unwrap();
        state.entered = true;
        let (mut state, _) = self
            .changed
            .wait_timeout_while(state, WAIT, |state| !state.open)
            .unwrap();
        state.ended = true;
        self.changed.notify_all();
    }

    fn ended(&self) -> bool {
        self.state.lock().unwrap().ended
    }

    /// Opens the gate and waits for the tool held at it, if it started, to end.
    fn open(&self) {
        let mut state = self.state.lock().unwrap();
        state.open = true;
        self.changed.notify_all();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, WAIT, |state| state.entered && !state.ended)
            .unwrap();
        assert!(
            !state.entered || state.ended,
            "the tool did not end once let go"
        );
    }
}

/// Always fails.
#[buril::tool(off_thread, inline)]
fn cli_fail() -> Result<u8, ToolError> {
    Err(ToolError::runtime("it broke"))
}

/// Greets the host's user.
#[buril::tool(off_thread)]
fn cli_whoami(ctx: &buril::Context) -> Result<String, ToolError> {
    Ok(ctx.state::<User>()?.0.clone())
}

/// Erases everything.
#[buril::tool(off_thread, dangerous, destructive)]
async fn x_nuke() -> &'static str {
    "gone"
}

/// The host's user, given as state.
struct User(String);

fn run_cli(cli: Cli, args: &[&str]) -> (ExitCode, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let argv = std::iter::once("tools").chain(args.iter().copied());
    let code = cli.run_with(argv, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn run(args: &[&str]) -> (ExitCode, String, String) {
    run_cli(Cli::new(), args)
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn list_prints_every_tool_with_its_summary() {
    let (code, out, err) = run(&["list"]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(err, "");
    let lines: Vec<&str> = out.lines().collect();
    let summary = format!(
        "5 tools in 2 families (tool metadata {})",
        buril::registry().metadata_hash()
    );
    assert_eq!(
        lines,
        [
            "cli_fail    Always fails.",
            "cli_greet   Greets someone by name.",
            "cli_sleep   Sleeps for a while.",
            "cli_whoami  Greets the host's user.",
            "x_nuke      Erases everything. [dangerous]",
            "",
            summary.as_str(),
        ]
    );
    let (code, out, _) = run(&["list", "--family", "x"]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(
        out.starts_with("x_nuke  Erases everything. [dangerous]\n\n"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 3, "{out}");
}

#[test]

fn the_summary_line_agrees_in_number() {
    let (_, out, _) = run(&["list", "--family", "x"]);
    let last = out.lines().last().unwrap();
    assert_eq!(
        last,
        format!(
            "1 tool in 1 family (tool metadata {})",
            buril::registry().metadata_hash()
        )
    );
}

#[test]
fn list_json_is_an_array_of_mcp_shaped_tools() {
    let (code, out, _) = run(&["list", "--json"]);
    assert_eq!(code, ExitCode::SUCCESS);
    let tools = parse(&out);
    let tools = tools.as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["cli_fail", "cli_greet", "cli_sleep", "cli_whoami", "x_nuke"]
    );
    for tool in tools {
        let mut keys: Vec<&str> = tool
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "annotations",
                "description",
                "inputSchema",
                "metadataHash",
                "name",
                "outputSchema"
            ]
        );
        assert_eq!(tool["inputSchema"]["type"], "object");
        assert_eq!(tool["outputSchema"]["type"], "object");
    }
    let greet = &tools[1];
    // The whole doc comment (the text listing shows its first line only).
    let description = greet["description"].as_str().unwrap();
    assert!(
        description.starts_with("Greets someone by name.\n"),
        "{description}"
    );
    assert!(
        description.ends_with("\nA second paragraph that the listing leaves out."),
        "{description}"
    );
    assert_eq!(
        greet["annotations"],
        json!({"title": "Greet", "readOnlyHint": true, "idempotentHint": true})
    );
    assert_eq!(
        greet["inputSchema"],
        *buril::registry().get("cli_greet").unwrap().input_schema()
    );
    assert_eq!(tools[4]["annotations"], json!({"destructiveHint": true}));
    assert_eq!(tools[0]["annotations"], json!({}));

    let (_, out, _) = run(&["list", "--json", "--family", "cli"]);
    assert_eq!(parse(&out).as_array().unwrap().len(), 4);
}

#[test]
fn describe_shows_parameters_and_schemas() {
    let (code, out, err) = run(&["describe", "cli_greet"]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert!(
        out.starts_with("cli_greet\n  Greet\n\n  Greets someone by name.\n"),
        "{out}"
    );
    for expected in [
        "family:    cli\n",
        "runs on:   main thread\n",
        "hints:     {\"title\":\"Greet\",\"readOnlyHint\":true,\"idempotentHint\":true}\n",
        "parameters:\n",
        "  name: string (required)  Who to greet.\n",
        "  excitement: integer | null (optional)  How many exclamation marks.\n",
        "\ninput schema:\n",
        "\noutput schema:\n",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    let input =
        serde_json::to_string_pretty(buril::registry().get("cli_greet").unwrap().input_schema())
            .unwrap();
    assert!(out.contains(&input), "{out}");
    assert!(out.contains("defined:   "), "{out}");

    let (code, out, _) = run(&["describe", "cli_nap"]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(
        out.starts_with("cli_sleep\n"),
        "an alias describes its tool: {out}"
    );
    assert!(
        out.contains("runs on:   a thread that may block, off the main thread (off_thread)\n"),
        "{out}"
    );
    assert!(out.contains("aliases:   cli_nap (deprecated)\n"), "{out}");

    let (_, out, _) = run(&["describe", "cli_whoami"]);
    assert!(
        out.contains("runs on:   a thread that may block, off the main thread (off_thread)\n"),
        "{out}"
    );

    let (_, out, _) = run(&["describe", "cli_fail"]);
    assert!(
        out.contains("runs on:   the calling thread (off_thread, inline)\n"),
        "{out}"
    );

    let (_, out, _) = run(&["describe", "x_nuke"]);
    assert!(out.contains("async:     yes\n"), "{out}");
    assert!(
        out.contains("dangerous: yes (off until the host enables it)\n"),
        "{out}"
    );
    assert!(out.contains("parameters: none\n"), "{out}");
}

#[test]
fn describe_json_adds_the_flags() {
    let (code, out, _) = run(&["describe", "cli_sleep", "--json"]);
    assert_eq!(code, ExitCode::SUCCESS);
    let tool = parse(&out);
    assert_eq!(tool["name"], "cli_sleep");
    assert_eq!(tool["family"], "cli");
    assert_eq!(tool["aliases"], json!(["cli_nap"]));
    assert_eq!(tool["offThread"], true);
    assert_eq!(tool["inline"], false);
    assert_eq!(tool["threading"], "off_thread");
    assert_eq!(tool["dangerous"], false);
    assert_eq!(tool["async"], false);
    assert!(
        tool["location"].as_str().unwrap().contains("cli.rs:"),
        "{tool}"
    );
    let (_, out, _) = run(&["describe", "cli_fail", "--json"]);
    assert_eq!(parse(&out)["inline"], true);
    assert_eq!(parse(&out)["threading"], "inline");
}

#[test]
fn describe_an_unknown_tool_fails_with_a_suggestion() {
    let (code, out, err) = run(&["describe", "cli_gret"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(out, "");
    assert_eq!(
        err,
        "no tool is named `cli_gret`; did you mean `cli_greet`?\n"
    );
    let (code, _, err) = run(&["describe", "qqqq_zzzz"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(
        err,
        "no tool is named `qqqq_zzzz`; list the tools to see what exists\n"
    );
}

#[test]
fn call_prints_the_envelope_and_exits_zero_on_success() {
    let (code, out, err) = run(&["call", "cli_greet", r#"{"name": "Ada", "excitement": 2}"#]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert_eq!(err, "");
    assert!(
        out.starts_with("{\n  \"ok\": true,\n  \"data\": "),
        "ok first: {out}"
    );
    assert_eq!(
        parse(&out),
        json!({"ok": true, "data": {"message": "hello, Ada!!"}})
    );

    let (code, out, _) = run(&["call", "--compact", "cli_greet", r#"{"name": "Ada"}"#]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(out, "{\"ok\":true,\"data\":{\"message\":\"hello, Ada\"}}\n");

    // No input is the empty object.
    let (code, out, _) = run(&["call", "cli_greet"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(parse(&out)["problems"][0]["path"], "/name");

    // By alias: a warning, still success.
    let (code, out, _) = run(&["call", "cli_nap", r#"{"ms": 1}"#]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(parse(&out)["warnings"].as_array().unwrap().len(), 1);
}

#[test]
fn call_with_text_that_is_not_json_is_a_validation_failure() {
    let (code, out, _) = run(&["call", "cli_greet", "{name: Ada"]);
    assert_eq!(code, ExitCode::from(1));
    let envelope = parse(&out);
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["type"], "validation");
    assert_eq!(envelope["problems"][0]["path"], "");
    let message = envelope["problems"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the input is not valid JSON: "),
        "{message}"
    );
}

#[test]
fn call_failures_exit_one() {
    let (code, out, _) = run(&["call", "cli_gret", "{}"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(
        parse(&out),
        json!({
            "ok": false,
            "type": "not_found",
            "error": "no tool is named `cli_gret`; did you mean `cli_greet`?",
            "suggestions": ["cli_greet"]
        })
    );
    let (code, out, _) = run(&["call", "cli_fail"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(
        parse(&out),
        json!({"ok": false, "type": "runtime", "error": "it broke"})
    );
    let (code, out, _) = run(&["call", "cli_greet", r#"{"name": 1}"#]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(parse(&out)["type"], "validation");
}

#[test]
fn call_timeout_answers_timeout() {
    // The call is held at a gate that opens only after its answer: the answer comes at the
    // deadline, not when the tool ends.
    let gate = Arc::new(Gate::default());
    let cli = Cli::new().configure({
        let gate = Arc::clone(&gate);
        move |builder| builder.state(gate)
    });
    let (code, out, _) = run_cli(
        cli,
        &["call", "cli_sleep", r#"{"ms": 0}"#, "--timeout", "0.05"],
    );
    assert!(
        !gate.ended(),
        "the call was answered only once its tool ended"
    );
    gate.open();
    assert_eq!(code, ExitCode::from(1));
    let envelope = parse(&out);
    assert_eq!(envelope["type"], "timeout");
    assert!(
        envelope["error"].as_str().unwrap().contains("within 50 ms"),
        "{envelope}"
    );
    // A timeout no call here comes near.
    let (code, out, _) = run(&["call", "cli_sleep", r#"{"ms": 1}"#, "--timeout", "120"]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");

    for bad in ["0", "-1", "nan"] {
        let (code, out, err) = run(&["call", "cli_sleep", "{}", &format!("--timeout={bad}")]);
        assert_eq!(code, ExitCode::from(2), "--timeout={bad}: {out}{err}");
        assert_eq!(out, "");
    }
    let (code, _, err) = run(&["call", "cli_sleep", "{}", "--timeout", "0"]);
    assert_eq!(code, ExitCode::from(2));
    assert_eq!(err, "error: --timeout takes a positive number of seconds\n");
}

#[test]
fn call_enables_dangerous_tools_on_request() {
    let (code, out, _) = run(&["call", "x_nuke"]);
    assert_eq!(code, ExitCode::from(1));
    let envelope = parse(&out);
    assert_eq!(envelope["type"], "disabled");
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .contains("`--enable x_nuke`"),
        "{envelope}"
    );

    for flags in [
        &["--enable", "x_nuke"][..],
        &["--enable", "x_*"],
        &["--enable", "*"],
        &["--allow-dangerous"],
    ] {
        let mut args = vec!["call", "x_nuke"];
        args.extend_from_slice(flags);
        let (code, out, _) = run(&args);
        assert_eq!(code, ExitCode::SUCCESS, "{flags:?}: {out}");
        assert_eq!(parse(&out), json!({"ok": true, "data": {"result": "gone"}}));
    }

    // Enabling another tool does not enable this one; a disable rule wins.
    let (code, _, _) = run(&["call", "x_nuke", "--enable", "cli_*"]);
    assert_eq!(code, ExitCode::from(1));
    let (code, out, _) = run(&["call", "x_nuke", "--allow-dangerous", "--disable", "x_nuke"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(parse(&out)["type"], "disabled");
    let (code, out, _) = run(&[
        "call",
        "cli_greet",
        r#"{"name": "a"}"#,
        "--disable",
        "cli_*",
    ]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(
        parse(&out)["error"],
        "the tool `cli_greet` is disabled by the host (rule `cli_*`)"
    );
}

#[test]
fn a_bad_pattern_is_a_usage_error() {
    for flag in ["--enable", "--disable"] {
        for pattern in ["Bad*", "a*b", "*x", "cli greet", ""] {
            let (code, out, err) = run(&["call", "cli_greet", "{}", flag, pattern]);
            assert_eq!(code, ExitCode::from(2), "{flag} {pattern:?}");
            assert_eq!(out, "", "{flag} {pattern:?}");
            assert!(err.starts_with("error: "), "{err}");
            assert!(err.contains("is not a tool pattern"), "{err}");
        }
    }
}

#[test]
fn usage_errors_exit_two_and_help_exits_zero() {
    let (code, out, err) = run(&[]);
    assert_eq!(code, ExitCode::from(2));
    assert_eq!(out, "");
    assert!(err.contains("Usage"), "{err}");
    let (code, _, err) = run(&["frobnicate"]);
    assert_eq!(code, ExitCode::from(2));
    assert!(err.contains("frobnicate"), "{err}");
    let (code, _, _) = run(&["call"]);
    assert_eq!(code, ExitCode::from(2));

    let (code, out, err) = run(&["--help"]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(err, "");
    for command in ["list", "describe", "call"] {
        assert!(out.contains(command), "{out}");
    }
}

#[test]
fn configure_hands_state_and_settings_to_the_dispatcher() {
    let cli = Cli::new().configure(|builder| builder.state(User("ada".into())));
    let (code, out, _) = run_cli(cli, &["call", "cli_whoami"]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert_eq!(parse(&out)["data"]["result"], "ada");

    let (code, out, _) = run(&["call", "cli_whoami"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(parse(&out)["type"], "runtime");

    let gate = Arc::new(Gate::default());
    let cli = Cli::new().configure({
        let gate = Arc::clone(&gate);
        move |builder| builder.state(gate).timeout(Duration::from_millis(40))
    });
    let (code, out, _) = run_cli(cli, &["call", "cli_sleep", r#"{"ms": 0}"#]);
    gate.open();
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(parse(&out)["type"], "timeout");
}

#[test]

fn configure_policy_is_kept_by_call() {
    let cli = Cli::new()
        .configure(|builder| builder.policy(Policy::new().disable("cli_greet".parse().unwrap())));
    let (code, out, _) = run_cli(cli, &["call", "cli_greet", r#"{"name": "a"}"#]);
    assert_eq!(parse(&out)["type"], "disabled", "{out}");
    assert_eq!(code, ExitCode::from(1));

    let cli = Cli::new().configure(|builder| builder.policy(Policy::new().allow_dangerous(true)));
    let (code, out, _) = run_cli(cli, &["call", "x_nuke"]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
}

#[test]
fn a_cli_over_a_custom_registry() {
    let registry: &'static buril::Registry = Box::leak(Box::new(
        buril::Registry::new(buril::registry().get("cli_fail").unwrap().as_linked()).unwrap(),
    ));
    let cli = Cli::new().registry(registry);
    let (code, out, _) = run_cli(cli, &["list"]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(out.starts_with("cli_fail  Always fails.\n\n"), "{out}");
    assert_eq!(out.lines().count(), 3, "{out}");
    let (code, out, _) = run_cli(Cli::new().registry(registry), &["call", "cli_greet"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(parse(&out)["type"], "not_found");
}

/// Standard output whose reader goes away after `room` bytes (`tools list | head -c room`):
/// every write past it fails with `BrokenPipe`, as a real pipe's does.
struct ClosesAfter {
    room: usize,
    written: Vec<u8>,
    /// Writes tried after the first failure.
    writes_after_close: usize,
}

impl ClosesAfter {
    fn new(room: usize) -> Self {
        ClosesAfter {
            room,
            written: Vec::new(),
            writes_after_close: 0,
        }
    }
}

impl std::io::Write for ClosesAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.written.len() >= self.room {
            self.writes_after_close += 1;
            return Err(std::io::ErrorKind::BrokenPipe.into());
        }
        let n = buf.len().min(self.room - self.written.len());
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run_closing(cli: Cli, room: usize, args: &[&str]) -> (ExitCode, ClosesAfter, String) {
    let mut out = ClosesAfter::new(room);
    let mut err = Vec::new();
    let argv = std::iter::once("tools").chain(args.iter().copied());
    let code = cli.run_with(argv, &mut out, &mut err);
    (code, out, String::from_utf8(err).unwrap())
}

#[test]
fn a_closed_pipe_ends_every_command_quietly_with_the_code_it_had() {
    let cases: &[(&[&str], ExitCode)] = &[
        (&["list"], ExitCode::SUCCESS),
        (&["list", "--json"], ExitCode::SUCCESS),
        (&["describe", "cli_greet"], ExitCode::SUCCESS),
        (&["describe", "cli_greet", "--json"], ExitCode::SUCCESS),
        (&["schema"], ExitCode::SUCCESS),
        (
            &["schema", "--profile", "openai", "cli_greet"],
            ExitCode::SUCCESS,
        ),
        (
            &["call", "cli_greet", r#"{"name": "Ada"}"#],
            ExitCode::SUCCESS,
        ),
        // The call failed before anything was printed: it still exits 1.
        (&["call", "cli_fail"], ExitCode::from(1)),
        (&["--help"], ExitCode::SUCCESS),
    ];
    for room in [0, 7] {
        for (args, expected) in cases {
            let (code, out, err) = run_closing(Cli::new(), room, args);
            assert_eq!(code, *expected, "{args:?} (room {room})");
            assert_eq!(err, "", "{args:?} (room {room})");
            assert_eq!(out.written.len(), room, "{args:?}");
            // After the first failure the command stopped writing, or its writes were
            // refused before reaching the pipe.
            assert!(
                out.writes_after_close <= 1,
                "{args:?}: {}",
                out.writes_after_close
            );
        }
    }
}

#[test]
fn an_extension_sees_the_closed_pipe_as_broken_pipe_errors() {
    let seen = std::rc::Rc::new(std::cell::Cell::new(None));
    let seen_inside = std::rc::Rc::clone(&seen);
    let extension = buril::cli::Extension::new(clap::Command::new("count"), move |invocation| {
        // Writes until the reader goes, like a command printing a long report.
        for n in 0.. {
            if let Err(error) = writeln!(invocation.out, "line {n}") {
                seen_inside.set(Some(error.kind()));
                // A second write is refused without reaching the pipe.
                let again = writeln!(invocation.out, "more");
                assert_eq!(again.unwrap_err().kind(), std::io::ErrorKind::BrokenPipe);
                return ExitCode::SUCCESS;
            }
        }
        unreachable!()
    });
    let (code, out, err) = run_closing(Cli::new().extend(extension), 100, &["count"]);
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(err, "");
    assert_eq!(seen.get(), Some(std::io::ErrorKind::BrokenPipe));
    assert_eq!(out.writes_after_close, 1);
}
