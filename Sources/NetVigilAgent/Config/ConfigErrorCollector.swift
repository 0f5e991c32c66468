/// Gathers the configuration errors of independent parts (sections, targets, sinks, policies, included files) so one
/// load reports every problem it can find, not only the first.
///
/// Parts are independent when an error in one cannot cause an error in another; inside one part the first error
/// still ends that part (what follows it could be misread).
struct ConfigErrorCollector {
    /// The most errors one load reports; the rest are counted.
    static let limit = 20

    private(set) var errors: [ConfigError] = []

    /// Runs `body`; a `ConfigError` is recorded and nil returned. Other errors propagate.
    mutating func attempt<T>(_ body: () throws -> T) rethrows -> T? {
        do {
            return try body()
        } catch let error as ConfigError {
            record(error)
            return nil
        }
    }

    /// Records `error` (and any it already carries).
    mutating func record(_ error: ConfigError) {
        var first = error
        let carried = first.others
        let carriedOmitted = first.omitted
        first.others = []
        first.omitted = 0
        errors.append(first)
        errors.append(contentsOf: carried)
        if carriedOmitted > 0 { omittedBeyondCarried += carriedOmitted }
    }

    private var omittedBeyondCarried = 0

    /// Throws the first error carrying the others (up to ``limit`` in all), when any was recorded.
    func finish() throws(ConfigError) {
        guard var first = errors.first else { return }
        let shown = errors.prefix(Self.limit)
        first.others = Array(shown.dropFirst())
        first.omitted = errors.count - shown.count + omittedBeyondCarried
        throw first
    }
}
