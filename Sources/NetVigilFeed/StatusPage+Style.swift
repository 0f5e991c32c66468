extension StatusPage {
    /// The CSS both pages share (inserted at `{{style}}` inside the nonce'd `<style>` element).
    ///
    /// Colours are never the only cue: bucket states differ in shape too (failed reach below the baseline, skipped
    /// are short and hatched, empty ones a thin line), and every status has its word and symbol.
    /// Nothing sets a width wider than the viewport: cards and tables shrink, long URLs are cut with an ellipsis.
    static let style = #"""
        :root { color-scheme: light dark; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #6e7781;
                --line: rgba(127, 127, 127, 0.3); --badge: rgba(127, 127, 127, 0.15); --skip: #8c959f; }
        * { box-sizing: border-box; }
        #svg-namespace { display: none; }
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 1rem 1.5rem;
               max-width: 90rem; }
        header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.3rem 1.2rem; }
        h1 { font-size: 1.4rem; margin: 0; } h1 a { color: inherit; text-decoration: none; }
        h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
        a { color: inherit; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { font-weight: 600; white-space: nowrap; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .muted, .url { color: var(--muted); }
        .ok { color: var(--ok); } .bad { color: var(--bad); } .warn { color: var(--warn); }
        .badge { display: inline-block; padding: 0 0.4rem; border-radius: 0.6rem; background: var(--badge);
                 font-size: 0.85em; margin: 0 0.2rem 0.1rem 0; white-space: nowrap; }
        .badge.bad { background: rgba(207, 34, 46, 0.15); } .badge.warn { background: rgba(154, 103, 0, 0.15); }
        .badge.ok { background: rgba(26, 127, 55, 0.12); }
        .message { white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.35 ui-monospace, monospace;
                   color: var(--bad); margin: 0.3rem 0 0; }
        #banner { padding: 0.5rem 0.8rem; border-radius: 0.3rem; margin-top: 1rem; background: rgba(207, 34, 46, 0.12); }
        #token-form { margin-top: 1rem; padding: 0.8rem; border: 1px solid var(--line); border-radius: 0.3rem; max-width: 32rem; }
        #token-form input { width: 20rem; max-width: 100%; }
        #connection.live::before { content: "\25CF  "; color: var(--ok); }
        #connection.polling::before, #connection.connecting::before { content: "\25CF  "; color: var(--warn); }
        #connection.error::before { content: "\2716  "; color: var(--bad); }
        #connection.error { color: var(--bad); font-weight: 600; }
        body.stale main { opacity: 0.6; }
        .scroll { overflow-x: auto; max-width: 100%; }
        /* Target cards. */
        .cards { display: grid; gap: 0.8rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 34rem), 1fr)); }
        .card { border: 1px solid var(--line); border-left-width: 4px; border-radius: 0.4rem; padding: 0.6rem 0.8rem; min-width: 0; }
        .card[data-status="up"] { border-left-color: var(--ok); } .card[data-status="down"] { border-left-color: var(--bad); }
        .card[data-status="skipped"] { border-left-color: var(--skip); }
        .card .head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.2rem 0.6rem; }
        .card .name { font-weight: 600; font-size: 1.05rem; overflow-wrap: anywhere; }
        .card .reason { font-weight: 600; }
        .card .url { display: block; font-size: 0.85em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .state { font-weight: 600; white-space: nowrap; }
        .facts { display: flex; flex-wrap: wrap; gap: 0.2rem 1.1rem; margin: 0.4rem 0 0; }
        .facts > div { min-width: 0; } .facts dt { font-size: 0.75em; color: var(--muted); } .facts dd { margin: 0; white-space: nowrap; }
        .phases { font-size: 0.8em; color: var(--muted); margin-top: 0.2rem; overflow-wrap: anywhere; }
        .spark { width: 7rem; height: 1.4rem; vertical-align: middle; }
        .spark polyline { fill: none; stroke: currentColor; stroke-width: 1.5; vector-effect: non-scaling-stroke; }
        /* Uptime bar: one cell per bucket, shape and colour by the bucket's worst outcome. */
        .bar { display: flex; gap: 1px; height: 1.6rem; align-items: center; margin-top: 0.5rem; }
        .bucket { flex: 1 1 0; min-width: 0; height: 1.1rem; border-radius: 1px; }
        .bucket[data-worst="ok"] { background: var(--ok); }
        .bucket[data-worst="failed"] { background: var(--bad); height: 1.6rem; }
        .bucket[data-worst="skipped"] { height: 0.6rem; background: repeating-linear-gradient(45deg, var(--skip) 0 2px, transparent 2px 4px);
                                        outline: 1px solid var(--skip); outline-offset: -1px; }
        .bucket[data-worst="none"] { height: 2px; background: var(--line); }
        .bar-legend { display: flex; justify-content: space-between; gap: 0.5rem; font-size: 0.75em; color: var(--muted); }
        /* Per-address (per-path) rows: the card's summary line, the target page's table and matched pins. */
        .address-summary { font-size: 0.9em; margin-top: 0.2rem; overflow-wrap: anywhere; }
        .address-summary .failing-address { font-weight: 600; }
        #pin-match code, td.pin code { overflow-wrap: anywhere; }
        .chart { width: 100%; height: auto; max-height: 18rem; display: block; }
        .chart .grid { stroke: var(--line); } .chart text { fill: var(--muted); font-size: 10px; }
        .legend span { margin-right: 0.8rem; white-space: nowrap; } .swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.25em; }
        .spark .single { stroke-dasharray: 3 2; opacity: 0.6; }
        .spark line { stroke: currentColor; stroke-width: 2; vector-effect: non-scaling-stroke; }
        @media (max-width: 700px) {
          body { padding: 0.6rem 0.7rem; }
          .wide { display: none; }
          th, td { padding: 0.25rem 0.3rem; }
          /* The served chain as one block per certificate: subject, then pin and not after on lines of their own. */
          #chain thead { display: none; }
          #chain tr { display: grid; grid-template-columns: 1.5rem minmax(0, 1fr); border-bottom: 1px solid var(--line); }
          #chain td { border: 0; min-width: 0; }
          #chain td.pin, #chain td.not-after { grid-column: 2; text-align: left; white-space: normal; }
          #chain td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: 0.85em; }
        }
        """#
}
