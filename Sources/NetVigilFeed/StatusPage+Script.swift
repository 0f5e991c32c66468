extension StatusPage {
    /// The overview's script: ``commonScript``, ``overviewScript`` (the `page` it renders) and ``connectionScript``.
    static let script = wrap(overviewScript)

    /// `pageScript` (which defines `page`) between the shared helpers (``commonScript``, ``addressScript``) and the
    /// connection code, in one strict closure.
    static func wrap(_ pageScript: String) -> String {
        "\"use strict\";\n(() => {\n" + commonScript + addressScript + pageScript + connectionScript + "})();\n"
    }

    /// Token, data loading and live updates, for a `page` with `load(getJSON)` (fetches and keeps its data) and
    /// `render()`, and `openEvents(init)` (fetches the event stream relative to the page).
    ///
    /// - Data: relative URLs (the page also works behind a path-prefixing proxy).
    /// - Live updates: `v1/events` read with `fetch()` as a stream, because `EventSource` cannot send the
    ///   `Authorization` header; each event (coalesced) reloads the page's data. While the stream is down the page
    ///   says "disconnected, retrying", polls every 5 s and reconnects with back-off, sending `Last-Event-ID`.
    /// - Token: on a 401 the page shows a form; the token is kept in `sessionStorage` and sent as `Bearer`.
    static let connectionScript = PageAssets.connectionScript
}
