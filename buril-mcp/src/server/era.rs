//! The two eras of MCP this server speaks, told apart in one place.
//!
//! - **Sessions** (2025-11-25 and before): an `initialize` handshake, `Mcp-Session-Id` over
//!   HTTP, and a tool's questions sent to the client while its call runs.
//! - **Stateless** (2026-07-28 on): no handshake; every request carries its version and the
//!   client's capabilities in `_meta`, HTTP requests carry `Mcp-Method`/`Mcp-Name`, and a tool's
//!   questions end the call with an `input_required` result that the client answers by calling
//!   again.

use rmcp::model::{ClientCapabilities, ProtocolVersion};
use rmcp::service::{RequestContext, RoleServer};

use super::input::Abilities;

/// Where a stateless request's `_meta` says its protocol version.
pub(crate) const STATELESS_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The lifecycle entries a stateless client sends in every request's `_meta`, in this order:
/// its version, its capabilities and itself.
pub(crate) const STATELESS_KEYS: [&str; 3] = [
    STATELESS_VERSION_KEY,
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
];

/// Which of MCP's two lifecycles a protocol version belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// Before 2026-07-28: `initialize`, sessions, questions mid-call.
    Sessions,
    /// 2026-07-28 on: stateless requests, questions in rounds.
    Stateless,
}

impl Era {
    /// The era of `version` (a version this SDK does not know is placed by its date, as every
    /// revision is named `YYYY-MM-DD`).
    pub(crate) fn of(version: &ProtocolVersion) -> Era {
        if version.has_initialize() {
            Era::Sessions
        } else {
            Era::Stateless
        }
    }

    /// The era of a version named in a header, if it is one this SDK knows.
    pub(crate) fn of_known(version: &str) -> Option<Era> {
        ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .find(|known| known.as_str() == version)
            .map(Era::of)
    }
}

/// What a call's handling needs to know of its client, read from its request once: its era and
/// what its capabilities allow. Under 2026-07-28 both come from the request's own `_meta` (the
/// capabilities decoded anew for every request); before, from the session's `initialize`.
///
/// A transport that read them to route a call (`route.rs`) leaves
/// them in the call's context (its extensions), where [`Client::of`] finds them: the handler
/// does not decode them again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Client {
    /// The era of the request's protocol version, if it names one (or its session does).
    pub era: Option<Era>,
    /// Whether the client follows tasks (it declared MCP's tasks extension).
    pub follows_tasks: bool,
    /// What the client can answer when a tool asks.
    pub abilities: Abilities,
}

impl Client {
    /// The client of a request with this version and these capabilities.
    pub(crate) fn new(
        version: Option<&ProtocolVersion>,
        capabilities: Option<&ClientCapabilities>,
    ) -> Client {
        Client {
            era: version.map(Era::of),
            follows_tasks: capabilities.is_some_and(|capabilities| capabilities.supports_tasks()),
            abilities: Abilities::of(capabilities),
        }
    }

    /// The client of `context`'s request: as a fast path left it, or read from the request.
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Client {
        if let Some(client) = context.extensions.get::<Client>() {
            return *client;
        }
        Client::new(
            context.protocol_version().as_ref(),
            context.client_capabilities().as_ref(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_version_has_its_era() {
        assert_eq!(Era::of(&ProtocolVersion::V_2024_11_05), Era::Sessions);
        assert_eq!(Era::of(&ProtocolVersion::V_2025_11_25), Era::Sessions);
        assert_eq!(Era::of(&ProtocolVersion::V_2026_07_28), Era::Stateless);
        assert_eq!(Era::of_known("2025-06-18"), Some(Era::Sessions));
        assert_eq!(Era::of_known("2026-07-28"), Some(Era::Stateless));
        assert_eq!(Era::of_known("2027-01-01"), None);
        assert_eq!(Era::of_known("tomorrow"), None);
    }
}
