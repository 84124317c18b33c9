/// Hands the task to another agent.
#[buril::tool(family = "AgentTeam")]
fn agent_team_handoff() {}

fn main() {}
