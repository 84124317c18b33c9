//! The example tools as this binary links them, and nothing else: their registry, their
//! listing against the snapshot beside this file (`tools.json`), the committed bindings and
//! their metadata hash, and the recorded agent-team runs replayed. No module here defines a
//! tool, since the registry's exact list is what several of them check.

mod autoplay;
mod bindings;
mod contract;
mod metadata_hash;
mod registry;
