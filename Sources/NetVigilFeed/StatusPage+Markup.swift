extension StatusPage {
    /// The page's HTML and CSS. `{{nonce}}` is replaced by the response's CSP nonce, `{{script}}` by `script`.
    ///
    /// The markup is static: the script fills the tables with DOM nodes and text (never HTML strings).
    static let markup = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <link rel="icon" href="data:,">
        <title>netvigil</title>
        <style nonce="{{nonce}}">
        :root { color-scheme: light dark; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #6e7781;
                --line: rgba(127, 127, 127, 0.3); --badge: rgba(127, 127, 127, 0.15); }
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem; }
        header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.5rem 1.5rem; }
        h1 { font-size: 1.4rem; margin: 0; }
        h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 0.3rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { font-weight: 600; white-space: nowrap; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .muted, .url { color: var(--muted); }
        .url { font-size: 0.85em; word-break: break-all; }
        .ok { color: var(--ok); } .bad { color: var(--bad); } .warn { color: var(--warn); }
        .badge { display: inline-block; padding: 0 0.4rem; border-radius: 0.6rem; background: var(--badge);
                 font-size: 0.85em; margin: 0 0.2rem 0.1rem 0; white-space: nowrap; }
        .badge.bad { background: rgba(207, 34, 46, 0.15); } .badge.warn { background: rgba(154, 103, 0, 0.15); }
        .badge.ok { background: rgba(26, 127, 55, 0.12); }
        tr.detail td { border-top: none; padding-top: 0; }
        .message { white-space: pre-wrap; font: 12px/1.35 ui-monospace, monospace; color: var(--bad); margin: 0; }
        #banner { padding: 0.5rem 0.8rem; border-radius: 0.3rem; margin-top: 1rem; background: rgba(207, 34, 46, 0.12); }
        #token-form { margin-top: 1rem; padding: 0.8rem; border: 1px solid var(--line); border-radius: 0.3rem; max-width: 32rem; }
        #token-form input { width: 20rem; max-width: 100%; }
        #connection.live::before { content: "\25CF  "; color: var(--ok); }
        #connection.polling::before, #connection.connecting::before { content: "\25CF  "; color: var(--warn); }
        #connection.error::before { content: "\25CF  "; color: var(--bad); }
        .scroll { overflow-x: auto; }
        </style>
        </head>
        <body>
        <header>
          <h1>netvigil</h1>
          <span id="summary" class="muted">loading…</span>
          <span id="connection" class="connecting">connecting</span>
          <button type="button" id="forget-token" hidden>forget token</button>
        </header>
        <noscript><p>This page needs JavaScript; the same data is at <code>/v1/status</code>.</p></noscript>
        <form id="token-form" hidden>
          <label for="token-input">This feed needs its bearer token (<code>feed.token</code>):</label><br>
          <input id="token-input" type="password" autocomplete="off" spellcheck="false" required>
          <button type="submit">Show status</button>
          <p id="token-message" class="bad"></p>
          <p class="muted">Kept in this tab's session storage only and sent as <code>Authorization: Bearer</code>.</p>
        </form>
        <div id="banner" hidden></div>
        <main id="content" hidden>
          <p id="health" class="bad" hidden></p>
          <h2>Reachability</h2>
          <div class="scroll">
          <table id="reachability">
            <thead><tr><th>target</th><th>status</th><th>flags</th><th>interface</th><th>kind</th><th>via</th><th>since</th></tr></thead>
            <tbody></tbody>
          </table>
          </div>
          <p id="captive-portal" class="muted"></p>
          <h2>Probe targets</h2>
          <div class="scroll">
          <table id="targets">
            <thead><tr>
              <th>target</th><th>status</th><th class="num">last probe</th>
              <th class="num">resolve</th><th class="num">connect</th><th class="num">tls</th>
              <th class="num">processing</th><th class="num">transfer</th><th class="num">total ms</th>
              <th class="num">HTTP</th><th>TLS</th><th>trust</th><th>pin</th><th class="num">cert days</th><th>alerts</th>
            </tr></thead>
            <tbody></tbody>
          </table>
          </div>
          <p id="store" class="muted"></p>
        </main>
        <script nonce="{{nonce}}">
        {{script}}
        </script>
        </body>
        </html>

        """#
}
