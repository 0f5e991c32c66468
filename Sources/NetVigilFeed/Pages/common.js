  const byId = (id) => document.getElementById(id);
  const dash = "\u2013";
  let clockOffset = 0;          // server clock minus this browser's clock, in ms
  const serverNow = () => Date.now() + clockOffset;

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    return fill(node, attributes, children);
  }
  const SVG = byId("svg-namespace").namespaceURI;
  function svg(tag, attributes, ...children) {
    return fill(document.createElementNS(SVG, tag), attributes, children);
  }
  function fill(node, attributes, children) {
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value !== null && value !== undefined && value !== false) node.setAttribute(name, String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }
  const badge = (text, tone) => el("span", {class: "badge" + (tone ? " " + tone : "")}, text);

  function milliseconds(value) {
    if (typeof value !== "number") return dash;
    return value < 10 ? value.toFixed(1) : value.toFixed(0);
  }
  function parseTime(text) {
    const value = text ? Date.parse(text) : NaN;
    return Number.isNaN(value) ? null : value;
  }
  // "45 s", "3 min", "3 h 12 min", "9 days".
  function duration(seconds) {
    seconds = Math.max(0, Math.round(seconds));
    if (seconds < 90) return seconds + " s";
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return minutes + " min";
    const hours = Math.floor(minutes / 60);
    if (hours < 48) return hours + " h" + (minutes % 60 ? " " + (minutes % 60) + " min" : "");
    const days = Math.floor(hours / 24);
    return days + " days" + (days < 7 && hours % 24 ? " " + (hours % 24) + " h" : "");
  }
  function age(time) {
    const then = parseTime(time);
    return then === null ? dash : duration((serverNow() - then) / 1000) + " ago";
  }
  const ageNode = (tag, time, attributes) =>
    el(tag, Object.assign({class: "age", "data-time": time || "", title: time || "never"}, attributes || {}), age(time));
  function tickAges() {
    for (const node of document.querySelectorAll(".age")) node.textContent = age(node.getAttribute("data-time"));
  }
  function clock(ms) {
    const date = new Date(ms);
    return String(date.getHours()).padStart(2, "0") + ":" + String(date.getMinutes()).padStart(2, "0");
  }
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

  // A target's state in words: the status with a symbol, the reason, its tone.
  const statusSymbol = {up: "\u25B2 up", down: "\u25BC down", skipped: "\u25CB skipped", pending: "\u2026 pending"};
  const statusTone = {up: "ok", down: "bad", skipped: "warn", pending: ""};
  const kindWords = {
    invalidRequest: "invalid request", dns: "name does not resolve", connectRefused: "connection refused",
    connectTimeout: "connect timed out", connect: "cannot connect", tlsHandshake: "TLS handshake failed",
    trust: "certificate not trusted", httpProtocol: "bad HTTP response", contentType: "unexpected content type",
    expectation: "expectation failed", bodyTooLarge: "response too large", timeout: "timed out",
    resourceExhausted: "agent out of resources", insecureRedirect: "redirect to plain HTTP",
    clientCertificateRequired: "client certificate required", clientCertificateRejected: "client certificate rejected",
    proxy: "proxy failed", starttlsUnavailable: "STARTTLS not offered", protocolGreeting: "unexpected greeting",
    cancelled: "cancelled at stop"};
  function reason(target) {
    const last = target.last_result || null;
    if (target.status === "pending") return {text: "not probed yet", tone: ""};
    if (!last) return {text: "no result", tone: ""};
    const days = last.certificate_days_left;
    if (last.pin_verdict === "mismatch" || last.pin_verdict === "mismatch_reported") return {text: "pin mismatch", tone: "bad"};
    if (typeof days === "number" && days < 0) return {text: "certificate expired", tone: "bad"};
    if (target.status === "skipped") {
      return {text: "not reachable" + (last.reachability_status ? " (" + last.reachability_status + ")" : ""), tone: "warn"};
    }
    if (target.status === "down") {
      if (last.error_kind === "status" && last.http_status) return {text: "HTTP " + last.http_status, tone: "bad"};
      if (last.error_kind === "trust" && last.trust_verdict && last.trust_verdict.startsWith("untrusted:")) {
        return {text: "certificate not trusted (" + last.trust_verdict.slice(10) + ")", tone: "bad"};
      }
      return {text: kindWords[last.error_kind] || last.error_kind || "failed", tone: "bad"};
    }
    if (last.pin_verdict === "expired") return {text: "pins expired", tone: "warn"};
    if (typeof days === "number" && days < 14) {
      return {text: "certificate expires in " + (days === 1 ? "1 day" : days + " days"), tone: "warn"};
    }
    return {text: last.http_status ? "HTTP " + last.http_status : "responding", tone: ""};
  }
  const pinTone = {matched: "ok", not_pinned: "", mismatch: "bad", mismatch_reported: "bad", expired: "warn", not_evaluated: "warn"};
  const trustTone = (verdict) => verdict === "trusted" ? "ok" : (verdict ? "bad" : "");
  const daysText = (days) => typeof days !== "number" ? dash : (days < 0 ? "expired" : days === 1 ? "1 day" : days + " days");
  const daysTone = (days) => typeof days !== "number" ? "" : (days < 0 ? "bad" : (days < 14 ? "warn" : ""));
  function percent(share) {
    if (typeof share !== "number") return dash;
    const value = share * 100;
    return (value >= 100 ? "100" : value >= 99 ? (Math.floor(value * 100) / 100).toFixed(2) : (Math.floor(value * 10) / 10).toFixed(1)) + " %";
  }

  // The uptime bar: one cell per bucket (data-worst ok / failed / skipped / none), with its counts as title.
  function uptimeBar(series, index, fromMs, widthMs) {
    const cells = [];
    let failedBuckets = 0, skippedBuckets = 0;
    for (let i = 0; i < series.ok.length; i++) {
      const ok = series.ok[i], failed = series.failed[i], skipped = series.skipped[i];
      const worst = failed > 0 ? "failed" : skipped > 0 ? "skipped" : ok > 0 ? "ok" : "none";
      if (worst === "failed") failedBuckets++;
      if (worst === "skipped") skippedBuckets++;
      const start = fromMs + i * widthMs;
      cells.push(el("span", {class: "bucket", "data-worst": worst, "data-start": start,
        title: clock(start) + "\u2013" + clock(start + widthMs) + ": " + (worst === "none" ? "no results"
          : ok + " ok, " + failed + " failed, " + skipped + " skipped")}));
    }
    const words = [failedBuckets ? plural(failedBuckets, "bucket") + " with failures" : "no failures",
                   skippedBuckets ? skippedBuckets + " skipped" : null].filter(Boolean).join(", ");
    const hours = Math.round(series.ok.length * widthMs / 3600000);
    return [
      el("div", {class: "bar", role: "img", "aria-label": "last " + hours + " h: " + words}, ...cells),
      el("div", {class: "bar-legend"}, el("span", {}, hours + " h ago"), el("span", {class: "bar-words"}, words), el("span", {}, "now"))];
  }

  // A sparkline of `values` (nulls are gaps) as an inline SVG polyline per run.
  function sparkline(values, label) {
    const numbers = values.filter((v) => typeof v === "number");
    const node = svg("svg", {class: "spark", viewBox: "0 0 100 20", preserveAspectRatio: "none", role: "img",
                             "aria-label": label});
    if (!numbers.length) return node;
    if (numbers.length === 1) {
      // One value is no line yet: a dashed level across and a tick where (when) it was measured.
      const at = values.findIndex((v) => typeof v === "number");
      const x = (values.length > 1 ? (at / (values.length - 1)) * 98 + 1 : 99).toFixed(1);
      node.classList.add("one-point");
      node.append(svg("polyline", {class: "single", points: "1,10 99,10"}),
                  svg("line", {x1: x, x2: x, y1: 3, y2: 17}));
      return node;
    }
    const max = Math.max(...numbers) || 1;
    let run = [];
    // A lone value (neighbours without results) becomes a short dash so it shows.
    const flush = () => { if (run.length) node.append(svg("polyline", {points: run.length === 1
      ? (run[0][0] - 3).toFixed(1) + "," + run[0][1] + " " + (run[0][0] + 3).toFixed(1) + "," + run[0][1]
      : run.map(([x, y]) => x.toFixed(1) + "," + y).join(" ")})); run = []; };
    values.forEach((v, i) => {
      if (typeof v !== "number") { flush(); return; }
      const x = values.length > 1 ? (i / (values.length - 1)) * 98 + 1 : 50;
      run.push([x, (19 - (v / max) * 18).toFixed(1)]);
    });
    flush();
    return node;
  }