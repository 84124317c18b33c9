//! The agent team of the example tools: specialists for the editor's families, and the team
//! the `tools` binary serves (`agent_team_*` tools, the `replay` subcommand).

use std::path::Path;

use buril_team::{OpenAiCompatible, SpecialistDef, Team, specialist};

specialist! {
    /// Reads scenes and the objects in them; changes nothing.
    pub static SCENE_INSPECTOR = SpecialistDef {
        name: "scene-inspector",
        description: "Reads scenes and the game objects in them: which scenes exist and are \
                      open, their hierarchies, and one object's components and transform. Use \
                      it for questions about what a scene contains.",
        tool_view: &["scene_*", "gameobject_get", "gameobject_find"],
        model: "default",
        system_prompt: "You inspect the scenes of a game project. Open a scene only when the \
                        brief asks about one that is not open, never save, and report ids and \
                        hierarchy paths exactly as the tools give them.",
    };
}

specialist! {
    /// Finds, reads and organises the files under `Assets/`.
    pub static ASSET_LIBRARIAN = SpecialistDef {
        name: "asset-librarian",
        description: "Finds, reads and organises the files under `Assets/`: lists and searches \
                      assets, reads them, creates folders and materials, and moves files.",
        tool_view: &["asset_*"],
        model: "default",
        system_prompt: "You keep a game project's assets in order. Search before you create, \
                        never delete unless the brief says so, and report every path you \
                        created or moved.",
    };
}

specialist! {
    /// Reads the console log.
    pub static CONSOLE_READER = SpecialistDef {
        name: "console-reader",
        description: "Reads the editor's console log and summarises it: errors first, with \
                      the messages quoted verbatim.",
        tool_view: &["console_read"],
        model: "default",
        system_prompt: "You read a game editor's console log. Quote error messages verbatim \
                        and group repeated ones.",
    };
}

specialist! {
    /// Works the live Unity editor: compiles the scripts and reads what they report.
    pub static EDITOR_OPERATOR = SpecialistDef {
        name: "editor-operator",
        description: "Works the live Unity editor: compiles the scripts, reads and clears its \
                      console, and enters or leaves play mode. Use it to find out whether the \
                      project compiles and what the editor reported.",
        tool_view: &["unity_*"],
        model: "default",
        system_prompt: "You operate a Unity editor through its tools. Compile before you enter \
                        play mode, quote compiler errors with their file and line, and leave \
                        play mode as you found it.",
    };
}

/// The environment variable naming a team config file (TOML or JSON) with more specialists
/// and model endpoints.
pub const CONFIG_VAR: &str = "BURIL_TEAM_CONFIG";
/// The environment variable with the base URL of the default model endpoint (an
/// OpenAI-compatible server). Default: Ollama's, `http://127.0.0.1:11434/v1`.
pub const BASE_URL_VAR: &str = "BURIL_TEAM_BASE_URL";
/// The environment variable naming the default endpoint's model. Default: `llama3.2`.
pub const MODEL_VAR: &str = "BURIL_TEAM_MODEL";
/// The environment variable naming the environment variable that holds the default
/// endpoint's API key. Default: `OPENAI_API_KEY`.
pub const API_KEY_ENV_VAR: &str = "BURIL_TEAM_API_KEY_ENV";

/// The team of the `tools` binary: the specialists above (and any from the config file named
/// by [`CONFIG_VAR`]), the default model endpoint described by [`BASE_URL_VAR`],
/// [`MODEL_VAR`] and [`API_KEY_ENV_VAR`] (registered as `default`, and used for model names
/// that name no endpoint), and traces read and written under `root`, the project folder.
pub fn from_env(root: &Path) -> Result<Team, String> {
    let var = |name: &str, default: &str| {
        std::env::var(name)
            .ok()
            .filter(|value| !value.trim().is_empty())
            .unwrap_or_else(|| default.to_owned())
    };
    let endpoint = OpenAiCompatible::new(
        var(BASE_URL_VAR, "http://127.0.0.1:11434/v1"),
        var(MODEL_VAR, "llama3.2"),
    )
    .api_key_env(var(API_KEY_ENV_VAR, "OPENAI_API_KEY"));
    let mut builder = Team::builder()
        .model("default", endpoint.clone())
        .default_model(endpoint)
        .trace_dir(root);
    if let Some(path) = std::env::var_os(CONFIG_VAR).filter(|p| !p.is_empty()) {
        builder = builder
            .config_file(&path)
            .map_err(|error| format!("{CONFIG_VAR}: {error}"))?;
    }
    builder.build().map_err(|error| error.to_string())
}
