/* SPDX-License-Identifier: MIT */
/* examples/train_idx.h: IDX image and label files (the MNIST format), plain
   or gzip-compressed, validated as they are read, for
   examples/train_fmnist.c.

   IDX (big-endian):  images: u32 magic 0x00000803, u32 count, u32 rows,
   u32 cols, then count*rows*cols bytes;  labels: u32 magic 0x00000801,
   u32 count, then count bytes.

   The header is read and checked first (magic, dimensions, a count of at
   least 1, the same count in both files, a payload of at most
   TRAIN_IDX_MAX_BYTES); only then is the payload read, into a buffer that
   grows with the bytes actually read and never beyond what the header
   announces.  So memory is bounded by the header's claim whatever the
   file holds (/dev/zero has magic 0 and is refused after 16 bytes; a
   gzip member that inflates past the claim is refused one byte after
   it).  A file is accepted only if it holds exactly the announced bytes
   (no short file, no trailing bytes), a gzip file is exactly one complete
   gzip member with a good CRC and nothing after it, and every label is
   below the number of classes.  Otherwise a one-line reason is written
   to `err`.

   gzip is inflated with zlib (inflate, gzip wrapper only).  Built with
   -DTRAIN_NO_ZLIB (the aarch64 cross build of tests/train, which has no
   arm64 zlib), only uncompressed files are read and a gzip file is refused
   with a message saying so.

   With `digests` set, the loader also returns the SHA-256 of each file's
   decompressed bytes (header and payload): what the ranks of an MPI job
   compare before training. */
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

#include "../tests/golden/sha256.h"

/* The largest payload a header may announce (bytes after decompression):
   far above MNIST's 47 MB, low enough that no size computation can
   overflow.  train_fmnist --help states it. */
#define TRAIN_IDX_MAX_BYTES ((size_t)1 << 32)

/* ---- a file read in order, plain or one gzip member ---- */
typedef struct train_src {
    const char *path;
    FILE *f;
    int gz;
#ifndef TRAIN_NO_ZLIB
    z_stream z;
    int zinit, zend; /* inflateInit2 done; the member's end (CRC checked) seen */
#endif
    unsigned char in[65536];
    unsigned char pre[2]; /* a plain file's first bytes, read to look for gzip */
    size_t npre;
    golden_sha256 h;
    int hashing;
} train_src;

static void train_src_close(train_src *s)
{
#ifndef TRAIN_NO_ZLIB
    if (s->zinit) inflateEnd(&s->z);
    s->zinit = 0;
#endif
    if (s->f) fclose(s->f);
    s->f = NULL;
}

static int train_src_open(train_src *s, const char *path, int hashing, char *err,
                          size_t errlen)
{
    unsigned char magic[2] = {0, 0};
    size_t m;
    memset(s, 0, sizeof *s);
    s->path = path;
    s->hashing = hashing;
    if (hashing) golden_sha256_init(&s->h);
    s->f = fopen(path, "rb");
    if (!s->f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    m = fread(magic, 1, 2, s->f);
    s->gz = m == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
#ifdef TRAIN_NO_ZLIB
    if (s->gz) {
        snprintf(err, errlen, "%s: gzip file, but this build has no zlib "
                 "(decompress it first, e.g. gzip -dk)", path);
        train_src_close(s);
        return -1;
    }
#else
    if (s->gz) {
        s->in[0] = magic[0];
        s->in[1] = magic[1];
        s->z.next_in = s->in;
        s->z.avail_in = 2;
        if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) { /* 16: gzip wrapper only */
            snprintf(err, errlen, "%s: cannot start zlib", path);
            train_src_close(s);
            return -1;
        }
        s->zinit = 1;
        return 0;
    }
#endif
    /* plain: the bytes read stay in pre (no rewind: a pipe works too) */
    memcpy(s->pre, magic, m);
    s->npre = m;
    return 0;
}

/* Reads up to n bytes into buf: the count read (< n only at the end of the
   data), or -1 with a message. */
