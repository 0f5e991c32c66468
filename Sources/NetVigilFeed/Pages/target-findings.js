  function renderFindings() {
    const judged = (data.target.results || []).find((r) => Array.isArray(r.findings));
    const findings = judged ? judged.findings : [];
    byId("findings-line").replaceChildren(!judged ? "No judged chain yet."
      : findings.length ? "Findings of the chain served at " + judged.time
                          + " (warning: a standard is broken but clients accept the chain; error: the client the"
                          + " message names refuses it). The verdict is unchanged."
      : "No findings for the chain served at " + judged.time + ".");
    byId("findings").tBodies[0].replaceChildren(...findings.map((finding) =>
      el("tr", {class: "finding", "data-code": finding.code, "data-certificate": finding.certificate},
        el("td", {class: "num"}, finding.certificate),
        el("td", {}, el("code", {}, finding.code)),
        el("td", {}, badge(finding.severity, finding.severity === "warning" ? "warn" : "bad")),
        el("td", {class: "wide message-cell"}, finding.message))));
  }