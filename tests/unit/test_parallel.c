/* Unit tests of cli/parallel.c (etldump --threads' ordered batches): with 1 to 4 workers,
 *   - every record handed to par_add comes out once, in the order it went in, whatever the
 *     workers' speed (a record's formatting takes longer on some records);
 *   - the copy a worker formats has the record's bytes, header fields and extended items,
 *     its pointers moved into the copy (the caller's buffer is overwritten right after
 *     par_add, as the reader's is), PMC counters outside the record's bytes copied as well;
 *   - what the main thread attached to the slot after par_add reaches the worker, and so does
 *     a text kept with par_keep (cut to PAR_KEEP_MAX bytes), in batches full of records and
 *     after a record larger than a batch;
 *   - records larger than a batch's byte budget (3 MiB) and empty records pass too, an
 *     extended item's data running past the record's end is copied, not read past the copy;
 *   - a view read in place (par_view, as etldump's reader fills it) gives the same, across
 *     full batches (its view then moves to the next one) and records larger than a batch;
 *   - every formatting thread (a worker, or the main thread when it helps) gets a scratch of
 *     its own, of the size asked for and zeroed when made, the same one on every call;
 *   - the output is the one a direct, one-thread formatting of the same records gives;
 *   - par_resolved_keep gives one kept copy per distinct answer, the same one every time, also
 *     for answers that share a set of its front (two taking turns, then more);
 *   - a provider name from the record's own PROV_TRAITS is not kept: records whose answers
 *     differ only by where their name is in their bytes share one kept answer, with no name;
 *     a name from anywhere else is kept, one answer per name. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json.h"
#include "parallel.h"

enum { RECORDS = 20000 };

static size_t size_of(unsigned i)
{
    if (i % 5003 == 17 || i == 0)
        return 3u << 20; /* larger than a batch's bytes (the first: read in place into an empty batch) */
    if (i % 7 == 3)
        return 0;
    return 24 + (i * 37) % 900;
}

static uint8_t byte_of(unsigned i, size_t k)
{
    return (uint8_t)(i * 131 + k * 7 + (k >> 8));
}

/* A formatting thread's scratch, as the test asks par_new for it: zeroed when made, then
 * marked by the thread that uses it first; its last bytes show its size was what was asked. */
typedef struct test_scratch {
    pthread_t owner;
    unsigned uses;
    unsigned char tail[4096];
} test_scratch;
static pthread_mutex_t scratch_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned scratch_misuse;

static void use_scratch(test_scratch *t)
{
    bool own = true, zero = true;
    if (t->uses == 0) {
        for (size_t k = 0; k < sizeof t->tail; k++)
            zero &= t->tail[k] == 0;
        t->owner = pthread_self();
        memset(t->tail, 0xA5, sizeof t->tail);
    } else {
        own = pthread_equal(t->owner, pthread_self()) && t->tail[sizeof t->tail - 1] == 0xA5;
    }
    t->uses++;
    if (!own || !zero) {
        pthread_mutex_lock(&scratch_mu);
        scratch_misuse++;
        pthread_mutex_unlock(&scratch_mu);
    }
}

/* What a worker writes for a slot: the record's facts and a digest of every byte it reads
 * through the copy's pointers. */
static void format(void *ctx, json_out *j, par_slot *s, void *scratch)
{
    (void)ctx;
    if (scratch)
        use_scratch(scratch);
    else
        scratch_misuse += ctx != NULL; /* the direct formatting has none; par must give one */
    const etl_record *r = s->r;
    uint64_t h = 1469598103934665603ULL;
    for (size_t k = 0; k < r->size; k++)
        h = (h ^ r->bytes[k]) * 1099511628211ULL;
    for (unsigned e = 0; e < r->ext_count; e++)
        for (size_t k = 0; k < r->ext[e].data_size; k++)
            h = (h ^ r->ext[e].data[k]) * 1099511628211ULL;
    for (size_t k = 0; k < (size_t)r->pmc_count * 8; k++)
        h = (h ^ r->pmc[k]) * 1099511628211ULL;
    if (r->position % 97 == 0) { /* a slow record: later batches finish first */
        volatile uint64_t spin = 0;
        for (unsigned k = 0; k < 200000; k++)
            spin += k;
    }
    json_begin_object(j);
    json_key_u64(j, "position", r->position);
    json_key_u64(j, "size", r->size);
    json_key_u64(j, "ext", r->ext_count);
    json_key_u64(j, "stack_of", s->has_stack ? s->stack_of : 0);
    if (s->error)
        json_key_string(j, "kept", s->error);
    json_key_hex_u64(j, "digest", h);
    json_end_object(j);
    json_newline(j);
}

