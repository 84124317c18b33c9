/// Hands the task to another agent.
#[buril::tool(family = "agent_team")]
fn agent_handoff() {}

fn main() {}
