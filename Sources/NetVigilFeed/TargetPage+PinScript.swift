extension TargetPage {
    /// The target page's `renderPinMatch`: which configured pin the served chain matched.
    ///
    /// Reads the result the chain table shows (the newest with a served chain): its `pin_verdict` and
    /// `details.matched_pins` (the pins the trust evaluation matched). A certificate whose key is a matched pin gets
    /// a badge in the chain table; `#pin-match` says the same in words, or "No configured pin matched." on a
    /// mismatch and "No pins configured." when the target's TLS policy does not pin. A matched pin outside the
    /// served chain (a pinned anchor from the trust store) is named with its certificate from the validated chain.
    static let pinScript = PageAssets.targetPinsScript
}