static long long train_src_read(train_src *s, unsigned char *buf, size_t n, char *err,
                                size_t errlen)
{
    size_t got = 0;
    if (!s->gz) {
        while (got < n && s->npre) {
            buf[got++] = s->pre[0];
            s->pre[0] = s->pre[1];
            s->npre--;
        }
        got += fread(buf + got, 1, n - got, s->f);
        if (got < n && ferror(s->f)) {
            snprintf(err, errlen, "%s: read error: %s", s->path, strerror(errno));
            return -1;
        }
    }
#ifndef TRAIN_NO_ZLIB
    else {
        while (got < n && !s->zend) {
            int r;
            size_t chunk = n - got < 65536 ? n - got : 65536;
            if (s->z.avail_in == 0) {
                size_t k = fread(s->in, 1, sizeof s->in, s->f);
                if (k == 0) {
                    snprintf(err, errlen, "%s: corrupt or truncated gzip data (%s)", s->path,
                             ferror(s->f) ? strerror(errno) : "unexpected end of file");
                    return -1;
                }
                s->z.next_in = s->in;
                s->z.avail_in = (uInt)k;
            }
            s->z.next_out = buf + got;
            s->z.avail_out = (uInt)chunk;
            r = inflate(&s->z, Z_NO_FLUSH);
            got += chunk - s->z.avail_out;
            if (r == Z_STREAM_END) {
                s->zend = 1;
            } else if (r != Z_OK && !(r == Z_BUF_ERROR && s->z.avail_in == 0)) {
                snprintf(err, errlen, "%s: corrupt or truncated gzip data (%s)", s->path,
                         s->z.msg ? s->z.msg : "inflate failed");
                return -1;
            }
        }
    }
#endif
    if (s->hashing) golden_sha256_update(&s->h, buf, got);
    return (long long)got;
}

/* After the announced bytes: 0 if the file ends there (for gzip: the
   member ends there, its CRC and length are right, and no byte follows
   it), else -1 with a message.  Reads at most one byte past the claim. */
static int train_src_end(train_src *s, size_t announced, const char *what, char *err,
                         size_t errlen)
{
    unsigned char extra;
    long long k = train_src_read(s, &extra, 1, err, errlen);
    if (k < 0) return -1;
    if (k > 0) {
        snprintf(err, errlen, "%s: trailing bytes: the header announces %s (%zu bytes), the "
                 "file holds more", s->path, what, announced);
        return -1;
    }
#ifndef TRAIN_NO_ZLIB
    if (s->gz && (s->z.avail_in != 0 || fread(&extra, 1, 1, s->f) == 1)) {
        snprintf(err, errlen, "%s: trailing garbage after the gzip member (a data file is "
                 "one gzip member and nothing after it)", s->path);
        return -1;
    }
#endif
    return 0;
}

/* Reads exactly n announced bytes into a buffer that grows with the data
   (malloc'd into *out); -1 with a message on a short file or an error. */
