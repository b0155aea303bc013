/* pe_build.h - small synthetic PE images for the provider-binary tests, the fuzzer's seeds and
 * the bench (wevtbench.c): a PE32 or PE32+ header, one .rsrc section, and in it a resource tree
 * with a WEVT_TEMPLATE (name 1, en-US) and/or a MESSAGETABLE (type 11), laid out as the PE/COFF
 * specification says.  pe_build_image also returns where the pieces went, so tests can damage
 * them.  Header-only (static functions, unused ones allowed): each user includes it once. */
#ifndef ETL_PE_BUILD_H
#define ETL_PE_BUILD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define PE_BUILD_RSRC_RVA 0x1000u
#define PE_BUILD_RSRC_FILE 0x200u /* the section's file offset: headers fit below */

typedef struct pe_build_layout {
    size_t nt;            /* file offset of "PE\0\0" */
    size_t sections;      /* of the section table */
    size_t rsrc;          /* of the resource directory (the section's data) */
    size_t root_entries;  /* of the root directory's entries */
    size_t type_dir[2];   /* of the level-2 directories (WEVT_TEMPLATE, MESSAGETABLE) */
    size_t data_entry[2]; /* of the data entries */
    size_t crim;          /* of the WEVT_TEMPLATE bytes (0: none) */
    size_t messages;      /* of the MESSAGETABLE bytes (0: none) */
} pe_build_layout;

static void pe_put16(GByteArray *b, size_t at, uint16_t v)
{
    b->data[at] = (uint8_t)v;
    b->data[at + 1] = (uint8_t)(v >> 8);
}

static void pe_put32(GByteArray *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->data[at + i] = (uint8_t)(v >> (8 * i));
}

static size_t pe_grow(GByteArray *b, size_t n)
{
    size_t at = b->len;
    g_byte_array_set_size(b, (guint)(at + n));
    memset(b->data + at, 0, n);
    return at;
}

/* A MESSAGETABLE with one block per message (ids[i] -> texts[i], UTF-16 with CR LF). */
G_GNUC_UNUSED static GByteArray *pe_build_messages(const uint32_t *ids, const char *const *texts, unsigned n)
{
    GByteArray *b = g_byte_array_new();
    pe_grow(b, 4 + (size_t)n * 12);
    pe_put32(b, 0, n);
    for (unsigned i = 0; i < n; i++) {
        glong len = 0;
        char *t = g_strconcat(texts[i], "\r\n", NULL);
        gunichar2 *u = g_utf8_to_utf16(t, -1, NULL, &len, NULL);
        size_t bytes = ((size_t)(len + 1) * 2 + 4 + 3) & ~(size_t)3;
        size_t at = pe_grow(b, bytes);
        pe_put32(b, 4 + i * 12, ids[i]);
        pe_put32(b, 8 + i * 12, ids[i]);
        pe_put32(b, 12 + i * 12, (uint32_t)at);
        pe_put16(b, at, (uint16_t)bytes);
        pe_put16(b, at + 2, 1);
        for (glong k = 0; k < len; k++)
            pe_put16(b, at + 4 + (size_t)k * 2, u[k]);
        g_free(u);
        g_free(t);
    }
    return b;
}

/* The image: resources for what is given (crim and/or messages, NULL for none). */
G_GNUC_UNUSED static GByteArray *pe_build_image(const uint8_t *crim, size_t crim_len, const GByteArray *messages, bool pe32plus,
                                  pe_build_layout *lay)
{
    pe_build_layout l;
    memset(&l, 0, sizeof l);
    GByteArray *b = g_byte_array_new();
    pe_grow(b, PE_BUILD_RSRC_FILE);
    b->data[0] = 'M';
    b->data[1] = 'Z';
    l.nt = 0x40;
    pe_put32(b, 0x3C, (uint32_t)l.nt);
    memcpy(b->data + l.nt, "PE\0\0", 4);
    uint16_t opt_size = pe32plus ? 240 : 224;
    pe_put16(b, l.nt + 4, pe32plus ? 0x8664 : 0x014C);
    pe_put16(b, l.nt + 6, 1);
    pe_put16(b, l.nt + 20, opt_size);
    size_t opt = l.nt + 24;
    pe_put16(b, opt, pe32plus ? 0x20B : 0x10B);
    size_t dirs = opt + (pe32plus ? 112 : 96);
    pe_put32(b, opt + (pe32plus ? 108 : 92), 16);
    l.sections = opt + opt_size;
    memcpy(b->data + l.sections, ".rsrc", 5);

    /* the resource section */
    unsigned types = (crim ? 1 : 0) + (messages ? 1 : 0);
    l.rsrc = pe_grow(b, 16 + (size_t)types * 8);
    pe_put16(b, l.rsrc + 12, crim ? 1 : 0);        /* named entries first */
    pe_put16(b, l.rsrc + 14, messages ? 1 : 0);
    l.root_entries = l.rsrc + 16;
    unsigned k = 0;
    size_t name = 0;
    if (crim) {
        static const char wevt[] = "WEVT_TEMPLATE";
        name = pe_grow(b, 2 + 2 * (sizeof wevt - 1) + 2);
        pe_put16(b, name, sizeof wevt - 1);
        for (size_t i = 0; i < sizeof wevt - 1; i++)
            pe_put16(b, name + 2 + 2 * i, (uint8_t)wevt[i]);
    }
    for (unsigned t = 0; t < 2; t++) {
        if ((t == 0 && !crim) || (t == 1 && !messages))
            continue;
        size_t e = l.root_entries + (size_t)k++ * 8;
        pe_put32(b, e, t == 0 ? (0x80000000u | (uint32_t)(name - l.rsrc)) : 11u);
        size_t d2 = pe_grow(b, 24), d3 = pe_grow(b, 24), de = pe_grow(b, 16);
        l.type_dir[t] = d2;
        l.data_entry[t] = de;
        pe_put32(b, e + 4, 0x80000000u | (uint32_t)(d2 - l.rsrc));
        pe_put16(b, d2 + 14, 1);
        pe_put32(b, d2 + 16, 1);
        pe_put32(b, d2 + 20, 0x80000000u | (uint32_t)(d3 - l.rsrc));
        pe_put16(b, d3 + 14, 1);
        pe_put32(b, d3 + 16, 1033);
        pe_put32(b, d3 + 20, (uint32_t)(de - l.rsrc));
        const uint8_t *bytes = t == 0 ? crim : messages->data;
        size_t len = t == 0 ? crim_len : messages->len;
        size_t at = pe_grow(b, (len + 7) & ~(size_t)7);
        memcpy(b->data + at, bytes, len);
        pe_put32(b, de, (uint32_t)(PE_BUILD_RSRC_RVA + (at - l.rsrc)));
        pe_put32(b, de + 4, (uint32_t)len);
        if (t == 0)
            l.crim = at;
        else
            l.messages = at;
    }
    size_t raw = b->len - l.rsrc;
    size_t padded = (raw + 0x1FF) & ~(size_t)0x1FF;
    pe_grow(b, padded - raw);
    pe_put32(b, dirs + 2 * 8, PE_BUILD_RSRC_RVA);
    pe_put32(b, dirs + 2 * 8 + 4, (uint32_t)raw);
    pe_put32(b, l.sections + 8, (uint32_t)raw);
    pe_put32(b, l.sections + 12, PE_BUILD_RSRC_RVA);
    pe_put32(b, l.sections + 16, (uint32_t)padded);
    pe_put32(b, l.sections + 20, PE_BUILD_RSRC_FILE);
    if (lay)
        *lay = l;
    return b;
}

#endif /* ETL_PE_BUILD_H */
