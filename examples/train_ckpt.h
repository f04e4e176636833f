/* SPDX-License-Identifier: MIT */
/* examples/train_ckpt.h: the checkpoint file of examples/train_fmnist.c
   (format version 1, docs/train.md), written atomically and read back with
   every field checked.

   Layout, all integers little-endian, every float as the little-endian
   bytes of its binary32 bit pattern:
     off  size
       0     8  magic "RPDLCKPT"
       8     4  u32 format version = 1
      12     4  u32 model id (1 = the LeNet-5 of train_fmnist.c)
      16     4  u32 T, number of parameter tensors
      20   8*T  u64 element count of each tensor, in the hash order
           8    u64 seed
           8    u64 steps done (global, 0-based count)
           8    u64 batch size
           8    u64 training-set size (the shuffle depends on it)
           4    f32 learning rate
           4    f32 momentum
           8    u64 k = steps done in the current epoch
           8    u64 correct training predictions in the current epoch
         4*k    f32 loss of each of those k steps
         4*P    f32 parameters (P = sum of the counts), tensor after tensor
         4*P    f32 SGD momentum buffers, same layout
          32    SHA-256 of every byte before it
   The next step's data order is a pure function of (seed, epoch), so the
   step count is the RNG position: nothing else of the RNG is stored.

   Writing: to "<path>.tmp.XXXXXX" in the same directory, fsync, then
   rename() over <path>, so <path> is either the old file or the complete
   new one; on any error the temporary file is removed.  A process killed
   between mkstemp and rename leaves its "<path>.tmp.XXXXXX" behind:
   train_ckpt_prepare, called before training, removes every such file
   (the name followed by ".tmp." and exactly 6 letters or digits), so one
   <path> belongs to one running job.  It also refuses, before any work, a
   <path> that is a directory or beside which no file can be created.

   Reading checks the counts against each other: k steps in the epoch hold
   at most k * batch correct predictions. */
#ifndef TRAIN_CKPT_H
#define TRAIN_CKPT_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#include "../tests/golden/sha256.h"

#define TRAIN_CKPT_MAGIC "RPDLCKPT"
#define TRAIN_CKPT_VERSION 1u
#define TRAIN_CKPT_MAX_TENSORS 64

typedef struct train_ckpt {
    uint32_t model_id;
    uint32_t ntensors;
    uint64_t counts[TRAIN_CKPT_MAX_TENSORS];
    uint64_t seed, step, batch, ntrain;
    float lr, momentum;
    uint64_t epoch_steps, epoch_correct;
    float *epoch_losses; /* epoch_steps */
    float *params;       /* sum of counts */
    float *mbuf;         /* sum of counts */
} train_ckpt;

/* ---- a growable byte buffer ---- */
typedef struct train_buf {
    unsigned char *p;
    size_t n, cap;
    int oom;
} train_buf;

static void train_buf_put(train_buf *b, const void *src, size_t n)
{
    if (b->oom) return;
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 4096;
        unsigned char *np;
        while (cap - b->n < n) cap *= 2;
        np = (unsigned char *)realloc(b->p, cap);
        if (!np) { b->oom = 1; return; }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void train_put_u32(train_buf *b, uint32_t v)
{
    unsigned char c[4];
    int i;
    for (i = 0; i < 4; i++) c[i] = (unsigned char)(v >> (8 * i));
    train_buf_put(b, c, 4);
}

static void train_put_u64(train_buf *b, uint64_t v)
{
    unsigned char c[8];
    int i;
    for (i = 0; i < 8; i++) c[i] = (unsigned char)(v >> (8 * i));
    train_buf_put(b, c, 8);
}

static void train_put_f32s(train_buf *b, const float *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        train_put_u32(b, u);
    }
}

static uint32_t train_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t train_get_u64(const unsigned char *p)
{
    return (uint64_t)train_get_u32(p) | (uint64_t)train_get_u32(p + 4) << 32;
}

