extension StatusPage {
    /// Helpers both pages' scripts share: DOM building (text only), human durations and ages, a target's status and
    /// reason in words, the uptime bar and the sparkline.
    ///
    /// Server strings only ever reach the DOM as text nodes or attribute values (`textContent`, `append`,
    /// `setAttribute`), never as HTML.
    static let commonScript = PageAssets.commonScript
}
