/* fields.c - run a compiled schema over a payload, one item per call (fields.h).
 *
 * The program counter walks the schema's steps; a fixed stack (one frame per open struct or
 * array, at most ETL_SCHEMA_MAX_DEPTH) remembers where each container began and, for arrays,
 * how many elements remain.  When an array's element program finishes, control jumps back to
 * its first step until the count is used up, then falls through to ARRAY_END.  Every payload
 * read is checked against the payload's size; the first one that does not fit turns into a
 * PLACEHOLDER carrying the rest of the bytes, after which only END follows. */
#include "fields.h"
#include "value_format.h"

#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bytes.h"
#include "error.h"

enum { ST_RUNNING = 0, ST_DONE = 1 };

const char *etl_item_kind_name(etl_item_kind k)
{
    switch (k) {
    case ETL_ITEM_END: return "END";
    case ETL_ITEM_VALUE: return "VALUE";
    case ETL_ITEM_STRUCT_BEGIN: return "STRUCT_BEGIN";
    case ETL_ITEM_STRUCT_END: return "STRUCT_END";
    case ETL_ITEM_ARRAY_BEGIN: return "ARRAY_BEGIN";
    case ETL_ITEM_ARRAY_END: return "ARRAY_END";
    case ETL_ITEM_PLACEHOLDER: return "PLACEHOLDER";
    }
    return "?";
}

void etl_fields_start(etl_fields *f, const etl_schema *s, const uint8_t *payload, size_t size, uint8_t pointer_size)
{
    etl_fields_start_opts(f, s, payload, size, pointer_size, 0);
}

void etl_fields_start_opts(etl_fields *f, const etl_schema *s, const uint8_t *payload, size_t size,
                           uint8_t pointer_size, unsigned options)
{
    f->options = (uint8_t)options;
    static const uint8_t empty[1];
    f->schema = s;
    f->data = payload ? payload : empty; /* never offset a NULL pointer */
    /* payloads are < 64 KiB (one record); clamp so offsets fit the u32 fields */
    f->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    if (!payload)
        f->size = 0;
    f->pos = 0;
    f->pc = 0;
    f->items = 0;
    f->pointer_size = pointer_size ? pointer_size : (s ? s->pointer_size : 8);
    f->done = s ? ST_RUNNING : ST_DONE;
    f->depth = 0;
    f->last_kind = ETL_ITEM_END;
    f->pending = 0;
    f->slots_kept = 0; /* instead of clearing the slots: most schemas never use one */
}

/* Fill the parts of an item every kind sets. */
static inline void item_base(const etl_fields *f, etl_item *it, etl_item_kind kind, const etl_schema_step *st,
                             uint32_t pc)
{
    it->kind = kind;
    it->name = f->schema->strings + st->name;
    it->in_type = st->in_type;
    it->out_type = st->out_type;
    it->raw_out = st->raw_out;
    it->depth = st->depth;
    it->pointer_size = f->pointer_size;
    it->is_element = (st->flags & ETL_STEP_ELEMENT) != 0;
    it->dup = st->dup;
    it->elem_size = 0;
    it->step = pc;
    it->tag = st->tag;
    it->array_index = 0;
    it->array_count = 0;
    it->offset = f->pos;
    it->wire_size = 0;
    it->data = NULL;
    it->size = 0;
    it->custom = false;
    it->char_array = false;
    it->custom_protocol = 0;
    it->custom_schema = NULL;
    it->custom_schema_len = 0;
    it->reason = NULL;
    it->map = NULL;
    it->map_len = 0;
    it->map_strings = NULL;
    it->nominal = &st->nominal;
}

/* The rest of the payload as a placeholder; the walk ends after it. */
static etl_item_kind placeholder(etl_fields *f, etl_item *it, const char *name, const char *reason)
{
    /* Rare: every member not named here is zero, as item_base leaves them for other kinds. */
    *it = (etl_item){
        .kind = ETL_ITEM_PLACEHOLDER,
        .name = name ? name : "",
        .depth = f->depth,
        .pointer_size = f->pointer_size,
        .step = f->pc,
        .offset = f->pos,
        .wire_size = f->size - f->pos,
        .data = f->data + f->pos,
        .size = f->size - f->pos,
        .reason = reason,
    };
    f->pos = f->size;
    f->done = ST_DONE;
    f->items++;
    return f->last_kind = ETL_ITEM_PLACEHOLDER;
}

