extension StatusPage {
    /// The overview's HTML. `{{head}}`, `{{token-form}}` and `{{tail}}` are replaced by ``head``, ``tokenForm`` and
    /// ``tail``, `{{title}}` by the page's title, `{{nonce}}` by the response's CSP nonce, `{{style}}` by ``style``,
    /// `{{script}}` by ``script``.
    ///
    /// The markup is static: the script fills it with DOM nodes and text (never HTML strings). The hidden `<svg>`
    /// gives the script the SVG namespace without a URL in the page.
    static let markup = #"""
        {{head}}
        <header>
          <h1>netvigil</h1>
          <span id="summary" class="muted">loading…</span>
          <span id="connection" class="connecting" role="status">connecting</span>
          <button type="button" id="forget-token" hidden>forget token</button>
        </header>
        <noscript><p>This page needs JavaScript; the same data is at <code>/v1/status</code>.</p></noscript>
        {{token-form}}
        <div id="banner" hidden></div>
        <main id="content" hidden>
          <p id="health" class="bad" hidden></p>
          <h2>Targets</h2>
          <div id="targets" class="cards"></div>
          <section id="reachability-section">
          <h2>Reachability</h2>
          <div class="scroll">
          <table id="reachability">
            <thead><tr><th>target</th><th>status</th><th class="wide">flags</th><th>interface</th><th class="wide">kind</th><th class="wide">via</th><th class="num">since</th></tr></thead>
            <tbody></tbody>
          </table>
          </div>
          <p id="captive-portal" class="muted"></p>
          </section>
          <p id="store" class="muted"></p>
        </main>
        {{tail}}
        """#

    /// Everything before the page's own `<header>`: document head with the nonce'd style, and the start of the body.
    static let head = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <link rel="icon" href="data:,">
        <title>{{title}}</title>
        <style nonce="{{nonce}}">
        {{style}}
        </style>
        </head>
        <body data-public="{{public}}">
        <svg id="svg-namespace" hidden aria-hidden="true"></svg>
        """#

    /// The end of every page: its nonce'd script.
    static let tail = #"""
        <script nonce="{{nonce}}">
        {{script}}
        </script>
        </body>
        </html>

        """#

    /// The form that asks for the bearer token when the feed answers 401.
    static let tokenForm = #"""
        <form id="token-form" hidden>
          <label for="token-input">This feed needs its bearer token (<code>feed.token</code>):</label><br>
          <input id="token-input" type="password" autocomplete="off" spellcheck="false" required>
          <button type="submit">Show status</button>
          <p id="token-message" class="bad"></p>
          <p class="muted">Kept in this tab's session storage only and sent as <code>Authorization: Bearer</code>.</p>
        </form>
        """#
}
