/// The served leaf's public key as a target last showed it: what `key_changed` compares the next result against.
struct LeafKey: Sendable, Equatable {
    /// `ProbeTarget.endpoint(of:)` of the probed URL: a key seen at another endpoint (the target's URL changed) is
    /// not compared.
    var endpoint: String
    /// SPKI pin, `sha256/BASE64`.
    var pin: String
}
