//! Every tool linked into the binary, found without a manifest.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use crate::descriptor::ToolDescriptor;
use crate::suggest;

/// The distributed slice every `#[tool]` adds its descriptor to.
#[linkme::distributed_slice]
pub static TOOLS: [ToolDescriptor];

// `#[tool]` puts a descriptor in the slice's link sections itself, by name, instead of
// through the `TOOLS!` macro linkme defines for its elements (buril-macros' `sections.rs` says
// why). Here linkme's macro says which names it would use, and the build fails if they are not
// the attribute's: a linkme that named its sections otherwise would leave every tool out of
// the registry without a word.
macro_rules! same_sections_as_linkme {
    (
        #![linkme_linux_section = $linux:expr]
        #![linkme_macho_section = $macho:expr]
        #![linkme_windows_section = $windows:expr]
        #![linkme_illumos_section = $illumos:expr]
        #![linkme_bsd_section = $bsd:expr]
        $item:item
    ) => {
        const _: () = assert!(
            same_names(
                [$linux, $macho, $windows, $illumos, $bsd],
                buril_macros::__linkme_sections!(),
            ),
            "linkme names the link sections of `TOOLS` otherwise than `#[buril::tool]` \
             writes them (buril-macros' sections.rs): the linkme in the build is not one \
             this buril supports",
        );
    };
}
TOOLS! {
    #![linkme_macro = same_sections_as_linkme]
    struct LinkmeSections;
}

/// Whether two lists of names are the same, at compile time.
const fn same_names(a: [&str; 5], b: [&str; 5]) -> bool {
    let mut i = 0;
    while i < 5 {
        let (x, y) = (a[i].as_bytes(), b[i].as_bytes());
        if x.len() != y.len() {
            return false;
        }
        let mut j = 0;
        while j < x.len() {
            if x[j] != y[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// How a name resolved in the registry.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Lookup {
    /// The tool.
    pub tool: &'static ToolDescriptor,
    /// The name was a deprecated alias, not the tool's name.
    pub via_alias: bool,
}

/// The tools of a binary, sorted by name, with O(1) lookup by name or alias.
pub struct Registry {
    tools: Vec<&'static ToolDescriptor>,
    index: NameIndex,
    /// The hash of every tool's metadata, made on first use.
    hash: std::sync::OnceLock<String>,
}

/// Each name and alias, with its tool and whether it is an alias.
type NameIndex =
    HashMap<&'static str, (&'static ToolDescriptor, bool), BuildHasherDefault<NameHasher>>;

/// The names a tool claims: its own, then its aliases.
fn claimed_names(tool: &'static ToolDescriptor) -> impl Iterator<Item = (&'static str, bool)> {
    std::iter::once((tool.name(), false)).chain(tool.aliases().iter().map(|a| (a.as_ref(), true)))
}

/// Hashes tool names for the registry's index: FxHash (a rotate, a xor and a multiply per
/// eight bytes), several times cheaper than the default SipHash on a short name. SipHash guards
/// a table against keys chosen to collide; this table's keys are the binary's own tool names,
/// fixed when it is built, so a caller choosing the names it looks up cannot degrade it.
#[derive(Default, Clone, Copy)]
struct NameHasher(u64);

impl NameHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.add(tail_word(rest) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    #[inline]
    fn finish(&self) -> u64 {
        // The table takes its bucket from the low bits; the multiply mixes into the high ones.
        self.0.rotate_left(26)
    }
}

/// The last 1 to 7 bytes of a name as one word, every byte in it, read with fixed-size loads:
/// copying a variable length into a buffer would call `memcpy` and stall the load after it.
#[inline]
fn tail_word(rest: &[u8]) -> u64 {
    let n = rest.len();
    if n >= 4 {
        // Two overlapping four-byte reads cover all of 4 to 7 bytes.
        let mut low = [0u8; 4];
        let mut high = [0u8; 4];
        low.copy_from_slice(&rest[..4]);
        high.copy_from_slice(&rest[n - 4..]);
        u64::from(u32::from_le_bytes(low)) | (u64::from(u32::from_le_bytes(high)) << 32)
    } else {
        // First, middle and last byte cover all of 1 to 3 bytes.
        u64::from(rest[0]) | (u64::from(rest[n / 2]) << 8) | (u64::from(rest[n - 1]) << 16)
    }
}

/// Two tools claim the same name (or one's alias is another's name).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegistryError {
    /// Each name claimed more than once, with every place claiming it.
    pub duplicates: Vec<(String, Vec<String>)>,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "tool names must be unique in a binary, but:")?;
        for (name, places) in &self.duplicates {
            writeln!(f, "  `{name}` is claimed by {}", places.join(" and "))?;
        }
        write!(f, "rename one of them, or drop the alias")
    }
}

impl std::error::Error for RegistryError {}

