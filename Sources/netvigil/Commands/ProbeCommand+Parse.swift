import ArgumentParser

extension ProbeCommand {
    /// Makes the Swift runtime find and cache the conformances that ArgumentParser asks about last, when it checks
    /// the parsed values for `--help` and `--version`: whether the probe and each of its option groups is a command.
    /// Each first look-up scans all ~10,300 conformance records of the binary. Run on the warm-up thread once its
    /// set-up is done, beside the end of the parse (`CommandEventLoop.prepare`); a group missing here is only
    /// looked up by the parse itself. Not optimised, so that the compiler keeps the casts it can answer itself.
    @_optimize(none)
    static func lookUpConformances() {
        let types: [any ParsableArguments.Type] = [
            SourceOptions.self, AddressOptions.self, ProxyOptions.self, ClientCertificateOptions.self,
            TrustPolicyOptions.self, ConfiguredTargetOptions.self, ProbeCommand.self,
        ]
        for type in types {
            _ = (type as Any.Type) as? any ParsableCommand.Type
        }
    }
}
