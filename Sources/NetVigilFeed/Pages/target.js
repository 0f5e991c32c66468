  const NAME = decodeURIComponent(location.pathname.slice(location.pathname.lastIndexOf("/") + 1));
  const BASE = "../v1/targets/" + encodeURIComponent(NAME);
  const RANGES = {"24h": "30m", "7d": "4h"};
  const PHASES = [["resolve", "#8250df"], ["connect", "#0969da"], ["proxy", "#57606a"], ["tls", "#bf8700"],
                  ["revocation", "#e16f24"], ["processing", "#1a7f37"], ["transfer", "#cf222e"]];
  let range = "24h", data = null;
  byId("home").setAttribute("href", "../");
  byId("missing-home").setAttribute("href", "../");
  byId("target-name").textContent = NAME;
  document.title = NAME + " \u2013 netvigil";
  for (const button of document.querySelectorAll("[data-range]")) {
    button.addEventListener("click", () => { range = button.getAttribute("data-range"); refresh(); });
  }

  const openEvents = (init) => fetch("../v1/events", init);
  // Behind a token the page is served for any name: once the feed says the name is unknown, say so.
  const missing = (response) => {
    if (response.status === 404) { byId("missing").hidden = false; byId("content").hidden = true; }
    return response;
  };
  // A phone turned sideways gets a chart drawn for its new width.
  let resizeTimer = null;
  addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (data) renderCharts(); }, 200);
  });
  const page = {
    async load(getJSON) {
      const series = "range=" + range + "&bucket=" + RANGES[range];
      const [target, uptime, timings, alerts] = await Promise.all([
        getJSON(fetch(BASE, options()).then(missing)),
        getJSON(fetch(BASE + "/uptime?" + series, options())),
        getJSON(fetch(BASE + "/timings?" + series, options())),
        getJSON(fetch("../v1/history?kind=alerts&since=-7d&limit=1000&target=" + encodeURIComponent(NAME), options()))]);
      data = {target, uptime, timings, alerts};
    },
    render() { byId("missing").hidden = true; renderHead(); renderAddresses(); renderCharts(); renderChain(); renderPinMatch(); renderFindings(); renderAlerts(); renderResults(); },
  };

  function renderHead() {
    const target = data.target.target;
    const last = target.last_result || null;
    const why = reason(target);
    const uptime = target.uptime || {};
    const node = byId("target");
    node.setAttribute("data-target", target.name);
    node.setAttribute("data-status", target.status);
    node.setAttribute("data-pin", last && last.pin_verdict ? last.pin_verdict : "");
    node.replaceChildren(
      el("div", {class: "head"}, el("span", {class: "state " + statusTone[target.status]}, statusSymbol[target.status] || target.status),
         why.text ? el("span", {class: "reason " + why.tone}, why.text) : null,
         ...(target.firing_alerts || []).map((alert) => el("span", {class: "badge bad alert", "data-kind": alert.kind}, "\u26A0 " + alert.kind))),
      el("span", {class: "url", title: target.url}, target.url),
      el("dl", {class: "facts"},
        el("div", {}, el("dt", {}, "uptime 1 h / 24 h / 7 d"),
           el("dd", {}, [uptime["1h"], uptime["24h"], uptime["7d"]].map(percent).join(" / "))),
        el("div", {}, el("dt", {}, "last probe"), el("dd", {}, ageNode("span", target.last_probe_at))),
        el("div", {}, el("dt", {}, "interval"), el("dd", {}, duration(target.interval_seconds))),
        el("div", {}, el("dt", {}, "certificate"), el("dd", {class: daysTone(last && last.certificate_days_left)},
           daysText(last ? last.certificate_days_left : null)))));
    for (const button of document.querySelectorAll("[data-range]")) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-range") === range));
    }
  }

  function renderCharts() {
    const up = data.uptime;
    const width = (parseTime(up.until) - parseTime(up.from)) / up.buckets.length;
    const series = {ok: up.buckets.map((b) => b.ok), failed: up.buckets.map((b) => b.failed), skipped: up.buckets.map((b) => b.skipped)};
    byId("uptime").replaceChildren(...uptimeBar(series, 0, parseTime(up.from), width));

    // Stacked bars of each bucket's average phases; the bucket's title gives the numbers.
    const buckets = data.timings.buckets;
    const sums = buckets.map((b) => PHASES.reduce((sum, [phase]) => sum + ((b.phases[phase] || {}).avg || 0), 0));
    const top = Math.max(1, ...sums);
    // Drawn at the width it is shown at (one unit a pixel), so its labels keep their size on a phone.
    const shown = Math.round(byId("phase-chart").getBoundingClientRect().width);
    const W = shown >= 280 ? shown : 1000, H = W < 600 ? 140 : 170, left = 48, slot = (W - left) / buckets.length;
    const chart = svg("svg", {class: "chart", viewBox: "0 0 " + W + " " + (H + 14), role: "img",
                              "aria-label": "average response time by phase, " + range});
    for (const fraction of [0, 0.5, 1]) {
      const y = H - fraction * (H - 12);
      chart.append(svg("line", {class: "grid", x1: left, x2: W, y1: y, y2: y}),
                   svg("text", {x: 0, y: y + 3}, milliseconds(top * fraction) + " ms"));
    }
    buckets.forEach((bucket, i) => {
      let y = H;
      const group = svg("g", {class: "phase-bar", "data-count": bucket.count});
      const lines = [clock(parseTime(bucket.start)) + ": " + plural(bucket.count, "successful probe")];
      for (const [phase, colour] of PHASES) {
        const value = (bucket.phases[phase] || {}).avg;
        if (typeof value !== "number") continue;
        const height = value / top * (H - 12);
        y -= height;
        group.append(svg("rect", {x: (left + i * slot + 0.5).toFixed(1), y: y.toFixed(1), width: Math.max(0.5, slot - 1).toFixed(1),
                                  height: height.toFixed(2), fill: colour}));
        lines.push(phase + " " + milliseconds(value) + " ms (max " + milliseconds(bucket.phases[phase].max) + ")");
      }
      group.append(svg("title", {}, lines.join("\n")));
      chart.append(group);
    });
    chart.append(svg("text", {x: left, y: H + 12}, range === "24h" ? "24 h ago" : "7 days ago"),
                 svg("text", {x: W - 20, y: H + 12}, "now"));
    byId("phase-chart").replaceChildren(chart);
    // Only the phases some bucket has (no proxy or revocation lines for a direct probe without them).
    const present = PHASES.filter(([phase]) => buckets.some((b) => typeof (b.phases[phase] || {}).avg === "number"));
    byId("phase-legend").replaceChildren(...present.map(([phase, colour]) => {
      const swatch = el("span", {class: "swatch"});
      swatch.style.background = colour;
      return el("span", {}, swatch, phase);
    }));
  }

  function renderChain() {
    const results = data.target.results || [];
    const withChain = results.find((r) => (r.served_chain || []).length);
    const chain = withChain ? withChain.served_chain : [];
    const verdict = withChain ? withChain.pin_verdict : null;
    byId("pin-line").replaceChildren(withChain
      ? el("span", {}, "as served at " + withChain.time + "; pin verdict ", badge(verdict || dash, pinTone[verdict]),
           ", trust ", badge(withChain.trust_verdict || dash, trustTone(withChain.trust_verdict)))
      : "No TLS result yet.");
    byId("chain").tBodies[0].replaceChildren(...chain.map((cert, i) => {
      const left = Math.floor((parseTime(cert.not_after) - serverNow()) / 86400000);
      return el("tr", {class: "certificate"},
        el("td", {class: "num"}, i), el("td", {class: "subject"}, cert.subject), el("td", {class: "wide"}, cert.issuer),
        el("td", {class: "pin", "data-label": "pin"}, el("code", {}, cert.spki_pin)),
        el("td", {class: "num not-after " + daysTone(left), title: cert.not_after, "data-label": "not after"}, cert.not_after.slice(0, 10) + " (" + daysText(left) + ")"));
    }));
  }

