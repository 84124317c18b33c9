//! The C# bindings as a Unity package (UPM): what Unity's Package Manager installs from a local
//! folder or a git URL (`…/repo.git?path=/bindings/unity`).
//!
//! ```text
//! package.json             name, version, `unity` 2021.3, com.unity.nuget.newtonsoft-json
//! CHANGELOG.md
//! Editor/
//!   Buril.Generated.asmdef an Editor-only assembly referencing Newtonsoft.Json
//!   csc.rsp                the framework assemblies the bindings use
//!   Buril.Client.cs        the typed client
//!   Buril.Runtime.cs       transports, errors, JSON
//!   Buril.Types.cs         the inputs and outputs
//!   Buril.Unity.cs         the connection that lives through domain reloads, main-thread
//!                          callbacks, the settings page
//!   Buril.Tools.cs         the server-side stubs, only when asked for
//!   Buril.EditorTools.cs   the classes of the tools done in the editor, when there are some
//! Documentation~/index.md
//! Samples~/ToolBrowser/    a window that lists, fills in and calls the tools
//! .buril-codegen           the files written, so that a later run removes those it no
//!                          longer writes (Unity ignores names that start with a dot)
//! ```
//!
//! Every asset and folder outside the `~` folders has a `.meta` (a package installed from git
//! is read-only, and Unity ignores an asset without one there). Their GUIDs are derived from
//! the package's name and the file's path, so that they stay the same from one generation to
//! the next and differ between packages.

use std::fmt;

use serde::Serialize;

use crate::csharp::CSharp;
use crate::ir::Api;
use crate::writer::{GeneratedFile, LanguageWriter, WriterError, header_lines};

/// The file listing what a package generation wrote.
pub(crate) const MANIFEST: &str = ".buril-codegen";

/// The Newtonsoft.Json package a package depends on (Json.NET 13.0.2).
const NEWTONSOFT: (&str, &str) = ("com.unity.nuget.newtonsoft-json", "3.2.1");

/// The oldest Unity a package declares: 2021.3 LTS, the oldest whose C# (9, Roslyn) and
/// Newtonsoft package the bindings are written for.
const UNITY: &str = "2021.3";

/// The Unity-only C# of a package: the pieces of `runtime/unity/`.
const UNITY_PIECES: &[(&str, &str)] = crate::csharp::UNITY_RUNTIME;

/// The sample window, `Samples~/ToolBrowser`.
const TOOL_BROWSER: &str = include_str!("../runtime/unity/ToolBrowserWindow.cs");

/// What a Unity package of the C# bindings is called and says of itself: its name
/// (`com.example.tools`), display name, version and description, and whether it carries the
/// server-side stubs (`Buril.Tools.cs`, which a client does not need).
///
/// ```
/// let package = buril_codegen::UnityPackage::new("com.example.tools")?
///     .display_name("Example tools")
///     .version("1.2.0")?;
/// # Ok::<(), buril_codegen::UnityPackageError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnityPackage {
    name: String,
    display_name: Option<String>,
    version: String,
    description: Option<String>,
    server_stubs: bool,
}

/// Why a package name or version was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnityPackageError(String);

impl fmt::Display for UnityPackageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnityPackageError {}

impl UnityPackage {
    /// A package named `name`: reverse-domain, lowercase (`com.example.tools`), as the
    /// Package Manager requires. Version 0.1.0 until [`version`](Self::version) says another.
    pub fn new(name: impl Into<String>) -> Result<Self, UnityPackageError> {
        let name = name.into();
        check_name(&name)?;
        Ok(UnityPackage {
            name,
            display_name: None,
            version: "0.1.0".to_owned(),
            description: None,
            server_stubs: false,
        })
    }

    /// The name the Package Manager shows (default: the package's name).
    pub fn display_name(mut self, name: impl Into<String>) -> Self {
        self.display_name = Some(name.into());
        self
    }

    /// The package's version, semantic (`1.2.0`, `1.2.0-preview.1`).
    pub fn version(mut self, version: impl Into<String>) -> Result<Self, UnityPackageError> {
        let version = version.into();
        check_version(&version)?;
        self.version = version;
        Ok(self)
    }

    /// The package's description (default: one naming the tools' metadata).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Whether the package carries `Buril.Tools.cs`, an abstract class per tool for a C#
    /// server of the same tools (default: no; a client does not use them).
    pub fn server_stubs(mut self, stubs: bool) -> Self {
        self.server_stubs = stubs;
        self
    }

