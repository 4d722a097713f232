//! Deriving independent random streams from one seed.

/// A well-mixed 64-bit value of `a` and `b`: SplitMix64's finalizer applied to
/// `a ^ b * golden ratio`. Seeds of per-user, per-replication and per-population streams
/// come from it, so that two runs with one seed share them.
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
