extension TargetLabels {
    /// The top-level `labels:` of the main file and the included ones; a label set in two files is an error naming
    /// both places. Each mapping with an error is recorded and left out.
    init(merging values: [ConfigValue], collector: inout ConfigErrorCollector) throws {
        var merged: [String: String] = [:]
        var firstPlace: [String: ConfigValue] = [:]
        for value in values {
            guard let labels = try collector.attempt({ try TargetLabels(reading: value) }),
                  let mapping = try collector.attempt({ try value.mapping(allowedKeys: labels.pairs.map(\.name)) }) else { continue }
            if let (name, place) = mapping.entries.first(where: { firstPlace[$0.0] != nil }), let first = firstPlace[name] {
                collector.record(place.error("label \"\(name)\" is also set at \(first.location)"))
                continue
            }
            for (name, place) in mapping.entries { firstPlace[name] = place }
            merged.merge(labels.dictionary) { old, _ in old }
        }
        self.init(merged)
        if pairs.count > Self.maxCount, let last = values.last {
            collector.record(last.error("at most \(Self.maxCount) top-level labels across the included files (the limit)"))
        }
    }
}
