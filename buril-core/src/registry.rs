//! Every tool linked into the binary, found without a manifest.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::hash::BuildHasherDefault;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use tokio::sync::watch;

use crate::descriptor::ToolDescriptor;
use crate::name_hash::NameHasher;
use crate::provider::{Clash, Provider};
use crate::suggest;
use crate::tool_ref::ToolRef;

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
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Lookup {
    /// The tool.
    pub tool: ToolRef,
    /// The name was a deprecated alias, not the tool's name.
    pub via_alias: bool,
}

/// The tools of a binary, sorted by name, with O(1) lookup by name or alias: the tools linked
/// into it (fixed when it starts) and the tools providers add and withdraw while it runs (an
/// external MCP server's, through the hub).
///
/// A linked tool is found in an index built once, without a lock; a provided one in a second
/// index, read only when the name is not a linked tool's and some provider has tools, so that
/// calls of linked tools cost what they did before anything could be provided. Every change of
/// the provided tools makes a new snapshot of them, which [`iter`](Self::iter) and the lookups
/// read, and counts a generation that [`changes`](Self::changes) announces (the MCP server
/// sends `notifications/tools/list_changed` on it).
pub struct Registry {
    tools: Vec<&'static ToolDescriptor>,
    index: NameIndex,
    /// The hash of every linked tool's metadata, made on first use.
    hash: std::sync::OnceLock<String>,
    provided: RwLock<Arc<ProvidedSet>>,
    /// Whether any provider has tools: when not, a name missing from `index` is missing.
    any_provided: AtomicBool,
    changes: watch::Sender<u64>,
}

/// Each name and alias, with its tool and whether it is an alias.
type NameIndex =
    HashMap<&'static str, (&'static ToolDescriptor, bool), BuildHasherDefault<NameHasher>>;

/// The tools providers have added, as one snapshot.
#[derive(Default)]
struct ProvidedSet {
    /// Each provider with its tools, in the order they were first provided.
    providers: Vec<(Arc<Provider>, Vec<Arc<ToolDescriptor>>)>,
    /// Each provided name and alias. Hashed with the standard library's keyed hasher: these
    /// names are chosen by whoever wrote the provider (an external server), not by this binary.
    index: HashMap<&'static str, (Arc<ToolDescriptor>, bool)>,
    /// Every tool that can be called now, linked and provided, sorted by name (empty when no
    /// provider has tools: the linked list is the whole list then).
    all: Vec<ToolRef>,
}

