#ifndef NETVIGIL_CMALLOC_SHIM_H
#define NETVIGIL_CMALLOC_SHIM_H
/* glibc's malloc extensions (malloc_trim), which the Glibc module does not export. */
#include <malloc.h>
#endif
