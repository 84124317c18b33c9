//! The registration allows its own linker attributes, not the tool's code: unsafe code in a
//! tool of a crate that denies it is still an error.
#![deny(unsafe_code)]

/// Reads a byte.
#[buril::tool]
fn byte_read() -> u8 {
    let value = 7u8;
    unsafe { *std::ptr::addr_of!(value) }
}

fn main() {}
