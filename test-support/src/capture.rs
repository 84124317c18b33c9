//! The `tracing` spans and events code under test emits, kept for the test to read.
//!
//! Spans and events of other threads (a server's runtime, the blocking pool) reach only a
//! global subscriber: [`Captured::global`] installs one for the test binary, once; a binary
//! with such tests must not install another.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use tracing_subscriber::filter::Targets;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

/// A span or event seen: its name (an event's is its message), target and fields.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    pub name: String,
    pub target: String,
    /// The span's parent, if any (events: the span they happened in).
    pub parent: Option<u64>,
    pub fields: BTreeMap<String, String>,
}

/// What a capture has seen.
#[derive(Debug, Default)]
pub struct Captured {
    /// Spans in the order they were made, with their ids (which the registry gives again once
    /// a span closed), their fields as recorded so far.
    pub spans: Mutex<Vec<(u64, Seen)>>,
    pub events: Mutex<Vec<Seen>>,
}

impl Captured {
    /// The capture installed as the process's global subscriber, of every span and event (the
    /// first call installs it).
    pub fn global() -> &'static Arc<Captured> {
        Captured::global_of(None)
    }

    /// [`Captured::global`], of what `targets` lets through (given by the first call).
    pub fn global_of(targets: Option<Targets>) -> &'static Arc<Captured> {
        static GLOBAL: OnceLock<Arc<Captured>> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            let captured = Arc::new(Captured::default());
            let layer = Capture(Arc::clone(&captured));
            let installed = match targets {
                Some(targets) => tracing::subscriber::set_global_default(
                    tracing_subscriber::registry().with(layer.with_filter(targets)),
                ),
                None => tracing::subscriber::set_global_default(
                    tracing_subscriber::registry().with(layer),
                ),
            };
            installed.expect("no other global subscriber in this test binary");
            captured
        })
    }

    /// The spans named `name` whose fields include every `(key, value)` of `with`, in the
    /// order they were made, with their ids.
    pub fn spans_named(&self, name: &str, with: &[(&str, &str)]) -> Vec<(u64, Seen)> {
        let spans = self.spans.lock().unwrap();
        spans
            .iter()
            .filter(|(_, seen)| seen.name == name && has_all(seen, with))
            .cloned()
            .collect()
    }

    /// The one span named `name` with the fields `with`; panics listing what was seen when
    /// there is none or several.
    pub fn span(&self, name: &str, with: &[(&str, &str)]) -> Seen {
        let found = self.spans_named(name, with);
        match found.as_slice() {
            [(_, one)] => one.clone(),
            _ => panic!(
                "{} spans {name} with {with:?}; seen: {:?}",
                found.len(),
                self.spans.lock().unwrap()
            ),
        }
    }

    /// The events of `target` so far.
    pub fn events_of(&self, target: &str) -> Vec<Seen> {
        let events = self.events.lock().unwrap();
        events
            .iter()
            .filter(|seen| seen.target == target)
            .cloned()
            .collect()
    }
}

fn has_all(seen: &Seen, with: &[(&str, &str)]) -> bool {
    with.iter()
        .all(|(key, value)| seen.fields.get(*key).map(String::as_str) == Some(*value))
}

/// The layer that fills a [`Captured`].
pub struct Capture(pub Arc<Captured>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S> Layer<S> for Capture
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut seen = Seen {
            name: attrs.metadata().name().to_owned(),
            target: attrs.metadata().target().to_owned(),
            parent: ctx
                .span(id)
                .and_then(|span| span.parent())
                .map(|parent| parent.id().into_u64()),
            fields: BTreeMap::new(),
        };
        attrs.record(&mut Fields(&mut seen.fields));
        self.0.spans.lock().unwrap().push((id.into_u64(), seen));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut spans = self.0.spans.lock().unwrap();
        // The latest span of that id: an earlier one closed before the id was given again.
        if let Some((_, seen)) = spans
            .iter_mut()
            .rev()
            .find(|(seen, _)| *seen == id.into_u64())
        {
            values.record(&mut Fields(&mut seen.fields));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        let mut seen = Seen {
            name: String::new(),
            target: event.metadata().target().to_owned(),
            parent: ctx.current_span().id().map(Id::into_u64),
            fields: BTreeMap::new(),
        };
        event.record(&mut Fields(&mut seen.fields));
        seen.name = seen.fields.get("message").cloned().unwrap_or_default();
        self.0.events.lock().unwrap().push(seen);
    }
}
