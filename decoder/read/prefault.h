/* prefault.h - having the kernel map in memory about to be written, in one call.
 *
 * A page written for the first time costs a page fault; on the 2-core VM of bench/README.md
 * (session 12) one took 10 us, and etldump --threads 2 took some 2,300 of them on the 1 M-record
 * kernel trace.  MADV_POPULATE_WRITE (Linux 5.14) maps a whole range at once: 1.3 us a page
 * there.  For memory a caller knows it will write soon (a ring it streams through, a batch it
 * is about to fill, a chunk of copies); what is mapped in stays so, whether or not it is used,
 * so only for ranges that will be. */
#ifndef ETL_PREFAULT_H
#define ETL_PREFAULT_H

#include <stddef.h>

/* Map in the whole pages of [at, at + len) writable, contents unchanged (zero if new).  A hint:
 * nothing happens where the kernel cannot (older than 5.14, another OS), and the pages then
 * fault in as they are written.  Safe while other threads use the range. */
void etl_prefault(void *at, size_t len);

#endif
