//! The config file's `[auth]` table.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::options::{AuthOptions, JwksSource, StaticToken};
use buril_core::Registry;
use buril_core::middleware::ScopeRules;

/// `[auth]` as written.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuthFile {
    resource: Option<String>,
    resource_name: Option<String>,
    issuer: Option<String>,
    audience: Option<String>,
    jwks_uri: Option<String>,
    jwks_file: Option<String>,
    /// Seconds.
    leeway: Option<u64>,
    /// Only `typ: at+jwt` tokens.
    strict_token_type: Option<bool>,
    /// Scopes every call needs.
    #[serde(default)]
    scopes: Vec<String>,
    /// Scopes by family.
    #[serde(default)]
    families: BTreeMap<String, OneOrMore>,
    /// Scopes by tool.
    #[serde(default)]
    tools: BTreeMap<String, OneOrMore>,
    /// Scopes dangerous tools need besides.
    dangerous: Option<OneOrMore>,
    #[serde(default)]
    tokens: Vec<TokenEntry>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
enum OneOrMore {
    One(String),
    More(Vec<String>),
}

impl OneOrMore {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMore::One(scope) => vec![scope],
            OneOrMore::More(scopes) => scopes,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenEntry {
    subject: String,
    sha256: String,
    #[serde(default)]
    scopes: Vec<String>,
}

impl AuthFile {
    /// The options this table gives, checked against the registry (every family and tool it
    /// names must exist); relative `jwks_file`s are taken from the config file's folder.
    pub(crate) fn resolve(
        &self,
        registry: &Registry,
        folder: Option<&Path>,
        errors: &mut Vec<String>,
    ) -> AuthOptions {
        let mut options = AuthOptions::new();
        options.resource = self.resource.clone();
        options.resource_name = self.resource_name.clone();
        options.issuer = self.issuer.clone();
        options.audience = self.audience.clone();
        options.leeway = self.leeway.map(std::time::Duration::from_secs);
        options.strict_token_type = self.strict_token_type;
        options.jwks = match (&self.jwks_uri, &self.jwks_file) {
            (Some(_), Some(_)) => {
                errors.push("`[auth]` has both `jwks_uri` and `jwks_file`: keep one".into());
                None
            }
            (Some(uri), None) => Some(JwksSource::Url(uri.clone())),
            (None, Some(file)) => {
                let path = Path::new(file);
                Some(JwksSource::File(match folder {
                    Some(folder) if path.is_relative() => folder.join(path),
                    _ => path.to_path_buf(),
                }))
            }
            (None, None) => None,
        };
        let mut rules = ScopeRules::new();
        for scope in &self.scopes {
            rules = rules.every(scope.clone());
        }
        let families = registry.families();
        for (family, scopes) in &self.families {
            if !families.iter().any(|known| known == family) {
                errors.push(format!(
                    "`[auth.families]`: no tool family is named `{family}` (families: {})",
                    families.join(", ")
                ));
                continue;
            }
            for scope in scopes.clone().into_vec() {
                rules = rules.family(family.clone(), scope);
            }
        }
        for (name, scopes) in &self.tools {
            let Some(tool) = registry.get(name) else {
                errors.push(format!(
                    "`[auth.tools]`: {}",
                    buril_core::frontend::unknown_tool(name, &registry.suggest(name))
                ));
                continue;
            };
            for scope in scopes.clone().into_vec() {
                rules = rules.tool(tool.name(), scope);
            }
        }
        for scope in self
            .dangerous
            .clone()
            .map(OneOrMore::into_vec)
            .unwrap_or_default()
        {
            rules = rules.dangerous(scope);
        }
        options.scopes = rules;
        for (at, entry) in self.tokens.iter().enumerate() {
            match StaticToken::from_sha256_hex(&entry.subject, &entry.sha256, entry.scopes.clone())
            {
                Ok(token) => options.tokens.push(token),
                Err(error) => errors.push(format!(
                    "`[[auth.tokens]]` {} (`{}`): {error}",
                    at + 1,
                    entry.subject
                )),
            }
        }
        options
    }
}
