/* message.h - an event's message string (manifests' message="$(string.X)") with its %1-style
 * inserts replaced by the event's field values, as Windows renders event messages.
 *
 * Inserts number the template's top-level fields from 1 (a struct counts as one).  Each insert
 * is the field's text as value_format.h renders it (map names included); an array's elements
 * joined by ", "; a struct's members are not rendered (an empty insert).  FormatMessage's escapes
 * are honoured: %% (a percent), %n (line break), %r, %t, "% " (space), %. and %! (the
 * character), %0 (ends the message), and a !printf-format! after an insert number is skipped
 * (the value is always shown in its own rendering).  An insert beyond the fields stays as
 * written. */
#ifndef ETL_MESSAGE_H
#define ETL_MESSAGE_H

#include "etl.h"
#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inserts a message can use (FormatMessage's own limit is %99). */
#define ETL_MESSAGE_MAX_INSERTS 99u
/* Bytes of insert text kept per message (all inserts together; past it inserts are cut). */
#define ETL_MESSAGE_MAX_INSERT_TEXT (16u * 1024u)
/* Bytes of one value's text while it is rendered (longer values are cut). */
#define ETL_MESSAGE_MAX_VALUE_TEXT 4096u

/* Scratch for etl_message_render (about 21 KiB): allocate it once and reuse it, so rendering
 * allocates nothing.  Treat as opaque. */
typedef struct etl_message_scratch {
    uint32_t off[ETL_MESSAGE_MAX_INSERTS + 1]; /* text offset of insert n (1-based) */
    bool have[ETL_MESSAGE_MAX_INSERTS + 1];
    unsigned count;
    size_t used;
    bool render_all; /* format every insert, used or not (tests compare the two); normally false */
    bool parse;      /* parse the message string instead of copying its compiled pieces (tests
                        compare the two); normally false */
    bool items;      /* walk the fields item by item, every value through etl_value_format,
                        instead of taking scalar runs (tests compare the two); normally false */
    char text[ETL_MESSAGE_MAX_INSERT_TEXT];
    char value[ETL_MESSAGE_MAX_VALUE_TEXT];
} etl_message_scratch;

/* Render schema s's message for one event's payload into out (cap bytes, NUL-terminated;
 * cut at a character boundary when it does not fit).  Returns the length; 0 (and "") when the
 * schema has no message.  Only the inserts the message names are formatted, and the fields
 * after its highest insert are not read; the result is the same as with every insert
 * formatted, the cut at ETL_MESSAGE_MAX_INSERT_TEXT included. */
size_t etl_message_render(const etl_schema *s, const uint8_t *payload, size_t size, uint8_t pointer_size,
                          etl_message_scratch *scratch, char *out, size_t cap);

/* The same with the insert texts given: insert(ctx, n) returns the text of insert n (1-based)
 * or NULL when there is none. */
size_t etl_message_format(const char *message, const char *(*insert)(void *ctx, unsigned n), void *ctx, char *out,
                          size_t cap);

/* The message compiled (the schema builder does it once per schema, schema.h): its literal
 * text, escapes applied, and its inserts as pieces[0..*n_pieces), the literal text in
 * literals[0..*n_literals) (at most strlen(message) bytes); rendering the pieces gives what
 * etl_message_format gives whenever the output is not cut.  With pieces and literals NULL it
 * only counts. */
void etl_message_compile(const char *message, etl_message_piece *pieces, char *literals, size_t *n_pieces,
                         size_t *n_literals);

/* The inserts message names (insert n, 1..99, sets bit n % 64 of used[n / 64]) as
 * etl_message_format reads it; returns the highest, 0 when none.  Schemas keep it (schema.h). */
unsigned etl_message_inserts(const char *message, uint64_t used[2]);

#ifdef __cplusplus
}
#endif

#endif /* ETL_MESSAGE_H */