static float train_get_f32(const unsigned char *p)
{
    uint32_t u = train_get_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t train_ckpt_total(const train_ckpt *c)
{
    uint64_t t = 0;
    uint32_t i;
    for (i = 0; i < c->ntensors; i++) t += c->counts[i];
    return t;
}

/* A new empty file "path.tmp.XXXXXX" beside path (mkstemp), open for
   writing in *fd: its malloc'd name, or NULL with a message in err. */
static char *train_ckpt_mktemp(const char *path, int *fd, char *err, size_t errlen)
{
    char *tmp = (char *)malloc(strlen(path) + 16);
    if (!tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    strcpy(tmp, path);
    strcat(tmp, ".tmp.XXXXXX");
    *fd = mkstemp(tmp);
    if (*fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s", path,
                 strerror(errno));
        free(tmp);
        return NULL;
    }
    return tmp;
}

/* Writes c to path atomically.  Returns 0, or -1 with a message in err
   (and path untouched). */
static int train_ckpt_save(const char *path, const train_ckpt *c, char *err, size_t errlen)
{
    train_buf b = {NULL, 0, 0, 0};
    unsigned char digest[32];
    golden_sha256 h;
    uint64_t total = train_ckpt_total(c);
    uint32_t i;
    char *tmp = NULL;
    int fd = -1, rc = -1;
    FILE *f = NULL;

    train_buf_put(&b, TRAIN_CKPT_MAGIC, 8);
    train_put_u32(&b, TRAIN_CKPT_VERSION);
    train_put_u32(&b, c->model_id);
    train_put_u32(&b, c->ntensors);
    for (i = 0; i < c->ntensors; i++) train_put_u64(&b, c->counts[i]);
    train_put_u64(&b, c->seed);
    train_put_u64(&b, c->step);
    train_put_u64(&b, c->batch);
    train_put_u64(&b, c->ntrain);
    train_put_f32s(&b, &c->lr, 1);
    train_put_f32s(&b, &c->momentum, 1);
    train_put_u64(&b, c->epoch_steps);
    train_put_u64(&b, c->epoch_correct);
    train_put_f32s(&b, c->epoch_losses, (size_t)c->epoch_steps);
    train_put_f32s(&b, c->params, (size_t)total);
    train_put_f32s(&b, c->mbuf, (size_t)total);
    if (b.oom) {
        snprintf(err, errlen, "%s: out of memory while encoding the checkpoint", path);
        goto done;
    }
    golden_sha256_init(&h);
    golden_sha256_update(&h, b.p, b.n);
    golden_sha256_final(&h, digest);
    train_buf_put(&b, digest, 32);
    if (b.oom) {
        snprintf(err, errlen, "%s: out of memory while encoding the checkpoint", path);
        goto done;
    }

    tmp = train_ckpt_mktemp(path, &fd, err, errlen);
    if (!tmp) goto done;
    f = fdopen(fd, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: fdopen: %s", tmp, strerror(errno));
        close(fd);
        goto done;
    }
    if (fwrite(b.p, 1, b.n, f) != b.n || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
        fclose(f);
        f = NULL;
        goto done;
    }
    if (fclose(f) != 0) {
        f = NULL;
        snprintf(err, errlen, "%s: close failed: %s", tmp, strerror(errno));
        goto done;
    }
    f = NULL;
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: rename from %s failed: %s", path, tmp, strerror(errno));
        goto done;
    }
    free(tmp);
    tmp = NULL;
    rc = 0;
done:
    if (tmp) { unlink(tmp); free(tmp); }
    free(b.p);
    return rc;
}

