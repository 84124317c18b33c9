//! A tool however it came: linked into the binary, or provided at run time.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::descriptor::ToolDescriptor;

/// A tool of a [`Registry`](crate::Registry): one linked into the binary (a `static` the
/// `#[tool]` attribute wrote) or one provided at run time (shared with its provider's set, so
/// that a call keeps it while its provider is replaced). Dereferences to its
/// [`ToolDescriptor`]; cloning a linked tool's copies a pointer.
#[derive(Clone)]
pub struct ToolRef(Repr);

#[derive(Clone)]
enum Repr {
    Linked(&'static ToolDescriptor),
    Provided(Arc<ToolDescriptor>),
}

impl ToolRef {
    /// A linked tool.
    pub const fn linked(tool: &'static ToolDescriptor) -> Self {
        ToolRef(Repr::Linked(tool))
    }

    pub(crate) fn provided(tool: Arc<ToolDescriptor>) -> Self {
        ToolRef(Repr::Provided(tool))
    }

    /// The descriptor of a linked tool; `None` for a provided one.
    pub fn as_linked(&self) -> Option<&'static ToolDescriptor> {
        match self.0 {
            Repr::Linked(tool) => Some(tool),
            Repr::Provided(_) => None,
        }
    }

    /// Whether both are the same tool (the same descriptor, not only the same name).
    pub fn same(&self, other: &ToolRef) -> bool {
        std::ptr::eq::<ToolDescriptor>(&**self, &**other)
    }
}

impl Deref for ToolRef {
    type Target = ToolDescriptor;

    #[inline]
    fn deref(&self) -> &ToolDescriptor {
        match &self.0 {
            Repr::Linked(tool) => tool,
            Repr::Provided(tool) => tool,
        }
    }
}

impl From<&'static ToolDescriptor> for ToolRef {
    fn from(tool: &'static ToolDescriptor) -> Self {
        ToolRef::linked(tool)
    }
}

impl fmt::Debug for ToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
