//! The hasher of the registry's index of linked tool names.

use std::hash::Hasher;

/// Hashes tool names for the registry's index: FxHash (a rotate, a xor and a multiply per
/// eight bytes), several times cheaper than the default SipHash on a short name. SipHash guards
/// a table against keys chosen to collide; this table's keys are the binary's own tool names,
/// fixed when it is built, so a caller choosing the names it looks up cannot degrade it.
#[derive(Default, Clone, Copy)]
pub(crate) struct NameHasher(u64);

impl NameHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.add(tail_word(rest) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    #[inline]
    fn finish(&self) -> u64 {
        // The table takes its bucket from the low bits; the multiply mixes into the high ones.
        self.0.rotate_left(26)
    }
}

/// The last 1 to 7 bytes of a name as one word, every byte in it, read with fixed-size loads:
/// copying a variable length into a buffer would call `memcpy` and stall the load after it.
#[inline]
fn tail_word(rest: &[u8]) -> u64 {
    let n = rest.len();
    if n >= 4 {
        // Two overlapping four-byte reads cover all of 4 to 7 bytes.
        let mut low = [0u8; 4];
        let mut high = [0u8; 4];
        low.copy_from_slice(&rest[..4]);
        high.copy_from_slice(&rest[n - 4..]);
        u64::from(u32::from_le_bytes(low)) | (u64::from(u32::from_le_bytes(high)) << 32)
    } else {
        // First, middle and last byte cover all of 1 to 3 bytes.
        u64::from(rest[0]) | (u64::from(rest[n / 2]) << 8) | (u64::from(rest[n - 1]) << 16)
    }
}
