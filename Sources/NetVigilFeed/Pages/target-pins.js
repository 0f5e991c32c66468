  function renderPinMatch() {
    const result = (data.target.results || []).find((r) => (r.served_chain || []).length);
    const line = byId("pin-match");
    line.replaceChildren();
    line.setAttribute("data-verdict", result && result.pin_verdict ? result.pin_verdict : "");
    if (!result || !result.pin_verdict) return;
    const verdict = result.pin_verdict;
    const matched = (result.details || {}).matched_pins || [];
    const rows = byId("chain").tBodies[0].rows;
    result.served_chain.forEach((cert, i) => {
      if (!matched.includes(cert.spki_pin) || !rows[i]) return;
      rows[i].setAttribute("data-pin-match", "true");
      const cell = rows[i].querySelector(".pin") || rows[i].cells[rows[i].cells.length - 1];
      cell.append(" ", el("span", {class: "badge ok pin-matched"}, "\u2714 matched configured pin"));
    });
    if (verdict === "matched") {
      if (!matched.length) { line.append(badge("\u2714 a configured pin matched", "ok")); return; }
      line.append(badge("\u2714 matched", "ok"), " configured pin" + (matched.length === 1 ? " " : "s "));
      matched.forEach((pin, n) => {
        const served = result.served_chain.findIndex((cert) => cert.spki_pin === pin);
        const anchor = (result.validated_chain || []).find((cert) => cert.spki_pin === pin);
        const where = served >= 0 ? "certificate #" + served + ", " + result.served_chain[served].subject
          : anchor ? "trust anchor " + anchor.subject + ", not served" : "not in the served chain";
        line.append(n ? "; " : "", el("code", {class: "matched-pin"}, pin), " (" + where + ")");
      });
    } else if (verdict === "mismatch" || verdict === "mismatch_reported") {
      line.append(badge("\u2716 No configured pin matched", "bad"),
                  verdict === "mismatch_reported" ? " (report-only: the connection was let through)" : "");
    } else if (verdict === "not_pinned") {
      line.append(el("span", {class: "muted"}, "No pins configured."));
    } else if (verdict === "expired") {
      line.append(badge("\u26A0 pins expired", "warn"), " the chain was judged without them.");
    } else if (verdict === "not_evaluated") {
      line.append(badge("\u25CB pins not evaluated", "warn"), " the chain failed before pins were checked.");
    }
  }