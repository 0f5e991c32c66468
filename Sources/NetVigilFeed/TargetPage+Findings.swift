extension TargetPage {
    /// The "Findings" section of the target page (inserted after the served chain): the findings of the newest result
    /// that judged a chain (standards violations clients tolerate, client splits, Baseline Requirements lints; the
    /// verdict is unchanged), one row each with the certificate's index, code, severity and message.
    static let findingsMarkup = #"""
          <section id="findings-section">
            <h2>Findings</h2>
            <p id="findings-line" class="muted"></p>
            <div class="scroll"><table id="findings">
              <thead><tr><th class="num">#</th><th>code</th><th>severity</th><th class="wide">message</th></tr></thead>
              <tbody></tbody>
            </table></div>
          </section>
        """#

    /// `renderFindings()`: fills ``findingsMarkup`` from `data.target.results` (newest first; a result without a
    /// trust verdict has `findings: null`).
    static let findingsScript = #"""
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
        """#
}
