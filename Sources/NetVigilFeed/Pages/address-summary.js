  const addressRows = (target) => target.addresses || [];
  const hasInterfaces = (rows) => rows.some((row) => !!row.interface);
  const rowNoun = (rows, n) => n + " " + (hasInterfaces(rows) ? (n === 1 ? "path" : "paths") : (n === 1 ? "address" : "addresses"));
  // "127.0.0.2" or "127.0.0.2 via wwan0".
  const rowLabel = (row) => row.address + (row.interface ? " via " + row.interface : "");

  // A row's reason in words, as the target's own (`reason`) but for this address alone.
  function rowReason(row) {
    return reason({status: row.status, last_result: {
      error_kind: row.error_kind, http_status: row.http_status, trust_verdict: row.trust_verdict,
      pin_verdict: row.pin_verdict, certificate_days_left: row.certificate_days_left}});
  }

  // The card's line: "▲ 2 of 3 addresses up · ▼ 10.0.0.3: connection refused"; nil for one-address targets.
  function addressSummary(target) {
    const rows = addressRows(target);
    if (!rows.length) return null;
    const up = rows.filter((row) => row.status === "up").length;
    const failing = rows.filter((row) => row.status !== "up");
    const line = el("div", {class: "address-summary", "data-up": up, "data-total": rows.length},
      el("span", {class: "state " + (failing.length ? "bad" : "ok")}, (failing.length ? "\u25BC " : "\u25B2 ")
        + up + " of " + rowNoun(rows, rows.length) + " up"));
    for (const row of failing) {
      const why = rowReason(row);
      line.append(" \u00b7 ", el("span", {class: "failing-address " + (why.tone || statusTone[row.status]), "data-address": row.address},
        rowLabel(row) + ": " + (why.text || row.status)));
    }
    return line;
  }

  // The target page's table: a row per address (and interface, when rows have one), header included; latency
  // and time are left out on a phone (`.wide`), so the table fits 390 px.
  function addressTable(table, rows) {
    const paths = hasInterfaces(rows);
    const heads = ["address", paths ? "interface" : null, "status", "reason", "pin", "latency", "last checked"];
    table.tHead.replaceChildren(el("tr", {}, ...heads.filter((head) => head !== null).map((head) =>
      el("th", {class: head === "latency" || head === "last checked" ? "num wide" : null}, head))));
    table.tBodies[0].replaceChildren(...rows.map((row) => {
      const why = rowReason(row);
      return el("tr", {class: "address-row", "data-address": row.address, "data-status": row.status},
        el("td", {class: "address"}, row.address),
        paths ? el("td", {class: "interface"}, row.interface || dash) : null,
        el("td", {}, el("span", {class: "state " + statusTone[row.status]}, statusSymbol[row.status] || row.status)),
        el("td", {class: "reason " + why.tone}, why.text || dash),
        el("td", {}, row.pin_verdict ? badge(row.pin_verdict, pinTone[row.pin_verdict]) : dash),
        el("td", {class: "num wide"}, typeof row.total_ms === "number" ? milliseconds(row.total_ms) + " ms" : dash),
        ageNode("td", row.time, {class: "num age wide"}));
    }));
  }