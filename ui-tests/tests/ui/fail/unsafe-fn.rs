/// Reads raw memory.
#[buril::tool]
unsafe fn debug_peek(
    /// The address.
    address: usize,
) -> u8 {
    unsafe { *(address as *const u8) }
}

fn main() {}
