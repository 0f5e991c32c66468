#ifndef NETVIGIL_CSQLITECONFIG_SHIM_H
#define NETVIGIL_CSQLITECONFIG_SHIM_H
/* sqlite3_config is variadic, which Swift cannot call: one wrapper per setting netvigil makes. */
#include <sqlite3.h>

/* No up-front page-cache block per connection (SQLITE_CONFIG_PAGECACHE with no buffer and N = 0): pages are
   allocated one by one as the cache fills and freed when it is released. Must run before SQLite is initialised;
   returns SQLITE_MISUSE after. */
static inline int netvigil_sqlite_disable_bulk_page_cache(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
#endif
