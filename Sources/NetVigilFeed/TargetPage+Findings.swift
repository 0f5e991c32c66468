extension TargetPage {
    /// The "Findings" section of the target page (inserted after the served chain): the findings of the newest result
    /// that judged a chain (standards violations clients tolerate, client splits, Baseline Requirements lints; the
    /// verdict is unchanged), one row each with the certificate's index, code, severity and message.
    static let findingsMarkup = PageAssets.targetFindingsHTML

    /// `renderFindings()`: fills ``findingsMarkup`` from `data.target.results` (newest first; a result without a
    /// trust verdict has `findings: null`).
    static let findingsScript = PageAssets.targetFindingsScript
}
