//! Traces and metrics exported over OTLP (feature `otel`), configured as every OpenTelemetry SDK
//! is: by the standard environment variables.
//!
//! - `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL: `/v1/traces` and `/v1/metrics` are appended), or
//!   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (used as
//!   they are): where to send. Without any, nothing is exported.
//! - `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` (the default) or `http/json`; `grpc` is
//!   not built in.
//! - `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_SERVICE_NAME`,
//!   `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_METRIC_EXPORT_INTERVAL`; `OTEL_SDK_DISABLED=true` turns
//!   it all off.
//!
//! What is exported: the spans of `tracing` (the server's `tools/call {tool}` spans, the agent
//! team's `invoke_agent`, `chat` and `execute_tool`), each `tools/call` span the child of the
//! `traceparent`/`tracestate` its client sent in `params._meta`; and the metrics
//! `mcp.server.operation.duration` (a histogram, in seconds, by `mcp.method.name`,
//! `gen_ai.tool.name` and `error.type`) and `buril.tool.calls` (a counter by tool and
//! `error.type`). The CLI sets this up by itself (`tools serve` with the variables set); a host
//! with its own subscriber adds [`Telemetry::layer`] to it.
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt;
//!
//! let telemetry = buril::telemetry::Telemetry::from_env().expect("valid OTEL_* settings");
//! if let Some(telemetry) = &telemetry {
//!     let subscriber = tracing_subscriber::registry().with(telemetry.layer());
//!     tracing::subscriber::set_global_default(subscriber).unwrap();
//! }
//! // ... serve; dropping `telemetry` flushes what is left.
//! ```

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider as _};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithHttpConfig;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::{Map, Value};

/// Exports while it lives; dropping it flushes and stops the exporters.
pub struct Telemetry {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("traces", &self.tracer.is_some())
            .field("metrics", &self.meter.is_some())
            .finish()
    }
}

/// Whether metrics are recorded (a meter provider was installed).
static METRICS: AtomicBool = AtomicBool::new(false);

/// The instruments, made once a meter provider is installed.
struct Instruments {
    duration: Histogram<f64>,
    calls: Counter<u64>,
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

fn set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|value| !value.is_empty())
}

impl Telemetry {
    /// Exporters as the `OTEL_*` variables configure them; `None` when no endpoint is set or
    /// `OTEL_SDK_DISABLED` is `true`.
    pub fn from_env() -> Result<Option<Telemetry>, String> {
        if std::env::var("OTEL_SDK_DISABLED").is_ok_and(|value| value.eq_ignore_ascii_case("true"))
        {
            return Ok(None);
        }
        let base = set("OTEL_EXPORTER_OTLP_ENDPOINT");
        let traces = base || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        let metrics = base || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
        if !traces && !metrics {
            return Ok(None);
        }
        if let Ok(protocol) = std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL")
            && protocol == "grpc"
        {
            return Err(
                "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not built in: use http/protobuf or \
                 http/json (a collector's port 4318)"
                    .to_owned(),
            );
        }
        let resource = resource();
        let tracer = if traces {
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_http_client(Blocking::new())
                .build()
                .map_err(|error| format!("the OTLP trace exporter cannot be built: {error}"))?;
            Some(
                SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(resource.clone())
                    .build(),
            )
        } else {
            None
        };
        let meter = if metrics {
            let exporter = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_http_client(Blocking::new())
                .build()
                .map_err(|error| format!("the OTLP metric exporter cannot be built: {error}"))?;
            let provider = SdkMeterProvider::builder()
                .with_periodic_exporter(exporter)
                .with_resource(resource)
                .build();
            let meter = provider.meter("buril");
            let _ = INSTRUMENTS.set(Instruments {
                duration: meter
                    .f64_histogram("mcp.server.operation.duration")
                    .with_unit("s")
                    .with_description("The duration of MCP requests the server answered")
                    .with_boundaries(vec![
                        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0,
                        300.0,
                    ])
                    .build(),
                calls: meter
                    .u64_counter("buril.tool.calls")
                    .with_unit("{call}")
                    .with_description("Tool calls, by tool and error type")
                    .build(),
            });
            METRICS.store(true, Ordering::Release);
            Some(provider)
        } else {
            None
        };
        Ok(Some(Telemetry { tracer, meter }))
    }

