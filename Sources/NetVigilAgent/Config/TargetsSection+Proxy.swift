import NetVigilProber

extension TargetsSection {
    /// Sets the target's proxy: its own `proxy:` (`none` = direct), else the top-level default. The proxy (URL,
    /// user, no_proxy; never the password) joins the fingerprint, so a changed top-level proxy restarts the target.
    static func applyProxy(to target: inout ProbeTarget, mapping: ConfigMapping, default defaultProxy: ProxyConfiguration?) throws {
        if let value = mapping[ProxySettings.key] {
            target.configuration.proxy = try ProxySettings(reading: value).configuration
        } else {
            target.configuration.proxy = defaultProxy
        }
        target.fingerprint += "\nproxy \(target.configuration.proxy?.description ?? "none")"
    }
}
