import Foundation
import Hummingbird

/// The page of one target behind `GET /targets/{name}`: phase chart over 24 h or 7 d, uptime bar, the served chain
/// with the pins it matched, its findings (`TargetPage+Findings.swift`), per-address rows, the last 50 results and
/// the alert history.
///
/// Like the overview it carries no data (its script reads `v1/targets/{name}` and the series routes with the token
/// the user typed in), shares the overview's style, helpers and connection code, and gets a fresh CSP nonce per
/// response.
enum TargetPage {
    private static let pieces = StatusPage.pieces(markup: markup, script: script, title: "netvigil target")

    /// The page's script: the overview's helpers and connection code around ``pageScript`` and its sections'
    /// renderers (``pinScript``, ``addressesScript``).
    static let script = StatusPage.wrap(pageScript + pinScript + addressesScript)

    /// The page with `nonce` on its `<style>` and `<script>` elements.
    static func html(nonce: String) -> String {
        pieces.joined(separator: nonce)
    }

    /// The `200 text/html` response (same security headers as the overview).
    static func response() -> Response {
        StatusPage.response(pieces)
    }

    /// The page's HTML, with the overview's head and token form (see ``StatusPage/markup``).
    static let markup = PageAssets.targetHTML
        .replacingOccurrences(of: "{{findingsMarkup}}", with: findingsMarkup)
}
