//! The fixture tools of the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! as ordinary `#[buril::tool]` functions, served by buril's CLI:
//!
//! ```sh
//! cargo run -q -p buril-conformance-server -- serve --http 127.0.0.1:8080
//! ```
//!
//! The suite calls tools by fixed names and checks what they answer; each tool below says which
//! scenario calls it. `tests/suite.rs` runs the suite against this server and against the
//! example tools' `tools serve --http`. The scenarios this server cannot pass yet are in the
//! baseline, `interop/conformance/conformance-server.yml`, with the reason.
//!
//! The tools that ask the client for input (elicitation, sampling, roots) are written once: the
//! server asks mid-call under 2025-11-25 and with `input_required` results under 2026-07-28.

mod tasks;

use buril::content::{Audio, Content, Image, Resource};
use buril::context::{Elicited, InputKind, InputRequest, LogLevel, Root, Sampled, Sampling};
use buril::{Context, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A 1x1 red pixel, as a PNG file.
const RED_PIXEL_PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A tenth of a second of a 440 Hz tone, 8 kHz mono 8-bit, as a WAV file.
fn tone_wav() -> Vec<u8> {
    const RATE: u32 = 8_000;
    let samples: Vec<u8> = (0..RATE / 10)
        .map(|i| {
            let t = f64::from(i) / f64::from(RATE);
            (128.0 + 100.0 * (2.0 * std::f64::consts::PI * 440.0 * t).sin()) as u8
        })
        .collect();
    let data_len = samples.len() as u32;
    let mut wav = Vec::with_capacity(44 + samples.len());
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // the fmt chunk's size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // one channel
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&RATE.to_le_bytes()); // bytes per second
    wav.extend_from_slice(&1u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

/// Returns a short text: what `tools-call-simple-text` reads back.
#[buril::tool(read_only, idempotent, off_thread)]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails, with a message: what `tools-call-error` expects (`isError` with text).
#[buril::tool(read_only, idempotent, off_thread)]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Reports progress three times (0, 50 and 100 of 100), 60 ms apart (the server sends at most
/// one progress notification per 50 ms of a call, the newest), then answers: what
/// `tools-call-with-progress` counts.
#[buril::tool(read_only, idempotent, off_thread)]
fn test_tool_with_progress(ctx: &Context) -> String {
    for step in [0.0, 50.0, 100.0] {
        ctx.report_progress(step, Some(100.0), Some(&format!("{step} of 100")));
        std::thread::sleep(std::time::Duration::from_millis(60));
    }
    "Progress test completed".to_owned()
}

/// Logs three messages at `info`, 50 ms apart, then answers: what `tools-call-with-logging`
/// counts (after `logging/setLevel`).
#[buril::tool(read_only, idempotent, off_thread)]
fn test_tool_with_logging(ctx: &Context) -> String {
    ctx.log(LogLevel::Info, "Tool execution started");
    std::thread::sleep(std::time::Duration::from_millis(50));
    ctx.log(LogLevel::Info, "Tool processing data");
    std::thread::sleep(std::time::Duration::from_millis(50));
    ctx.log(LogLevel::Info, "Tool execution completed");
    "Logging test completed".to_owned()
}

/// Returns a 1x1 red pixel as a PNG image: what `tools-call-image` reads back.
#[buril::tool(read_only, idempotent, off_thread)]
fn test_image_content() -> Image {
    Image::png(RED_PIXEL_PNG)
}

/// Returns a tenth of a second of a tone as WAV audio: what `tools-call-audio` reads back.
#[buril::tool(read_only, idempotent, off_thread)]
fn test_audio_content() -> Audio {
    Audio::wav(tone_wav())
}

/// Returns a text resource embedded in the result: what `tools-call-embedded-resource` reads
/// back.
#[buril::tool(read_only, idempotent, off_thread)]
fn test_embedded_resource() -> Resource {
    Resource::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Returns text, an image and an embedded JSON resource together: what
/// `tools-call-mixed-content` reads back.
#[buril::tool(read_only, idempotent, off_thread)]
fn test_multiple_content_types() -> Vec<Content> {
    vec![
        "Multiple content types test:".into(),
        Image::png(RED_PIXEL_PNG).into(),
        Resource::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )
        .into(),
    ]
}

/// Greets someone: the synchronous tool the tasks scenarios call beside their task tools. Its
/// name is the suite's, one segment where buril's naming rule wants a family and a verb.
#[buril::tool(
    read_only,
    idempotent,
    off_thread,
    fixed_name = "the MCP conformance suite calls it `greet`"
)]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Asks the client's model to answer `prompt`, and returns what it said: what
/// `tools-call-sampling` checks.
#[buril::tool(read_only, off_thread)]
fn test_sampling(
    /// What to ask the model.
    prompt: String,
    ctx: &Context,
) -> Result<String, ToolError> {
    let answer = ctx.sample(Sampling::prompt(prompt).max_tokens(100))?;
    Ok(format!("LLM response: {}", answer.text))
}

