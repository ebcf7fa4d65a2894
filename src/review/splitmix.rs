//! splitmix64 (Steele, Lea, Flood 2014): a few lines, good enough for choosing and ordering
//! records, and the same sequence on every platform (team plans and sampled queues are
//! reproduced from their seed).

/// The generator's state.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next value of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..m` (multiply-shift: the bias, under m / 2^64, is far below what a
    /// sample of records could show).
    pub fn below(&mut self, m: usize) -> usize {
        let m = m as u128;
        usize::try_from((u128::from(self.next_u64()) * m) >> 64).unwrap_or(0)
    }
}
