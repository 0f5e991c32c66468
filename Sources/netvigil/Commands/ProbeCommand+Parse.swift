import ArgumentParser

extension ProbeCommand {
    /// Makes the Swift runtime find and cache the conformances ArgumentParser looks up for the probe's option
    /// groups, in the order the parse reaches them: whether each is `ParsableArguments` (checked when the type of
    /// its `OptionGroup` is made from its mangled name) and has a custom mirror (`Mirror(reflecting:)`), then, as
    /// the parse does last, whether each is a command (the check for `--help` and `--version`). Each first look-up
    /// scans all ~10,300 conformance records of the binary. The warm-up thread runs this first, while the main
    /// thread parses (`CommandEventLoop.prepare`): it gets to each group before the parse, which then finds the
    /// answer cached; one the parse reaches first is made there, as before. Not optimised, so that the compiler,
    /// which can tell the answers from the types, keeps the casts.
    @_optimize(none)
    static func lookUpConformances() {
        let groups: [any ParsableArguments.Type] = [
            ConfiguredTargetOptions.self, TrustPolicyOptions.self, ClientCertificateOptions.self, ProxyOptions.self,
            AddressOptions.self, SourceOptions.self,
        ]
        for group in groups {
            _ = (group as Any.Type) as? any ParsableArguments.Type
            _ = (group as Any.Type) as? any CustomReflectable.Type
        }
        for type in groups + [ProbeCommand.self] {
            _ = (type as Any.Type) as? any ParsableCommand.Type
        }
    }
}