    /// The package's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// `name` as the Package Manager accepts it.
fn check_name(name: &str) -> Result<(), UnityPackageError> {
    let refuse = |why: &str| {
        Err(UnityPackageError(format!(
            "`{name}` is not a Unity package name: {why} (write it reverse-domain, lowercase: \
             `com.example.tools`)"
        )))
    };
    if name.is_empty() || name.len() > 214 {
        return refuse("it must have 1 to 214 characters");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '-' | '_'))
    {
        return refuse("it may hold only lowercase letters, digits, `.`, `-` and `_`");
    }
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() < 2 || parts.iter().any(|part| part.is_empty()) {
        return refuse("it needs at least two parts separated by single dots");
    }
    if !parts
        .iter()
        .all(|part| part.starts_with(|c: char| c.is_ascii_alphanumeric()))
    {
        return refuse("each part must start with a letter or a digit");
    }
    Ok(())
}

/// `version` as semantic versioning writes it: `MAJOR.MINOR.PATCH`, then `-PRERELEASE`.
fn check_version(version: &str) -> Result<(), UnityPackageError> {
    let (core, pre) = match version.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (version, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let number = |part: &&str| {
        !part.is_empty()
            && part.chars().all(|c| c.is_ascii_digit())
            && (*part == "0" || !part.starts_with('0'))
    };
    let pre_ok = pre.is_none_or(|pre| {
        !pre.is_empty()
            && pre.split('.').all(|part| {
                !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
    });
    if numbers.len() == 3 && numbers.iter().all(number) && pre_ok {
        Ok(())
    } else {
        Err(UnityPackageError(format!(
            "`{version}` is not a semantic version (`1.2.0`, `1.2.0-preview.1`)"
        )))
    }
}

/// `package.json`, in the order Unity's own packages write it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Manifest<'a> {
    name: &'a str,
    version: &'a str,
    display_name: &'a str,
    description: String,
    unity: &'a str,
    dependencies: std::collections::BTreeMap<&'a str, &'a str>,
    keywords: [&'a str; 3],
    samples: [Sample<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Sample<'a> {
    display_name: &'a str,
    description: &'a str,
    path: &'a str,
}

/// The assembly definition.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AssemblyDefinition<'a> {
    name: &'a str,
    root_namespace: &'a str,
    references: [&'a str; 1],
    include_platforms: [&'a str; 1],
    exclude_platforms: [&'a str; 0],
    allow_unsafe_code: bool,
    override_references: bool,
    precompiled_references: [&'a str; 1],
    auto_referenced: bool,
    define_constraints: [&'a str; 0],
    version_defines: [VersionDefine<'a>; 1],
    no_engine_references: bool,
}

#[derive(Serialize)]
struct VersionDefine<'a> {
    name: &'a str,
    expression: &'a str,
    define: &'a str,
}

/// The package's assembly, also its `.asmdef`'s name.
pub const ASSEMBLY: &str = "Buril.Generated";

/// The symbol defined when UniTask (`com.cysharp.unitask`) is in the project.
pub const UNITASK_DEFINE: &str = "BURIL_UNITASK";

/// The files of the package of `api`, paths relative to the package's folder.
pub(crate) fn write(api: &Api, package: &UnityPackage) -> Result<Vec<GeneratedFile>, WriterError> {
    let mut files = Vec::new();
    for file in CSharp.write(api)? {
        let name = file.path.trim_start_matches("csharp/");
        if name == "Buril.Tools.cs" && !package.server_stubs {
            continue;
        }
        files.push(GeneratedFile {
            path: format!("Editor/{name}"),
            contents: file.contents,
        });
    }
    files.push(GeneratedFile {
        path: "Editor/Buril.Unity.cs".to_owned(),
        contents: unity_source(api),
    });
    let display = package.display_name.as_deref().unwrap_or(&package.name);
    let description = package.description.clone().unwrap_or_else(|| {
        format!(
            "Typed C# bindings of {} tools (tool metadata {}), generated by buril-codegen: a \
             client over MCP (stdio or Streamable HTTP) that lives through domain reloads.",
            api.tools.len(),
            api.hash
        )
    });
    let manifest = Manifest {
        name: &package.name,
        version: &package.version,
        display_name: display,
        description,
        unity: UNITY,
        dependencies: [NEWTONSOFT].into_iter().collect(),
        keywords: ["buril", "mcp", "tools"],
        samples: [Sample {
            display_name: "Tool Browser",
            description: "A window that lists the tools, builds a form from each one's input \
                          schema, calls it and shows the answer, and switches dangerous and \
                          third-party tools on and off.",
            path: "Samples~/ToolBrowser",
        }],
    };
    files.push(GeneratedFile {
        path: "package.json".to_owned(),
        contents: json(&manifest),
    });
    let asmdef = AssemblyDefinition {
        name: ASSEMBLY,
        root_namespace: crate::csharp::NAMESPACE,
        references: ["UniTask"],
        include_platforms: ["Editor"],
        exclude_platforms: [],
        allow_unsafe_code: false,
        override_references: true,
        precompiled_references: ["Newtonsoft.Json.dll"],
        auto_referenced: true,
        define_constraints: [],
        version_defines: [VersionDefine {
            name: "com.cysharp.unitask",
            expression: "2.0.0",
            define: UNITASK_DEFINE,
        }],
        no_engine_references: false,
    };
    files.push(GeneratedFile {
        path: format!("Editor/{ASSEMBLY}.asmdef"),
        contents: json(&asmdef),
    });
    files.push(GeneratedFile {
        path: "Editor/csc.rsp".to_owned(),
        contents: CSC_RSP.to_owned(),
    });
    files.push(GeneratedFile {
        path: "CHANGELOG.md".to_owned(),
        contents: format!(
            "# Changelog\n\n## [{}]\n\n- Generated by buril-codegen {} from tool metadata {} ({} \
             tools).\n",
            package.version,
            api.generator_version,
            api.hash,
            api.tools.len()
        ),
    });
    files.push(GeneratedFile {
        path: "Documentation~/index.md".to_owned(),
        contents: documentation(package, display),
    });
    files.push(GeneratedFile {
        path: "Samples~/ToolBrowser/Editor/ToolBrowserWindow.cs".to_owned(),
        contents: format!("{}\n{TOOL_BROWSER}", comment_header(api)),
    });

    let mut metas = Vec::new();
    let mut folders = std::collections::BTreeSet::new();
    for file in &files {
        if in_hidden_folder(&file.path) {
            continue;
        }
        metas.push(GeneratedFile {
            path: format!("{}.meta", file.path),
            contents: meta(&package.name, &file.path, Importer::of(&file.path)),
        });
        let mut parent = file.path.as_str();
        while let Some((folder, _)) = parent.rsplit_once('/') {
            folders.insert(folder.to_owned());
            parent = folder;
        }
    }
    for folder in folders {
        metas.push(GeneratedFile {
            path: format!("{folder}.meta"),
            contents: meta(&package.name, &folder, Importer::Folder),
        });
    }
    files.extend(metas);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut listing = String::new();
    for line in header_lines(api) {
        listing.push_str("# ");
        listing.push_str(&line);
        listing.push('\n');
    }
    listing.push_str("# The files of this package written by buril-codegen, which a later run\n");
    listing.push_str("# removes when it no longer writes them.\n");
    for file in &files {
        listing.push_str(&file.path);
        listing.push('\n');
    }
    files.push(GeneratedFile {
        path: MANIFEST.to_owned(),
        contents: listing,
    });
    Ok(files)
}

/// The paths a package's [`MANIFEST`] lists.
pub(crate) fn listed(manifest: &str) -> impl Iterator<Item = &str> {
    manifest
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// The framework assemblies the bindings use beyond those Unity always references (under the
/// .NET Framework API compatibility level; .NET Standard 2.1 has them all).
const CSC_RSP: &str = "-r:System.Net.Http.dll\n-r:System.Numerics.dll\n";

/// Whether `path` is inside a folder Unity does not import (`Samples~`, `Documentation~`).
fn in_hidden_folder(path: &str) -> bool {
    path.split('/')
        .rev()
        .skip(1)
        .any(|folder| folder.ends_with('~') || folder.starts_with('.'))
}

/// Which importer Unity gives a file, by its extension.
#[derive(Clone, Copy)]
enum Importer {
    Folder,
    Script,
    AssemblyDefinition,
    PackageManifest,
    Text,
    Default,
}

impl Importer {
    fn of(path: &str) -> Self {
        match path.rsplit_once('.').map(|(_, extension)| extension) {
            Some("cs") => Importer::Script,
            Some("asmdef") => Importer::AssemblyDefinition,
            Some("json") if path == "package.json" => Importer::PackageManifest,
            Some("md" | "txt" | "json") => Importer::Text,
            _ => Importer::Default,
        }
    }
}

/// A `.meta` as Unity writes it for `path` of package `package`.
fn meta(package: &str, path: &str, importer: Importer) -> String {
    let guid = guid(package, path);
    let common =
        "  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n";
    match importer {
        Importer::Folder => {
            format!(
                "fileFormatVersion: 2\nguid: {guid}\nfolderAsset: yes\nDefaultImporter:\n{common}"
            )
        }
        Importer::Script => format!(
            "fileFormatVersion: 2\nguid: {guid}\nMonoImporter:\n  externalObjects: {{}}\n  \
             serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: \
             {{instanceID: 0}}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n"
        ),
        Importer::AssemblyDefinition => {
            format!("fileFormatVersion: 2\nguid: {guid}\nAssemblyDefinitionImporter:\n{common}")
        }
        Importer::PackageManifest => {
            format!("fileFormatVersion: 2\nguid: {guid}\nPackageManifestImporter:\n{common}")
        }
        Importer::Text => {
            format!("fileFormatVersion: 2\nguid: {guid}\nTextScriptImporter:\n{common}")
        }
        Importer::Default => {
            format!("fileFormatVersion: 2\nguid: {guid}\nDefaultImporter:\n{common}")
        }
    }
}

/// The GUID of `path` in `package`: 32 lowercase hexadecimal digits, the 128-bit FNV-1a hash
/// of `package/path` (stable across runs and versions, different between packages).
pub(crate) fn guid(package: &str, path: &str) -> String {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut hash = OFFSET;
    for byte in package.bytes().chain([b'/']).chain(path.bytes()) {
        hash ^= u128::from(byte);
        hash = hash.wrapping_mul(PRIME);
    }
    format!("{hash:032x}")
}

/// `value` as JSON, two spaces an indent, a line feed at the end.
fn json(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("plain data serializes");
    text.push('\n');
    text
}

/// The generated header as `//` comments.
fn comment_header(api: &Api) -> String {
    header_lines(api)
        .iter()
        .map(|line| format!("// {line}\n"))
        .collect()
}

/// `Buril.Unity.cs`: the header and the pieces of `runtime/unity/`, each a complete file.
fn unity_source(api: &Api) -> String {
    let mut text = comment_header(api);
    for (_, piece) in UNITY_PIECES {
        text.push('\n');
        text.push_str(piece.trim_end());
        text.push('\n');
    }
    text
}

/// `Documentation~/index.md`.
fn documentation(package: &UnityPackage, display: &str) -> String {
    format!(
        "# {display}\n\n`{name}` holds typed C# bindings of a buril tool server for the Unity \
         editor: an Editor-only assembly (`{ASSEMBLY}`) with a client method per tool, the \
         tools' input and output types, and `BurilConnection`, which makes the client on first \
         use, releases it before each domain reload and connects again after.\n\n## Install\n\n\
         - From a folder: *Window > Package Manager > + > Add package from disk…*, then this \
         folder's `package.json`.\n- From git: *Add package from git URL…*, \
         `https://example.com/repo.git?path=/bindings/unity#v{version}` (the folder of this \
         package in the repository).\n\nThe package depends on `{newtonsoft}`, which the Package \
         Manager installs with it.\n\n## Use\n\n```csharp\nusing Buril.Generated;\n\nvar \
         client = BurilConnection.Client;\n```\n\nSee the buril guide's Unity chapter for the \
         connection settings (*Project Settings > Buril*), tasks across reloads, and which \
         thread each callback runs on.\n",
        name = package.name,
        version = package.version,
        newtonsoft = NEWTONSOFT.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_are_reverse_domain_and_lowercase() {
        assert!(UnityPackage::new("com.example.tools").is_ok());
        assert!(UnityPackage::new("com.example-2.my_tools").is_ok());
        for bad in [
            "tools",
            "Com.Example.Tools",
            "com..example",
            "com.example.",
            ".com",
            "com.exa mple",
            "com._x",
        ] {
            let error = UnityPackage::new(bad).unwrap_err().to_string();
            assert!(error.contains("com.example.tools"), "{bad}: {error}");
        }
    }

    #[test]
    fn versions_are_semantic() {
        let package = UnityPackage::new("com.example.tools").unwrap();
        for good in ["0.1.0", "1.2.3", "1.2.3-preview.1", "10.0.0-rc-1"] {
            assert!(package.clone().version(good).is_ok(), "{good}");
        }
        for bad in [
            "1.2",
            "1.2.3.4",
            "01.2.3",
            "1.2.x",
            "1.2.3-",
            "1.2.3-a..b",
            "v1.2.3",
        ] {
            assert!(package.clone().version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn guids_are_stable_and_differ_by_package_and_path() {
        let a = guid("com.example.tools", "Editor/Buril.Client.cs");
        assert_eq!(a, guid("com.example.tools", "Editor/Buril.Client.cs"));
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')));
        assert_ne!(a, guid("com.example.other", "Editor/Buril.Client.cs"));
        assert_ne!(a, guid("com.example.tools", "Editor/Buril.Types.cs"));
        // FNV-1a 128 of "a/b" (the published test vector of "a" is d228cb69…).
        assert_eq!(guid("a", "b"), "a68d62d6fd8b5822836dbc79781849e9");
    }

    #[test]
    fn hidden_folders_get_no_meta() {
        assert!(in_hidden_folder(
            "Samples~/ToolBrowser/Editor/ToolBrowserWindow.cs"
        ));
        assert!(in_hidden_folder("Documentation~/index.md"));
        assert!(!in_hidden_folder("Editor/Buril.Client.cs"));
        assert!(!in_hidden_folder("package.json"));
    }
}
