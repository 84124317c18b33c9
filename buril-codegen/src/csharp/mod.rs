//! The C# writer (Unity editor side, Newtonsoft.Json).

use crate::ir::Api;
use crate::writer::{GeneratedFile, LanguageWriter, WriterError};

/// Writes C# for Mono's `mcs -langversion:7.2` and Newtonsoft.Json.
#[derive(Debug, Clone, Default)]
pub struct CSharp;

impl LanguageWriter for CSharp {
    fn language(&self) -> &'static str {
        "C#"
    }

    fn write(&self, _api: &Api) -> Result<Vec<GeneratedFile>, WriterError> {
        Ok(Vec::new())
    }
}
