//! `tools/call` frames with just a name, arguments and `_meta` (what the generated clients and
//! most SDKs send), parsed straight into rmcp's message type: the generic parser buffers every
//! message as untyped content first, which cost more than the rest of a call. Any other shape
//! takes the generic parser (stdio's `frame.rs`, HTTP's `http.rs`).
//!
//! The generated clients send the bindings' metadata hashes in every call's `_meta`
//! (`handshake.rs`). They are read apart from the rest, as text borrowed from the frame, and
//! when the bindings are this server's (the common case) they are dropped there: the call's
//! `_meta` then holds what else the client sent (a progress token), most often nothing (an
//! empty map allocates nothing). Bindings of other metadata keep both hashes in `_meta`, where the
//! handler reads them for its warning.
//!
//! A client sends the same `_meta` with every call (the bindings' hashes; a stateless client its
//! version, capabilities and itself), so each thread keeps the last one it read by its text
//! ([`LAST_META`]), with the client its lifecycle entries make: the next call's `_meta` is a
//! copy, and the fast path does not decode the client's capabilities again to decide whether it
//! takes the call.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, ClientCapabilities, ClientRequest, GetMeta,
    JsonObject, JsonRpcMessage, JsonRpcRequest, JsonRpcVersion2_0, MetaObject, ProtocolVersion,
    Request, RequestId, RequestMetaObject,
};
use rmcp::service::RxJsonRpcMessage;
use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::server::era::{Client, STATELESS_KEYS};
use crate::server::handshake::{METADATA_META, TOOL_METADATA_META};
use buril_core::Registry;

/// A `tools/call` request with a name, arguments and `_meta` and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FastCall<'a> {
    #[allow(dead_code)]
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[allow(dead_code)]
    method: CallToolRequestMethod,
    #[serde(borrow)]
    params: FastParams<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastParams<'a> {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    /// Where the generic parser puts it: the request's extensions, which become the handler's
    /// `context.meta` (the progress token, the bindings' metadata hashes).
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<CallMeta<'a>>,
}

/// A call's `_meta`: the bindings' two hashes, when they are strings, apart from the rest.
#[derive(Clone, Default)]
struct CallMeta<'a> {
    /// `buril/metadata`.
    metadata: Option<Cow<'a, str>>,
    /// `buril/tool-metadata`.
    tool_metadata: Option<Cow<'a, str>>,
    /// Every other entry, in order (and those two when they are not strings).
    rest: JsonObject,
    /// What the lifecycle entries of a stateless call say of its client: the client made of
    /// its version and capabilities, when both are there and decode.
    client: Option<Client>,
}

/// The longest `_meta` a thread keeps (see [`LAST_META`]), in bytes of JSON.
const KEPT_META: usize = 2048;

thread_local! {
    /// The last `_meta` this thread read, by its JSON text. A client sends the same `_meta`
    /// with every call (a stateless client its version, capabilities and itself; the generated
    /// clients the bindings' hashes), so the next call's is a copy, not a parse, and what its
    /// lifecycle entries say of the client (which decides whether a fast path takes the call)
    /// is not decoded again. The text is compared whole: any other `_meta` is read anew.
    static LAST_META: RefCell<Option<(Box<str>, CallMeta<'static>)>> = const { RefCell::new(None) };
}

impl CallMeta<'_> {
    /// The same `_meta`, owning its text.
    fn into_owned(self) -> CallMeta<'static> {
        CallMeta {
            metadata: self.metadata.map(|hash| Cow::Owned(hash.into_owned())),
            tool_metadata: self.tool_metadata.map(|hash| Cow::Owned(hash.into_owned())),
            rest: self.rest,
            client: self.client,
        }
    }

    /// The client the lifecycle entries among `rest` make (what `Route::of_frame` would read
    /// from them), when the version and the capabilities are there and decode.
    fn client_of(rest: &JsonObject) -> Option<Client> {
        let [version, capabilities, _] = STATELESS_KEYS;
        let version = ProtocolVersion::deserialize(rest.get(version)?).ok()?;
        let capabilities = ClientCapabilities::deserialize(rest.get(capabilities)?).ok()?;
        Some(Client::new(Some(&version), Some(&capabilities)))
    }
}

