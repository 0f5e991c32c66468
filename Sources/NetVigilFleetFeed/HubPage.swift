import NetVigilFeed

/// The hub's pages, in the status page's frame (``FeedPage``): they carry no data and read `/v1/fleet/…` with the
/// token the user types in.
enum HubPage {
    static let overview = page(PageAssets.fleetOverviewHTML, PageAssets.fleetOverviewScript, title: "netvigil fleet")
    static let endpoint = page(PageAssets.fleetEndpointHTML, PageAssets.fleetEndpointScript, title: "endpoint · netvigil fleet")
    static let agents = page(PageAssets.fleetAgentsHTML, PageAssets.fleetAgentsScript, title: "agents · netvigil fleet")

    private static func page(_ markup: String, _ script: String, title: String) -> FeedPage {
        // The shared header first: it brings the `{{fleet-style}}` placeholder with it.
        FeedPage(markup: markup.replacingOccurrences(of: "{{fleet-header}}", with: PageAssets.fleetHeaderHTML)
                    .replacingOccurrences(of: "{{fleet-style}}", with: PageAssets.fleetStyleCSS),
                 script: script, title: title)
    }
}
