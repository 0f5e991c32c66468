/// Acceptable status codes written as people write them: `200`, `200-299`, or a list of both.
public enum StatusCodeSet {
    /// Parses one item (`200` or `200-299`); nil when it is not a code or range within 100...599.
    public static func parse(item text: String) -> Set<Int>? {
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false)
            .map { Int($0.trimmingCharacters(in: .whitespaces)) }
        if bounds.count == 1, let code = bounds[0], (100...599).contains(code) {
            return [code]
        }
        if bounds.count == 2, let low = bounds[0], let high = bounds[1], 100 <= low, low <= high, high <= 599 {
            return Set(low...high)
        }
        return nil
    }

    /// Parses a comma-separated list (`200,204` or `200-299,304`); nil when any item is invalid.
    public static func parse(list text: String) -> Set<Int>? {
        var result: Set<Int> = []
        for item in text.split(separator: ",") {
            guard let codes = parse(item: String(item)) else { return nil }
            result.formUnion(codes)
        }
        return result.isEmpty ? nil : result
    }
}
