extension StatusPage {
    /// The page's script.
    ///
    /// - Data: `GET v1/status` (relative, so the page also works behind a path-prefixing proxy).
    /// - Live updates: `v1/events` read with `fetch()` as a stream, because `EventSource` cannot send the
    ///   `Authorization` header; each event (coalesced) re-fetches `v1/status`. While the stream is down the page polls
    ///   `v1/status` every 5 s and reconnects with back-off, sending `Last-Event-ID`.
    /// - Token: on a 401 the page shows a form; the token is kept in `sessionStorage` and sent as `Bearer`.
    /// - Server strings only ever reach the DOM as text nodes or attribute values (`textContent`, `append`,
    ///   `setAttribute`), never as HTML.
    static let script = #"""
        "use strict";
        (() => {
          const TOKEN_KEY = "netvigil.token";
          const POLL_MS = 5000;
          const byId = (id) => document.getElementById(id);
          let token = sessionStorage.getItem(TOKEN_KEY);
          let report = null;
          let clockOffset = 0;          // server clock minus this browser's clock, in ms
          let lastEventId = null;
          let stream = null;            // AbortController of the running event stream
          let pollTimer = null;
          let refreshTimer = null;
          let waitingForToken = null;   // resolves when the user submits a token

          // DOM building: text only.
          function el(tag, attributes, ...children) {
            const node = document.createElement(tag);
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
          const dash = "\u2013";

          function milliseconds(value) {
            if (typeof value !== "number") return dash;
            return value < 10 ? value.toFixed(1) : value.toFixed(0);
          }

          function parseTime(text) {
            const value = text ? Date.parse(text) : NaN;
            return Number.isNaN(value) ? null : value;
          }

          function age(time) {
            const then = parseTime(time);
            if (then === null) return dash;
            const seconds = Math.max(0, Math.round((Date.now() + clockOffset - then) / 1000));
            if (seconds < 90) return seconds + " s ago";
            if (seconds < 5400) return Math.round(seconds / 60) + " min ago";
            if (seconds < 172800) return Math.round(seconds / 3600) + " h ago";
            return Math.round(seconds / 86400) + " d ago";
          }
          const ageCell = (time, attributes) => el("td", Object.assign({class: "num age", "data-time": time || ""}, attributes || {}), age(time));

          function reachabilityTone(status) {
            if (status === "NotReachable") return "bad";
            if (typeof status === "string" && status.startsWith("ReachableVia")) return "ok";
            return "warn";
          }
          const targetTone = {up: "ok", down: "bad", skipped: "warn", pending: ""};
          const pinTone = {matched: "ok", not_pinned: "", mismatch: "bad", mismatch_reported: "bad", expired: "warn", not_evaluated: "warn"};
          const trustTone = (verdict) => verdict === "trusted" ? "ok" : (verdict ? "bad" : "");

          // Rendering.
          function render() {
            const portal = report.captive_portal && report.captive_portal.state === "portal";
            const reachabilityRows = (report.reachability || []).map((entry) => {
              const status = el("td", {class: "status"}, badge(entry.status, reachabilityTone(entry.status)));
              if (entry.target === "default" && portal) status.append(badge("portal", "bad"));
              const via = [entry.gateway ? "via " + entry.gateway : null, entry.source ? "src " + entry.source : null]
                .filter(Boolean).join(", ");
              return el("tr", {"data-target": entry.target, "data-status": entry.status, "data-portal": portal && entry.target === "default" ? "true" : null},
                el("td", {class: "name"}, entry.target),
                status,
                el("td", {class: "flags"}, ...(entry.flags || []).map((flag) => badge(flag))),
                el("td", {class: "interface"}, entry.interface || dash),
                el("td", {class: "kind"}, entry.interface_kind || dash),
                el("td", {class: "via muted"}, via || dash),
                ageCell(entry.time));
            });
            byId("reachability").tBodies[0].replaceChildren(...reachabilityRows);

            const check = report.captive_portal;
            const portalLine = byId("captive-portal");
            portalLine.replaceChildren();
            if (check && (check.state !== "unknown" || check.message)) {
              portalLine.append("Captive-portal check: ", badge(check.state, check.state === "portal" ? "bad" : (check.state === "free" ? "ok" : "warn")));
              if (check.http_status) portalLine.append(" HTTP " + check.http_status);
              if (check.checked_at) portalLine.append(", checked " + age(check.checked_at));
              if (check.message) portalLine.append(" \u2014 " + check.message);
            }
            const banner = byId("banner");
            banner.hidden = !portal;
            banner.replaceChildren(portal ? "A captive portal intercepts traffic: default is NotReachable until it is cleared." : "");

            const targetRows = [];
            for (const target of report.targets || []) {
              const last = target.last_result || null;
              const timings = (last && last.timings) || {};
              const days = last ? last.certificate_days_left : null;
              const daysTone = typeof days !== "number" ? "" : (days < 0 ? "bad" : (days < 14 ? "warn" : ""));
              const alerts = (target.firing_alerts || []).map((alert) =>
                el("span", {class: "badge bad alert", "data-kind": alert.kind, title: "since " + alert.since + "\n" + alert.message}, alert.kind));
              targetRows.push(el("tr", {class: "target", "data-target": target.name, "data-status": target.status,
                                        "data-pin": last && last.pin_verdict ? last.pin_verdict : ""},
                el("td", {class: "name"}, target.name, el("br"), el("span", {class: "url"}, target.url)),
                el("td", {class: "status"}, badge(target.status, targetTone[target.status]),
                   target.consecutive_failures > 1 ? el("span", {class: "muted"}, " \u00d7" + target.consecutive_failures) : null),
                ageCell(target.last_probe_at, {title: target.last_probe_at || "never"}),
                ...["resolve", "connect", "tls", "processing", "transfer", "total"].map((phase) =>
                  el("td", {class: "num phase-" + phase}, milliseconds(timings[phase]))),
                el("td", {class: "num http", title: last && last.http_version ? last.http_version : null},
                   last && last.http_status ? last.http_status + (last.http_version === "HTTP/2" ? " h2" : "") : dash),
                el("td", {class: "tls-version"}, last && last.tls_version ? last.tls_version : dash),
                el("td", {class: "trust"}, last && last.trust_verdict ? badge(last.trust_verdict, trustTone(last.trust_verdict)) : dash),
                el("td", {class: "pin"}, last && last.pin_verdict ? badge(last.pin_verdict, pinTone[last.pin_verdict]) : dash),
                el("td", {class: "num cert-days " + daysTone, title: last && last.certificate_expiry ? "expires " + last.certificate_expiry : null},
                   typeof days === "number" ? days : dash),
                el("td", {class: "alerts"}, ...(alerts.length ? alerts : [dash]))));
              if (last && last.error_message) {
                targetRows.push(el("tr", {class: "detail", "data-detail-of": target.name},
                  el("td"), el("td", {colspan: 14},
                    el("pre", {class: "message"}, (last.error_kind ? last.error_kind + ": " : "") + last.error_message))));
              }
            }
            byId("targets").tBodies[0].replaceChildren(...targetRows);

            const counts = {};
            for (const target of report.targets || []) counts[target.status] = (counts[target.status] || 0) + 1;
            const parts = ["v" + report.version, "up " + Math.round(report.uptime_seconds) + " s"];
            for (const status of ["up", "down", "skipped", "pending"]) if (counts[status]) parts.push(counts[status] + " " + status);
            byId("summary").textContent = parts.join(" \u00b7 ");
            const health = report.health;
            byId("health").hidden = !health || health.healthy;
            byId("health").textContent = health && !health.healthy ? "unhealthy: " + health.problems.join("; ") : "";
            const store = report.store || {};
            byId("store").textContent = "store " + (store.path || "?") + ": " + (store.probe_results || 0) + " probe results, "
              + (store.alerts_pending || 0) + " alerts pending delivery";
            byId("content").hidden = false;
          }

          function tickAges() {
            for (const cell of document.querySelectorAll("td.age")) cell.textContent = age(cell.getAttribute("data-time"));
          }

          // Connection state.
          function setConnection(state, text) {
            const node = byId("connection");
            node.className = state;
            node.textContent = text;
          }

          function headers(extra) {
            const result = Object.assign({}, extra || {});
            if (token) result.Authorization = "Bearer " + token;
            return result;
          }

          // A 401 for a request sent with `used`: ask again, unless a newer token was entered meanwhile.
          function refused(used) {
            if (used !== token) return;
            askForToken(used ? "The feed refused that token." : "");
          }

          function askForToken(message) {
            if (stream) stream.abort();
            token = null;
            sessionStorage.removeItem(TOKEN_KEY);
            byId("forget-token").hidden = true;
            byId("content").hidden = true;
            byId("token-form").hidden = false;
            byId("token-message").textContent = message || "";
            byId("token-input").focus();
            setConnection("error", "token needed");
            if (!waitingForToken) {
              let resolve;
              waitingForToken = new Promise((r) => { resolve = r; });
              waitingForToken.resolve = resolve;
            }
          }

          byId("token-form").addEventListener("submit", (event) => {
            event.preventDefault();
            const value = byId("token-input").value.trim();
            if (!value) return;
            token = value;
            sessionStorage.setItem(TOKEN_KEY, token);
            byId("token-input").value = "";
            byId("token-form").hidden = true;
            byId("forget-token").hidden = false;
            const waiting = waitingForToken;
            waitingForToken = null;
            if (waiting) waiting.resolve();
            refresh();
          });

          byId("forget-token").addEventListener("click", () => {
            askForToken("Token forgotten.");
          });

          // Data.
          let loading = null;
          async function loadStatus() {
            const used = token;
            let response;
            try {
              response = await fetch("v1/status", {headers: headers(), cache: "no-store"});
            } catch (error) {
              setConnection("error", "feed unreachable");
              return false;
            }
            if (response.status === 401) {
              refused(used);
              return false;
            }
            if (!response.ok) {
              setConnection("error", "v1/status answered HTTP " + response.status);
              return false;
            }
            report = await response.json();
            // started_at + uptime_seconds is the server's clock when it answered.
            const serverNow = parseTime(report.started_at);
            if (serverNow !== null) clockOffset = serverNow + report.uptime_seconds * 1000 - Date.now();
            render();
            return true;
          }

          // One request at a time; a request asked for while one runs happens once after it.
          let again = false;
          async function refresh() {
            if (loading) { again = true; return loading; }
            loading = (async () => {
              do { again = false; await loadStatus(); } while (again);
              loading = null;
            })();
            return loading;
          }

          function scheduleRefresh() {
            if (refreshTimer) return;
            refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, 200);
          }

          function startPolling() {
            if (!pollTimer) pollTimer = setInterval(refresh, POLL_MS);
          }
          function stopPolling() {
            if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
          }

          // Server-Sent Events over fetch(): one `id:`/`event:`/`data:` block per blank-line-separated chunk.
          function handleBlock(block) {
            let id = null, data = false;
            for (const line of block.split("\n")) {
              if (line.startsWith("id:")) id = line.slice(3).trim();
              else if (line.startsWith("data:")) data = true;
            }
            if (id !== null) lastEventId = id;
            if (data) scheduleRefresh();
          }

          async function readEvents() {
            const controller = new AbortController();
            stream = controller;
            const extra = {Accept: "text/event-stream"};
            if (lastEventId !== null) extra["Last-Event-ID"] = lastEventId;
            const used = token;
            const response = await fetch("v1/events", {headers: headers(extra), cache: "no-store", signal: controller.signal});
            if (response.status === 401) { refused(used); return; }
            if (!response.ok || !response.body) throw new Error("v1/events answered HTTP " + response.status);
            stopPolling();
            setConnection("live", "live");
            await refresh();
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = "";
            for (;;) {
              const {value, done} = await reader.read();
              if (done) return;
              buffer += value.replace(/\r\n?/g, "\n");
              let end;
              while ((end = buffer.indexOf("\n\n")) >= 0) {
                handleBlock(buffer.slice(0, end));
                buffer = buffer.slice(end + 2);
              }
            }
          }

          const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
          const canStream = typeof ReadableStream === "function" && typeof TextDecoderStream === "function"
            && "body" in Response.prototype;

          async function main() {
            byId("forget-token").hidden = !token;
            if (!(await loadStatus()) && waitingForToken) await waitingForToken;
            setInterval(tickAges, 1000);
            if (!canStream) {
              setConnection("polling", "polling every " + POLL_MS / 1000 + " s");
              startPolling();
              return;
            }
            let delay = 1000;
            for (;;) {
              if (waitingForToken) { stopPolling(); await waitingForToken; }
              const started = Date.now();
              try {
                await readEvents();
              } catch (error) {
                // Network error or non-2xx: fall back to polling until the stream is back.
              }
              if (waitingForToken) continue;
              if (Date.now() - started > 30000) delay = 1000;
              setConnection("polling", "reconnecting; polling every " + POLL_MS / 1000 + " s");
              startPolling();
              await sleep(delay);
              delay = Math.min(delay * 2, 30000);
            }
          }
          main();
        })();
        """#
}