static etl_item_kind end_item(etl_fields *f, etl_item *it)
{
    static const etl_schema_step none;
    if (f->schema) {
        item_base(f, it, ETL_ITEM_END, &none, f->pc);
    } else {
        memset(it, 0, sizeof *it);
        it->offset = f->pos;
    }
    it->name = "";
    it->depth = 0;
    /* trailing bytes no field claimed (a schema/payload mismatch), for callers who show them */
    it->data = f->data + f->pos;
    it->size = f->size - f->pos;
    f->done = ST_DONE;
    return f->last_kind = ETL_ITEM_END;
}

/* The array frame directly enclosing step `pc` when that step is an element. */
static const etl_fields_frame *array_frame(const etl_fields *f)
{
    return f->depth ? &f->stack[f->depth - 1] : NULL;
}

/* Step past the current step; at the end of an element program, loop or leave the array. */
static inline void advance(etl_fields *f)
{
    f->pc++;
    if (f->depth) {
        etl_fields_frame *fr = &f->stack[f->depth - 1];
        const etl_schema_step *b = &f->schema->steps[fr->begin];
        /* (a damaged schema's open array "ends" at its UNSUPPORTED step: do not loop there) */
        if (b->op == ETL_OP_ARRAY_BEGIN && f->pc == b->match && f->schema->steps[f->pc].op == ETL_OP_ARRAY_END &&
            ++fr->index < fr->count)
            f->pc = fr->begin + 1;
    }
}

_Static_assert(ETL_SCHEMA_MAX_REFS <= 32, "slots_kept has a bit per slot");

/* The value in reference slot `ref`: 0 when no field of this walk kept one there yet, none
 * (UINT64_MAX) for a slot past the bound. */
static inline uint64_t slot_value(const etl_fields *f, unsigned ref)
{
    if (ref >= ETL_SCHEMA_MAX_REFS)
        return UINT64_MAX;
    return (f->slots_kept >> ref & 1) ? f->slots[ref] : 0;
}

/* Bytes a VALUE/CUSTOM step takes at pos: *prefix (count bytes) + *len (value bytes).  False
 * when the payload ends first. */
