extension TargetPage {
    /// The target page's `renderAddresses`: the per-address (or per-path) rows of the target's last tick, as a
    /// summary line and a table (see ``StatusPage/addressScript``); the section stays hidden for one-address targets.
    static let addressesScript = PageAssets.targetAddressesScript
}