/* The text the main thread keeps with record i (par_keep), NULL for none: now and then, on
 * records larger than a batch, on every record of a stretch (batches full of records and
 * kept texts), longer than PAR_KEEP_MAX on some. */
static const char *kept_of(unsigned i)
{
    static char text[2 * PAR_KEEP_MAX];
    if (i % 9 != 4 && i % 5003 != 17 && !(i >= 6000 && i < 9000))
        return NULL;
    size_t n = i % 3 == 0 ? sizeof text - 1 : 10 + i % 50;
    for (size_t k = 0; k < n; k++)
        text[k] = (char)('a' + (i + k) % 26);
    text[n] = '\0';
    return text;
}

/* Record i in buf (overwritten for every record, as the reader's view is). */
static void make_record(unsigned i, uint8_t *buf, uint8_t *pmc, etl_record *r)
{
    memset(r, 0, sizeof *r);
    r->position = i;
    r->size = (uint32_t)size_of(i);
    for (size_t k = 0; k < r->size; k++)
        buf[k] = byte_of(i, k);
    r->bytes = buf;
    r->ext_count = r->size >= 8 + 16 * 4 ? (uint16_t)(i % 4) : 0;
    for (unsigned e = 0; e < r->ext_count; e++) {
        r->ext[e].type = (uint16_t)(e + 1);
        r->ext[e].data = buf + 8 + 16 * e;
        r->ext[e].data_size = 12;
    }
    if (r->ext_count == 3 && i % 13 == 0)
        r->ext[2].data_size = (uint16_t)(r->size - 40 + 5); /* 5 bytes past the end */
    if (i % 11 == 0) { /* counters outside the bytes: must be copied, not moved */
        r->pmc_count = 2;
        for (unsigned k = 0; k < 16; k++)
            pmc[k] = (uint8_t)(i + k);
        r->pmc = pmc;
    }
}

static char *run(unsigned workers, bool in_place, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    static uint8_t buf[3u << 20];
    static uint8_t pmc[16];
    static json_out direct;
    static int with_par; /* a non-NULL context: format then expects a scratch */
    par *p = workers ? par_new(workers, f, format, &with_par, sizeof(test_scratch)) : NULL;
    CHECK(!workers || p);
    json_init(&direct, f);
    for (unsigned i = 0; i < RECORDS; i++) {
        etl_record local, *view = in_place && p ? par_view(p) : &local;
        CHECK(view != NULL);
        etl_record r;
        make_record(i, buf, pmc, view);
        r = *view; /* for the stale bytes below: the view's own bytes pointer moves */
        if (p) {
            par_slot *s = par_add(p, view);
            CHECK(s != NULL);
            if (!s)
                break;
            s->has_stack = true; /* attached after the copy, as prepare_record does */
            s->stack_of = i * 3u;
            s->error = kept_of(i) ? par_keep(p, kept_of(i)) : NULL;
            memset(buf, 0xEE, r.size); /* the reader reuses its buffer */
            memset(pmc, 0xEE, sizeof pmc);
        } else {
            par_slot s = {.r = &r, .has_stack = true, .stack_of = i * 3u};
            char cut[PAR_KEEP_MAX];
            const char *kept = kept_of(i);
            if (kept)
                snprintf(cut, sizeof cut, "%s", kept);
            s.error = kept ? cut : NULL;
            format(NULL, &direct, &s, NULL);
            memset(buf, 0xEE, r.size); /* the same stale bytes past a record's end */
            memset(pmc, 0xEE, sizeof pmc);
        }
    }
    if (p)
        CHECK(par_finish(p));
    else
        json_flush(&direct);
    fclose(f);
    return text;
}

/* par_resolved_keep: one kept copy per distinct answer, whatever the order they come in and
 * however many answers share a front slot (300 answers, met over and over in turns). */