/// Asks the user for a user name and an email address, and returns what they did: what
/// `tools-call-elicitation` checks.
#[buril::tool(read_only, off_thread)]
fn test_elicitation(
    /// What to tell the user.
    message: String,
    ctx: &Context,
) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    let answer = ctx.ask(InputRequest::elicit_schema(message, schema))?;
    Ok(format!(
        "User response: action: {}, content: {}",
        answer["action"].as_str().unwrap_or("none"),
        answer.get("content").unwrap_or(&Value::Null)
    ))
}

/// A status of the SEP-1034 form (`Serialize`, so that schemars can write its default).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema)]
#[allow(dead_code)] // read through `Debug`
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// The form of `elicitation-sep1034-defaults`: one field of each primitive type, each with a
/// default (taken from serde's `default`).
#[derive(Debug, Deserialize, JsonSchema)]
struct Defaults {
    /// A name.
    #[serde(default = "default_name")]
    name: String,
    /// An age.
    #[serde(default = "default_age")]
    age: u32,
    /// A score.
    #[serde(default = "default_score")]
    score: f64,
    /// A status.
    #[serde(default = "default_status")]
    status: Status,
    /// Whether verified.
    #[serde(default = "default_verified")]
    verified: bool,
}

fn default_name() -> String {
    "John Doe".to_owned()
}
fn default_age() -> u32 {
    30
}
fn default_score() -> f64 {
    95.5
}
fn default_status() -> Status {
    Status::Active
}
fn default_verified() -> bool {
    true
}

/// Asks for a form whose every field has a default, from a Rust type: what
/// `elicitation-sep1034-defaults` checks.
#[buril::tool(read_only, off_thread)]
fn test_elicitation_sep1034_defaults(ctx: &Context) -> Result<String, ToolError> {
    let answer = match ctx.elicit::<Defaults>("Please review your profile")? {
        Elicited::Accepted(form) => format!(
            "accept, content={}",
            json!({
                "name": form.name,
                "age": form.age,
                "score": form.score,
                "status": format!("{:?}", form.status).to_lowercase(),
                "verified": form.verified,
            })
        ),
        Elicited::Declined => "decline, content={}".to_owned(),
        Elicited::Cancelled => "cancel, content={}".to_owned(),
    };
    Ok(format!("Elicitation completed: action={answer}"))
}

/// Asks for a form with the five kinds of enum field SEP-1330 defines: what
/// `elicitation-sep1330-enums` checks.
#[buril::tool(read_only, off_thread)]
fn test_elicitation_sep1330_enums(ctx: &Context) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}
            ]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}
            ]}}
        }
    });
    let answer = ctx.ask(InputRequest::elicit_schema("Pick some options", schema))?;
    Ok(format!(
        "Elicitation completed: action={}, content={}",
        answer["action"].as_str().unwrap_or("none"),
        answer.get("content").unwrap_or(&Value::Null)
    ))
}

