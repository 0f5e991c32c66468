import Foundation
import Hummingbird

/// The self-contained HTML status page behind `GET /`.
///
/// The page carries no data: its inline script reads `/v1/status` and `/v1/events` (with the bearer token the user
/// types in, kept in `sessionStorage`), so it is served without the token. Every response gets a fresh CSP nonce that
/// is the only way its inline style and script may run; nothing is loaded from elsewhere.
enum StatusPage {
    /// The markup split at each nonce placeholder, so a response only joins the pieces.
    private static let pieces = pieces(markup: markup, script: script)
    /// The overview for public mode (`data-public="true"` on its body).
    private static let publicPieces = pieces(markup: markup, script: script, publicStatus: true)

    /// `markup` with the shared pieces (``head``, ``tokenForm``, ``tail``), ``style``, `title` and `script` inserted,
    /// split at each nonce placeholder.
    static func pieces(markup: String, script: String, title: String = "netvigil", publicStatus: Bool = false) -> [String] {
        markup.replacingOccurrences(of: "{{head}}", with: head)
            .replacingOccurrences(of: "{{token-form}}", with: tokenForm)
            .replacingOccurrences(of: "{{tail}}", with: tail)
            .replacingOccurrences(of: "{{title}}", with: title)
            .replacingOccurrences(of: "{{style}}", with: style)
            .replacingOccurrences(of: "{{public}}", with: publicStatus ? "true" : "false")
            .replacingOccurrences(of: "{{script}}", with: script)
            .components(separatedBy: "{{nonce}}")
    }

    /// The page with `nonce` on its `<style>` and `<script>` elements.
    static func html(nonce: String) -> String {
        pieces.joined(separator: nonce)
    }

    /// The Content-Security-Policy for a page rendered with `nonce`: only that inline style and script, requests
    /// only to this origin, no plugins, no framing, no form posts, no `<base>`.
    static func contentSecurityPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; "
            + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// 128 random bits, base64: a new one for every response.
    static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// The `200 text/html` response with its security headers; never cached (each carries its own nonce).
    static func response(publicStatus: Bool = false) -> Response {
        response(publicStatus ? publicPieces : pieces)
    }

    /// The response for a page split into `pieces` at its nonce placeholders.
    static func response(_ pieces: [String]) -> Response {
        let nonce = makeNonce()
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = contentSecurityPolicy(nonce: nonce)
        headers[.xContentTypeOptions] = "nosniff"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: pieces.joined(separator: nonce))))
    }
}