static void keep_answers(void)
{
    par *p = par_new(1, stdout, format, NULL, 0);
    CHECK(p != NULL);
    if (!p)
        return;
    enum { ANSWERS = 300 };
    static const char names[ANSWERS][4];
    const par_resolved *first[ANSWERS];
    unsigned wrong = 0;
    for (unsigned round = 0; round < 5; round++) {
        for (unsigned i = 0; i < ANSWERS; i++) {
            unsigned k = round % 2 ? ANSWERS - 1 - i : i;
            etl_resolved v;
            memset(&v, 0, sizeof v);
            v.event_name = names[k];
            v.has_message = k % 2;
            const par_resolved *kept = par_resolved_keep(p, (etl_resolve_status)(k % 3), &v);
            if (round == 0)
                first[k] = kept;
            wrong += !kept || kept != first[k] || kept->event_name != names[k] || kept->status != k % 3 ||
                     kept->has_message != (k % 2 == 1);
        }
    }
    for (unsigned i = 1; i < ANSWERS; i++)
        wrong += first[i] == first[i - 1];
    CHECK_EQ_U(wrong, 0);
    /* answers that differ only past the schema, provider and event name share one set of the
     * front: two taking turns, then a third and a fourth among them */
    enum { SAME_SET = 4 };
    const par_resolved *same[SAME_SET] = {NULL};
    static const unsigned order[] = {0, 1, 0, 1, 0, 1, 2, 0, 3, 1, 2, 3, 0, 0, 1, 1, 2, 2, 3, 3, 1, 0};
    wrong = 0;
    for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++) {
        unsigned k = order[i];
        etl_resolved v;
        memset(&v, 0, sizeof v);
        v.event_name = names[0];
        v.opcode_name = names[k + 1];
        const par_resolved *kept = par_resolved_keep(p, ETL_RESOLVE_DECODED, &v);
        if (!same[k])
            same[k] = kept;
        wrong += !kept || kept != same[k] || kept->opcode_name != names[k + 1] || kept->event_name != names[0];
    }
    for (unsigned i = 0; i < SAME_SET; i++)
        for (unsigned k = i + 1; k < SAME_SET; k++)
            wrong += same[i] == same[k];
    CHECK_EQ_U(wrong, 0);
    CHECK(par_finish(p));
}

/* Names in the record's own bytes (ETL_NAME_TRAITS) are at another address in every record:
 * kept with the answer, there was one kept answer per address (a TraceLogging trace, 388,214 of
 * them for 1 M records). */
static void keep_traits_answers(void)
{
    par *p = par_new(1, stdout, format, NULL, 0);
    CHECK(p != NULL);
    if (!p)
        return;
    enum { RECORDS_WITH_TRAITS = 1000 };
    static char bytes[RECORDS_WITH_TRAITS][16]; /* each record's copy, its traits name inside */
    static const char schema_name[] = "from the schema", event[] = "Event";
    const par_resolved *traits = NULL, *other[2] = {NULL, NULL};
    unsigned wrong = 0;
    for (unsigned i = 0; i < RECORDS_WITH_TRAITS; i++) {
        snprintf(bytes[i], sizeof bytes[i], "Provider%u", i % 3);
        etl_resolved v;
        memset(&v, 0, sizeof v);
        v.event_name = event;
        v.provider_name = bytes[i];
        v.provider_name_from = ETL_NAME_TRAITS;
        const par_resolved *kept = par_resolved_keep(p, ETL_RESOLVE_DECODED, &v);
        if (!traits)
            traits = kept;
        wrong += !kept || kept != traits || kept->provider_name != NULL ||
                 kept->provider_name_from != ETL_NAME_TRAITS || kept->event_name != event;
        /* the same answer with a name kept by the session (remembered, or the schema's) */
        v.provider_name = i % 2 ? schema_name : bytes[0];
        v.provider_name_from = i % 2 ? ETL_NAME_SCHEMA : ETL_NAME_CACHE;
        kept = par_resolved_keep(p, ETL_RESOLVE_DECODED, &v);
        if (!other[i % 2])
            other[i % 2] = kept;
        wrong += !kept || kept != other[i % 2] || kept->provider_name != v.provider_name;
    }
    wrong += traits == other[0] || traits == other[1] || other[0] == other[1];
    CHECK_EQ_U(wrong, 0);
    CHECK(par_finish(p));
}

int main(void)
{
    keep_answers();
    keep_traits_answers();
    size_t one_len;
    char *one = run(0, false, &one_len);
    unsigned lines = 0;
    for (size_t k = 0; k < one_len; k++)
        lines += one[k] == '\n';
    CHECK_EQ_U(lines, RECORDS);
    for (unsigned w = 1; w <= 4; w++) {
        for (int in_place = 0; in_place <= 1; in_place++) {
            size_t len;
            char *got = run(w, in_place, &len);
            CHECK_EQ_U(len, one_len);
            CHECK(len == one_len && memcmp(got, one, len) == 0);
            free(got);
        }
    }
    free(one);
    CHECK_EQ_U(scratch_misuse, 0);
    CHECK_MAIN_END();
}
