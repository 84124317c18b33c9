//! Where in a tool's schemas normalisation is, for error messages.

use std::fmt;

use buril_core::pointer;

/// A JSON pointer into a tool's schemas (`/input/properties/p`, `/$defs/Shape`), for error
/// messages only: segments link to their parent and are joined, each escaped as RFC 6901 says
/// ([`buril_core::pointer`]), only when an error is worded.
#[derive(Clone, Copy)]
pub(super) struct SchemaPointer<'a> {
    parent: Option<&'a SchemaPointer<'a>>,
    segment: Segment<'a>,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Name(&'a str),
    Index(usize),
}

impl<'a> SchemaPointer<'a> {
    /// The pointer of one segment: `input`, `output` or `$defs`.
    pub(super) fn root(segment: &'a str) -> Self {
        SchemaPointer {
            parent: None,
            segment: Segment::Name(segment),
        }
    }

    /// This pointer extended by a key (a keyword or a property's name, as it is).
    pub(super) fn join(&'a self, segment: &'a str) -> SchemaPointer<'a> {
        SchemaPointer {
            parent: Some(self),
            segment: Segment::Name(segment),
        }
    }

    /// This pointer extended by an array index.
    pub(super) fn index(&'a self, index: usize) -> SchemaPointer<'a> {
        SchemaPointer {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }
}

impl fmt::Display for SchemaPointer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        match self.segment {
            Segment::Name(name) => write!(f, "/{}", pointer::escape(name)),
            Segment::Index(index) => write!(f, "/{index}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_escaped() {
        let root = SchemaPointer::root("input");
        let properties = root.join("properties");
        let odd = properties.join("a/b~c");
        let first = odd.index(0);
        assert_eq!(first.to_string(), "/input/properties/a~1b~0c/0");
        assert_eq!(SchemaPointer::root("$defs").to_string(), "/$defs");
    }
}
