import Foundation
import Yams

/// `include: [conf.d/*.yml]` — targets, sinks, TLS policies and labels merged from other files.
///
/// Each pattern (a path or a glob, relative ones against the main file's directory) expands to its files in lexical
/// order; a pattern with no wildcard must name an existing file, a glob may match nothing (an empty `conf.d`). Included
/// files may hold only `targets`, `tls_policies`, `alerts.sinks` and `labels`, and include nothing themselves. A
/// name defined twice (a target, a sink, a host pattern, a label) is an error naming both places. SIGHUP re-reads
/// every file.
enum ConfigInclude {
    static let key = "include"
    /// Top-level keys of an included file.
    static let fragmentKeys = [TargetsSection.key, TLSPoliciesSection.key, AlertsSection.key, AgentConfiguration.labelsKey]
    /// Most files one configuration may include.
    static let maxFiles = 1_000

    /// One included file's checked top level.
    struct Fragment {
        let file: String
        let root: ConfigMapping

        /// The file's `alerts.sinks` list, if any.
        func sinks() throws -> ConfigValue? {
            guard let alerts = root[AlertsSection.key] else { return nil }
            return try alerts.mapping(allowedKeys: ["sinks"])["sinks"]
        }
    }

    /// Reads every file the patterns in `value` name. A file with an error is recorded in `collector` and left out.
    ///
    /// The whole-configuration limits hold before the expensive work: every file is opened (regular files only,
    /// without blocking) and the sizes from `fstat` are summed with the main file's `totals` before any is read; then
    /// each file is scanned with nodes and targets counted on from the files before it; only then is any composed.
    static func fragments(from value: ConfigValue, mainFile: String, totals: ConfigTotals,
                          collector: inout ConfigErrorCollector) throws -> [Fragment] {
        var files: [String] = []
        var seen: Set<String> = [canonical(mainFile)]
        for patternValue in try value.sequenceOrSingle() {
            let pattern = patternValue.resolvedPath(try patternValue.nonEmptyString())
            for file in try expand(pattern, at: patternValue) where seen.insert(canonical(file)).inserted {
                files.append(file)
            }
        }
        guard files.count <= maxFiles else {
            throw value.error("the patterns match \(files.count) files; at most \(maxFiles) may be included (the limit)")
        }
        var sized: [String] = []
        var bytes = totals.bytes
        for file in files {
            guard let size = try collector.attempt({ try ConfigFileReader.open(path: file).size }) else { continue }
            sized.append(file)
            bytes += size
        }
        guard bytes <= ConfigLimits.maxTotalBytes else { throw totalBytesError(bytes, files: sized.count, at: value) }

        var totals = totals
        var texts: [(file: String, text: String)] = []
        for file in sized {
            let text: String? = try collector.attempt {
                let text = try ConfigFileReader.read(path: file)
                totals.bytes += text.utf8.count
                // A file that grew since its size was summed.
                guard totals.bytes <= ConfigLimits.maxTotalBytes else {
                    throw totalBytesError(totals.bytes, files: sized.count, at: value)
                }
                try ConfigDocumentScan.check(text, file: file, totals: &totals)
                return text
            }
            if let text { texts.append((file, text)) }
            // Past a whole-configuration limit every further file would only repeat the error.
            if totals.isOverLimit || totals.bytes > ConfigLimits.maxTotalBytes { return [] }
        }

        var fragments: [Fragment] = []
        for (file, text) in texts {
            let fragment: Fragment? = try collector.attempt {
                let node: Node?
                do {
                    node = try Yams.compose(yaml: text, ConfigValue.resolver)
                } catch let error as YamlError {
                    throw ConfigError.fromYams(error, file: file)
                }
                guard let node else { return nil }
                let root = try ConfigValue(node: node, path: "", file: file).mapping(allowedKeys: fragmentKeys)
                return Fragment(file: file, root: root)
            } ?? nil
            if let fragment { fragments.append(fragment) }
        }
        return fragments
    }

    /// The one line for a configuration whose files together pass ``ConfigLimits/maxTotalBytes``.
    private static func totalBytesError(_ bytes: Int, files: Int, at value: ConfigValue) -> ConfigError {
        value.error("this file and the \(files) included files hold \(ConfigLimits.approximate(bytes: bytes)) together; "
                    + "a whole configuration may hold at most \(ConfigLimits.describe(bytes: ConfigLimits.maxTotalBytes)) (the limit)")
    }

    /// The files `pattern` names, sorted; a pattern without wildcards must name an existing file.
    private static func expand(_ pattern: String, at value: ConfigValue) throws -> [String] {
        guard pattern.contains(where: { "*?[".contains($0) }) else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: pattern, isDirectory: &isDirectory) else {
                throw value.error("no such file: \(pattern)")
            }
            guard !isDirectory.boolValue else { throw value.error("\(pattern) is a directory; include a glob such as \(pattern)/*.yml") }
            return [pattern]
        }
        var matches = glob_t()
        defer { globfree(&matches) }
        let status = glob(pattern, 0, nil, &matches)
        guard status == 0 || status == GLOB_NOMATCH else {
            throw value.error("cannot read the files matching \(pattern)")
        }
        var files: [String] = []
        for index in 0..<Int(matches.gl_pathc) {
            guard let path = matches.gl_pathv[index].map({ String(cString: $0) }) else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files.sorted()
    }

    /// `path` with symbolic links and `..` resolved, so one file reached twice is included once.
    private static func canonical(_ path: String) -> String {
        (path as NSString).resolvingSymlinksInPath
    }
}

extension ConfigValue {
    /// `file:line:col` of this value, for messages that point to a second place.
    var location: String {
        guard let mark = node.mark else { return file }
        return "\(file):\(mark.line):\(mark.column)"
    }
}
