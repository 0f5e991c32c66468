import CSQLiteConfig

extension Store {
    /// Process-wide SQLite settings for the daemon; call before any database is opened (later calls change nothing).
    ///
    /// SQLite gives each connection an up-front page-cache block (20 pages: 333 KB with 16 KiB pages) that stays
    /// resident for the connection's life, whatever `cache_size` and `Store.releaseMemory` free. Without it pages
    /// come and go one by one, so an idle daemon's heap holds only the pages in use.
    /// Returns whether SQLite took the setting (false once it has been initialised).
    @discardableResult
    public static func configureProcessMemory() -> Bool {
        netvigil_sqlite_disable_bulk_page_cache() == SQLITE_OK
    }
}
