/// What evaluations of many targets in one recompute share, computed once: each link's kind, each link's
/// preferred source address, whether an address is a usable source, and (kept across recomputes) the
/// text of addresses. Reset (except the texts) whenever the mirror may have changed.
struct EvaluationCache {
    private struct SourceKey: Hashable {
        var index: Int32
        var family: IPAddress.Family
        var forLinkLocal: Bool
    }

    private var kinds: [Int32: InterfaceKind] = [:]
    private var sources: [SourceKey: IPAddress?] = [:]
    private var usable: [IPAddress: Bool] = [:]
    private var texts: [IPAddress: String] = [:]
    /// More distinct address texts than this and the table starts over (targets, gateways, sources).
    static let maxTexts = 4096

    /// Forgets everything derived from the mirror (keeps address texts).
    mutating func reset() {
        kinds.removeAll(keepingCapacity: true)
        sources.removeAll(keepingCapacity: true)
        usable.removeAll(keepingCapacity: true)
        if texts.count > Self.maxTexts { texts.removeAll() }
    }

    mutating func kind(of link: LinkInfo) -> InterfaceKind {
        if let kind = kinds[link.index] { return kind }
        let kind = link.kind
        kinds[link.index] = kind
        return kind
    }

    mutating func preferredSource(
        on index: Int32, family: IPAddress.Family, forLinkLocal: Bool, mirror: NetlinkMirror
    ) -> IPAddress? {
        let key = SourceKey(index: index, family: family, forLinkLocal: forLinkLocal)
        if let source = sources[key] { return source }
        let source = ReachabilityEvaluator.preferredSource(
            on: index, family: family, forLinkLocal: forLinkLocal, mirror: mirror)
        sources[key] = .some(source)
        return source
    }

    mutating func isUsableSource(_ address: IPAddress, mirror: NetlinkMirror) -> Bool {
        if let known = usable[address] { return known }
        let known = mirror.isUsableSource(address)
        usable[address] = known
        return known
    }

    mutating func text(_ address: IPAddress) -> String {
        if let text = texts[address] { return text }
        let text = address.description
        texts[address] = text
        return text
    }
}