/// A form asking for one string field, `field`.
fn one_field(message: &str, field: &str, kind: &str) -> InputRequest {
    InputRequest::elicit_schema(
        message,
        json!({
            "type": "object",
            "properties": {field: {"type": kind}},
            "required": [field]
        }),
    )
}

/// The accepted content's `field` as text.
fn field_of(answer: &Value, field: &str) -> String {
    match &answer["content"][field] {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Asks the user's name (key `user_name`) and greets them: `input-required-result-basic-elicitation`
/// and the scenarios that reuse it.
#[buril::tool(read_only, off_thread)]
fn test_input_required_result_elicitation(ctx: &Context) -> Result<String, ToolError> {
    let answer = ctx.ask_as(
        "user_name",
        one_field("What is your name?", "name", "string"),
    )?;
    Ok(format!("Hello, {}!", field_of(&answer, "name")))
}

/// Asks the client's model for the capital of France (key `capital_question`):
/// `input-required-result-basic-sampling`.
#[buril::tool(read_only, off_thread)]
fn test_input_required_result_sampling(ctx: &Context) -> Result<String, ToolError> {
    let request = InputRequest::sample(Sampling::prompt("What is the capital of France?"));
    let answer = Sampled::from_answer(&ctx.ask_as("capital_question", request)?)?;
    Ok(format!("The model says: {}", answer.text))
}

/// Asks the client's roots (key `client_roots`) and lists them:
/// `input-required-result-basic-list-roots`.
#[buril::tool(read_only, off_thread)]
fn test_input_required_result_list_roots(ctx: &Context) -> Result<String, ToolError> {
    let roots = Root::from_answer(&ctx.ask_as("client_roots", InputRequest::list_roots())?)?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("The client's roots: {}", uris.join(", ")))
}

/// Asks for a confirmation (key `confirm`); its answer comes back with the sealed request
/// state, which the server checked: `input-required-result-request-state`.
#[buril::tool(read_only, off_thread)]
fn test_input_required_result_request_state(ctx: &Context) -> Result<String, ToolError> {
    let answer = ctx.ask_as("confirm", one_field("Please confirm", "ok", "boolean"))?;
    Ok(format!("state-ok: confirmed {}", field_of(&answer, "ok")))
}

/// Asks three things in one round (a name, a greeting from the model, the roots):
/// `input-required-result-multiple-input-requests`.
#[buril::tool(read_only, off_thread)]
fn test_input_required_result_multiple_inputs(ctx: &Context) -> Result<String, ToolError> {
    let answers = ctx.ask_all([
        (
            "user_name",
            one_field("What is your name?", "name", "string"),
        ),
        (
            "greeting",
            InputRequest::sample(Sampling::prompt("Generate a greeting").max_tokens(50)),
        ),
        ("client_roots", InputRequest::list_roots()),
    ])?;
    let greeting = Sampled::from_answer(&answers[1])?;
    let roots = Root::from_answer(&answers[2])?;
    Ok(format!(
        "{} {} ({} roots)",
        greeting.text,
        field_of(&answers[0], "name"),
        roots.len()
    ))
}

/// Asks a name, then (a round later) a colour: `input-required-result-multi-round`.
#[buril::tool(read_only, off_thread)]
fn test_input_required_result_multi_round(ctx: &Context) -> Result<String, ToolError> {
    let name = ctx.ask_as(
        "step1",
        one_field("Step 1: What is your name?", "name", "string"),
    )?;
    let colour = ctx.ask_as(
        "step2",
        one_field("Step 2: What is your favorite color?", "color", "string"),
    )?;
    Ok(format!(
        "{} likes {}",
        field_of(&name, "name"),
        field_of(&colour, "color")
    ))
}

/// Asks for a confirmation; a tampered request state is refused by the server before the tool
/// runs again: `input-required-result-tampered-state`.
#[buril::tool(read_only, off_thread)]
fn test_input_required_result_tampered_state(ctx: &Context) -> Result<String, ToolError> {
    let answer = ctx.ask_as("confirm", one_field("Please confirm", "ok", "boolean"))?;
    Ok(format!("confirmed {}", field_of(&answer, "ok")))
}

/// Asks only what the client declared it can answer (a greeting from its model, a name from
/// the user): `input-required-result-capability-check`.
#[buril::tool(read_only, off_thread)]
fn test_input_required_result_capabilities(ctx: &Context) -> Result<String, ToolError> {
    let mut requests = Vec::new();
    if ctx.can_ask(InputKind::Sampling) {
        requests.push((
            "greeting",
            InputRequest::sample(Sampling::prompt("Generate a greeting")),
        ));
    }
    if ctx.can_ask(InputKind::Elicitation) {
        requests.push((
            "user_name",
            one_field("What is your name?", "name", "string"),
        ));
    }
    let answers = ctx.ask_all(requests)?;
    Ok(format!("{} answers", answers.len()))
}

/// Asks the client's model something, which a client that did not declare sampling cannot
/// answer: what `server-stateless` probes for the `-32021` error.
#[buril::tool(read_only, off_thread)]
fn test_missing_capability(ctx: &Context) -> Result<String, ToolError> {
    let answer = ctx.sample(Sampling::prompt("Say something."))?;
    Ok(answer.text)
}

/// Asks the user a question: under 2026-07-28 the answer stream holds the `input_required`
/// result and never a request of the server's own, which `server-stateless` checks.
#[buril::tool(read_only, off_thread)]
fn test_streaming_elicitation(ctx: &Context) -> Result<String, ToolError> {
    let answer = ctx.ask_as("question", one_field("Anything to add?", "text", "string"))?;
    Ok(field_of(&answer, "text"))
}

/// Logs a message: a client that set no log level gets none, which `server-stateless` checks.
#[buril::tool(read_only, off_thread)]
fn test_logging_tool(ctx: &Context) -> String {
    ctx.log(LogLevel::Info, "a message nobody asked for");
    "logged".to_owned()
}

/// A postal address (the `$defs` entry `address` of [`Registration`]'s schema).
#[derive(Debug, Deserialize)]
struct Address {
    street: Option<String>,
    city: Option<String>,
}

/// The input of `json_schema_2020_12_tool`, whose schema says its dialect (`$schema`) and keeps
/// its definitions under the names the suite looks for.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Registration {
    name: Option<String>,
    address: Option<Address>,
}

impl JsonSchema for Registration {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Registration".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"}
                    }
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"}
            },
            "additionalProperties": false
        })
    }
}

/// Takes a name and an address with a schema in JSON Schema 2020-12 that says so (`$schema`),
/// with `$defs` and `additionalProperties`: what `json-schema-2020-12` lists.
#[buril::tool(read_only, idempotent, off_thread)]
fn json_schema_2020_12_tool(buril::Input(registration): buril::Input<Registration>) -> String {
    let address = registration.address.as_ref();
    format!(
        "{} at {}, {}",
        registration.name.as_deref().unwrap_or("nobody"),
        address.and_then(|a| a.street.as_deref()).unwrap_or("?"),
        address.and_then(|a| a.city.as_deref()).unwrap_or("?")
    )
}

/// Greets someone in a region, the region sent as the header `Mcp-Param-Region` too, which
/// the server checks against the body: what `http-custom-header-server-validation` probes.
#[buril::tool(read_only, idempotent, off_thread, headers(region = "Region"))]
fn test_header_region(
    /// Where the greeting goes.
    region: String,
) -> String {
    format!("Hello, {region}!")
}

fn main() -> std::process::ExitCode {
    buril::cli::main()
}
