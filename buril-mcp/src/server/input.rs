//! Tools asking the client for input mid-call, in the two ways MCP has: under 2026-07-28 the
//! call ends with an `input_required` result listing the requests and a sealed `requestState`,
//! and runs again when the client calls back with the answers (`Rounds`); under 2025-11-25
//! and earlier the server sends the requests to the client during the call and waits for the
//! answers (`Live`).

use std::sync::Mutex;
use std::sync::mpsc::{RecvTimeoutError, sync_channel};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, InputRequest as McpInputRequest, InputRequests, InputRequiredResult,
    InputResponses, RequestStateCodec, SealOptions, ServerRequest,
};
use rmcp::service::{Peer, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use buril_core::context::{Asked, Context, InputKind, InputRequest, InputSource};

/// How long the answers of a round stay valid in a `requestState`.
const STATE_TTL: Duration = Duration::from_secs(10 * 60);

/// Which input requests a client can answer, from the capabilities it declared.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Abilities {
    elicitation: bool,
    sampling: bool,
    roots: bool,
}

impl Abilities {
    pub(crate) fn of(capabilities: Option<&ClientCapabilities>) -> Self {
        capabilities.map_or_else(Abilities::default, |c| Abilities {
            elicitation: c.elicitation.is_some(),
            sampling: c.sampling.is_some(),
            roots: c.roots.is_some(),
        })
    }

    /// Whether the client can answer anything at all.
    pub(crate) fn any(self) -> bool {
        self.elicitation || self.sampling || self.roots
    }

    fn supports(self, kind: InputKind) -> bool {
        match kind {
            InputKind::Elicitation => self.elicitation,
            InputKind::Sampling => self.sampling,
            InputKind::Roots => self.roots,
        }
    }
}

/// What a `requestState` carries between rounds: the answers so far.
#[derive(Debug, Default, Serialize, Deserialize)]
struct RoundState {
    answers: Map<String, Value>,
}

/// Seals and opens `requestState`s: an HMAC over the answers, the tool's name and its
/// arguments, valid for ten minutes (rmcp's `RequestStateCodec`), so that a client can neither
/// forge answers nor carry them over to another call.
pub(crate) struct RequestStates {
    codec: RequestStateCodec,
}

impl RequestStates {
    /// With `key` (at least 32 bytes; every replica behind one address needs the same), or a
    /// random key for this process.
    pub(crate) fn new(key: Option<&[u8]>) -> Result<Self, String> {
        let key = match key {
            Some(key) => key.to_vec(),
            None => {
                let mut key = vec![0u8; 32];
                getrandom::fill(&mut key)
                    .map_err(|error| format!("no random key for request states: {error}"))?;
                key
            }
        };
        let codec = RequestStateCodec::try_new(key).map_err(|error| {
            format!("the request-state key is not usable: {error} (give at least 32 bytes)")
        })?;
        Ok(RequestStates { codec })
    }

    /// What a state is bound to: the tool, its arguments and, when the server authorizes its
    /// callers, the caller (so that one principal cannot present another's state).
    fn bound_to(tool: &str, arguments: &Value, caller: Option<&str>) -> Vec<u8> {
        let mut bound = tool.as_bytes().to_vec();
        bound.push(b'\n');
        bound.extend(serde_json::to_vec(arguments).unwrap_or_default());
        if let Some(caller) = caller {
            bound.push(b'\n');
            bound.extend(caller.as_bytes());
        }
        bound
    }

    fn seal(
        &self,
        tool: &str,
        arguments: &Value,
        caller: Option<&str>,
        state: &RoundState,
    ) -> String {
        let bound = Self::bound_to(tool, arguments, caller);
        let options = SealOptions::new().associated_data(&bound).ttl(STATE_TTL);
        self.codec
            .seal_json_with(state, &options)
            .unwrap_or_default()
    }

    fn open(
        &self,
        tool: &str,
        arguments: &Value,
        caller: Option<&str>,
        sealed: &str,
    ) -> Result<RoundState, ErrorData> {
        let bound = Self::bound_to(tool, arguments, caller);
        self.codec.open_json_with(sealed, &bound).map_err(|error| {
            ErrorData::invalid_params(
                format!(
                    "the requestState of this `{tool}` call was not made by this server for \
                     these arguments (and this caller), was altered, or has expired ({error}); \
                     call the tool again without it"
                ),
                None,
            )
        })
    }
}