impl Registry {
    /// A registry of the given tools. Fails when a name or alias is claimed twice.
    pub fn new(
        tools: impl IntoIterator<Item = &'static ToolDescriptor>,
    ) -> Result<Self, RegistryError> {
        let mut tools: Vec<&'static ToolDescriptor> = tools.into_iter().collect();
        tools.sort_by(|a, b| {
            a.name()
                .cmp(b.name())
                .then(a.location().file.cmp(b.location().file))
        });
        let mut index: NameIndex =
            HashMap::with_capacity_and_hasher(tools.len() + tools.len() / 8, Default::default());
        // Names claimed more than once; the places claiming them are only worded for these.
        let mut duplicated: Vec<&'static str> = Vec::new();
        for tool in &tools {
            for (name, via_alias) in claimed_names(tool) {
                match index.entry(name) {
                    Entry::Vacant(slot) => {
                        slot.insert((*tool, via_alias));
                    }
                    Entry::Occupied(_) => duplicated.push(name),
                }
            }
        }
        if !duplicated.is_empty() {
            duplicated.sort_unstable();
            duplicated.dedup();
            let mut duplicates: Vec<(String, Vec<String>)> = duplicated
                .iter()
                .map(|name| ((*name).to_owned(), Vec::new()))
                .collect();
            for tool in &tools {
                for (name, via_alias) in claimed_names(tool) {
                    if let Ok(at) = duplicated.binary_search(&name) {
                        duplicates[at].1.push(format!(
                            "{}`{}` at {}",
                            if via_alias { "an alias of " } else { "" },
                            tool.name(),
                            tool.location()
                        ));
                    }
                }
            }
            return Err(RegistryError { duplicates });
        }
        Ok(Registry {
            tools,
            index,
            hash: std::sync::OnceLock::new(),
        })
    }

    /// The hash of the tools' metadata ([`metadata::hash`](crate::metadata::hash)): what the
    /// bindings generated from this registry carry, and what the MCP server answers with.
    pub fn metadata_hash(&self) -> &str {
        self.hash
            .get_or_init(|| crate::metadata::hash_descriptors(self.tools.iter().copied()))
    }

    /// Every tool, sorted by name.
    pub fn tools(&self) -> &[&'static ToolDescriptor] {
        &self.tools
    }

    /// Iterates over every tool, sorted by name.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'static ToolDescriptor> + '_ {
        self.tools.iter().copied()
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool named `name`, by its name or an alias.
    #[inline]
    pub fn lookup(&self, name: &str) -> Option<Lookup> {
        self.index
            .get(name)
            .map(|&(tool, via_alias)| Lookup { tool, via_alias })
    }

    /// The tool named `name` (by name or alias).
    #[inline]
    pub fn get(&self, name: &str) -> Option<&'static ToolDescriptor> {
        self.lookup(name).map(|found| found.tool)
    }

    /// Where `tool` is in [`iter`](Self::iter)'s order (by name), if it is one of these tools.
    #[cfg(feature = "server")]
    #[doc(hidden)]
    pub fn position(&self, tool: &ToolDescriptor) -> Option<usize> {
        self.tools
            .binary_search_by(|other| other.name().cmp(tool.name()))
            .ok()
    }

    /// Tool names close to `name`, best first, for "did you mean" messages.
    pub fn suggest(&self, name: &str) -> Vec<String> {
        suggest::similar(name, self.tools.iter().map(|t| t.name()))
            .into_iter()
            .take(3)
            .map(str::to_owned)
            .collect()
    }

    /// The families, sorted, each once.
    pub fn families(&self) -> Vec<&'static str> {
        let mut families: Vec<&'static str> = self.tools.iter().map(|t| t.family()).collect();
        families.sort_unstable();
        families.dedup();
        families
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name()))
            .finish()
    }
}

static REGISTRY: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();

/// The registry of every `#[tool]` linked into this binary, built on first use.
///
/// Tools register through a linker section, so a crate's tools are in the binary only when
/// the binary links that crate: a binary or test that does not otherwise use a tool crate
/// names it (`use my_tools as _;`). Pin the expected tool names in a test, so that a crate
/// dropped from the link fails loudly rather than shrinking the tool list.
///
/// # Panics
/// When two tools claim the same name. The build normally fails first (each name is also a
/// linker symbol); this catches what the linker cannot, such as tools loaded in other ways.
/// [`try_registry`] returns the error instead.
pub fn registry() -> &'static Registry {
    match try_registry() {
        Ok(registry) => registry,
        Err(error) => panic!("{error}"),
    }
}

/// The registry of every `#[tool]` linked into this binary, or why it cannot be built.
pub fn try_registry() -> Result<&'static Registry, &'static RegistryError> {
    REGISTRY
        .get_or_init(|| Registry::new(TOOLS.iter()))
        .as_ref()
}
