//! The lookup tables of normalisation and the writers: hash maps with a fast, fixed hasher (the
//! keys are the registry's own names; with thousands of tools SipHash was 8% of generation).

/// A hash map with foldhash's fixed hasher.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
/// A hash set with foldhash's fixed hasher. See [`HashMap`].
pub(crate) type HashSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;