static int train_src_payload(train_src *s, size_t n, const char *what, unsigned char **out,
                             char *err, size_t errlen)
{
    unsigned char *buf = NULL;
    size_t cap = 0, have = 0;
    *out = NULL;
    while (have < n) {
        long long k;
        if (have == cap) {
            unsigned char *nb;
            cap = cap ? 2 * cap : (size_t)1 << 20;
            if (cap > n) cap = n;
            nb = (unsigned char *)realloc(buf, cap);
            if (!nb) {
                snprintf(err, errlen, "%s: out of memory (%zu bytes)", s->path, cap);
                free(buf);
                return -1;
            }
            buf = nb;
        }
        {
            size_t want = cap - have;
            k = train_src_read(s, buf + have, want, err, errlen);
            if (k < 0) { free(buf); return -1; }
            have += (size_t)k;
            if ((size_t)k < want) break; /* the data ended */
        }
    }
    if (have < n) {
        snprintf(err, errlen, "%s: truncated: header announces %s (%zu bytes), file has %zu",
                 s->path, what, n, have);
        free(buf);
        return -1;
    }
    if (train_src_end(s, n, what, err, errlen)) { free(buf); return -1; }
    *out = buf ? buf : (unsigned char *)malloc(1);
    if (!*out) { snprintf(err, errlen, "%s: out of memory", s->path); return -1; }
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
    unsigned char image_sha256[32], label_sha256[32]; /* with digests: the files' bytes */
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
                          size_t want_cols, unsigned classes, int digests,
                          train_idx_set *out, char *err, size_t errlen)
{
    train_src si, sl;
    unsigned char ih[16], lh[8], *ib = NULL, *lb = NULL;
    size_t count, rows, cols, i;
    long long k;
    char what[96];
    memset(out, 0, sizeof *out);
    if (train_src_open(&si, images, digests, err, errlen)) return -1;
    if (train_src_open(&sl, labels, digests, err, errlen)) { train_src_close(&si); return -1; }
    /* ---- both headers first ---- */
    k = train_src_read(&si, ih, 16, err, errlen);
    if (k < 0) goto fail;
    if (k < 16) {
        snprintf(err, errlen, "%s: truncated IDX header (%lld bytes)", images, k);
        goto fail;
    }
    if (train_be32(ih) != 0x00000803u) {
        snprintf(err, errlen, "%s: bad magic 0x%08x (an IDX image file has 0x00000803)",
                 images, (unsigned)train_be32(ih));
        goto fail;
    }
    count = train_be32(ih + 4);
    rows = train_be32(ih + 8);
    cols = train_be32(ih + 12);
    if (rows != want_rows || cols != want_cols) {
        snprintf(err, errlen, "%s: wrong dimensions %zux%zu (the model takes %zux%zu)",
                 images, rows, cols, want_rows, want_cols);
        goto fail;
    }
    if (count == 0) {
        snprintf(err, errlen, "%s: holds no image", images);
        goto fail;
    }
    if (count > TRAIN_IDX_MAX_BYTES / (rows * cols)) {
        snprintf(err, errlen, "%s: header announces %zu images, more than the limit of %zu "
                 "bytes of pixels", images, count, TRAIN_IDX_MAX_BYTES);
        goto fail;
    }
    k = train_src_read(&sl, lh, 8, err, errlen);
    if (k < 0) goto fail;
    if (k < 8) {
        snprintf(err, errlen, "%s: truncated IDX header (%lld bytes)", labels, k);
        goto fail;
    }
    if (train_be32(lh) != 0x00000801u) {
        snprintf(err, errlen, "%s: bad magic 0x%08x (an IDX label file has 0x00000801)",
                 labels, (unsigned)train_be32(lh));
        goto fail;
    }
    if (train_be32(lh + 4) != count) {
        snprintf(err, errlen, "%s: %u labels for %zu images in %s", labels,
                 (unsigned)train_be32(lh + 4), count, images);
        goto fail;
    }
    /* ---- then the payloads, bounded by the headers ---- */
    snprintf(what, sizeof what, "%zu images", count);
    if (train_src_payload(&si, count * rows * cols, what, &ib, err, errlen)) goto fail;
    snprintf(what, sizeof what, "%zu labels", count);
    if (train_src_payload(&sl, count, what, &lb, err, errlen)) goto fail;
    for (i = 0; i < count; i++)
        if (lb[i] >= classes) {
            snprintf(err, errlen, "%s: label %u of item %zu is out of range 0..%u", labels,
                     (unsigned)lb[i], i, classes - 1);
            goto fail;
        }
    if (digests) {
        golden_sha256_final(&si.h, out->image_sha256);
        golden_sha256_final(&sl.h, out->label_sha256);
    }
    train_src_close(&si);
    train_src_close(&sl);
    out->count = count;
    out->rows = rows;
    out->cols = cols;
    out->pixels = ib;
    out->labels = lb;
    return 0;
fail:
    train_src_close(&si);
    train_src_close(&sl);
    free(ib);
    free(lb);
    return -1;
}

#endif /* TRAIN_IDX_H */
