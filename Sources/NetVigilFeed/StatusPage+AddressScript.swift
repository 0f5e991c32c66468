extension StatusPage {
    /// Helpers both pages share for targets with several results per tick (`addresses: all`, `connect_to`, and
    /// per-path rows): each row's label and reason in words, the overview card's one-line summary, and the target
    /// page's table.
    ///
    /// A row is an entry of a target's `addresses` in `/v1/status`. Rows that carry an `interface` (per-path rows)
    /// are called paths and get an interface column; nothing else changes for them.
    static let addressScript = PageAssets.addressSummaryScript
}
