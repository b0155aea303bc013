/* libFuzzer target over the writer: relog the input trace (every record, then every third -
 * the last input byte picks) into memory with etl_relog_memory, read the output back and
 * require that it reads with no damage report at all and holds no more records than the input:
 * writing never produces a file the reader calls damaged, whatever the input was. */
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_relog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct image {
    uint8_t *data;
    size_t len, cap;
} image;

/* Bound of the written image: an input of the fuzzer's sizes never needs more. */
#define IMAGE_MAX (256u * 1024u * 1024u)

static int image_write(void *ctx, uint64_t off, const void *p, size_t n)
{
    image *im = ctx;
    if (off > IMAGE_MAX || n > IMAGE_MAX - off)
        return -1;
    size_t end = (size_t)off + n;
    if (end > im->cap) {
        size_t cap = im->cap ? im->cap : 65536;
        while (cap < end)
            cap *= 2;
        uint8_t *d = realloc(im->data, cap);
        if (d == NULL)
            return -1;
        im->data = d;
        im->cap = cap;
    }
    memcpy(im->data + off, p, n);
    if (end > im->len)
        im->len = end;
    return 0;
}

static bool every_third(void *ctx, const etl_record *rec, uint64_t number, const struct etl_proc_info *proc)
{
    (void)ctx;
    (void)rec;
    (void)proc;
    return number % 3 == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    image im = {0};
    etl_relog_options opt = {0};
    if (size && (data[size - 1] & 1))
        opt.select = every_third;
    etl_relog_stats st;
    etl_error err;
    if (etl_relog_memory(data, size, (etl_write_sink){ image_write, &im }, &opt, &st, &err) == ETL_OK) {
        etl_reader *r;
        if (etl_reader_open_memory(im.data, im.len, NULL, &r, &err) != ETL_OK)
            abort(); /* a written file always opens */
        etl_record rec;
        uint64_t n = 0;
        while (etl_reader_next(r, &rec, &err) == ETL_OK) {
            if (etl_record_problem(&rec, NULL, NULL))
                abort(); /* a written record is never damaged */
            n++;
        }
        etl_error p;
        if (etl_reader_next_problem(r, &p) || etl_reader_stats(r)->problems || n != st.records)
            abort(); /* nor is the file around it */
        etl_reader_close(r);
    }
    free(im.data);
    return 0;
}