/* 1 if name is base".tmp." and 6 characters of mkstemp's alphabet */
static int train_ckpt_is_leftover(const char *name, const char *base)
{
    size_t nb = strlen(base), i;
    if (strncmp(name, base, nb) != 0 || strncmp(name + nb, ".tmp.", 5) != 0) return 0;
    name += nb + 5;
    for (i = 0; i < 6; i++) {
        char ch = name[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
            return 0;
    }
    return name[6] == '\0';
}

/* Before training, for --save path: refuses a directory, removes the
   temporary files of interrupted saves (a line on `note` for each, when
   note is not NULL), and creates and removes one temporary file beside
   path.  Returns 0, or -1 with a message in err. */
static int train_ckpt_prepare(const char *path, FILE *note, char *err, size_t errlen)
{
    struct stat st;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t nd = slash ? (size_t)(slash - path) : 0;
    char *dir = NULL, *tmp = NULL;
    DIR *dp;
    int fd, rc = -1;
    if (!*base) {
        snprintf(err, errlen, "%s: is a directory, not a file name", path);
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a file name", path);
        return -1;
    }
    dir = (char *)malloc(nd + 2);
    if (!dir) { snprintf(err, errlen, "%s: out of memory", path); goto done; }
    if (!slash) strcpy(dir, ".");
    else if (nd == 0) strcpy(dir, "/");
    else { memcpy(dir, path, nd); dir[nd] = '\0'; }
    dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        while ((e = readdir(dp)) != NULL) {
            char *full;
            if (!train_ckpt_is_leftover(e->d_name, base)) continue;
            full = (char *)malloc(strlen(dir) + strlen(e->d_name) + 2);
            if (!full) break;
            sprintf(full, "%s/%s", dir, e->d_name);
            if (unlink(full) == 0 && note)
                fprintf(note, "train_fmnist: --save: removed %s, left by an interrupted save\n",
                        full);
            free(full);
        }
        closedir(dp);
    }
    tmp = train_ckpt_mktemp(path, &fd, err, errlen);
    if (!tmp) goto done;
    close(fd);
    unlink(tmp);
    rc = 0;
done:
    free(dir);
    free(tmp);
    return rc;
}

static void train_ckpt_free(train_ckpt *c)
{
    free(c->epoch_losses);
    free(c->params);
    free(c->mbuf);
    c->epoch_losses = c->params = c->mbuf = NULL;
}

/* Reads and checks path.  `want` gives the model the program runs
   (model_id, ntensors, counts); the checkpoint must match it exactly.
   On success fills *c (arrays malloc'd) and returns 0; otherwise -1 with a
   message in err and nothing allocated. */
