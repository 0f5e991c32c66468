/// The netvigil release this build belongs to.
public enum NetVigilVersion {
    /// Semantic version string, e.g. `0.1.0`.
    public static let current = "0.1.0"
}