static bool value_span(const etl_fields *f, const etl_schema_step *st, uint32_t *prefix, uint32_t *len)
{
    uint32_t pos = f->pos, rest = f->size - f->pos;
    const uint8_t *p = f->data + pos;
    *prefix = 0;
    switch (st->size_rule) {
    case ETL_SIZE_FIXED:
        *len = st->size;
        return st->size <= rest;
    case ETL_SIZE_UTF16Z: {
        /* up to and including a u16 NUL; an unterminated final string takes the rest (tdh.h
         * tolerates it, pitfall 13) - but at least one code unit must be there.  Four code
         * units at a time first: (w - 0x0001..) & ~w & 0x8000.. is non-zero exactly when one of
         * the four 16-bit lanes is zero; the unit loop then finds which. */
        uint32_t i = 0;
#if defined(__SSE2__)
        /* eight units at a time: the lanes equal to zero, two mask bits per unit */
        while (i + 16 <= rest) {
            __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            unsigned z = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(w, _mm_setzero_si128()));
            if (z) {
                *len = i + (unsigned)__builtin_ctz(z) + 2;
                return true;
            }
            i += 16;
        }
#endif
        while (i + 8 <= rest) {
            uint64_t w = etl_ld64(p + i);
            if ((w - 0x0001000100010001ULL) & ~w & 0x8000800080008000ULL)
                break;
            i += 8;
        }
        while (i + 2 <= rest) {
            if (p[i] == 0 && p[i + 1] == 0) {
                *len = i + 2;
                return true;
            }
            i += 2;
        }
        *len = rest;
        return rest >= 2;
    }
    case ETL_SIZE_ANSIZ: {
        const uint8_t *nul = rest ? memchr(p, 0, rest) : NULL;
        *len = nul ? (uint32_t)(nul - p) + 1 : rest;
        return rest >= 1;
    }
    case ETL_SIZE_COUNTED16: {
        if (rest < 2)
            return false;
        uint32_t n = etl_ld16(p);
        *prefix = 2;
        *len = n;
        return n <= rest - 2;
    }
    case ETL_SIZE_SID: {
        if (rest < 8)
            return false;
        uint32_t n = 8u + 4u * p[1];
        *len = n;
        return n <= rest;
    }
    case ETL_SIZE_COUNTED16_BE: {
        if (rest < 2)
            return false;
        uint32_t n = (uint32_t)(p[0] << 8 | p[1]);
        *prefix = 2;
        *len = n;
        return n <= rest - 2;
    }
    case ETL_SIZE_COUNTED32: {
        if (rest < 4)
            return false;
        uint32_t n = etl_ld32(p);
        *prefix = 4;
        *len = n;
        return n <= rest - 4;
    }
    case ETL_SIZE_REST:
        *len = rest;
        return true;
    case ETL_SIZE_WBEMSID: {
        /* TOKEN_USER is two pointers (a SID pointer and attributes, padded); kernel MOF events
         * write a lone u32 0 when there is no SID (PerfView's SkipSID reads them that way) */
        if (rest < 4)
            return false;
        if (etl_ld32(p) == 0) {
            *prefix = 4;
            *len = 0;
            return true;
        }
        uint32_t tu = 2u * (f->pointer_size == 4 ? 4u : 8u);
        if (rest < tu + 8)
            return false;
        uint32_t n = 8u + 4u * p[tu + 1];
        *prefix = tu;
        *len = n;
        return n <= rest - tu;
    }
    case ETL_SIZE_REF: {
        /* a length read earlier (units of st->size bytes: characters or bytes) */
        uint64_t units = slot_value(f, st->ref);
        uint64_t n = st->size ? units * st->size : units;
        if (st->size && units > UINT32_MAX / st->size)
            return false;
        *len = (uint32_t)n;
        return n <= rest;
    }
    default:
        return false;
    }
}

/* Keep the value of a REFSLOT step (an unsigned little-endian integer of its width). */
static void keep_slot(etl_fields *f, const etl_schema_step *st, const uint8_t *p, uint32_t len)
{
    uint64_t v = 0;
    if (len > 8)
        len = 8;
    for (uint32_t i = len; i-- > 0;)
        v = v << 8 | p[i];
    if (st->slot < ETL_SCHEMA_MAX_REFS) {
        f->slots[st->slot] = v;
        f->slots_kept |= 1u << st->slot;
    }
}

