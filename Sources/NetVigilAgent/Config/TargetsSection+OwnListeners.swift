import NetVigilProber

extension TargetsSection {
    /// Tells every target's revocation fetches where the daemon itself listens (`feed.listen`), so a certificate's
    /// distribution point or OCSP URL pointing there is refused (the feed's routes are not a CRL source).
    mutating func avoidOwnListeners(of feed: FeedSection) {
        guard feed.listen.port != 0 else { return }  // a port the kernel picks is not known here
        let listeners = [OwnListener(name: "feed.listen", host: feed.listen.host, port: feed.listen.port)]
        for index in targets.indices {
            targets[index].configuration.ownListeners = listeners
        }
    }
}
