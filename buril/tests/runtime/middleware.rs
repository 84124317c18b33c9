//! Layers around every call: order, refusing, rewriting, holding, the principal, and the
//! built-in audit log, rate limit, concurrency limit and scopes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use buril::middleware::{
    AuditLog, AuditRecord, Call, CallEnd, ConcurrencyLimit, Layer, RateLimit, RequireScopes,
    ScopeRules,
};
use buril::{CallOptions, Dispatcher, ErrorKind, Outcome, Principal, ToolError};
use buril_test_support::wait_until;
use serde_json::{Value, json};

use crate::common::gates;

/// Reads a note.
#[buril::tool(off_thread, read_only)]
fn note_read(
    /// The note's number.
    id: u32,
) -> Result<String, String> {
    if id == 0 {
        return Err("there is no note 0".into());
    }
    Ok(format!("note {id}"))
}

/// Keeps a note.
#[buril::tool(off_thread)]
fn note_keep(
    /// What it says.
    text: String,
) -> usize {
    text.len()
}

/// Deletes a note.
#[buril::tool(off_thread, dangerous)]
fn note_delete(
    /// The note's number.
    id: u32,
) -> u32 {
    id
}

/// Says who calls.
#[buril::tool(off_thread)]
fn note_whoami(ctx: &buril::Context) -> String {
    ctx.principal().map_or_else(
        || "nobody".to_owned(),
        |principal| principal.subject.clone(),
    )
}

static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);

/// Waits a little, counting how many run at once.
#[buril::tool(off_thread)]
fn slow_wait(
    /// How long, in milliseconds.
    ms: u64,
) -> u64 {
    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    MOST.fetch_max(now, Ordering::SeqCst);
    // The call takes its time, so that calls of eight threads overlap and meet the limit.
    std::thread::sleep(Duration::from_millis(ms));
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    ms
}

/// Held at the gate of `tag` until the test opens it, ignoring cancellation.
#[buril::tool(off_thread)]
fn slow_hold(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = gates::hold(&tag);
    0
}

/// Records the order layers see a call in.
struct Named(&'static str, Arc<Mutex<Vec<String>>>);

impl Layer for Named {
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        self.1.lock().unwrap().push(format!("{} before", self.0));
        if call.input().get("refuse_at").and_then(Value::as_str) == Some(self.0) {
            return Err(ToolError::runtime(format!("{} refused", self.0)));
        }
        Ok(())
    }

    fn after(&self, call: &CallEnd<'_>, outcome: &mut Outcome) {
        self.1.lock().unwrap().push(format!(
            "{} after {} ran={}",
            self.0,
            outcome.error_kind().map_or("ok", |kind| kind.as_str()),
            call.ran()
        ));
    }
}

/// `note_read` with an input that also carries `refuse_at` is invalid, so it is taken out
/// before validation (a layer that rewrites).
struct Strip;

impl Layer for Strip {
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        if call.input().get("refuse_at").is_some() {
            call.input_mut()
                .as_object_mut()
                .unwrap()
                .remove("refuse_at");
        }
        Ok(())
    }
}

#[test]
fn layers_run_as_an_onion_and_a_refusal_is_seen_by_the_layers_outside_it() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let dispatcher = Dispatcher::builder()
        .layer(Named("outer", Arc::clone(&seen)))
        .layer(Named("inner", Arc::clone(&seen)))
        .layer(Strip)
        .build();
    let envelope = dispatcher
        .invoke("note_read", json!({"id": 2}), buril::CallOptions::default())
        .into_envelope();
    assert_eq!(envelope, json!({"ok": true, "data": {"result": "note 2"}}));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "outer before",
            "inner before",
            "inner after ok ran=true",
            "outer after ok ran=true"
        ]
    );

    seen.lock().unwrap().clear();
    let envelope = dispatcher
        .invoke(
            "note_read",
            json!({"id": 2, "refuse_at": "inner"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["type"], "runtime");
    assert_eq!(envelope["error"], "inner refused");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "outer before",
            "inner before",
            "outer after runtime ran=false"
        ]
    );

    // What the layers leave is validated: `Strip` took out the key the other layers read,
    // which the tool's schema does not have.
    seen.lock().unwrap().clear();
    let envelope = dispatcher
        .invoke(
            "note_read",
            json!({"id": 3, "refuse_at": "nobody"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope, json!({"ok": true, "data": {"result": "note 3"}}));

    // Invalid input is refused after the layers passed it: they see the refusal.
    seen.lock().unwrap().clear();
    let envelope = dispatcher
        .invoke(
            "note_read",
            json!({"id": "three"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["type"], "validation");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "outer before",
            "inner before",
            "inner after validation ran=false",
            "outer after validation ran=false"
        ]
    );
}

/// Turns every input into `{"id": 7}`, and every outcome into a warning-carrying one.
struct Rewrite;

impl Layer for Rewrite {
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        *call.input_mut() = json!({"id": 7});
        Ok(())
    }

    fn after(&self, _call: &CallEnd<'_>, outcome: &mut Outcome) {
        *outcome = std::mem::replace(outcome, Outcome::ok(Value::Null)).with_warning("rewritten");
    }
}