etl_item_kind etl_fields_next(etl_fields *f, etl_item *it)
{
    if (f->pending) {
        f->pending = 0;
        return placeholder(f, it, f->pend_name, f->pend_reason);
    }
    if (f->done)
        return end_item(f, it);
    const etl_schema *s = f->schema;
    if (f->items >= ETL_FIELDS_MAX_ITEMS)
        return placeholder(f, it, NULL, "more items than the per-event limit");
    if (f->pc >= s->step_count)
        return end_item(f, it);
    uint32_t pc = f->pc;
    const etl_schema_step *st = &s->steps[pc];
    /* The common item first - a fixed-size value that fits, without a map, not optional, not
     * kept for a later length or count: most fields of kernel and manifest events.  The same
     * item as the general path below gives, without its two switches and flag tests. */
    if (st->op == ETL_OP_VALUE && st->size_rule == ETL_SIZE_FIXED &&
        !(st->flags & (ETL_STEP_OPTIONAL | ETL_STEP_REFSLOT | ETL_STEP_MAP)) && st->size <= f->size - f->pos) {
        f->items++;
        item_base(f, it, ETL_ITEM_VALUE, st, pc);
        if (it->is_element) {
            const etl_fields_frame *fr = array_frame(f);
            it->array_index = fr ? fr->index : 0;
        }
        it->wire_size = st->size;
        it->data = f->data + f->pos;
        it->size = st->size;
        f->pos += st->size;
        advance(f);
        return f->last_kind = ETL_ITEM_VALUE;
    }
    if ((st->flags & ETL_STEP_OPTIONAL) && f->depth == 0 && f->pos == f->size)
        return end_item(f, it); /* the shorter form: the optional fields are absent */
    f->items++;
    switch (st->op) {
    case ETL_OP_VALUE:
    case ETL_OP_CUSTOM: {
        uint32_t prefix, len;
        if (!value_span(f, st, &prefix, &len))
            return placeholder(f, it, s->strings + st->name, "payload ends inside this field");
        item_base(f, it, ETL_ITEM_VALUE, st, pc);
        if (it->is_element) {
            const etl_fields_frame *fr = array_frame(f);
            it->array_index = fr ? fr->index : 0;
        }
        it->wire_size = prefix + len;
        it->data = f->data + f->pos + prefix;
        it->size = len;
        if (st->op == ETL_OP_CUSTOM) {
            it->custom = true;
            it->custom_protocol = st->raw_out;
            it->raw_out = 0;
            it->custom_schema = s->bytes + st->data;
            it->custom_schema_len = st->data_len;
        } else {
            if (st->flags & ETL_STEP_REFSLOT)
                keep_slot(f, st, it->data, len);
            if (st->flags & ETL_STEP_MAP) {
                it->map = s->bytes + st->data;
                it->map_len = st->data_len;
                it->map_strings = s->strings;
            }
        }
        f->pos += prefix + len;
        advance(f);
        return f->last_kind = ETL_ITEM_VALUE;
    }
    case ETL_OP_STRUCT_BEGIN: {
        if (f->depth >= ETL_SCHEMA_MAX_DEPTH) /* the compiler bounds depth; stay safe anyway */
            return placeholder(f, it, s->strings + st->name, "nesting deeper than the limit");
        item_base(f, it, ETL_ITEM_STRUCT_BEGIN, st, pc);
        if (it->is_element) {
            const etl_fields_frame *fr = array_frame(f);
            it->array_index = fr ? fr->index : 0;
        }
        it->array_count = st->count;
        etl_fields_frame *fr = &f->stack[f->depth++];
        fr->begin = pc;
        fr->count = 1;
        fr->index = 0;
        fr->start = f->pos;
        f->pc++;
        return f->last_kind = ETL_ITEM_STRUCT_BEGIN;
    }
    case ETL_OP_STRUCT_END: {
        uint32_t start = f->pos;
        if (f->depth)
            start = f->stack[--f->depth].start;
        item_base(f, it, ETL_ITEM_STRUCT_END, st, pc);
        if (it->is_element) {
            const etl_fields_frame *fr = array_frame(f);
            it->array_index = fr ? fr->index : 0;
        }
        it->array_count = st->count;
        it->offset = start;
        it->wire_size = f->pos - start;
        advance(f);
        return f->last_kind = ETL_ITEM_STRUCT_END;
    }
    case ETL_OP_ARRAY_BEGIN: {
        if (f->depth >= ETL_SCHEMA_MAX_DEPTH)
            return placeholder(f, it, s->strings + st->name, "nesting deeper than the limit");
        uint32_t count = st->count, prefix = 0;
        if (st->count_rule == ETL_COUNT_U16) {
            uint16_t n;
            if (!etl_u16_at(f->data, f->size, f->pos, &n))
                return placeholder(f, it, s->strings + st->name, "payload ends inside this array's count");
            count = n;
            prefix = 2;
        } else if (st->count_rule == ETL_COUNT_REF) {
            /* the count is another field's value: bounded like every format's u16 counts, so a
             * hostile value cannot make a zero-size element loop for long */
            uint64_t n = slot_value(f, st->ref);
            if (n > ETL_SCHEMA_MAX_ARRAY_COUNT)
                return placeholder(f, it, s->strings + st->name, "array count from another field exceeds the limit");
            count = (uint32_t)n;
        } else if (st->count_rule == ETL_COUNT_REST) {
            /* as many fixed-size elements as the payload holds, at most `count` (the compiler
             * only gives this rule to arrays of one fixed-size VALUE); a partial element left
             * over shows as trailing bytes */
            const etl_schema_step *el = pc + 1 < s->step_count ? &s->steps[pc + 1] : NULL;
            if (!el || el->op != ETL_OP_VALUE || el->size_rule != ETL_SIZE_FIXED || el->size == 0)
                return placeholder(f, it, s->strings + st->name, "array sized by the payload without fixed-size elements");
            uint32_t fit = (f->size - f->pos) / el->size;
            count = fit < st->count ? fit : st->count;
        }
        item_base(f, it, ETL_ITEM_ARRAY_BEGIN, st, pc);
        it->array_count = count;
        it->wire_size = prefix;
        /* one fixed-size VALUE per element: hand over all elements at once, when they fit */
        const etl_schema_step *el = pc + 1 < s->step_count ? &s->steps[pc + 1] : NULL;
        if (el && el->op == ETL_OP_VALUE && el->size_rule == ETL_SIZE_FIXED && pc + 2 == st->match) {
            uint64_t total = (uint64_t)count * el->size;
            if (total <= f->size - f->pos - prefix) {
                it->elem_size = el->size;
                it->data = f->data + f->pos + prefix;
                it->size = (uint32_t)total;
                it->wire_size = prefix + (uint32_t)total;
            }
        }
        etl_fields_frame *fr = &f->stack[f->depth++];
        fr->begin = pc;
        fr->count = count;
        fr->index = 0;
        fr->start = f->pos;
        f->pos += prefix;
        f->pc = count ? pc + 1 : st->match;
        f->last_kind = ETL_ITEM_ARRAY_BEGIN;
        if ((f->options & ETL_FIELDS_CHAR_STRINGS) && etl_value_is_char_array(it)) {
            /* one VALUE for the whole array: its elements are at hand (elem_size), so the skip
             * is one step, and its ARRAY_END is consumed here rather than by every caller */
            etl_item end;
            etl_fields_skip(f);
            etl_fields_next(f, &end);
            it->kind = ETL_ITEM_VALUE;
            it->char_array = true;
            return f->last_kind = ETL_ITEM_VALUE;
        }
        return ETL_ITEM_ARRAY_BEGIN;
    }
    case ETL_OP_ARRAY_END: {
        uint32_t start = f->pos, count = 0;
        if (f->depth) {
            const etl_fields_frame *fr = &f->stack[--f->depth];
            start = fr->start;
            count = fr->count;
        }
        item_base(f, it, ETL_ITEM_ARRAY_END, st, pc);
        it->array_count = count;
        it->offset = start;
        it->wire_size = f->pos - start;
        const etl_schema_step *el = pc > 0 ? &s->steps[pc - 1] : NULL;
        if (el && el->op == ETL_OP_VALUE && el->size_rule == ETL_SIZE_FIXED && st->match + 2 == pc)
            it->elem_size = el->size;
        advance(f);
        return f->last_kind = ETL_ITEM_ARRAY_END;
    }
    case ETL_OP_UNSUPPORTED:
    default:
        f->items--; /* placeholder() counts it */
        return placeholder(f, it, NULL, s->strings + (st->op == ETL_OP_UNSUPPORTED ? st->data : 0));
    }
}