impl<'a> FastCall<'a> {
    /// The tool's name.
    pub(crate) fn name(&self) -> &str {
        &self.params.name
    }

    /// The request's id, its parameters, and its `_meta` as the handler's context has it:
    /// without the bindings' hashes when they are `registry`'s.
    pub(crate) fn into_parts(self, registry: &Registry) -> CallParts {
        let mut params = CallToolRequestParams::new(self.params.name);
        params.arguments = self.params.arguments;
        let client = self.params.meta.as_ref().and_then(|meta| meta.client);
        let meta = self
            .params
            .meta
            .map(|meta| meta.into_object(registry))
            .map(|meta| RequestMetaObject(MetaObject(meta)));
        (self.id, params, meta, client)
    }
}

/// The message of a call's parts: the message rmcp's generic parser makes of the frame (less
/// the bindings' hashes when they are the server's).
pub(crate) fn message_of((id, params, meta, _): CallParts) -> RxJsonRpcMessage<RoleServer> {
    let mut request = ClientRequest::CallToolRequest(Request::new(params));
    if let Some(meta) = meta {
        *request.get_meta_mut() = meta;
    }
    JsonRpcMessage::Request(JsonRpcRequest::new(id, request))
}

/// The parts of a call, as [`FastCall::into_parts`] makes them: its id, parameters and
/// `_meta`, and the client its `_meta`'s lifecycle entries make, when they make one.
pub(crate) type CallParts = (
    RequestId,
    CallToolRequestParams,
    Option<RequestMetaObject>,
    Option<Client>,
);

impl CallMeta<'_> {
    /// The `_meta` object the handler sees.
    fn into_object(self, registry: &Registry) -> JsonObject {
        let CallMeta {
            metadata,
            tool_metadata,
            mut rest,
            ..
        } = self;
        let current = metadata
            .as_deref()
            .is_some_and(|theirs| theirs == registry.metadata_hash());
        if !current {
            for (key, hash) in [
                (METADATA_META, metadata),
                (TOOL_METADATA_META, tool_metadata),
            ] {
                if let Some(hash) = hash {
                    rest.insert(key.to_owned(), Value::String(hash.into_owned()));
                }
            }
        }
        rest
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for CallMeta<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <&'de RawValue>::deserialize(deserializer)?.get();
        let kept = LAST_META.with_borrow(|last| match last {
            Some((kept, meta)) if **kept == *text => Some(meta.clone()),
            _ => None,
        });
        if let Some(meta) = kept {
            return Ok(meta);
        }
        let mut reader = serde_json::Deserializer::from_str(text);
        let mut meta = reader.deserialize_map(Entries).map_err(de::Error::custom)?;
        meta.client = CallMeta::client_of(&meta.rest);
        if text.len() <= KEPT_META {
            let owned = meta.clone().into_owned();
            LAST_META.set(Some((text.into(), owned)));
        }
        Ok(meta)
    }
}

/// Reads a `_meta` object's entries into a [`CallMeta`].
struct Entries;

impl<'de> Visitor<'de> for Entries {
    type Value = CallMeta<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut meta = CallMeta::default();
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let slot = match key.as_ref() {
                METADATA_META => &mut meta.metadata,
                TOOL_METADATA_META => &mut meta.tool_metadata,
                _ => {
                    let value = map.next_value::<Value>()?;
                    meta.rest.insert(key.into_owned(), value);
                    continue;
                }
            };
            // A key given twice keeps its last value, as a JSON object's would.
            match map.next_value::<TextOr<'de>>()? {
                TextOr::Text(hash) => {
                    *slot = Some(hash);
                    meta.rest.shift_remove(key.as_ref());
                }
                TextOr::Other(value) => {
                    *slot = None;
                    meta.rest.insert(key.into_owned(), value);
                }
            }
        }
        Ok(meta)
    }
}

