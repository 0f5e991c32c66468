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
    static let markup = #"""
        {{head}}
        <header>
          <h1><a id="home">netvigil</a> / <span id="target-name"></span></h1>
          <span id="summary" class="muted"></span>
          <span id="connection" class="connecting" role="status">connecting</span>
          <button type="button" id="forget-token" hidden>forget token</button>
        </header>
        <noscript><p>This page needs JavaScript; the same data is under <code>/v1/targets/</code>.</p></noscript>
        {{token-form}}
        <section id="missing" hidden>
          <h2>No target of this name</h2>
          <p>This daemon's configuration has no target of that name; it may have been renamed or removed.</p>
          <p><a id="missing-home">← Back to the overview of all targets</a></p>
        </section>
        <main id="content" hidden>
          <div id="target" class="card target"></div>
          <section id="addresses-section" hidden>
            <h2 id="addresses-title">Addresses</h2>
            <p id="addresses-summary"></p>
            <div class="scroll"><table id="addresses"><thead></thead><tbody></tbody></table></div>
          </section>
          <h2>Response time by phase <span class="range-choice"><button type="button" data-range="24h">24 h</button>
            <button type="button" data-range="7d">7 d</button></span></h2>
          <div id="uptime"></div>
          <div id="phase-chart"></div>
          <p id="phase-legend" class="legend muted"></p>
          <h2>Served chain</h2>
          <p id="pin-line" class="muted"></p>
          <p id="pin-match"></p>
          <div class="scroll"><table id="chain">
            <thead><tr><th>#</th><th>subject</th><th class="wide">issuer</th><th>pin (SPKI SHA-256)</th><th class="num">not after</th></tr></thead>
            <tbody></tbody>
          </table></div>
        \#(findingsMarkup)
          <h2>Alert history (7 days)</h2>
          <div class="scroll"><table id="alerts">
            <thead><tr><th>time</th><th>alert</th><th>state</th><th class="wide">message</th></tr></thead>
            <tbody></tbody>
          </table></div>
          <h2>Last 50 results</h2>
          <div class="scroll"><table id="results">
            <thead><tr><th>time</th><th>outcome</th><th class="num">HTTP</th><th class="num">total ms</th><th class="wide">address</th><th>error</th></tr></thead>
            <tbody></tbody>
          </table></div>
        </main>
        {{tail}}
        """#
}
