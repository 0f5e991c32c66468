import Hummingbird

/// The `404` page of `GET /targets/{name}` for a name the configuration does not have: says so and links back to
/// the overview. Served only where target names are no secret (no token, or public mode); behind a token the target
/// page is served and its script says the same once the token shows the name unknown.
enum TargetNotFoundPage {
    private static let pieces = StatusPage.pieces(markup: markup, script: "", title: "netvigil: no such target")

    /// The page's HTML: the overview's head and style, no script. `{{name}}` is the escaped name.
    static let markup = PageAssets.targetNotFoundHTML

    /// The page for `name` with `nonce` on its `<style>` element.
    static func html(name: String, nonce: String) -> String {
        pieces.map { $0.replacingOccurrences(of: "{{name}}", with: name.markupEscaped) }.joined(separator: nonce)
    }

    /// The `404 text/html` response (same security headers as the other pages).
    static func response(name: String) -> Response {
        let escapedName = name.markupEscaped
        var response = StatusPage.response(pieces.map { $0.replacingOccurrences(of: "{{name}}", with: escapedName) })
        response.status = .notFound
        return response
    }
}
