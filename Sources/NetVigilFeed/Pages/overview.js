  const OVERVIEW_EVERY_MS = 20000;
  let report = null, overview = null, overviewAt = 0;
  let overviewServerTime = 0;   // the server's clock when the buckets were read

  const PUBLIC = document.body.dataset.public === "true";
  const openEvents = (init) => fetch("v1/events", init);
  // started_at + uptime_seconds is the server's clock when it answered.
  function setClock() {
    const started = parseTime(report.started_at);
    if (started !== null) clockOffset = started + report.uptime_seconds * 1000 - Date.now();
  }
  const page = {
    async load(getJSON) {
      if (PUBLIC && !token) {
        // Public mode without a token: the redacted document, with the buckets inside.
        report = await getJSON(fetch("v1/public/status", options()));
        overview = report.overview;
        overviewAt = Date.now();
        setClock();
        overviewServerTime = serverNow();
        return;
      }
      const stale = Date.now() - overviewAt > OVERVIEW_EVERY_MS;
      const [status, buckets] = await Promise.all([getJSON(fetch("v1/status", options())),
        stale ? getJSON(fetch("v1/overview?range=24h&bucket=30m", options())) : null]);
      report = status;
      setClock();
      if (buckets) { overview = buckets; overviewAt = Date.now(); overviewServerTime = serverNow(); }
    },
    // The event stream needs the token: the public view polls instead.
    streams() { return !(PUBLIC && !token); },
    render() { renderTargets(); renderReachability(); renderSummary(); },
  };

  function fact(label, ...value) {
    return el("div", {}, el("dt", {}, label), el("dd", {}, ...value));
  }

  // The served chain's findings as a count, their codes in the title (public mode has
  // codes only); none, no badge.
  function findingsBadge(last) {
    const findings = last && Array.isArray(last.findings) ? last.findings : [];
    if (!findings.length) return null;
    return el("span", {class: "badge warn findings", "data-count": findings.length,
                       title: findings.map((f) => "[" + f.certificate + "] " + f.code).join("\n")},
              plural(findings.length, "finding"));
  }

  function targetCard(target, series) {
    const last = target.last_result || null;
    const timings = (last && last.timings) || {};
    const why = reason(target);
    const days = last ? last.certificate_days_left : null;
    const alerts = (target.firing_alerts || []).map((alert) =>
      el("span", {class: "badge bad alert", "data-kind": alert.kind, title: "since " + alert.since + "\n" + alert.message},
         "\u26A0 " + alert.kind));
    const uptime = target.uptime || {};
    // smtp://, ldaps://, ... targets have no HTTP status: their scheme stands in.
    const scheme = target.url.split(":")[0].replace(/s$/, "") === "http" ? "http" : target.url.split(":")[0];
    const card = el("article", {class: "card target", "data-target": target.name, "data-status": target.status,
                                "data-pin": last && last.pin_verdict ? last.pin_verdict : ""});
    const state = el("span", {class: "state " + statusTone[target.status]}, statusSymbol[target.status] || target.status);
    let streak = null;
    if (target.status === "down" && target.consecutive_failures > 1) {
      streak = el("span", {class: "muted streak"}, plural(target.consecutive_failures, "failure") + " in a row, ~"
        + duration(target.consecutive_failures * target.interval_seconds));
    }
    card.append(
      el("div", {class: "head"},
         el("a", {class: "name", href: "targets/" + encodeURIComponent(target.name)}, target.name),
         state, why.text ? el("span", {class: "reason " + why.tone}, why.text) : null, streak, ...alerts),
      el("span", {class: "url", title: target.url}, target.url));
    const addresses = addressSummary(target);
    if (addresses) card.append(addresses);
    if (series) {
      const from = parseTime(overview.from);
      const width = (parseTime(overview.until) - from) / series.ok.length;
      card.append(...uptimeBar(withLatest(series, last, from, width), 0, from, width));
    }
    const totals = series ? series.total_ms : [];
    card.append(el("dl", {class: "facts"},
      fact("uptime 24 h", el("span", {class: "uptime-24h"}, percent(uptime["24h"]))),
      fact("7 d", el("span", {class: "uptime-7d"}, percent(uptime["7d"]))),
      fact("response", sparkline(totals, "average response time per 30 min"), " ",
           el("span", {class: "phase-total"}, milliseconds(timings.total)), " ms"),
      fact("last probe", ageNode("span", target.last_probe_at)),
      fact("HTTP", el("span", {class: "http"}, last && last.http_status ? last.http_status : scheme === "http" ? dash : scheme),
           " ", el("span", {class: "http-version", title: last && last.http_version ? last.http_version : null},
                   last && last.http_version === "HTTP/2" ? "h2 " : ""),
           el("span", {class: "tls-version"}, last && last.tls_version ? last.tls_version : "")),
      fact("trust", last && last.trust_verdict ? badge(last.trust_verdict, trustTone(last.trust_verdict)) : dash,
           findingsBadge(last)),
      fact("pin", el("span", {class: "pin"}, last && last.pin_verdict ? badge(last.pin_verdict, pinTone[last.pin_verdict]) : dash)),
      fact("certificate", el("span", {class: "cert-days " + daysTone(days),
           title: last && last.certificate_expiry ? "expires " + last.certificate_expiry : null}, daysText(days)))));
    // A STARTTLS target's plain-text negotiation time goes in the tls phase's tooltip.
    const starttls = typeof timings.starttls === "number" ? "after " + milliseconds(timings.starttls) + " ms of STARTTLS" : null;
    card.append(el("div", {class: "phases"}, ...["resolve", "connect", "tls", "processing", "transfer"].flatMap((phase, i) =>
      [i ? " \u00b7 " : "", phase + " ", el("span", {class: "phase-" + phase, title: phase === "tls" ? starttls : null},
                                           milliseconds(timings[phase])), " ms"])));
    if (last && last.error_message) {
      card.append(el("div", {class: "detail", "data-detail-of": target.name},
        el("pre", {class: "message"}, (last.error_kind ? last.error_kind + ": " : "") + last.error_message)));
    }
    return card;
  }

  // The buckets with the newest result counted in when it came after the buckets were read, so a failure
  // shows in the bar at once rather than at the next `v1/overview` (every 20 s).
  function withLatest(series, last, from, width) {
    const time = last ? parseTime(last.time) : null;
    if (time === null || time <= overviewServerTime) return series;
    const index = Math.floor((time - from) / width);
    const outcome = {ok: "ok", failed: "failed", skipped: "skipped"}[last.outcome];
    if (!outcome || index < 0 || index >= series[outcome].length) return series;
    const copy = Object.assign({}, series, {[outcome]: series[outcome].slice()});
    copy[outcome][index] += 1;
    return copy;
  }

  function renderTargets() {
    const series = {};
    for (const entry of (overview && overview.targets) || []) series[entry.name] = entry;
    const cards = (report.targets || []).map((target) => targetCard(target, series[target.name]));
    if (!cards.length) cards.push(el("p", {class: "muted"}, "No probe targets are configured. Add targets to a "
      + "configuration file and start the daemon with it: netvigil run --config netvigil.yml (make run "
      + "CONFIG=netvigil.yml); the README's quick start has one to copy."));
    byId("targets").replaceChildren(...cards);
  }

  function reachabilityTone(status) {
    if (status === "NotReachable") return "bad";
    if (typeof status === "string" && status.startsWith("ReachableVia")) return "ok";
    return "warn";
  }

  function renderReachability() {
    const portal = report.captive_portal && report.captive_portal.state === "portal";
    const rows = (report.reachability || []).map((entry) => {
      const status = el("td", {class: "status"}, badge(entry.status, reachabilityTone(entry.status)));
      if (entry.target === "default" && portal) status.append(badge("portal", "bad"));
      const via = [entry.gateway ? "via " + entry.gateway : null, entry.source ? "src " + entry.source : null]
        .filter(Boolean).join(", ");
      return el("tr", {"data-target": entry.target, "data-status": entry.status,
                       "data-portal": portal && entry.target === "default" ? "true" : null},
        el("td", {class: "name"}, entry.target),
        status,
        el("td", {class: "flags wide"}, ...(entry.flags || []).map((flag) => badge(flag))),
        el("td", {class: "interface"}, entry.interface || dash),
        el("td", {class: "kind wide"}, entry.interface_kind || dash),
        el("td", {class: "via muted wide"}, via || dash),
        ageNode("td", entry.time, {class: "num age"}));
    });
    byId("reachability").tBodies[0].replaceChildren(...rows);

    const check = report.captive_portal;
    const line = byId("captive-portal");
    line.replaceChildren();
    if (check && (check.state !== "unknown" || check.message)) {
      line.append("Captive-portal check: ", badge(check.state, check.state === "portal" ? "bad" : (check.state === "free" ? "ok" : "warn")));
      if (check.http_status) line.append(" HTTP " + check.http_status);
      if (check.checked_at) line.append(", checked " + age(check.checked_at));
      if (check.message) line.append(" \u2014 " + check.message);
    }
    const banner = byId("banner");
    banner.hidden = !portal;
    banner.replaceChildren(portal ? "A captive portal intercepts traffic: default is NotReachable until it is cleared." : "");
  }

  function renderSummary() {
    const counts = {};
    for (const target of report.targets || []) counts[target.status] = (counts[target.status] || 0) + 1;
    const parts = ["v" + report.version, "up " + duration(report.uptime_seconds)];
    if (report.redacted) parts.push("public view");
    for (const status of ["up", "down", "skipped", "pending"]) if (counts[status]) parts.push(counts[status] + " " + status);
    byId("summary").textContent = parts.join(" \u00b7 ");
    const health = report.health;
    byId("health").hidden = !health || health.healthy;
    byId("health").textContent = health && !health.healthy ? "unhealthy: " + health.problems.join("; ") : "";
    byId("reachability-section").hidden = !!report.redacted;
    const store = report.store || {};
    byId("store").hidden = !report.store;
    byId("store").textContent = "store " + (store.path || "?") + ": " + (store.probe_results || 0) + " probe results, "
      + (store.alerts_pending || 0) + " alerts pending delivery";
  }