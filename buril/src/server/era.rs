//! The two eras of MCP this server speaks, told apart in one place.
//!
//! - **Sessions** (2025-11-25 and before): an `initialize` handshake, `Mcp-Session-Id` over
//!   HTTP, and a tool's questions sent to the client while its call runs.
//! - **Stateless** (2026-07-28 on): no handshake; every request carries its version and the
//!   client's capabilities in `_meta`, HTTP requests carry `Mcp-Method`/`Mcp-Name`, and a tool's
//!   questions end the call with an `input_required` result that the client answers by calling
//!   again.

use rmcp::model::ProtocolVersion;

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