#[test]
fn a_layer_rewrites_the_input_before_it_is_validated_and_the_outcome_after() {
    let dispatcher = Dispatcher::builder().layer(Rewrite).build();
    let envelope = dispatcher
        .invoke(
            "note_read",
            json!({"id": "not a number"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["ok"], true, "{envelope}");
    assert_eq!(envelope["data"]["result"], "note 7");
    assert_eq!(envelope["warnings"], json!(["rewritten"]));
}

#[test]
fn the_principal_reaches_layers_and_the_tool() {
    let subjects = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&subjects);
    let dispatcher = Dispatcher::builder()
        .layer(AuditLog::to(move |record| {
            sink.lock().unwrap().push(record.principal.clone())
        }))
        .build();
    let alice = CallOptions::new().principal(Principal::new("alice"));
    let outcome = dispatcher.invoke("note_whoami", json!({}), alice);
    assert_eq!(outcome.data(), Some(&json!({"result": "alice"})));
    let outcome = dispatcher.invoke("note_whoami", json!({}), buril::CallOptions::default());
    assert_eq!(outcome.data(), Some(&json!({"result": "nobody"})));
    assert_eq!(*subjects.lock().unwrap(), [Some("alice".to_owned()), None]);

    // Without layers, too.
    let plain = Dispatcher::new();
    let bob = CallOptions::new().principal(Principal::new("bob"));
    let outcome = plain.invoke("note_whoami", json!({}), bob);
    assert_eq!(outcome.data(), Some(&json!({"result": "bob"})));
}

#[test]
fn the_audit_log_has_a_line_for_allowed_refused_and_failed_calls_without_inputs() {
    let records: Arc<Mutex<Vec<AuditRecord>>> = Arc::default();
    let sink = Arc::clone(&records);
    let dispatcher = Dispatcher::builder()
        .layer(AuditLog::to(move |record| {
            sink.lock().unwrap().push(record.clone())
        }))
        .layer(RequireScopes::new(ScopeRules::new().tool("note_read", "notes")).allow_anonymous())
        .build();
    let reader = || CallOptions::new().principal(Principal::new("alice").with_scopes(["notes"]));
    let outsider = CallOptions::new().principal(Principal::new("eve"));
    dispatcher.invoke("note_keep", json!({"text": "hunter2"}), reader());
    dispatcher.invoke("note_read", json!({"id": 0}), reader());
    dispatcher.invoke("note_read", json!({"id": 1}), outsider);
    dispatcher.invoke("note_read", json!({"id": -1}), reader());

    let records = records.lock().unwrap();
    let lines: Vec<Value> = records
        .iter()
        .map(|record| serde_json::to_value(record).unwrap())
        .collect();
    let brief: Vec<(Value, Value, Value, Value)> = lines
        .iter()
        .map(|line| {
            (
                line["principal"].clone(),
                line["tool"].clone(),
                line["outcome"].clone(),
                line["ran"].clone(),
            )
        })
        .collect();
    assert_eq!(
        brief,
        [
            (json!("alice"), json!("note_keep"), json!("ok"), json!(true)),
            (
                json!("alice"),
                json!("note_read"),
                json!("runtime"),
                json!(true)
            ),
            (
                json!("eve"),
                json!("note_read"),
                json!("disabled"),
                json!(false)
            ),
            (
                json!("alice"),
                json!("note_read"),
                json!("validation"),
                json!(false)
            ),
        ]
    );
    assert_eq!(
        lines[0]["input_bytes"],
        json!(r#"{"text":"hunter2"}"#.len())
    );
    assert!(lines[0]["duration"].as_f64().unwrap() >= 0.0);
    for line in &lines {
        assert!(line.get("input").is_none(), "inputs are redacted: {line}");
        assert!(!line.to_string().contains("hunter2"));
    }
}

#[test]
fn the_audit_log_keeps_inputs_when_told() {
    let records: Arc<Mutex<Vec<AuditRecord>>> = Arc::default();
    let sink = Arc::clone(&records);
    let dispatcher = Dispatcher::builder()
        .layer(AuditLog::to(move |record| sink.lock().unwrap().push(record.clone())).with_inputs())
        .build();
    dispatcher
        .invoke("note_read", json!({"id": 4}), buril::CallOptions::default())
        .into_envelope();
    assert_eq!(records.lock().unwrap()[0].input, Some(json!({"id": 4})));
}

#[test]
fn scopes_hide_and_refuse_the_tools_a_principal_may_not_use() {
    let rules = ScopeRules::new()
        .every("mcp")
        .family("note", "notes:read")
        .tool("note_whoami", "whoami")
        .dangerous("admin");
    let dispatcher = Dispatcher::builder()
        .policy(buril::Policy::default().allow_dangerous(true))
        .layer(RequireScopes::new(rules.clone()))
        .build();
    let registry = dispatcher.registry();
    let read = &*registry.get("note_read").unwrap();
    let delete = &*registry.get("note_delete").unwrap();
    let whoami = &*registry.get("note_whoami").unwrap();
    assert_eq!(rules.required(read), ["mcp", "notes:read"]);
    assert_eq!(rules.required(delete), ["mcp", "notes:read", "admin"]);
    assert_eq!(rules.required(whoami), ["mcp", "whoami"]);
    assert_eq!(
        rules.all().into_iter().collect::<Vec<_>>(),
        ["admin", "mcp", "notes:read", "whoami"]
    );

    let reader = Principal::new("alice").with_scopes(["mcp", "notes:read"]);
    assert!(rules.allows(read, &reader));
    assert!(!rules.allows(delete, &reader));
    assert_eq!(rules.missing(delete, &reader), ["admin"]);
    assert!(dispatcher.visible_to(read, Some(&reader)));
    assert!(!dispatcher.visible_to(delete, Some(&reader)));
    assert!(!dispatcher.visible_to(whoami, Some(&reader)));
    assert!(!dispatcher.visible_to(read, None), "no principal, no tools");

    let as_reader = || CallOptions::new().principal(reader.clone());
    let outcome = dispatcher.invoke("note_read", json!({"id": 1}), as_reader());
    assert!(outcome.is_ok());
    let outcome = dispatcher.invoke("note_delete", json!({"id": 1}), as_reader());
    assert_eq!(outcome.error_kind(), Some(ErrorKind::Disabled));
    assert_eq!(
        outcome.error().unwrap().message(),
        "the tool `note_delete` needs the scope `admin`, which `alice` was not granted"
    );
    let outcome = dispatcher.invoke("note_read", json!({"id": 1}), buril::CallOptions::default());
    assert_eq!(outcome.error_kind(), Some(ErrorKind::Disabled));

    let admin = Principal::new("root").with_scopes(["mcp", "notes:read", "admin"]);
    let outcome = dispatcher.invoke(
        "note_delete",
        json!({"id": 5}),
        CallOptions::new().principal(admin),
    );
    assert_eq!(outcome.data(), Some(&json!({"result": 5})));
}

#[test]
fn a_rate_limit_per_principal_holds_under_eight_threads() {
    // 20 calls per minute each: the burst is 20, and no more come back within the test.
    let dispatcher = Dispatcher::builder()
        .layer(RateLimit::per_principal(20, Duration::from_secs(60)))
        .build();
    let allowed: Arc<Mutex<Vec<String>>> = Arc::default();
    let limited = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|thread| {
            let dispatcher = dispatcher.clone();
            let allowed = Arc::clone(&allowed);
            let limited = Arc::clone(&limited);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                // Two principals, four threads each, 10 calls a thread: 40 calls each.
                let who = if thread % 2 == 0 { "alice" } else { "bob" };
                start.wait();
                for _ in 0..10 {
                    let options = CallOptions::new().principal(Principal::new(who));
                    let outcome = dispatcher.invoke("note_read", json!({"id": 1}), options);
                    match outcome.error_kind() {
                        None => allowed.lock().unwrap().push(who.to_owned()),
                        Some(ErrorKind::Limited) => {
                            let message = outcome.error().unwrap().message();
                            assert!(
                                message.contains("rate limit of 20 calls per 60 s"),
                                "{message}"
                            );
                            assert!(message.contains(&format!("for `{who}`")), "{message}");
                            limited.fetch_add(1, Ordering::SeqCst);
                        }
                        Some(other) => panic!("unexpected {other}"),
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let allowed = allowed.lock().unwrap();
    assert_eq!(allowed.iter().filter(|who| *who == "alice").count(), 20);
    assert_eq!(allowed.iter().filter(|who| *who == "bob").count(), 20);
    assert_eq!(limited.load(Ordering::SeqCst), 40);
}

#[test]
fn a_rate_limit_per_tool_counts_only_its_tools_and_refills() {
    let dispatcher = Dispatcher::builder()
        .layer(RateLimit::per_tool(2, Duration::from_millis(200)).only("note_read"))
        .build();
    assert!(
        dispatcher
            .invoke("note_read", json!({"id": 1}), buril::CallOptions::default())
            .is_ok()
    );
    assert!(
        dispatcher
            .invoke("note_read", json!({"id": 1}), buril::CallOptions::default())
            .is_ok()
    );
    let third = dispatcher.invoke("note_read", json!({"id": 1}), buril::CallOptions::default());
    assert_eq!(third.error_kind(), Some(ErrorKind::Limited));
    let message = third.error().unwrap().message();
    // Room for one more within one interval (100 ms).
    let wait: u64 = message
        .split_once("try again in ")
        .and_then(|(_, rest)| rest.strip_suffix(" ms"))
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("{message}"));
    assert!((1..=100).contains(&wait), "{message}");
    // Other tools are not counted.
    for _ in 0..5 {
        assert!(
            dispatcher
                .invoke("note_whoami", json!({}), buril::CallOptions::default())
                .is_ok()
        );
    }
    // Then there is room for one more (a refused call takes none).
    wait_until("room for one more call of `note_read`", || {
        dispatcher
            .invoke("note_read", json!({"id": 1}), buril::CallOptions::default())
            .is_ok()
    });
}

#[test]
fn a_concurrency_limit_holds_under_eight_threads_and_frees_its_places() {
    let dispatcher = Dispatcher::builder()
        .layer(ConcurrencyLimit::tools().tool("slow_wait", 3))
        .worker_threads(8)
        .build();
    let ran = Arc::new(AtomicUsize::new(0));
    let limited = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let dispatcher = dispatcher.clone();
            let (ran, limited, start) =
                (Arc::clone(&ran), Arc::clone(&limited), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                for _ in 0..5 {
                    let outcome = dispatcher.invoke(
                        "slow_wait",
                        json!({"ms": 30}),
                        buril::CallOptions::default(),
                    );
                    match outcome.error_kind() {
                        None => ran.fetch_add(1, Ordering::SeqCst),
                        Some(ErrorKind::Limited) => limited.fetch_add(1, Ordering::SeqCst),
                        Some(other) => panic!("unexpected {other}"),
                    };
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert!(MOST.load(Ordering::SeqCst) <= 3, "at most 3 ran at once");
    assert_eq!(
        ran.load(Ordering::SeqCst) + limited.load(Ordering::SeqCst),
        40
    );
    assert!(
        limited.load(Ordering::SeqCst) > 0,
        "8 threads on 3 places: some were refused"
    );
    // Every place was given back.
    for _ in 0..3 {
        assert!(
            dispatcher
                .invoke("slow_wait", json!({"ms": 1}), buril::CallOptions::default())
                .is_ok()
        );
    }
}

#[test]
fn a_concurrency_place_is_held_while_a_timed_out_tool_goes_on() {
    let dispatcher = Dispatcher::builder()
        .layer(ConcurrencyLimit::tools().tool("slow_hold", 1))
        .build();
    let held = json!({"tag": "middleware held"});
    let first = dispatcher.invoke(
        "slow_hold",
        held.clone(),
        CallOptions::new().timeout(Duration::from_millis(20)),
    );
    assert_eq!(first.error_kind(), Some(ErrorKind::Timeout));
    // The tool is still held: its place is still taken.
    let second = dispatcher.invoke("slow_hold", held.clone(), buril::CallOptions::default());
    assert_eq!(second.error_kind(), Some(ErrorKind::Limited));
    gates::answered_while_held("middleware held");
    // Once it ended, its place is given back (the gate stays open for the next call).
    wait_until("the timed-out call's place given back", || {
        dispatcher
            .invoke("slow_hold", held.clone(), buril::CallOptions::default())
            .is_ok()
    });
}

#[test]
fn a_layer_added_at_run_time_applies_to_later_calls() {
    let dispatcher = Dispatcher::new();
    assert!(
        dispatcher
            .invoke("note_read", json!({"id": 1}), buril::CallOptions::default())
            .is_ok()
    );
    dispatcher.add_layer(RequireScopes::new(ScopeRules::new().every("x")));
    let outcome = dispatcher.invoke("note_read", json!({"id": 1}), buril::CallOptions::default());
    assert_eq!(outcome.error_kind(), Some(ErrorKind::Disabled));
}
