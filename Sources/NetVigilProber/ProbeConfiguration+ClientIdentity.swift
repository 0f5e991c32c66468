extension ProbeConfiguration {
    /// The TLS settings for a connection to `host`: `tls` plus the client certificate `clientIdentities` picks
    /// for that host (each redirect hop gets its own host's), offering the ALPN protocols of `httpVersion`.
    public func tlsConfiguration(for host: String) -> TLSConfiguration {
        var configuration = tls
        configuration.alpnProtocols = httpVersion.alpnProtocols
        if configuration.clientIdentity == nil { configuration.clientIdentity = clientIdentities.identity(for: host) }
        return configuration
    }
}
