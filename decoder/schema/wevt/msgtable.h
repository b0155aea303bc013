/* msgtable.h - MESSAGETABLE resources (RT_MESSAGETABLE, type 11): the message strings a
 * provider binary's compiled manifest refers to by message id (event messages, task, opcode,
 * level, channel, keyword and map names).  They live in the binary itself or, on Windows since
 * Vista, in its language resource file beside it: `en-US/name.dll.mui`.
 *
 * Layout (winnt.h MESSAGE_RESOURCE_DATA): u32 block count, blocks of {u32 LowId, u32 HighId,
 * u32 OffsetToEntries}, and per block HighId-LowId+1 entries of {u16 Length (the entry's bytes,
 * header included), u16 Flags (1 = UTF-16LE, 0 = ANSI), text}.  Offsets count from the start of
 * the resource.  Texts keep their inserts (%1...) and lose the trailing CR LF mc.exe adds. */
#ifndef ETL_WEVT_MSGTABLE_H
#define ETL_WEVT_MSGTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETL_MSGTABLE_MAX_BLOCKS 65536u
#define ETL_MSGTABLE_MAX_ENTRIES (1u << 20) /* messages of one table, all blocks together */

typedef struct etl_msgtable etl_msgtable;

/* An empty table (etl_msgtable_merge fills it). */
etl_msgtable *etl_msgtable_new(void);
/* Parse the resource data[0, size) and add its messages to `t` (ids already present are kept:
 * the first table merged wins).  `base` is the resource's file offset, for errors.  On error the
 * messages before the damage are kept and *err says where it is. */
etl_status etl_msgtable_merge(etl_msgtable *t, const uint8_t *data, size_t size, uint64_t base, etl_error *err);
/* Add the messages of `from` whose ids `t` lacks. */
void etl_msgtable_merge_table(etl_msgtable *t, const etl_msgtable *from);
/* The UTF-8 text of message `id`, or NULL. */
const char *etl_msgtable_get(const etl_msgtable *t, uint32_t id);
uint32_t etl_msgtable_count(const etl_msgtable *t);
void etl_msgtable_free(etl_msgtable *t);

#ifdef __cplusplus
}
#endif

#endif /* ETL_WEVT_MSGTABLE_H */
