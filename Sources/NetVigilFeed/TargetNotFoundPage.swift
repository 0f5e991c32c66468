import Hummingbird

/// The `404` page of `GET /targets/{name}` for a name the configuration does not have: says so and links back to
/// the overview. Served only where target names are no secret (no token, or public mode); behind a token the target
/// page is served and its script says the same once the token shows the name unknown.
enum TargetNotFoundPage {
    private static let pieces = StatusPage.pieces(markup: markup, script: "", title: "netvigil: no such target")

    /// The page's HTML: the overview's head and style, no script. `{{name}}` is the escaped name.
    static let markup = #"""
        {{head}}
        <header>
          <h1><a href="../">netvigil</a></h1>
        </header>
        <main id="not-found">
          <h2>No target named “{{name}}”</h2>
          <p>This daemon's configuration has no target of that name; it may have been renamed or removed.</p>
          <p><a id="overview-link" href="../">← Back to the overview of all targets</a></p>
        </main>
        </body>
        </html>

        """#

    /// The page for `name` with `nonce` on its `<style>` element.
    static func html(name: String, nonce: String) -> String {
        pieces.map { $0.replacingOccurrences(of: "{{name}}", with: escaped(name)) }.joined(separator: nonce)
    }

    /// The `404 text/html` response (same security headers as the other pages).
    static func response(name: String) -> Response {
        let escapedName = escaped(name)
        var response = StatusPage.response(pieces.map { $0.replacingOccurrences(of: "{{name}}", with: escapedName) })
        response.status = .notFound
        return response
    }

    /// `text` with the five HTML-special characters as entities.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