/// The answers of a 2026-07-28 call: those carried in its `requestState` and those it sent
/// (`inputResponses`). A request with no answer yet is kept, to be listed in the
/// `input_required` result.
pub(crate) struct Rounds {
    answers: Map<String, Value>,
    abilities: Abilities,
    waiting: Mutex<Vec<(String, InputRequest)>>,
    /// The keys whose answers the tool read: the answers that go forward.
    used: Mutex<Vec<String>>,
    /// A kind of input the tool asked for that the client did not declare.
    lacking: Mutex<Option<InputKind>>,
    /// Who calls, which the next round's state is bound to.
    caller: Option<String>,
}

impl Rounds {
    /// The answers of a call of `tool` with `arguments`: its sealed state, opened (an error if
    /// it is not this server's for this call), and its responses. A response that is not an
    /// object is no answer (the request is asked again).
    pub(crate) fn new(
        states: &RequestStates,
        tool: &str,
        arguments: &Value,
        caller: Option<String>,
        state: Option<&str>,
        responses: Option<InputResponses>,
        abilities: Abilities,
    ) -> Result<Self, ErrorData> {
        let mut answers = match state {
            Some(sealed) => {
                states
                    .open(tool, arguments, caller.as_deref(), sealed)?
                    .answers
            }
            None => Map::new(),
        };
        for (key, response) in responses.into_iter().flatten() {
            if response.is_object() {
                answers.insert(key, response);
            }
        }
        Ok(Rounds {
            answers,
            abilities,
            waiting: Mutex::new(Vec::new()),
            used: Mutex::new(Vec::new()),
            lacking: Mutex::new(None),
            caller,
        })
    }

    /// The error of a call whose tool needed a capability the client did not declare
    /// (`-32021`, with the capability in `requiredCapabilities`), if it did.
    pub(crate) fn missing_capability(&self, tool: &str) -> Option<ErrorData> {
        let kind = (*self.lacking.lock().unwrap_or_else(|e| e.into_inner()))?;
        let required: ClientCapabilities =
            serde_json::from_value(serde_json::json!({kind.capability(): {}})).ok()?;
        let mut error = ErrorData::missing_required_client_capability(required);
        error.message = format!(
            "`{tool}` needs the client's `{}` capability ({}), which this request did not \
             declare",
            kind.capability(),
            kind.method()
        )
        .into();
        Some(error)
    }

    /// The `input_required` result of a call that asked what has no answer yet, if it did.
    pub(crate) fn input_required(
        &self,
        states: &RequestStates,
        tool: &str,
        arguments: &Value,
    ) -> Option<InputRequiredResult> {
        let waiting = std::mem::take(&mut *self.waiting.lock().unwrap_or_else(|e| e.into_inner()));
        if waiting.is_empty() {
            return None;
        }
        let mut requests = InputRequests::new();
        for (key, request) in waiting {
            if let Ok(request) = serde_json::from_value::<McpInputRequest>(request.to_json()) {
                requests.insert(key, request);
            }
        }
        // Only the answers the tool read go forward: a key it did not ask for is dropped.
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let answers = self
            .answers
            .iter()
            .filter(|(key, _)| used.contains(key))
            .map(|(key, answer)| (key.clone(), answer.clone()))
            .collect();
        let state = RoundState { answers };
        let sealed = states.seal(tool, arguments, self.caller.as_deref(), &state);
        Some(InputRequiredResult::new(Some(requests), Some(sealed)))
    }
}

impl InputSource for Rounds {
    fn supports(&self, kind: InputKind) -> bool {
        self.abilities.supports(kind)
    }

    fn lacked(&self, kind: InputKind) {
        self.lacking
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(kind);
    }

    fn ask(&self, _ctx: &Context, key: &str, request: &InputRequest) -> Asked {
        match self.answers.get(key) {
            Some(answer) => {
                let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
                if !used.iter().any(|k| k == key) {
                    used.push(key.to_owned());
                }
                Asked::Answer(answer.clone())
            }
            None => {
                let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
                if !waiting.iter().any(|(asked, _)| asked == key) {
                    waiting.push((key.to_owned(), request.clone()));
                }
                Asked::Later
            }
        }
    }
}

/// A 2025-11-25 (or earlier) session: requests go to the client during the call.
pub(crate) struct Live {
    peer: Peer<RoleServer>,
    abilities: Abilities,
    runtime: tokio::runtime::Handle,
}

impl Live {
    pub(crate) fn new(peer: Peer<RoleServer>, abilities: Abilities) -> Self {
        Live {
            peer,
            abilities,
            runtime: tokio::runtime::Handle::current(),
        }
    }
}

impl InputSource for Live {
    fn supports(&self, kind: InputKind) -> bool {
        self.abilities.supports(kind)
    }

