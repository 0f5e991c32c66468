extension StatusPage {
    /// The overview's `page`: loads `v1/status` and the 24 h buckets of `v1/overview` (48 × 30 min, at most every
    /// 20 s), renders one card per target, then reachability, compact.
    static let overviewScript = PageAssets.overviewScript
}
