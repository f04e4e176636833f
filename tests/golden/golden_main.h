/* SPDX-License-Identifier: MIT */
/* tests/golden/golden_main.h: the command line shared by golden.c (compare
   with hashes.txt) and derive.c (print the hashes that go into hashes.txt).
   Included once, after the program's table of operations. */
#ifndef REPDL_TESTS_GOLDEN_MAIN_H
#define REPDL_TESTS_GOLDEN_MAIN_H

#include "../common/timer.h"
#include "golden_core.h"

#define GOLDEN_MAX_HASHES 512

typedef struct golden_expect { char name[64]; char hex[65]; int seen; } golden_expect;

/* Reads "name hash" lines ('#' starts a comment line).  Returns the count,
   or -1 when the file cannot be read or a line is malformed. */
static int golden_load(const char *path, golden_expect *e, int max)
{
    FILE *fp = fopen(path, "r");
    char line[512];
    int n = 0;
    if (!fp) return -1;
    while (fgets(line, sizeof line, fp)) {
        char name[64], hex[65];
        if (line[0] == '#' || line[0] == '\n') continue;
        if (sscanf(line, "%63s %64s", name, hex) != 2 || strlen(hex) != 64 || n == max) {
            fclose(fp);
            return -1;
        }
        strcpy(e[n].name, name);
        strcpy(e[n].hex, hex);
        e[n].seen = 0;
        n++;
    }
    fclose(fp);
    return n;
}

/* The set a hash name belongs to: that of the op of its program with this
   name before the '/'; a name the program does not know is a base table
   (suffix /sS or /full), a 16-bit table (/all) or a reduction. */
static int golden_set_of(const char *name, const golden_op *ops)
{
    const char *slash = strrchr(name, '/');
    const golden_op *op;
    size_t k = slash ? (size_t)(slash - name) : strlen(name);
    for (op = ops; op->name; op++)
        if (strlen(op->name) == k && strncmp(op->name, name, k) == 0) return op->set;
    if (!slash) return GOLDEN_SET_RED;
    if (strcmp(slash, "/all") == 0) return GOLDEN_SET_HALF;
    if (strcmp(slash, "/full") == 0 || (slash[1] == 's' && slash[2] >= '0' && slash[2] <= '9'))
        return GOLDEN_SET_BASE;
    return GOLDEN_SET_RED;
}

/* The table suffix of an op of set `set` in this run: "/s256", "/full" or
   "/all" (reductions: ""). */
static void golden_suffix(char *buf, size_t size, int set, unsigned log2s, unsigned log2s_more)
{
    unsigned l = set == GOLDEN_SET_MORE ? log2s_more : log2s;
    if (set == GOLDEN_SET_HALF) snprintf(buf, size, "/all");
    else if (set == GOLDEN_SET_RED) buf[0] = 0;
    else if (l == 0) snprintf(buf, size, "/full");
    else snprintf(buf, size, "/s%lu", 1ul << l);
}

/* 1 when `name` (from hashes.txt) belongs to this run: its set is chosen,
   a table is at the run's stride for its set, and the filter allows it. */
static int golden_wanted(const char *name, const golden_op *ops, unsigned log2s,
                         unsigned log2s_more, const int *sets, const char *only)
{
    const char *slash = strrchr(name, '/');
    char suffix[32];
    int set = golden_set_of(name, ops);
    if (!slash || !sets[set]) return 0;
    if (only) {
        size_t k = strlen(only);
        if (strncmp(name, only, k) != 0 || (name[k] != '/' && name[k] != 0)) return 0;
    }
    if (set == GOLDEN_SET_RED) return 1;
    golden_suffix(suffix, sizeof suffix, set, log2s, log2s_more);
    return strcmp(slash, suffix) == 0;
}