/// A string, borrowed from the frame when it has no escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_str(TextVisitor)? {
            TextOr::Text(text) => Ok(Text(text)),
            TextOr::Other(_) => Err(de::Error::custom("expected a string")),
        }
    }
}

/// A string (borrowed when it can be) or any other JSON value.
enum TextOr<'a> {
    Text(Cow<'a, str>),
    Other(Value),
}

impl<'de> Deserialize<'de> for TextOr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = TextOr<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<Self::Value, E> {
        Ok(TextOr::Text(Cow::Borrowed(value)))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        Ok(TextOr::Text(Cow::Owned(value.to_owned())))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Self::Value, E> {
        Ok(TextOr::Text(Cow::Owned(value)))
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Self::Value, E> {
        Ok(TextOr::Other(Value::Bool(value)))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        Ok(TextOr::Other(Value::from(value)))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        Ok(TextOr::Other(Value::from(value)))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        Ok(TextOr::Other(Value::from(value)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(TextOr::Other(Value::Null))
    }

    fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Self::Value, S::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(TextOr::Other)
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(TextOr::Other)
    }
}

#[cfg(test)]
mod tests {
    use bytes::BytesMut;
    use rmcp::transport::async_rw::JsonRpcMessageCodec;
    use tokio_util::codec::Decoder;

    use super::*;

    /// The message rmcp's own parser makes of `line`.
    fn generic(line: &str) -> RxJsonRpcMessage<RoleServer> {
        let mut codec = JsonRpcMessageCodec::<RxJsonRpcMessage<RoleServer>>::default();
        let mut buffer = BytesMut::from(format!("{line}\n").as_bytes());
        codec.decode(&mut buffer).unwrap().unwrap()
    }

    /// The message the fast path makes of `line`.
    fn fast(line: &str) -> RxJsonRpcMessage<RoleServer> {
        let call = serde_json::from_str::<FastCall>(line).unwrap();
        message_of(call.into_parts(buril_core::registry()))
    }

    fn json(message: RxJsonRpcMessage<RoleServer>) -> Value {
        serde_json::to_value(message).unwrap()
    }

    #[test]
    fn the_fast_path_makes_the_message_the_generic_parser_makes() {
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}"#,
            r#"{"params":{"arguments":{"a":[1,{"b":null}]},"name":"t"},"id":"x","method":"tools/call","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{}}}"#,
            // Bindings of other metadata keep their hashes, where the handler reads them.
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"buril/metadata":"ab","buril/tool-metadata":"cd","progressToken":"p"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"buril/tool-metadata":"cd"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"buril/metadata":"a\"b\u0063"}}}"#,
            // Hashes that are not strings are other entries.
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"buril/metadata":5,"buril/tool-metadata":[1,{"x":null}],"k":{"a":true}}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"buril/metadata":null,"buril/tool-metadata":1.5}}}"#,
        ] {
            assert_eq!(json(fast(line)), json(generic(line)), "{line}");
        }
        // `_meta` lands where the generic parser puts it: the request's own metadata, which
        // becomes the handler's `context.meta` (so the progress token is found).
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1}}}"#;
        for message in [generic(line), fast(line)] {
            let JsonRpcMessage::Request(request) = message else {
                panic!("a request");
            };
            assert!(request.request.get_meta().get_progress_token().is_some());
        }
        // Anything else takes the generic parser.
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","task":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":[]}}"#,
        ] {
            assert!(serde_json::from_str::<FastCall>(line).is_err(), "{line}");
        }
    }

    /// A stateless call's line with `meta` as its `_meta`.
    fn stateless_line(meta: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"t","arguments":{{"a":1}},"_meta":{meta}}}}}"#
        )
    }

    /// The client `Route::of_frame` would decode from a call's `_meta` itself.
    fn decoded_client(meta: &RequestMetaObject) -> Option<Client> {
        Some(Client::new(
            Some(&meta.protocol_version()?),
            Some(&meta.client_capabilities()?),
        ))
    }

    #[test]
    fn lifecycle_entries_make_the_message_and_the_client_a_decode_would() {
        let version = r#""io.modelcontextprotocol/protocolVersion""#;
        let capabilities = r#""io.modelcontextprotocol/clientCapabilities""#;
        let info = r#""io.modelcontextprotocol/clientInfo""#;
        let metas = [
            format!(
                r#"{{{version}:"2026-07-28",{capabilities}:{{}},{info}:{{"name":"c","version":"1"}}}}"#
            ),
            // The same entries again (read from what the thread kept), then others.
            format!(
                r#"{{{version}:"2026-07-28",{capabilities}:{{}},{info}:{{"name":"c","version":"1"}}}}"#
            ),
            format!(
                r#"{{{info}:{{"name":"d","version":"2"}},{capabilities}:{{"elicitation":{{}},"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}},"progressToken":4,{version}:"2026-07-28"}}"#
            ),
            format!(r#"{{{version}:"2025-11-25",{capabilities}:{{"sampling":{{}}}}}}"#),
            format!(r#"{{{version}:"2027-03-01",{capabilities}:{{}}}}"#),
            // Entries that do not decode, or are missing, make no client.
            format!(r#"{{{version}:5,{capabilities}:{{}}}}"#),
            format!(r#"{{{version}:"2026-07-28",{capabilities}:[1]}}"#),
            format!(r#"{{{version}:"2026-07-28"}}"#),
            format!(r#"{{{capabilities}:{{}},"k":null}}"#),
            // A key given twice is its last value.
            format!(r#"{{{version}:"2025-11-25",{capabilities}:{{}},{version}:"2026-07-28"}}"#),
            format!(
                r#"{{{version}:"2026-07-28",{capabilities}:{{"roots":{{}}}},{capabilities}:{{}}}}"#
            ),
            format!(r#"{{{version}:"2026-07-28",{capabilities}:{{}},{capabilities}:"none"}}"#),
            // Escapes in a kept entry's text.
            format!(
                r#"{{{version}:"2026-07-28",{capabilities}:{{}},{info}:{{"name":"\u0063","version":"1"}}}}"#
            ),
        ];
        for meta in &metas {
            let line = stateless_line(meta);
            assert_eq!(json(fast(&line)), json(generic(&line)), "{line}");
            let call = serde_json::from_str::<FastCall>(&line).unwrap();
            let (_, _, meta, client) = call.into_parts(buril_core::registry());
            let decoded = decoded_client(meta.as_ref().unwrap());
            assert_eq!(format!("{client:?}"), format!("{decoded:?}"), "{line}");
        }
    }

    #[test]
    fn the_bindings_hashes_are_dropped_when_they_are_the_servers() {
        let ours = buril_core::registry().metadata_hash();
        // Written with an escape, the hash is still this server's.
        let escaped = format!("\\u00{:x}{}", ours.as_bytes()[0], &ours[1..]);
        for (meta, left) in [
            (
                format!(r#"{{"buril/metadata":"{ours}","buril/tool-metadata":"cd"}}"#),
                r#","_meta":{}"#,
            ),
            (
                format!(
                    r#"{{"buril/tool-metadata":"cd","progressToken":3,"buril/metadata":"{ours}"}}"#
                ),
                r#","_meta":{"progressToken":3}"#,
            ),
            (
                format!(r#"{{"buril/metadata":"{escaped}"}}"#),
                r#","_meta":{}"#,
            ),
            // A key given twice is its last value, as the generic parser reads it.
            (
                format!(r#"{{"buril/metadata":1,"buril/metadata":"{ours}"}}"#),
                r#","_meta":{}"#,
            ),
        ] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","_meta":{meta}}}}}"#
            );
            let without = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t"{left}}}}}"#
            );
            assert_eq!(json(fast(&line)), json(generic(&without)), "{line}");
        }
        // The last of two values decides the other way too.
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","_meta":{{"buril/metadata":"{ours}","buril/metadata":"ab"}}}}}}"#
        );
        assert_eq!(json(fast(&line)), json(generic(&line)), "{line}");
    }
}
