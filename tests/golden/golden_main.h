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

/* 1 when `name` (from hashes.txt) belongs to this run: a table at the
   run's stride, or a reduction, and allowed by the filters. */
static int golden_wanted(const char *name, unsigned log2s, int tables, int reductions,
                         const char *only)
{
    const char *slash = strrchr(name, '/');
    char suffix[32];
    int is_table;
    if (!slash) return 0;
    is_table = strcmp(slash, "/full") == 0 ||
               (slash[1] == 's' && slash[2] >= '0' && slash[2] <= '9');
    if (only) {
        size_t k = strlen(only);
        if (strncmp(name, only, k) != 0 || (name[k] != '/' && name[k] != 0)) return 0;
    }
    if (is_table) {
        if (!tables) return 0;
        if (log2s == 0) strcpy(suffix, "/full");
        else snprintf(suffix, sizeof suffix, "/s%lu", 1ul << log2s);
        return strcmp(slash, suffix) == 0;
    }
    return reductions;
}

static int golden_usage(void)
{
    fprintf(stderr,
            "usage: golden [--hashes FILE] [--stride S | --full] [--threads N] [--only NAME]\n"
            "              [--no-tables] [--no-reductions] [--print]\n"
            "  S: power of two, 1..65536 (default 256); --full: S = 1\n");
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

static int golden_main(int argc, char **argv, const golden_op *ops, int print_only)
{
    const char *hashes = "tests/golden/hashes.txt", *only = NULL;
    unsigned log2s = 8;
    int threads = 1, tables = 1, reductions = 1, a, ne = 0, agree = 0, differ = 0, missing = 0;
    int nogolden = 0;
    const golden_op *op;
    static golden_expect e[GOLDEN_MAX_HASHES];
    golden_data data;
    int have_data = 0;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--hashes") == 0 && a + 1 < argc) hashes = argv[++a];
        else if (strcmp(argv[a], "--stride") == 0 && a + 1 < argc) {
            unsigned long s = strtoul(argv[++a], NULL, 0);
            for (log2s = 0; log2s <= 16 && (1ul << log2s) != s; log2s++) {}
            if (log2s > 16) return golden_usage();
        } else if (strcmp(argv[a], "--full") == 0) log2s = 0;
        else if (strcmp(argv[a], "--threads") == 0 && a + 1 < argc) threads = atoi(argv[++a]);
        else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc) only = argv[++a];
        else if (strcmp(argv[a], "--no-tables") == 0) tables = 0;
        else if (strcmp(argv[a], "--no-reductions") == 0) reductions = 0;
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
        if (op->map) {
            uint64_t gdiff = 0;
            if (!tables) continue;
            golden_table_name(name, sizeof name, op->name, log2s);
            if (golden_table(op->map, op->map2, log2s, threads, d, &gdiff) != 0) {
                printf("golden: out of memory\n");
                return 1;
            }
            golden_report(name, d, timer_now(TIMER_WALL) - t0, print_only, e, ne, &agree, &differ, &nogolden);
            if (op->map2 && !print_only) {
                char aname[64];
                snprintf(aname, sizeof aname, "%s_array", op->name);
                golden_table_name(name, sizeof name, aname, log2s);
                if (gdiff == 0) {
                    printf("%-28s same bits as %s  ok\n", name, op->name);
                    agree++;
                } else {
                    printf("%-28s DIFFERS from %s on %llu inputs\n", name, op->name,
                           (unsigned long long)gdiff);
                    differ++;
                }
            }
            continue;
        }
        if (!reductions) continue;
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
        if (!e[a].seen && golden_wanted(e[a].name, log2s, tables, reductions, only)) {
            printf("%-28s %s  MISSING (not built here)\n", e[a].name, e[a].hex);
            missing++;
        }
    printf("golden: %d agree, %d differ, %d missing", agree, differ, missing);
    if (nogolden) printf(", %d without golden hash", nogolden);
    printf("\n");
    return differ || missing || nogolden || agree == 0 ? 1 : 0;
}

#endif /* REPDL_TESTS_GOLDEN_MAIN_H */