static int golden_usage(void)
{
    fprintf(stderr,
            "usage: golden [--hashes FILE] [--stride S | --full] [--stride-more S2] [--threads N]\n"
            "              [--only NAME] [--sets LIST] [--no-tables] [--no-reductions] [--print]\n"
            "  S: stride of the base tables, power of two, 1..65536 (default 256); --full: S = 1\n"
            "  S2: stride of the other binary32 tables (default 4096)\n"
            "  LIST: comma-separated sets among base, more, half, red (default all)\n"
            "  --no-tables: no base, more, half; --no-reductions: no red\n");
    return 2;
}

/* One computed hash: print it and compare it (unless printing only). */
static void golden_report(const char *name, const unsigned char d[32], double secs, int print_only,
                          golden_expect *e, int ne, int *agree, int *differ, int *nogolden)
{
    char hex[65];
    int i;
    golden_sha256_hex(d, hex);
    if (print_only) {
        printf("%s %s\n", name, hex);
        fflush(stdout);
        return;
    }
    for (i = 0; i < ne; i++)
        if (strcmp(e[i].name, name) == 0) break;
    if (i == ne) {
        printf("%-28s %s  NO-GOLDEN (not in the hashes file)  (%.1f s)\n", name, hex, secs);
        ++*nogolden;
    } else {
        e[i].seen = 1;
        if (strcmp(e[i].hex, hex) == 0) {
            printf("%-28s %s  ok  (%.1f s)\n", name, hex, secs);
            ++*agree;
        } else {
            printf("%-28s %s  DIFFERS (golden %s)  (%.1f s)\n", name, hex, e[i].hex, secs);
            ++*differ;
        }
    }
    fflush(stdout);
}

/* The line of an array form checked against its scalar form: gdiff
   elements differ. */
static void golden_report_array(const char *name, const char *scalar, uint64_t gdiff, int *agree,
                                int *differ)
{
    if (gdiff == 0) {
        printf("%-28s same bits as %s  ok\n", name, scalar);
        (*agree)++;
    } else {
        printf("%-28s DIFFERS from %s on %llu inputs\n", name, scalar, (unsigned long long)gdiff);
        (*differ)++;
    }
}

