extension StatusPage {
    /// The CSS both pages share (inserted at `{{style}}` inside the nonce'd `<style>` element).
    ///
    /// Colours are never the only cue: bucket states differ in shape too (failed reach below the baseline, skipped
    /// are short and hatched, empty ones a thin line), and every status has its word and symbol.
    /// Nothing sets a width wider than the viewport: cards and tables shrink, long URLs are cut with an ellipsis.
    static let style = PageAssets.styleCSS
}