uint8_t etl_fields_step_scalar(const etl_schema_step *st, uint8_t pointer_size)
{
    const etl_step_nominal *nm = &st->nominal;
    /* what etl_fields_next hands out as one fixed-size VALUE, which etl_value_decode starts
     * from the step's nominal type */
    if (st->op != ETL_OP_VALUE || st->size_rule != ETL_SIZE_FIXED ||
        (st->flags & (ETL_STEP_OPTIONAL | ETL_STEP_REFSLOT | ETL_STEP_MAP)) || !nm->pointer_size || !nm->fixed ||
        nm->fixed != st->size)
        return 0;
    uint8_t bound = 0;
    if (nm->in_type == ETL_IN_POINTER) {
        if (nm->pointer_size != (pointer_size == 4 ? 4 : 8))
            return 0;
        bound = ETL_SCALAR_POINTER_BOUND;
    }
    if (nm->kind == ETL_VALUE_INT)
        return ETL_SCALAR_INT | bound;
    if (nm->kind != ETL_VALUE_UINT || nm->format == ETL_OUT_PORT)
        return 0;
    switch (etl_format_int_style(nm->format)) {
    case ETL_INT_DECIMAL: return ETL_SCALAR_UINT | bound;
    case ETL_INT_HEX: return ETL_SCALAR_HEX | bound;
    default: return 0;
    }
}

