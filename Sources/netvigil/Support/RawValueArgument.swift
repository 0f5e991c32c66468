import ArgumentParser

/// An option value written as its raw value (`--pinning publicKey`, `--profile webpki`).
///
/// ArgumentParser's own `allValueStrings` for such a type maps `allCases` through a key path. The first use of that
/// key path in a process has the Swift runtime look up two conformances, and each first look-up scans all the
/// conformance records of the binary, a cost a fresh `netvigil probe` would pay for each such option. This one maps
/// with a closure and gives the same strings.
protocol RawValueArgument: ExpressibleByArgument, CaseIterable, RawRepresentable<String> {}

extension RawValueArgument {
    public static var allValueStrings: [String] { allCases.map { $0.rawValue } }
}
