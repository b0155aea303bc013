/* bxml.c - the binary XML of compiled templates (bxml.h). */
#include "bxml.h"

#include <string.h>

#include "bytes.h"
#include "error.h"
#include "text.h"

/* Token bytes ([MS-EVEN6] 3.1.4.1 and libfwevt): the 0x40 bit on an element says it has
 * attributes, on an attribute or value that more follow; it does not change the layout except
 * for the attribute-list size of an element. */
enum {
    BXML_EOF = 0x00,
    BXML_OPEN_START = 0x01,
    BXML_CLOSE_START = 0x02,
    BXML_CLOSE_EMPTY = 0x03,
    BXML_END = 0x04,
    BXML_VALUE = 0x05,
    BXML_ATTRIBUTE = 0x06,
    BXML_CDATA = 0x07,
    BXML_CHARREF = 0x08,
    BXML_ENTITYREF = 0x09,
    BXML_PI_TARGET = 0x0A,
    BXML_PI_DATA = 0x0B,
    BXML_SUBST_NORMAL = 0x0D,
    BXML_SUBST_OPTIONAL = 0x0E,
    BXML_FRAGMENT = 0x0F
};
#define BXML_MORE 0x40u
/* Layout of the pieces, in bytes */
enum {
    BXML_FRAGMENT_SIZE = 4,        /* token, major, minor, flags */
    BXML_OPEN_START_FIXED = 7,     /* token, u16 dependency id, u32 element size */
    BXML_NAME_FIXED = 4,           /* u16 hash, u16 character count (then the characters and a NUL) */
    BXML_ATTR_LIST_SIZE = 4,       /* u32, after the name of an element with attributes */
    BXML_SUBST_SIZE = 4,           /* token, u16 index, u8 value type */
    BXML_VALUE_FIXED = 2,          /* token, u8 value type (then a counted string for type 1) */
    BXML_CHARREF_SIZE = 3
};
#define BXML_TYPE_STRING 0x01u

typedef struct scan {
    const uint8_t *d;
    size_t n, pos;
    uint64_t base;
    etl_error *err;
} scan;

static etl_status past_end(scan *s, const char *what)
{
    return etl_fail(s->err, ETL_ERR_TRUNCATED, s->base + s->pos, "binary XML %s at 0x%llx runs past the end of its template",
                    what, (unsigned long long)(s->base + s->pos));
}

/* An inline name: u16 hash, u16 count, count UTF-16 characters, NUL.  Copied to out when given. */
static etl_status name(scan *s, char *out, size_t cap)
{
    uint16_t count;
    if (!etl_u16_at(s->d, s->n, s->pos + 2, &count))
        return past_end(s, "name");
    if (count > ETL_BXML_MAX_NAME)
        return etl_fail(s->err, ETL_ERR_LIMIT, s->base + s->pos, "binary XML name at 0x%llx of %u characters (at most %u)",
                        (unsigned long long)(s->base + s->pos), count, ETL_BXML_MAX_NAME);
    size_t len = BXML_NAME_FIXED + ((size_t)count + 1) * 2;
    if (!etl_span_ok(s->n, s->pos, len))
        return past_end(s, "name");
    if (out)
        etl_utf16_to_utf8(s->d + s->pos + BXML_NAME_FIXED, (size_t)count * 2, out, cap, NULL);
    s->pos += len;
    return ETL_OK;
}

/* A counted UTF-16 string (u16 count, characters). */
static etl_status counted(scan *s, const char *what)
{
    uint16_t count;
    if (!etl_u16_at(s->d, s->n, s->pos, &count) || !etl_span_ok(s->n, s->pos + 2, (size_t)count * 2))
        return past_end(s, what);
    s->pos += 2 + (size_t)count * 2;
    return ETL_OK;
}

