#ifndef NETVIGIL_CLIBMNL_SHIM_H
#define NETVIGIL_CLIBMNL_SHIM_H
/* libmnl, the minimalistic netlink library (apt: libmnl-dev, pkg-config: libmnl). */
#include <libmnl/libmnl.h>
#endif
