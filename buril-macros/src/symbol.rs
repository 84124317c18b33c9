//! The attribute's keys, in one place.

pub const NAME: &str = "name";
pub const FAMILY: &str = "family";
pub const ALIASES: &str = "aliases";
pub const OFF_THREAD: &str = "off_thread";
pub const INLINE: &str = "inline";
pub const DANGEROUS: &str = "dangerous";
pub const UNDOCUMENTED_PARAMS: &str = "undocumented_params";
pub const TITLE: &str = "title";
pub const READ_ONLY: &str = "read_only";
pub const DESTRUCTIVE: &str = "destructive";
pub const IDEMPOTENT: &str = "idempotent";
pub const OPEN_WORLD: &str = "open_world";
pub const CRATE: &str = "crate";
pub const FIXED_NAME: &str = "fixed_name";
pub const HEADERS: &str = "headers";
pub const ICONS: &str = "icons";
pub const META: &str = "meta";
pub const CONFIRM: &str = "confirm";
pub const TASK: &str = "task";
pub const UI: &str = "ui";
pub const EDITOR: &str = "editor";

/// Every key, for "unknown key" messages.
pub const ALL: &[&str] = &[
    NAME,
    FAMILY,
    ALIASES,
    OFF_THREAD,
    INLINE,
    DANGEROUS,
    UNDOCUMENTED_PARAMS,
    TITLE,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    FIXED_NAME,
    HEADERS,
    ICONS,
    META,
    CONFIRM,
    TASK,
    UI,
    EDITOR,
    CRATE,
];