{{findingsScript}}
  function renderAlerts() {
    const seen = new Set();
    const rows = [];
    for (const alert of (data.alerts.items || []).slice().reverse()) {
      const payload = alert.payload || {};
      const key = alert.time + "|" + alert.kind + "|" + payload.state;
      if (seen.has(key)) continue;   // one row per event, not per sink
      seen.add(key);
      rows.push(el("tr", {class: "alert-event", "data-state": payload.state || ""},
        el("td", {class: "age-abs", title: alert.time}, alert.time.replace("T", " ").slice(0, 19)),
        el("td", {}, alert.kind),
        el("td", {}, payload.state === "firing" ? badge("\u26A0 firing", "bad") : badge("\u2714 " + (payload.state || "?"), "ok")),
        el("td", {class: "wide"}, payload.message || "")));
    }
    if (!rows.length) rows.push(el("tr", {}, el("td", {colspan: 4, class: "muted"}, "No alerts in the last 7 days.")));
    byId("alerts").tBodies[0].replaceChildren(...rows);
  }

  function renderResults() {
    byId("results").tBodies[0].replaceChildren(...(data.target.results || []).map((result) => el("tr", {class: "result", "data-outcome": result.outcome},
      el("td", {title: result.time}, result.time.replace("T", " ").slice(0, 19)),
      el("td", {}, badge(result.outcome === "ok" ? "\u2714 ok" : result.outcome === "failed" ? "\u2716 failed" : "\u25CB skipped",
                         result.outcome === "ok" ? "ok" : result.outcome === "failed" ? "bad" : "warn")),
      el("td", {class: "num"}, result.http ? result.http.status : dash),
      el("td", {class: "num"}, milliseconds((result.timings_ms || {}).total)),
      el("td", {class: "wide muted"}, result.resolved_address || dash),
      el("td", {class: "message-cell"}, result.error ? (kindWords[result.error.kind] || result.error.kind) : ""))));
  }