/* bxml.h - the binary XML of a compiled manifest's templates (WEVT_TEMPLATE TEMP elements).
 *
 * Each template carries the XML its events render to (<EventData><Data Name="X">%1</Data>...
 * or the provider's own <UserData> shape) as binary XML: the token grammar of EVTX ([MS-EVEN6]
 * BinXml: fragment header 0x0F, open/close element 0x01/0x02/0x03/0x04, attribute 0x06, value
 * 0x05, substitutions 0x0D/0x0E, CDATA, character and entity references, processing
 * instructions), with two differences (libfwevt's format notes): element and attribute names
 * are stored inline (u16 hash, u16 character count, UTF-16LE, NUL) instead of at an offset, and
 * the values substituted are not in the fragment (the template's property descriptors describe
 * them).
 *
 * The decoder needs the property descriptors only; the fragment is checked (bounds, nesting,
 * every substitution naming a property) and summarised, so a damaged template is refused
 * rather than half-read.  Written by hand: the EVTX libraries in Debian (libevtx) read whole
 * event logs, not a bare fragment of this dialect. */
#ifndef ETL_WEVT_BXML_H
#define ETL_WEVT_BXML_H

#include <stddef.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETL_BXML_MAX_DEPTH 32u      /* elements nested in one fragment */
#define ETL_BXML_MAX_TOKENS 65536u  /* tokens of one fragment */
#define ETL_BXML_MAX_NAME 256u      /* characters of an element or attribute name */

typedef struct etl_bxml_info {
    size_t size;              /* bytes up to and including the end-of-fragment token */
    unsigned depth;           /* deepest element nesting */
    uint32_t elements;        /* elements opened */
    uint32_t substitutions;   /* substitution tokens */
    int32_t max_index;        /* highest property index substituted, -1 when none */
    char root[64];            /* the first element's name, UTF-8 ("EventData", or the UserData
                                 element), truncated */
} etl_bxml_info;

/* Read the fragment at data[0, size).  `base` is its file offset, for errors.  ETL_OK with *info
 * filled; else the first thing wrong (an unknown token, a name or value past the end, nesting
 * deeper than ETL_BXML_MAX_DEPTH, an end tag without its element), with its offset. */
etl_status etl_bxml_scan(const uint8_t *data, size_t size, uint64_t base, etl_bxml_info *info, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_WEVT_BXML_H */
