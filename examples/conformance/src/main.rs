//! The fixture tools of the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! as ordinary `#[buril::tool]` functions, served by buril's CLI:
//!
//! ```sh
//! cargo run -q -p buril-conformance-server -- serve --http 127.0.0.1:8080
//! ```
//!
//! The suite calls tools by fixed names and checks what they answer; each tool below says which
//! scenario calls it. `tests/suite.rs` runs the suite against this server and against the
//! example tools' `tools serve --http`. The fixtures that need what buril cannot do yet (asking
//! the client mid-call) are not here yet; their scenarios are in the baseline,
//! `interop/conformance/conformance-server.yml`.

use buril::{Audio, Content, Context, Image, LogLevel, Resource};

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

fn main() -> std::process::ExitCode {
    buril::cli::Cli::new()
        .extend(buril::server::extension())
        .run()
}
