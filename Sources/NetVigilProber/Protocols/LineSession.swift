/// The shared state of a `LineNegotiation`.
struct LineSession: Sendable {
    /// Whether TLS starts at once (smtps, imaps, pop3s): the greeting is then read over TLS.
    let implicitTLS: Bool
    var framer = LineFramer()
    /// Whether a `finish` or `fail` was returned: later input is ignored.
    var isOver = false
    /// The lines of the reply being read.
    var lines = ReplyLineCounter()

    init(implicitTLS: Bool) {
        self.implicitTLS = implicitTLS
    }
}
