/* prefault.c - having the kernel map in memory about to be written (prefault.h). */
#include "prefault.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void etl_prefault(void *at, size_t len)
{
#ifdef MADV_POPULATE_WRITE
    static atomic_bool unknown; /* the kernel does not know the advice (EINVAL): not asked again */
    long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0 || !at || atomic_load_explicit(&unknown, memory_order_relaxed))
        return;
    uintptr_t mask = (uintptr_t)ps - 1;
    uintptr_t from = ((uintptr_t)at + mask) & ~mask, to = ((uintptr_t)at + len) & ~mask;
    if (to > from && madvise((void *)from, to - from, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
        atomic_store_explicit(&unknown, true, memory_order_relaxed);
#else
    (void)at;
    (void)len;
#endif
}
