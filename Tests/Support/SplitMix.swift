// One seeded generator for every suite that needs reproducible "random" input: random walks,
// timer orders, byte patterns. SplitMix64 (Steele, Lea & Flood): small, fast, and the same
// sequence for a seed on every run, so a failure replays.

/// A deterministic pseudo-random generator (SplitMix64).
public struct SplitMix: RandomNumberGenerator, Sendable {
    /// The generator's state; the seed before the first call.
    public var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