etl_status etl_bxml_scan(const uint8_t *d, size_t n, uint64_t base, etl_bxml_info *info, etl_error *err)
{
    memset(info, 0, sizeof *info);
    info->max_index = -1;
    scan s = {d, n, 0, base, err};
    unsigned depth = 0;
    etl_status st;
    for (uint32_t tokens = 0;; tokens++) {
        if (tokens >= ETL_BXML_MAX_TOKENS)
            return etl_fail(err, ETL_ERR_LIMIT, base + s.pos, "binary XML fragment of more than %u tokens", ETL_BXML_MAX_TOKENS);
        if (s.pos >= n)
            return past_end(&s, "fragment (no end token)");
        uint8_t tok = d[s.pos];
        uint8_t kind = tok & (uint8_t)~BXML_MORE;
        size_t at = s.pos;
        switch (kind) {
        case BXML_EOF:
            if (depth)
                return etl_fail(err, ETL_ERR_CORRUPT, base + at, "binary XML ends at 0x%llx with %u element(s) open",
                                (unsigned long long)(base + at), depth);
            info->size = s.pos + 1;
            return ETL_OK;
        case BXML_FRAGMENT:
            if (!etl_span_ok(n, s.pos, BXML_FRAGMENT_SIZE))
                return past_end(&s, "fragment header");
            s.pos += BXML_FRAGMENT_SIZE;
            break;
        case BXML_OPEN_START:
            if (!etl_span_ok(n, s.pos, BXML_OPEN_START_FIXED))
                return past_end(&s, "element");
            s.pos += BXML_OPEN_START_FIXED;
            if ((st = name(&s, info->elements ? NULL : info->root, sizeof info->root)) != ETL_OK)
                return st;
            if (tok & BXML_MORE) {
                if (!etl_span_ok(n, s.pos, BXML_ATTR_LIST_SIZE))
                    return past_end(&s, "attribute list");
                s.pos += BXML_ATTR_LIST_SIZE;
            }
            if (++depth > ETL_BXML_MAX_DEPTH)
                return etl_fail(err, ETL_ERR_LIMIT, base + at, "binary XML nested deeper than %u elements at 0x%llx",
                                ETL_BXML_MAX_DEPTH, (unsigned long long)(base + at));
            if (depth > info->depth)
                info->depth = depth;
            info->elements++;
            break;
        case BXML_CLOSE_START:
            s.pos++;
            break;
        case BXML_CLOSE_EMPTY:
        case BXML_END:
            if (!depth)
                return etl_fail(err, ETL_ERR_CORRUPT, base + at, "binary XML end tag at 0x%llx closes no element",
                                (unsigned long long)(base + at));
            depth--;
            s.pos++;
            break;
        case BXML_ATTRIBUTE:
            s.pos++;
            if ((st = name(&s, NULL, 0)) != ETL_OK)
                return st;
            break;
        case BXML_VALUE:
            if (!etl_span_ok(n, s.pos, BXML_VALUE_FIXED))
                return past_end(&s, "value");
            if (d[s.pos + 1] != BXML_TYPE_STRING)
                return etl_fail(err, ETL_ERR_CORRUPT, base + at, "binary XML value at 0x%llx of type 0x%02x (only strings are inline)",
                                (unsigned long long)(base + at), d[s.pos + 1]);
            s.pos += BXML_VALUE_FIXED;
            if ((st = counted(&s, "value")) != ETL_OK)
                return st;
            break;
        case BXML_CDATA:
        case BXML_PI_DATA:
            s.pos++;
            if ((st = counted(&s, "text")) != ETL_OK)
                return st;
            break;
        case BXML_CHARREF:
            if (!etl_span_ok(n, s.pos, BXML_CHARREF_SIZE))
                return past_end(&s, "character reference");
            s.pos += BXML_CHARREF_SIZE;
            break;
        case BXML_ENTITYREF:
        case BXML_PI_TARGET:
            s.pos++;
            if ((st = name(&s, NULL, 0)) != ETL_OK)
                return st;
            break;
        case BXML_SUBST_NORMAL:
        case BXML_SUBST_OPTIONAL: {
            if (!etl_span_ok(n, s.pos, BXML_SUBST_SIZE))
                return past_end(&s, "substitution");
            uint16_t index = etl_ld16(d + s.pos + 1);
            if ((int32_t)index > info->max_index)
                info->max_index = index;
            info->substitutions++;
            s.pos += BXML_SUBST_SIZE;
            break;
        }
        default:
            return etl_fail(err, ETL_ERR_CORRUPT, base + at, "binary XML token 0x%02x at 0x%llx is not one a template uses", tok,
                            (unsigned long long)(base + at));
        }
    }
}
