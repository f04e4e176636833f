/* SPDX-License-Identifier: MIT */
/* examples/train_idx.h: IDX image and label files (the MNIST format), plain
   or gzip-compressed, read whole and validated, for examples/train_fmnist.c.

   IDX (big-endian):  images: u32 magic 0x00000803, u32 count, u32 rows,
   u32 cols, then count*rows*cols bytes;  labels: u32 magic 0x00000801,
   u32 count, then count bytes.  A file is accepted only if the magic is
   right, the dimensions are the expected ones, the byte count is exactly
   what the header announces (no short file, no trailing bytes), the gzip
   stream is complete with a good CRC, and every label is below the number
   of classes.  Otherwise a one-line reason is written to `err`.

   gzip is read through zlib (gzread also reads uncompressed files).  Built
   with -DTRAIN_NO_ZLIB (the aarch64 cross build of tests/train, which has
   no arm64 zlib), only uncompressed files are read and a gzip file is
   refused with a message saying so. */
#ifndef TRAIN_IDX_H
#define TRAIN_IDX_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TRAIN_NO_ZLIB
#include <zlib.h>
#endif

/* The largest file we accept (bytes after decompression): far above
   MNIST's 47 MB, low enough that no size computation can overflow. */
#define TRAIN_IDX_MAX_BYTES ((size_t)1 << 32)

/* Reads the whole (decompressed) file into *out (malloc'd), *len bytes.
   Returns 0, or -1 with a message in err. */
static int train_read_file(const char *path, unsigned char **out, size_t *len, char *err,
                           size_t errlen)
{
    unsigned char *buf = NULL, magic[2] = {0, 0};
    size_t cap = 0, n = 0;
    FILE *f = fopen(path, "rb");
    *out = NULL;
    *len = 0;
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    {
        size_t m = fread(magic, 1, 2, f);
        int gz = m == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
#ifdef TRAIN_NO_ZLIB
        if (gz) {
            fclose(f);
            snprintf(err, errlen, "%s: gzip file, but this build has no zlib "
                     "(decompress it first, e.g. gzip -dk)", path);
            return -1;
        }
        rewind(f);
        for (;;) {
            size_t r;
            if (cap - n < 65536) {
                unsigned char *nb;
                cap = cap ? 2 * cap : 1 << 20;
                if (cap > TRAIN_IDX_MAX_BYTES + 65536) {
                    snprintf(err, errlen, "%s: larger than %zu bytes", path, TRAIN_IDX_MAX_BYTES);
                    free(buf); fclose(f); return -1;
                }
                nb = (unsigned char *)realloc(buf, cap);
                if (!nb) { snprintf(err, errlen, "%s: out of memory", path); free(buf); fclose(f); return -1; }
                buf = nb;
            }
            r = fread(buf + n, 1, cap - n, f);
            n += r;
            if (r == 0) break;
        }
        if (ferror(f)) {
            snprintf(err, errlen, "%s: read error", path);
            free(buf); fclose(f); return -1;
        }
        fclose(f);
#else
        gzFile g;
        (void)gz;
        fclose(f);
        g = gzopen(path, "rb");
        if (!g) {
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
            return -1;
        }
        for (;;) {
            int r;
            if (cap - n < 65536) {
                unsigned char *nb;
                cap = cap ? 2 * cap : 1 << 20;
                if (cap > TRAIN_IDX_MAX_BYTES + 65536) {
                    snprintf(err, errlen, "%s: larger than %zu bytes", path, TRAIN_IDX_MAX_BYTES);
                    free(buf); gzclose(g); return -1;
                }
                nb = (unsigned char *)realloc(buf, cap);
                if (!nb) { snprintf(err, errlen, "%s: out of memory", path); free(buf); gzclose(g); return -1; }
                buf = nb;
            }
            r = gzread(g, buf + n, (unsigned)(cap - n < 65536 ? cap - n : 65536));
            if (r < 0) {
                int zerr;
                const char *msg = gzerror(g, &zerr);
                snprintf(err, errlen, "%s: corrupt or truncated gzip data (%s)", path, msg);
                free(buf); gzclose(g); return -1;
            }
            if (r == 0) break;
            n += (size_t)r;
        }
        {
            /* a stream that ends early is reported here, not by gzread */
            int zerr = Z_OK;
            const char *msg = gzerror(g, &zerr);
            if (zerr != Z_OK && zerr != Z_STREAM_END) {
                snprintf(err, errlen, "%s: corrupt or truncated gzip data (%s)", path, msg);
                free(buf); gzclose(g); return -1;
            }
        }
        if (gzclose(g) != Z_OK) {
            snprintf(err, errlen, "%s: corrupt or truncated gzip data (gzclose)", path);
            free(buf); return -1;
        }
#endif
    }
    *out = buf;
    *len = n;
    return 0;
}