/// The names a tool claims: its own, then its aliases.
fn claimed_names(tool: &ToolDescriptor) -> impl Iterator<Item = (&str, bool)> {
    std::iter::once((tool.name(), false)).chain(tool.aliases().iter().map(|a| (a.as_ref(), true)))
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
            provided: RwLock::new(Arc::default()),
            any_provided: AtomicBool::new(false),
            changes: watch::Sender::new(0),
        })
    }

    /// A registry of the given tools that lives as long as the process, as a dispatcher's
    /// must (see [`DispatcherBuilder::registry`](crate::DispatcherBuilder::registry)).
    pub fn leaked(
        tools: impl IntoIterator<Item = &'static ToolDescriptor>,
    ) -> Result<&'static Registry, RegistryError> {
        Ok(Box::leak(Box::new(Registry::new(tools)?)))
    }

    /// The hash of the linked tools' metadata ([`metadata::hash`](crate::metadata::hash)):
    /// what the bindings generated from this registry carry, and what the MCP server answers
    /// with. Provided tools are not in it: bindings are generated from the linked tools.
    pub fn metadata_hash(&self) -> &str {
        self.hash
            .get_or_init(|| crate::metadata::hash_descriptors(self.tools.iter().copied()))
    }

    /// The tools linked into the binary, sorted by name.
    pub fn linked(&self) -> &[&'static ToolDescriptor] {
        &self.tools
    }

    /// Every tool that can be called now (linked, and provided by a provider that can answer),
    /// sorted by name.
    pub fn tools(&self) -> Vec<ToolRef> {
        self.iter().collect()
    }

    /// Iterates over every tool that can be called now, sorted by name: the linked tools, and
    /// the tools of providers that can answer (a snapshot: a provider changing its tools
    /// meanwhile does not change what this iterator gives).
    pub fn iter(&self) -> Iter<'_> {
        if self.any_provided.load(Ordering::Acquire) {
            let set = self.snapshot();
            if !set.all.is_empty() {
                return Iter(IterInner::All(set, 0));
            }
        }
        Iter(IterInner::Linked(self.tools.iter()))
    }

    /// How many tools can be called now.
    pub fn len(&self) -> usize {
        self.iter().len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tool named `name`, by its name or an alias; a provided tool is found while its
    /// provider cannot answer (its calls answer `unavailable`).
    #[inline]
    pub fn lookup(&self, name: &str) -> Option<Lookup> {
        if let Some(&(tool, via_alias)) = self.index.get(name) {
            return Some(Lookup {
                tool: ToolRef::linked(tool),
                via_alias,
            });
        }
        if !self.any_provided.load(Ordering::Acquire) {
            return None;
        }
        self.lookup_provided(name)
    }

    #[cold]
    fn lookup_provided(&self, name: &str) -> Option<Lookup> {
        let set = self.provided.read().unwrap_or_else(|e| e.into_inner());
        set.index.get(name).map(|(tool, via_alias)| Lookup {
            tool: ToolRef::provided(Arc::clone(tool)),
            via_alias: *via_alias,
        })
    }

    /// The tool named `name` (by name or alias).
    #[inline]
    pub fn get(&self, name: &str) -> Option<ToolRef> {
        self.lookup(name).map(|found| found.tool)
    }

    /// Tool names close to `name`, best first, for "did you mean" messages.
    pub fn suggest(&self, name: &str) -> Vec<String> {
        let tools: Vec<ToolRef> = self.iter().collect();
        suggest::similar(name, tools.iter().map(|t| t.name()))
            .into_iter()
            .take(3)
            .map(str::to_owned)
            .collect()
    }

    /// The families, sorted, each once.
    pub fn families(&self) -> Vec<String> {
        let mut families: Vec<String> = self.iter().map(|t| t.family().to_owned()).collect();
        families.sort_unstable();
        families.dedup();
        families
    }

    /// Announces every change of the tools that can be called now (a provider's tools added,
    /// replaced or withdrawn; a provider gone or back): the value is a generation, counted up
    /// by each change.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The providers with tools here, in the order they first provided.
    pub fn providers(&self) -> Vec<Arc<Provider>> {
        self.snapshot()
            .providers
            .iter()
            .map(|(provider, _)| Arc::clone(provider))
            .collect()
    }

    /// The tools `provider` has here, sorted by name (whether it can answer now or not).
    pub fn tools_of(&self, provider: &str) -> Vec<ToolRef> {
        let set = self.snapshot();
        let mut tools: Vec<ToolRef> = set
            .providers
            .iter()
            .filter(|(p, _)| p.name() == provider)
            .flat_map(|(_, tools)| tools.iter().cloned().map(ToolRef::provided))
            .collect();
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        tools
    }

    /// Makes `tools` the tools of `provider`, replacing what it provided before, in one step:
    /// a call in flight keeps the tool it started with. A tool whose name or alias another tool
    /// claims (a linked tool, another provider's, or one of `tools`) is left out, and named in
    /// the answer with the tool it clashes with; the rest are served.
    pub fn provide(&self, provider: &Arc<Provider>, tools: Vec<ToolDescriptor>) -> Vec<Clash> {
        let mut clashes = Vec::new();
        let mut guard = self.provided.write().unwrap_or_else(|e| e.into_inner());
        let old = Arc::clone(&guard);
        let mut providers: Vec<(Arc<Provider>, Vec<Arc<ToolDescriptor>>)> = old
            .providers
            .iter()
            .filter(|(p, _)| p.name() != provider.name())
            .cloned()
            .collect();
        // The names other providers claim, with whose they are.
        let mut taken: HashMap<&str, String> = HashMap::new();
        for (other, others) in &providers {
            for tool in others {
                for (name, _) in claimed_names(tool) {
                    taken.insert(
                        name,
                        format!("the tool `{}` of `{}`", tool.name(), other.name()),
                    );
                }
            }
        }
        let mut kept: Vec<Arc<ToolDescriptor>> = Vec::with_capacity(tools.len());
        let mut mine: HashMap<String, String> = HashMap::new();
        for mut tool in tools {
            tool.provided_by(provider);
            let clash = claimed_names(&tool).find_map(|(name, _)| {
                if let Some(&(linked, _)) = self.index.get(name) {
                    return Some(format!(
                        "the linked tool `{}` (at {})",
                        linked.name(),
                        linked.location()
                    ));
                }
                taken.get(name).cloned().or_else(|| mine.get(name).cloned())
            });
            match clash {
                Some(with) => clashes.push(Clash {
                    tool: tool.name().to_owned(),
                    original_name: tool
                        .provenance()
                        .and_then(|p| p.original_name())
                        .map(str::to_owned),
                    provider: provider.name().to_owned(),
                    with,
                }),
                None => {
                    for (name, _) in claimed_names(&tool) {
                        mine.insert(
                            name.to_owned(),
                            format!("the tool `{}` of `{}`", tool.name(), provider.name()),
                        );
                    }
                    kept.push(Arc::new(tool));
                }
            }
        }
        drop(taken);
        match old
            .providers
            .iter()
            .position(|(p, _)| p.name() == provider.name())
        {
            Some(at) => providers.insert(at.min(providers.len()), (Arc::clone(provider), kept)),
            None => providers.push((Arc::clone(provider), kept)),
        }
        *guard = Arc::new(self.assemble(providers));
        self.published(&guard);
        clashes
    }

    /// Withdraws every tool of the provider named `provider`; answers whether it had any here.
    pub fn withdraw(&self, provider: &str) -> bool {
        self.withdraw_where(|p| p.name() == provider)
    }

    /// Withdraws the tools of `provider` itself, not of another provider since given its name.
    #[doc(hidden)]
    pub fn withdraw_exact(&self, provider: &Arc<Provider>) -> bool {
        self.withdraw_where(|p| Arc::ptr_eq(p, provider))
    }

    fn withdraw_where(&self, whose: impl Fn(&Arc<Provider>) -> bool) -> bool {
        let mut guard = self.provided.write().unwrap_or_else(|e| e.into_inner());
        if !guard.providers.iter().any(|(p, _)| whose(p)) {
            return false;
        }
        let providers = guard
            .providers
            .iter()
            .filter(|(p, _)| !whose(p))
            .cloned()
            .collect();
        *guard = Arc::new(self.assemble(providers));
        self.published(&guard);
        true
    }

    /// Says whether `provider` can answer now: with a reason, its tools leave the listings and
    /// answer `unavailable` with that reason until it is back (`None`).
    pub fn set_unavailable(&self, provider: &Arc<Provider>, reason: Option<String>) {
        let mut guard = self.provided.write().unwrap_or_else(|e| e.into_inner());
        if !provider.set_unavailable(reason.map(Arc::from)) {
            return;
        }
        let providers = guard.providers.clone();
        *guard = Arc::new(self.assemble(providers));
        self.published(&guard);
    }

    /// The snapshot of `providers`' tools.
    fn assemble(&self, providers: Vec<(Arc<Provider>, Vec<Arc<ToolDescriptor>>)>) -> ProvidedSet {
        let mut index = HashMap::new();
        let mut all: Vec<ToolRef> = Vec::new();
        let mut any = false;
        for (provider, tools) in &providers {
            let available = provider.unavailable().is_none();
            for tool in tools {
                any = true;
                for (name, via_alias) in claimed_names(tool) {
                    index.insert(crate::intern::intern(name), (Arc::clone(tool), via_alias));
                }
                if available {
                    all.push(ToolRef::provided(Arc::clone(tool)));
                }
            }
        }
        if any {
            all.extend(self.tools.iter().map(|tool| ToolRef::linked(tool)));
            all.sort_by(|a, b| a.name().cmp(b.name()));
        } else {
            all.clear();
        }
        ProvidedSet {
            providers,
            index,
            all,
        }
    }

    /// Makes a new snapshot visible and announces it.
    fn published(&self, set: &ProvidedSet) {
        self.any_provided
            .store(!set.index.is_empty(), Ordering::Release);
        self.changes.send_modify(|generation| *generation += 1);
    }

    fn snapshot(&self) -> Arc<ProvidedSet> {
        Arc::clone(&self.provided.read().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The tools a registry can call now, sorted by name ([`Registry::iter`]).
pub struct Iter<'a>(IterInner<'a>);

enum IterInner<'a> {
    Linked(std::slice::Iter<'a, &'static ToolDescriptor>),
    All(Arc<ProvidedSet>, usize),
}

impl Iterator for Iter<'_> {
    type Item = ToolRef;

    #[inline]
    fn next(&mut self) -> Option<ToolRef> {
        match &mut self.0 {
            IterInner::Linked(tools) => tools.next().map(|tool| ToolRef::linked(tool)),
            IterInner::All(set, at) => {
                let tool = set.all.get(*at)?.clone();
                *at += 1;
                Some(tool)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = match &self.0 {
            IterInner::Linked(tools) => tools.len(),
            IterInner::All(set, at) => set.all.len() - at,
        };
        (len, Some(len))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|t| t.name().to_owned()))
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