    /// The `tracing` layer that exports spans (a layer that does nothing when traces are not
    /// exported).
    pub fn layer<S>(&self) -> Option<impl tracing_subscriber::Layer<S> + use<S>>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        let tracer = self.tracer.as_ref()?.tracer("buril");
        Some(tracing_opentelemetry::layer().with_tracer(tracer))
    }

    /// Sends what is buffered now.
    pub fn flush(&self) {
        if let Some(tracer) = &self.tracer {
            let _ = tracer.force_flush();
        }
        if let Some(meter) = &self.meter {
            let _ = meter.force_flush();
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(tracer) = self.tracer.take() {
            let _ = tracer.shutdown_with_timeout(Duration::from_secs(5));
        }
        if let Some(meter) = self.meter.take() {
            METRICS.store(false, Ordering::Release);
            let _ = meter.shutdown();
        }
    }
}

/// The resource: the `OTEL_*` variables', with the executable's name as the service's when
/// `OTEL_SERVICE_NAME` does not give one.
fn resource() -> opentelemetry_sdk::Resource {
    let builder = opentelemetry_sdk::Resource::builder();
    let named = set("OTEL_SERVICE_NAME")
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|a| a.contains("service.name="));
    if named {
        return builder.build();
    }
    let name = std::env::current_exe()
        .ok()
        .and_then(|path| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "buril".to_owned());
    builder.with_service_name(name).build()
}

/// Whether metrics are recorded now.
#[doc(hidden)]
pub fn recording() -> bool {
    METRICS.load(Ordering::Acquire)
}

/// Records one MCP request's duration and, for a `tools/call`, the call.
#[doc(hidden)]
pub fn record_operation(
    method: &'static str,
    tool: Option<&str>,
    error: Option<&str>,
    seconds: f64,
) {
    if !METRICS.load(Ordering::Acquire) {
        return;
    }
    let Some(instruments) = INSTRUMENTS.get() else {
        return;
    };
    let mut attributes = vec![KeyValue::new("mcp.method.name", method)];
    if let Some(tool) = tool {
        attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
    }
    if let Some(error) = error {
        attributes.push(KeyValue::new("error.type", error.to_owned()));
    }
    instruments.duration.record(seconds, &attributes);
    if tool.is_some() {
        instruments.calls.add(1, &attributes[1..]);
    }
}

/// Makes the span a child of the trace context a client sent in `_meta` (`traceparent`,
/// `tracestate`), when it sent one.
#[doc(hidden)]
pub fn set_parent(span: &tracing::Span, meta: &Map<String, Value>) {
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    if !meta.contains_key("traceparent") {
        return;
    }
    let context = TraceContextPropagator::new().extract(&MetaExtractor(meta));
    let _ = span.set_parent(context);
}

struct MetaExtractor<'a>(&'a Map<String, Value>);

impl Extractor for MetaExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// The exporters' HTTP client: ureq, blocking, on the SDK's own export threads (which is what
/// its batch processor and periodic reader call exporters from).
#[derive(Debug)]
struct Blocking {
    agent: ureq::Agent,
}

impl Blocking {
    fn new() -> Self {
        Blocking {
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(10)))
                .build()
                .into(),
        }
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for Blocking {
    async fn send_bytes(
        &self,
        request: opentelemetry_http::Request<opentelemetry_http::Bytes>,
    ) -> Result<
        opentelemetry_http::Response<opentelemetry_http::Bytes>,
        opentelemetry_http::HttpError,
    > {
        let (parts, body) = request.into_parts();
        let request = ureq::http::Request::from_parts(parts, body.to_vec());
        let mut response = self.agent.run(request)?;
        let status = response.status();
        let bytes = response
            .body_mut()
            .with_config()
            .limit(4 << 20)
            .read_to_vec()?;
        let mut answer = opentelemetry_http::Response::new(opentelemetry_http::Bytes::from(bytes));
        *answer.status_mut() = status;
        Ok(answer)
    }
}
