import Hummingbird

/// The status page's frame for pages of another module (the fleet hub's, `netvigil fleet serve`): the same head,
/// style, token form and Content-Security-Policy around that module's own markup and script.
public struct FeedPage: Sendable {
    private let pieces: [String]

    /// `markup` may use `{{head}}`, `{{token-form}}`, `{{tail}}`, `{{title}}` and `{{nonce}}` as the agent's pages do;
    /// `script` defines the `page` object the shared `connection.js` loads and renders (as the agent's pages do),
    /// and is inserted at `{{script}}` between the shared `common.js` and `connection.js`.
    public init(markup: String, script: String, title: String) {
        pieces = StatusPage.pieces(markup: markup,
                                   script: [StatusPage.commonScript, script, StatusPage.connectionScript].joined(separator: "\n"),
                                   title: title)
    }

    /// `200 text/html` with a fresh nonce, never cached.
    public func response() -> Response {
        StatusPage.response(pieces)
    }
}
