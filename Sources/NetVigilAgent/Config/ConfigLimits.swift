/// Documented limits on a configuration, checked before anything is built from it.
///
/// They bound what a hostile or broken file can cost at load (time, memory, stack) and are far above what a real
/// fleet needs. Each one, when exceeded, is a located `ConfigError`. Bytes, nodes and targets bound the whole
/// configuration, the main file and its includes together: files that are each within the per-file limits could
/// otherwise add up to a load that costs gigabytes before the target limit refuses them.
public enum ConfigLimits {
    /// Largest configuration file (4 MiB); checked while reading, so a larger file is refused without reading it all.
    public static let maxFileBytes = 4 * 1024 * 1024
    /// Largest whole configuration (16 MiB), the main file and every included file; the included files' sizes are
    /// summed from `fstat` before any of them is read.
    public static let maxTotalBytes = 16 * 1024 * 1024
    /// Nodes (scalars, lists, mappings) written in the whole configuration, counted across the files before any
    /// included file is composed.
    public static let maxNodes = 1_000_000
    /// Nodes that YAML aliases (`*name`) add when expanded, summed over every alias (alias bombs stop here).
    public static let maxAliasExpansion = 100_000
    /// Nesting of lists and mappings, aliases expanded (bounds `params:` and `body.json` depth too).
    public static let maxDepth = 32
    /// Entries in `targets:`, across the whole configuration; counted while scanning, before composing.
    public static let maxTargets = 10_000
    /// Headers of one target (`headers:` plus `basic_auth`) or one webhook sink.
    public static let maxHeaders = 64
    /// Bytes of one header name plus its value.
    public static let maxHeaderBytes = 8 * 1024

    /// `4 MiB`, `1000000`: a limit as the operator reads it in messages.
    static func describe(bytes: Int) -> String {
        bytes % (1024 * 1024) == 0 ? "\(bytes / (1024 * 1024)) MiB" : "\(bytes) bytes"
    }

    /// `34.3 MiB`: a size measured, to compare with a limit.
    static func approximate(bytes: Int) -> String {
        let tenths = (bytes * 10 + 512 * 1024) / (1024 * 1024)
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
