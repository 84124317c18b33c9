//! The model behind a specialist: given the brief, the system prompt, the tool definitions in
//! the model's provider profile and the history so far, it answers with tool calls or a final
//! report.

mod interface;
mod openai;
mod scripted;

pub use self::interface::{
    Model, ModelError, ModelFuture, ModelReply, ModelRequest, Report, ToolCall, Turn,
};
pub use self::openai::OpenAiCompatible;
pub use self::scripted::{ScriptedModel, Step};
