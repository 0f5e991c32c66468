// libyaml, the parser under Yams (linked through the Yams product). Yams resolves an alias while composing and
// hashes mapping keys with aliases expanded, so an alias bomb must be caught on libyaml's events, before Yams runs.
internal import CYaml
import Foundation

/// One pass over libyaml's parse events that enforces `ConfigLimits` in time linear in the file: syntax, a single
/// document, nesting depth, node count, alias expansion (each anchor's expanded size is computed once), undefined
/// aliases, duplicate keys and the number of targets. Nodes and targets are counted on from the files scanned before
/// (``ConfigTotals``), so the limits hold for the whole configuration before any included file is composed. Errors
/// carry file, line, column, key path and a fixed description, never text of the document.
struct ConfigDocumentScan {
    /// An open list or mapping.
    private struct Frame {
        var isMapping: Bool
        var anchor: String?
        /// Expanded nodes in the subtree so far (itself included).
        var size = 1
        /// Expanded height of the subtree so far (1 = no children).
        var height = 1
        /// Children seen (a mapping counts keys and values).
        var count = 0
        /// The current key of a mapping, for key paths (`?` for a non-scalar key).
        var key: String?
        var keys: Set<String> = []
    }

    private let file: String
    private var stack: [Frame] = []
    private var anchors: [String: (size: Int, height: Int)] = [:]
    private var nodes: Int
    private var targets: Int
    /// Nodes and targets of the files scanned before this one.
    private let earlier: ConfigTotals
    private var expansion = 0
    private var documents = 0

    /// Checks `yaml`, counting its nodes and targets into `totals` (also when a limit is passed); throws the first
    /// problem found.
    static func check(_ yaml: String, file: String, totals: inout ConfigTotals) throws {
        var scan = ConfigDocumentScan(file: file, earlier: totals)
        defer { (totals.nodes, totals.targets) = (scan.nodes, scan.targets) }
        var text = yaml
        try text.withUTF8 { try scan.run($0) }
    }

    private init(file: String, earlier: ConfigTotals) {
        self.file = file
        self.earlier = earlier
        nodes = earlier.nodes
        targets = earlier.targets
    }

    private mutating func run(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw ConfigError(file: file, keyPath: "", message: "cannot start the YAML parser (out of memory?)")
        }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else {
                throw syntaxError(parser)
            }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { return }
            try handle(event)
        }
    }

    private mutating func handle(_ event: yaml_event_t) throws {
        let mark = event.start_mark
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 { throw error(at: mark, "a configuration file holds one YAML document (found a second '---')") }
        case YAML_SCALAR_EVENT:
            try beginNode(at: mark, scalarKey: Self.string(event.data.scalar.value, length: event.data.scalar.length))
            endNode(size: 1, height: 1, anchor: Self.string(event.data.scalar.anchor))
        case YAML_ALIAS_EVENT:
            try beginNode(at: mark, scalarKey: nil)
            let name = Self.string(event.data.alias.anchor) ?? ""
            guard let target = anchors[name] else { throw error(at: mark, "undefined YAML alias") }
            expansion += target.size
            if expansion > ConfigLimits.maxAliasExpansion {
                throw error(at: mark, "YAML aliases expand to more than \(ConfigLimits.maxAliasExpansion) nodes (the limit)")
            }
            if stack.count + target.height > ConfigLimits.maxDepth { throw depthError(at: mark) }
            endNode(size: target.size, height: target.height, anchor: nil)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            try beginNode(at: mark, scalarKey: nil)
            if stack.count + 1 > ConfigLimits.maxDepth { throw depthError(at: mark) }
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
            stack.append(Frame(isMapping: isMapping, anchor: Self.string(anchor)))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return }
            endNode(size: frame.size, height: frame.height, anchor: frame.anchor)
        default:
            break
        }
    }

    /// Counts a node (and a target, for an entry of the top-level `targets:` list) and, when it is a mapping key,
    /// checks it is not a duplicate.
    private mutating func beginNode(at mark: yaml_mark_t, scalarKey: String?) throws {
        nodes += 1
        if nodes > ConfigLimits.maxNodes {
            throw error(at: mark, earlier.nodes == 0
                        ? "the document has more than \(ConfigLimits.maxNodes) nodes (the limit)"
                        : "the configuration has more than \(ConfigLimits.maxNodes) nodes, counting the \(earlier.nodes) "
                          + "of the files read before this one (the limit for the whole configuration)")
        }
        if stack.count == 2, stack[0].key == TargetsSection.key, !stack[1].isMapping {
            targets += 1
            if targets > ConfigLimits.maxTargets {
                throw error(at: mark, earlier.targets == 0
                            ? "at most \(ConfigLimits.maxTargets) targets (the limit)"
                            : "at most \(ConfigLimits.maxTargets) targets in the whole configuration, counting the "
                              + "\(earlier.targets) of the files read before this one (the limit)")
            }
        }
        guard let index = stack.indices.last, stack[index].isMapping, stack[index].count % 2 == 0 else { return }
        guard let key = scalarKey else {
            stack[index].key = "?"
            return
        }
        guard stack[index].keys.insert(key).inserted else {
            stack[index].key = key
            throw error(at: mark, "duplicate key")
        }
        stack[index].key = key
    }

    /// Adds a finished node to its parent and remembers its anchor.
    private mutating func endNode(size: Int, height: Int, anchor: String?) {
        if let anchor { anchors[anchor] = (size, height) }
        guard let index = stack.indices.last else { return }
        stack[index].size += size
        stack[index].height = max(stack[index].height, height + 1)
        stack[index].count += 1
    }

    // MARK: Errors

    /// The key path of the node being read, e.g. `targets[2].params.a`.
    private var keyPath: String {
        var path = ""
        for frame in stack {
            if frame.isMapping {
                guard let key = frame.key else { break }
                path += path.isEmpty ? key : ".\(key)"
            } else {
                path += "[\(frame.count)]"
            }
        }
        return path
    }

    private func error(at mark: yaml_mark_t, _ message: String) -> ConfigError {
        ConfigError(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1, keyPath: keyPath, message: message)
    }

    private func depthError(at mark: yaml_mark_t) -> ConfigError {
        error(at: mark, "lists and mappings nest more than \(ConfigLimits.maxDepth) levels deep (the limit)")
    }

    /// libyaml's problem is one of its fixed phrases ("did not find expected key", ...), never document text; it is
    /// filtered to printable ASCII and shortened anyway.
    private func syntaxError(_ parser: yaml_parser_t) -> ConfigError {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let words = String(problem.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init).prefix(80))
        let mark = parser.problem_mark
        return ConfigError(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1, keyPath: keyPath,
                           message: "YAML syntax error: \(words.isEmpty ? "invalid YAML" : words)")
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, length: Int) -> String? {
        pointer.map { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
    }
}