/* The number of scalar step st (its style `style`) at pos. */
static inline uint64_t scalar_at(const etl_schema_step *st, unsigned style, const uint8_t *data, uint32_t pos,
                                 uint32_t size)
{
    if (size - pos >= 8) {
        /* a whole word, then the value's bytes kept by shifts (sign-extended for INT): no
         * branch on the width, which changes from field to field */
        unsigned sh = 64u - 8u * st->size;
        uint64_t w = etl_ld64(data + pos) << sh;
        return style == ETL_SCALAR_INT ? (uint64_t)((int64_t)w >> sh) : w >> sh;
    }
    return etl_nominal_int(&st->nominal, data + pos);
}

unsigned etl_fields_scalar_run(etl_fields *f, etl_scalar *out, unsigned max)
{
    if (f->pending || f->done)
        return 0;
    const etl_schema *s = f->schema;
    const etl_schema_step *steps = s->steps;
    /* the run in locals (the stores to out cannot then alias the state), written back after */
    uint32_t pc = f->pc, pos = f->pos, size = f->size, end = s->step_count;
    const uint8_t *data = f->data;
    uint8_t ptr = f->pointer_size == 4 ? 4 : 8;
    uint32_t room = f->items < ETL_FIELDS_MAX_ITEMS ? ETL_FIELDS_MAX_ITEMS - f->items : 0;
    if (max > room)
        max = room; /* the item bound: etl_fields_next's placeholder comes next */
    /* inside an array of one scalar element the run loops over its elements (advance); a run
     * never opens or closes a container, so the frame stays the same */
    etl_fields_frame *fr = f->depth ? &f->stack[f->depth - 1] : NULL;
    uint32_t loop_at = fr && steps[fr->begin].op == ETL_OP_ARRAY_BEGIN ? steps[fr->begin].match : UINT32_MAX;
    /* the array's element step when it is its only one: its elements go in a tight loop */
    uint32_t elem = loop_at != UINT32_MAX && fr->begin + 2 == loop_at && steps[loop_at].op == ETL_OP_ARRAY_END
                        ? fr->begin + 1
                        : UINT32_MAX;
    unsigned n = 0;
    while (n < max && pc < end) {
        const etl_schema_step *st = &steps[pc];
        unsigned sc = st->scalar;
        if (!sc || ((sc & ETL_SCALAR_POINTER_BOUND) && st->nominal.pointer_size != ptr) || st->size > size - pos)
            break;
        unsigned style = sc & ETL_SCALAR_STYLE_MASK;
        if (pc == elem) {
            /* as many elements as the array, the run and the payload hold: each as the
             * general step below would take it (the frame's index counts every one) */
            uint32_t esz = st->size, k = fr->count - fr->index, fit = (size - pos) / esz;
            if (k > fit)
                k = fit;
            if (k > max - n)
                k = max - n;
            for (uint32_t e = 0; e < k; e++, n++, pos += esz) {
                out[n].u = scalar_at(st, style, data, pos, size);
                out[n].step = pc;
                out[n].offset = pos;
                out[n].style = (uint8_t)style;
            }
            fr->index += k;
            if (fr->index >= fr->count)
                pc = loop_at; /* past the last element: the array's end comes next */
            continue;
        }
        out[n].u = scalar_at(st, style, data, pos, size);
        out[n].step = pc;
        out[n].offset = pos;
        out[n].style = (uint8_t)style;
        n++;
        pos += st->size;
        pc++;
        if (pc == loop_at && steps[pc].op == ETL_OP_ARRAY_END && ++fr->index < fr->count)
            pc = fr->begin + 1;
    }
    if (n) {
        f->pc = pc;
        f->pos = pos;
        f->items += n;
        f->last_kind = ETL_ITEM_VALUE;
    }
    return n;
}