static int golden_main(int argc, char **argv, const golden_op *ops, int print_only)
{
    const char *hashes = "tests/golden/hashes.txt", *only = NULL;
    unsigned log2s = 8, log2s_more = 12;
    int threads = 1, sets[GOLDEN_NSETS], a, ne = 0, agree = 0, differ = 0, missing = 0;
    int nogolden = 0;
    const golden_op *op;
    static golden_expect e[GOLDEN_MAX_HASHES];
    golden_data data;
    int have_data = 0;

    for (a = 0; a < GOLDEN_NSETS; a++) sets[a] = 1;
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--hashes") == 0 && a + 1 < argc) hashes = argv[++a];
        else if ((strcmp(argv[a], "--stride") == 0 || strcmp(argv[a], "--stride-more") == 0) &&
                 a + 1 < argc) {
            unsigned *l = strcmp(argv[a], "--stride") == 0 ? &log2s : &log2s_more;
            unsigned long s = strtoul(argv[++a], NULL, 0);
            for (*l = 0; *l <= 16 && (1ul << *l) != s; ++*l) {}
            if (*l > 16) return golden_usage();
        } else if (strcmp(argv[a], "--full") == 0) log2s = 0;
        else if (strcmp(argv[a], "--threads") == 0 && a + 1 < argc) threads = atoi(argv[++a]);
        else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc) only = argv[++a];
        else if (strcmp(argv[a], "--sets") == 0 && a + 1 < argc) {
            const char *p = argv[++a];
            int k;
            for (k = 0; k < GOLDEN_NSETS; k++) sets[k] = 0;
            while (*p) {
                size_t w = strcspn(p, ",");
                for (k = 0; k < GOLDEN_NSETS; k++)
                    if (strlen(golden_set_name[k]) == w && strncmp(p, golden_set_name[k], w) == 0) break;
                if (k == GOLDEN_NSETS) return golden_usage();
                sets[k] = 1;
                p += w;
                if (*p == ',') p++;
            }
        } else if (strcmp(argv[a], "--no-tables") == 0)
            sets[GOLDEN_SET_BASE] = sets[GOLDEN_SET_MORE] = sets[GOLDEN_SET_HALF] = 0;
        else if (strcmp(argv[a], "--no-reductions") == 0) sets[GOLDEN_SET_RED] = 0;
        else if (strcmp(argv[a], "--print") == 0) print_only = 1;
        else return golden_usage();
    }
    if (threads < 1) threads = 1;

    if (golden_sha256_selftest() != 0) {
        printf("golden: SHA-256 self-test FAILED (FIPS 180-2 examples)\n");
        return 1;
    }
    if (!print_only) {
        volatile float one = 1.0f;
        if (!repdl_fpenv_ok(one)) {
            printf("golden: floating-point environment flushes subnormals: not a reproducible build\n");
            return 1;
        }
        ne = golden_load(hashes, e, GOLDEN_MAX_HASHES);
        if (ne < 0) {
            printf("golden: cannot read %s\n", hashes);
            return 1;
        }
    }

    for (op = ops; op->name; op++) {
        char name[64];
        unsigned char d[32];
        double t0 = timer_now(TIMER_WALL);
        int k;
        if (only && strcmp(only, op->name) != 0) continue;
        if (!sets[op->set]) continue;
        if (op->map16) {
            uint64_t gdiff = 0;
            snprintf(name, sizeof name, "%s/all", op->name);
            golden_table16(op->map16, op->map16b, d, &gdiff);
            golden_report(name, d, timer_now(TIMER_WALL) - t0, print_only, e, ne, &agree, &differ, &nogolden);
            if (op->map16b && !print_only) {
                snprintf(name, sizeof name, "%s_array/all", op->name);
                golden_report_array(name, op->name, gdiff, &agree, &differ);
            }
            continue;
        }
        if (op->map) {
            uint64_t gdiff = 0;
            unsigned l = op->set == GOLDEN_SET_MORE ? log2s_more : log2s;
            golden_table_name(name, sizeof name, op->name, l);
            if (golden_table(op->map, op->map2, l, threads, d, &gdiff) != 0) {
                printf("golden: out of memory\n");
                return 1;
            }
            golden_report(name, d, timer_now(TIMER_WALL) - t0, print_only, e, ne, &agree, &differ, &nogolden);
            if (op->map2 && !print_only) {
                char aname[64];
                snprintf(aname, sizeof aname, "%s_array", op->name);
                golden_table_name(name, sizeof name, aname, l);
                golden_report_array(name, op->name, gdiff, &agree, &differ);
            }
            continue;
        }
        if (!have_data) {
            if (golden_data_make(&data) != 0) {
                printf("golden: out of memory\n");
                return 1;
            }
            have_data = 1;
        }
        for (k = 0; k < GOLDEN_NKINDS; k++) {
            t0 = timer_now(TIMER_WALL);
            snprintf(name, sizeof name, "%s/%s", op->name, golden_kind_name[k]);
            if (op->batch) {
                if (golden_rows(&data, k, op->batch, op->ret, d) != 0) {
                    printf("golden: out of memory\n");
                    return 1;
                }
            } else {
                golden_reduce(&data, k, op->red, op->ret, op->incx, op->incy, d);
            }
            golden_report(name, d, timer_now(TIMER_WALL) - t0, print_only, e, ne, &agree, &differ, &nogolden);
        }
    }
    if (have_data) golden_data_free(&data);
    if (print_only) return 0;

    for (a = 0; a < ne; a++)
        if (!e[a].seen && golden_wanted(e[a].name, ops, log2s, log2s_more, sets, only)) {
            printf("%-28s %s  MISSING (not built here)\n", e[a].name, e[a].hex);
            missing++;
        }
    printf("golden: %d agree, %d differ, %d missing", agree, differ, missing);
    if (nogolden) printf(", %d without golden hash", nogolden);
    printf("\n");
    return differ || missing || nogolden || agree == 0 ? 1 : 0;
}

#endif /* REPDL_TESTS_GOLDEN_MAIN_H */
