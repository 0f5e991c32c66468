import Foundation
extension TargetPage {
    /// The target page's `page`: the target (`../v1/targets/NAME`), its uptime and timing buckets for the chosen
    /// range (24 h in 30 min buckets, 7 d in 4 h buckets) and its alerts of the last 7 days (`../v1/history`).
    static let pageScript = PageAssets.targetScript
        .replacingOccurrences(of: "{{findingsScript}}", with: findingsScript)
}