const char *etl_fields_step_key(const etl_fields *f, uint32_t step, char *out, size_t cap)
{
    const etl_schema_step *st = &f->schema->steps[step];
    etl_item it = {.name = f->schema->strings + st->name, .dup = st->dup};
    return etl_item_key(&it, out, cap);
}

bool etl_fields_skip(etl_fields *f)
{
    if (f->done || f->depth == 0)
        return false;
    if (f->last_kind != ETL_ITEM_ARRAY_BEGIN && f->last_kind != ETL_ITEM_STRUCT_BEGIN)
        return false;
    const etl_schema *s = f->schema;
    etl_fields_frame *fr = &f->stack[f->depth - 1];
    const etl_schema_step *b = &s->steps[fr->begin];
    if (b->op == ETL_OP_ARRAY_BEGIN) {
        const etl_schema_step *el = fr->begin + 1 < s->step_count ? &s->steps[fr->begin + 1] : NULL;
        if (fr->count == 0) {
            f->last_kind = ETL_ITEM_END; /* already positioned at ARRAY_END */
            return true;
        }
        if (el && el->op == ETL_OP_VALUE && el->size_rule == ETL_SIZE_FIXED && fr->begin + 2 == b->match) {
            uint64_t total = (uint64_t)(fr->count - fr->index) * el->size;
            if (total <= f->size - f->pos) {
                f->pos += (uint32_t)total;
                fr->index = fr->count;
                f->pc = b->match;
                f->last_kind = ETL_ITEM_END;
                return true;
            }
        }
    }
    /* Walk the contents without handing them out: stop before the container's END. */
    uint8_t depth = f->depth;
    uint32_t end = b->match;
    etl_item tmp;
    while (!f->done && !(f->depth == depth && f->pc == end)) {
        etl_item_kind k = etl_fields_next(f, &tmp);
        if (k == ETL_ITEM_PLACEHOLDER) {
            /* damaged contents: hand the placeholder out as the next item, instead of the END */
            f->pending = 1;
            f->pend_name = tmp.name;
            f->pend_reason = tmp.reason;
            f->pos = tmp.offset;
            f->items--;
            f->done = ST_RUNNING;
            break;
        }
    }
    f->last_kind = ETL_ITEM_END;
    return true;
}

const etl_ext_item *etl_record_tl_schema(const etl_record *rec)
{
    for (unsigned i = 0; i < rec->ext_count; i++)
        if (rec->ext[i].type == ETL_EXT_EVENT_SCHEMA_TL)
            return &rec->ext[i];
    return NULL;
}

const etl_ext_item *etl_record_tl_traits(const etl_record *rec)
{
    for (unsigned i = 0; i < rec->ext_count; i++)
        if (rec->ext[i].type == ETL_EXT_PROV_TRAITS)
            return &rec->ext[i];
    return NULL;
}

etl_status etl_fields_start_record(etl_fields *f, etl_schema_cache *cache, const etl_record *rec,
                                   const etl_schema **schema, etl_error *err)
{
    const etl_ext_item *x = etl_record_tl_schema(rec);
    if (!x)
        return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "not a TraceLogging event");
    const etl_schema *s;
    etl_status st = etl_schema_cache_tl(cache, x->data, x->data_size, rec->pointer_size, &s, err);
    if (st != ETL_OK)
        return st;
    etl_fields_start(f, s, rec->bytes + rec->payload_offset, rec->payload_size, rec->pointer_size);
    if (schema)
        *schema = s;
    return ETL_OK;
}

const char *etl_item_key(const etl_item *it, char *out, size_t cap)
{
    if (!it->dup || !cap)
        return it->name;
    snprintf(out, cap, "%s_%u", it->name, (unsigned)it->dup);
    return out;
}
