import NetVigilAgent

/// One scrape's Prometheus text (format 0.0.4) in chunks: the registry's families and the agent's per-target
/// series, families in name order and the samples of gauges and counters in the order of their text, so scrapes
/// read and diff well (histogram lines keep the registry's order). Every sample value, the registry's too, is
/// written by ``PrometheusText/value(_:)``.
///
/// The registry's part (process-wide series, a few hundred lines) is rendered and sorted up front; the per-target
/// series, nearly all of the text with many targets, are rendered as the chunks are taken, so a scrape of thousands
/// of targets holds one chunk at a time instead of megabytes of text and its sorted copy.
public struct MetricsExposition: Sendable, Sequence, IteratorProtocol {
    /// A family of the registry's, rendered; or a family of the per-target series, by index.
    private enum Segment: Sendable {
        case text([UInt8])
        case targetSeries(Int)
    }

    /// The size a chunk reaches before it is handed out (a chunk ends after a whole target's lines).
    public static let chunkSize = 64 * 1024

    private var segments: [Segment]
    private var targetSeries: TargetSeriesExposition
    private var position = 0

    /// - Parameters:
    ///   - registryText: what `PrometheusCollectorRegistry.emit` wrote (families and series in any order).
    ///   - targetSeries: the agent's per-target series of this scrape.
    init(registryText: [UInt8], targetSeries: TargetSeriesExposition) {
        var named = Self.families(registryText).map { (name: $0.name, segment: Segment.text($0.text)) }
        named += TargetSeriesExposition.familyNames.enumerated().map { (name: $0.element, segment: .targetSeries($0.offset)) }
        segments = named.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }
            .map(\.element.segment)
        self.targetSeries = targetSeries
    }

    /// The next chunk, at least `chunkSize` bytes unless it is the last; nil after the last.
    public mutating func next() -> [UInt8]? {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(Self.chunkSize + 4_096)
        while position < segments.count && chunk.count < Self.chunkSize {
            switch segments[position] {
            case .text(let text):
                chunk.append(contentsOf: text)
                position += 1
            case .targetSeries(let family):
                if targetSeries.append(family: family, into: &chunk, limit: Self.chunkSize) { position += 1 }
            }
        }
        return chunk.isEmpty && position == segments.count ? nil : chunk
    }

    /// The whole text at once (the chunks not taken yet).
    public var text: [UInt8] {
        var chunks = self
        var text: [UInt8] = []
        while let chunk = chunks.next() { text.append(contentsOf: chunk) }
        return text
    }

    /// The families of `text` by name, each rendered as its `# HELP`/`# TYPE` lines and its samples (sorted for
    /// gauges and counters). Lines are safe to split on `\n`: the format escapes line feeds in label values and help
    /// texts.
    static func families(_ text: [UInt8]) -> [(name: String, text: [UInt8])] {
        struct Family {
            var name: String
            var header: [ArraySlice<UInt8>] = []
            var samples: [ArraySlice<UInt8>] = []
            var sortsSamples = false
        }
        var families: [Family] = []
        for line in text.split(separator: UInt8(ascii: "\n")) {
            if line.starts(with: "# ".utf8) {
                let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 3)
                let name = fields.count > 2 ? String(decoding: fields[2], as: UTF8.self) : ""
                if families.last?.name != name || families.last?.samples.isEmpty == false {
                    families.append(Family(name: name))
                }
                families[families.count - 1].header.append(line)
                if fields.count > 3, fields[1].elementsEqual("TYPE".utf8) {
                    families[families.count - 1].sortsSamples =
                        fields[3].elementsEqual("gauge".utf8) || fields[3].elementsEqual("counter".utf8)
                }
            } else {
                if families.isEmpty { families.append(Family(name: "")) }
                // The registry prints a value as Swift prints the Double; netvigil's one formatter rewrites it.
                families[families.count - 1].samples.append(PrometheusText.rewritingValue(of: line))
            }
        }
        return families.map { family in
            let samples = family.sortsSamples ? family.samples.sorted { $0.lexicographicallyPrecedes($1) } : family.samples
            var rendered: [UInt8] = []
            for line in family.header + samples {
                rendered.append(contentsOf: line)
                rendered.append(UInt8(ascii: "\n"))
            }
            return (family.name, rendered)
        }
    }
}