static uint32_t train_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* A set of images with their labels. */
typedef struct train_idx_set {
    size_t count, rows, cols;
    unsigned char *pixels; /* count * rows * cols */
    unsigned char *labels; /* count */
} train_idx_set;

static void train_idx_free(train_idx_set *s)
{
    free(s->pixels);
    free(s->labels);
    memset(s, 0, sizeof *s);
}

/* Loads an image file and a label file.  rows x cols must be want_rows x
   want_cols, both files must hold the same count (>= 1), every label must be
   < classes.  Returns 0, or -1 with a message in err (and nothing
   allocated). */
static int train_idx_load(const char *images, const char *labels, size_t want_rows,
                          size_t want_cols, unsigned classes, train_idx_set *out,
                          char *err, size_t errlen)
{
    unsigned char *ib = NULL, *lb = NULL;
    size_t il, ll, count, rows, cols, i;
    memset(out, 0, sizeof *out);
    if (train_read_file(images, &ib, &il, err, errlen) != 0) return -1;
    if (il < 16) {
        snprintf(err, errlen, "%s: truncated IDX header (%zu bytes)", images, il);
        goto fail;
    }
    if (train_be32(ib) != 0x00000803u) {
        snprintf(err, errlen, "%s: bad magic 0x%08x (an IDX image file has 0x00000803)",
                 images, (unsigned)train_be32(ib));
        goto fail;
    }
    count = train_be32(ib + 4);
    rows = train_be32(ib + 8);
    cols = train_be32(ib + 12);
    if (rows != want_rows || cols != want_cols) {
        snprintf(err, errlen, "%s: wrong dimensions %zux%zu (the model takes %zux%zu)",
                 images, rows, cols, want_rows, want_cols);
        goto fail;
    }
    if (count == 0) {
        snprintf(err, errlen, "%s: holds no image", images);
        goto fail;
    }
    if (il - 16 != count * rows * cols) {
        snprintf(err, errlen, "%s: %s: header announces %zu images (%zu bytes), file has %zu",
                 images, il - 16 < count * rows * cols ? "truncated" : "trailing bytes",
                 count, count * rows * cols, il - 16);
        goto fail;
    }
    if (train_read_file(labels, &lb, &ll, err, errlen) != 0) goto fail;
    if (ll < 8) {
        snprintf(err, errlen, "%s: truncated IDX header (%zu bytes)", labels, ll);
        goto fail;
    }
    if (train_be32(lb) != 0x00000801u) {
        snprintf(err, errlen, "%s: bad magic 0x%08x (an IDX label file has 0x00000801)",
                 labels, (unsigned)train_be32(lb));
        goto fail;
    }
    if (train_be32(lb + 4) != count) {
        snprintf(err, errlen, "%s: %u labels for %zu images in %s", labels,
                 (unsigned)train_be32(lb + 4), count, images);
        goto fail;
    }
    if (ll - 8 != count) {
        snprintf(err, errlen, "%s: %s: header announces %zu labels, file has %zu", labels,
                 ll - 8 < count ? "truncated" : "trailing bytes", count, ll - 8);
        goto fail;
    }
    for (i = 0; i < count; i++)
        if (lb[8 + i] >= classes) {
            snprintf(err, errlen, "%s: label %u of item %zu is out of range 0..%u", labels,
                     (unsigned)lb[8 + i], i, classes - 1);
            goto fail;
        }
    /* keep the payloads only */
    memmove(ib, ib + 16, count * rows * cols);
    memmove(lb, lb + 8, count);
    out->count = count;
    out->rows = rows;
    out->cols = cols;
    out->pixels = ib;
    out->labels = lb;
    return 0;
fail:
    free(ib);
    free(lb);
    return -1;
}

#endif /* TRAIN_IDX_H */
