/// Answers.
#[buril::tool]
const fn debug_answer() -> u32 {
    42
}

fn main() {}