static int train_ckpt_load(const char *path, const train_ckpt *want, train_ckpt *c,
                           char *err, size_t errlen)
{
    unsigned char *p = NULL;
    size_t n = 0, cap = 0, off, need, i;
    uint64_t total = 0;
    FILE *f = fopen(path, "rb");
    memset(c, 0, sizeof *c);
    if (!f) {
        snprintf(err, errlen, "%s: cannot open checkpoint: %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t r;
        if (cap - n < 65536) {
            unsigned char *np;
            cap = cap ? 2 * cap : 1 << 20;
            if (cap > ((size_t)1 << 31)) {
                snprintf(err, errlen, "%s: not a checkpoint of this program (too large)", path);
                free(p); fclose(f); return -1;
            }
            np = (unsigned char *)realloc(p, cap);
            if (!np) { snprintf(err, errlen, "%s: out of memory", path); free(p); fclose(f); return -1; }
            p = np;
        }
        r = fread(p + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        free(p); fclose(f); return -1;
    }
    fclose(f);

    if (n < 20 || memcmp(p, TRAIN_CKPT_MAGIC, 8) != 0) {
        snprintf(err, errlen, "%s: not a train_fmnist checkpoint (bad magic%s)", path,
                 n < 20 ? " or truncated header" : "");
        goto fail;
    }
    if (train_get_u32(p + 8) != TRAIN_CKPT_VERSION) {
        snprintf(err, errlen, "%s: checkpoint format version %u, this program reads version %u",
                 path, (unsigned)train_get_u32(p + 8), TRAIN_CKPT_VERSION);
        goto fail;
    }
    c->model_id = train_get_u32(p + 12);
    c->ntensors = train_get_u32(p + 16);
    if (c->ntensors > TRAIN_CKPT_MAX_TENSORS) {
        snprintf(err, errlen, "%s: corrupt checkpoint (%u tensors)", path, (unsigned)c->ntensors);
        goto fail;
    }
    off = 20;
    need = off + 8 * (size_t)c->ntensors + 8 * 4 + 4 * 2 + 8 * 2;
    if (n < need + 32) {
        snprintf(err, errlen, "%s: truncated checkpoint (%zu bytes)", path, n);
        goto fail;
    }
    for (i = 0; i < c->ntensors; i++, off += 8) {
        c->counts[i] = train_get_u64(p + off);
        if (c->counts[i] > ((uint64_t)1 << 28)) {
            snprintf(err, errlen, "%s: corrupt checkpoint (tensor %zu has %llu elements)", path,
                     i, (unsigned long long)c->counts[i]);
            goto fail;
        }
        total += c->counts[i];
    }
    c->seed = train_get_u64(p + off); off += 8;
    c->step = train_get_u64(p + off); off += 8;
    c->batch = train_get_u64(p + off); off += 8;
    c->ntrain = train_get_u64(p + off); off += 8;
    c->lr = train_get_f32(p + off); off += 4;
    c->momentum = train_get_f32(p + off); off += 4;
    c->epoch_steps = train_get_u64(p + off); off += 8;
    c->epoch_correct = train_get_u64(p + off); off += 8;
    if (c->epoch_steps > ((uint64_t)1 << 28)) {
        snprintf(err, errlen, "%s: corrupt checkpoint (%llu steps in the epoch)", path,
                 (unsigned long long)c->epoch_steps);
        goto fail;
    }
    need = off + 4 * (size_t)c->epoch_steps + 8 * (size_t)total;
    if (n < need + 32) {
        snprintf(err, errlen, "%s: truncated checkpoint (%zu bytes, expected %zu)", path, n,
                 need + 32);
        goto fail;
    }
    {
        unsigned char digest[32];
        golden_sha256 h;
        golden_sha256_init(&h);
        golden_sha256_update(&h, p, n - 32);
        golden_sha256_final(&h, digest);
        if (memcmp(digest, p + n - 32, 32) != 0) {
            snprintf(err, errlen, "%s: checksum mismatch (corrupt or %s checkpoint)", path,
                     n > need + 32 ? "oversized" : "modified");
            goto fail;
        }
    }
    if (n != need + 32) {
        snprintf(err, errlen, "%s: %zu bytes, expected %zu", path, n, need + 32);
        goto fail;
    }
    /* epoch_steps <= 2^28 (above) and batch <= 2^32: the product fits */
    if (c->batch == 0 || c->batch > ((uint64_t)1 << 32) ||
        c->epoch_correct > c->epoch_steps * c->batch) {
        snprintf(err, errlen, "%s: corrupt checkpoint (%llu correct predictions in %llu "
                 "steps of batch %llu)", path, (unsigned long long)c->epoch_correct,
                 (unsigned long long)c->epoch_steps, (unsigned long long)c->batch);
        goto fail;
    }
    if (c->model_id != want->model_id || c->ntensors != want->ntensors) {
        snprintf(err, errlen, "%s: wrong model (model id %u with %u tensors, this program "
                 "trains model %u with %u tensors)", path, (unsigned)c->model_id,
                 (unsigned)c->ntensors, (unsigned)want->model_id, (unsigned)want->ntensors);
        goto fail;
    }
    for (i = 0; i < c->ntensors; i++)
        if (c->counts[i] != want->counts[i]) {
            snprintf(err, errlen, "%s: wrong model shape (tensor %zu has %llu elements, the "
                     "model's has %llu)", path, i, (unsigned long long)c->counts[i],
                     (unsigned long long)want->counts[i]);
            goto fail;
        }
    c->epoch_losses = (float *)malloc(4 * (size_t)c->epoch_steps + 4);
    c->params = (float *)malloc(4 * (size_t)total + 4);
    c->mbuf = (float *)malloc(4 * (size_t)total + 4);
    if (!c->epoch_losses || !c->params || !c->mbuf) {
        snprintf(err, errlen, "%s: out of memory", path);
        train_ckpt_free(c);
        goto fail;
    }
    for (i = 0; i < c->epoch_steps; i++, off += 4) c->epoch_losses[i] = train_get_f32(p + off);
    for (i = 0; i < total; i++, off += 4) c->params[i] = train_get_f32(p + off);
    for (i = 0; i < total; i++, off += 4) c->mbuf[i] = train_get_f32(p + off);
    free(p);
    return 0;
fail:
    free(p);
    return -1;
}

#endif /* TRAIN_CKPT_H */