    fn ask(&self, ctx: &Context, _key: &str, request: &InputRequest) -> Asked {
        let message = request.to_json();
        let request: ServerRequest = match serde_json::from_value(message) {
            Ok(request) => request,
            Err(error) => {
                return Asked::Refused(format!("the request is not one MCP defines ({error})"));
            }
        };
        let (answered, answer) = sync_channel(1);
        let peer = self.peer.clone();
        let sent = self.runtime.spawn(async move {
            let _ = answered.send(peer.send_request(request).await);
        });
        // The tool's thread waits, giving up when its call is cancelled or times out.
        loop {
            match answer.recv_timeout(Duration::from_millis(20)) {
                Ok(Ok(result)) => {
                    return match serde_json::to_value(result) {
                        Ok(value) => Asked::Answer(value),
                        Err(error) => {
                            Asked::Refused(format!("its answer was unreadable ({error})"))
                        }
                    };
                }
                Ok(Err(error)) => return Asked::Refused(format!("the client answered: {error}")),
                Err(RecvTimeoutError::Disconnected) => {
                    return Asked::Refused("the session ended before the client answered".into());
                }
                Err(RecvTimeoutError::Timeout) if ctx.is_cancelled() => {
                    sent.abort();
                    return Asked::Refused("the call ended before the client answered".into());
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answered(states: &RequestStates, tool: &str, arguments: &Value, state: &str) -> bool {
        Rounds::new(
            states,
            tool,
            arguments,
            None,
            Some(state),
            None,
            Abilities::default(),
        )
        .is_ok()
    }

    /// A request state opens only for the server that sealed it, the tool and the arguments it
    /// was sealed for, and unaltered: a client can neither forge answers nor move them to
    /// another call.
    #[test]
    fn request_states_are_bound_to_their_server_tool_and_arguments() {
        let states = RequestStates::new(None).unwrap();
        let arguments = json!({"path": "a"});
        let mut answers = Map::new();
        answers.insert("confirm".into(), json!({"action": "accept"}));
        let sealed = states.seal("t", &arguments, None, &RoundState { answers });
        assert!(answered(&states, "t", &arguments, &sealed));
        assert!(!answered(&states, "other", &arguments, &sealed));
        assert!(!answered(&states, "t", &json!({"path": "b"}), &sealed));
        assert!(!answered(&states, "t", &arguments, &format!("{sealed}x")));
        let mut altered = sealed.clone().into_bytes();
        let middle = altered.len() / 2;
        altered[middle] = if altered[middle] == b'A' { b'B' } else { b'A' };
        assert!(!answered(
            &states,
            "t",
            &arguments,
            &String::from_utf8(altered).unwrap()
        ));
        let elsewhere = RequestStates::new(None).unwrap();
        assert!(!answered(&elsewhere, "t", &arguments, &sealed));
        // A shared key (replicas) opens each other's states.
        let key = [7u8; 32];
        let (one, two) = (
            RequestStates::new(Some(&key)).unwrap(),
            RequestStates::new(Some(&key)).unwrap(),
        );
        let sealed = one.seal("t", &arguments, None, &RoundState::default());
        assert!(answered(&two, "t", &arguments, &sealed));
        assert!(RequestStates::new(Some(b"short")).is_err());
    }

    /// The answers carried forward are those the tool read, with the new requests listed.
    #[test]
    fn a_round_lists_what_is_unanswered_and_carries_what_was_read() {
        let states = RequestStates::new(None).unwrap();
        let arguments = json!({});
        let mut responses = InputResponses::new();
        responses.insert(
            "step1".into(),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        );
        responses.insert("extra".into(), json!({"action": "accept"}));
        responses.insert("broken".into(), json!(12345));
        let abilities = Abilities {
            elicitation: true,
            sampling: false,
            roots: false,
        };
        let rounds = Rounds::new(
            &states,
            "t",
            &arguments,
            None,
            None,
            Some(responses),
            abilities,
        )
        .unwrap();
        let ctx = Context::detached(buril_core::context::State::new());
        let request = InputRequest::confirm("?");
        assert!(matches!(
            rounds.ask(&ctx, "step1", &request),
            Asked::Answer(_)
        ));
        assert_eq!(rounds.ask(&ctx, "broken", &request), Asked::Later);
        assert_eq!(rounds.ask(&ctx, "step2", &request), Asked::Later);
        let result = rounds.input_required(&states, "t", &arguments).unwrap();
        let listed: Vec<&String> = result.input_requests.as_ref().unwrap().keys().collect();
        assert_eq!(listed, ["broken", "step2"]);
        let carried: RoundState = states
            .codec
            .open_json_with(
                result.request_state.as_deref().unwrap(),
                &RequestStates::bound_to("t", &arguments, None),
            )
            .unwrap();
        let keys: Vec<&String> = carried.answers.keys().collect();
        assert_eq!(keys, ["step1"]);
    }
}
