/* SPDX-License-Identifier: MIT */
/* reference/oracle_tool.c: repdl-oracle, the command that checks a function
   of any shared library against the correctly rounded result
   (reference/repdl_oracle.h; usage in docs/oracle.md).

     repdl-oracle --lib LIB --symbol SYM --function NAME [--format f32|bf16|f16]
                  [--range LO:HI] [--stride S] [--threads T] [--show N]
                  [--mode screened|mpfr] [--no-probe] [--quiet]

   Output: the first N failures (stdout, by input bit pattern), then one
   summary line; a progress line on stderr unless --quiet.  Exit status:
   0 every result correctly rounded, 1 some are not, 2 bad usage (an
   unknown option, function name or format, a malformed range), 3 the
   library or symbol cannot be loaded, or the sanity probe says the symbol
   is not that function (repdl_oracle_probe). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repdl_oracle.h"

static int usage(const char *why)
{
    int k;
    if (why) fprintf(stderr, "repdl-oracle: %s\n", why);
    fprintf(stderr,
            "usage: repdl-oracle --lib LIB --symbol SYM --function NAME [--format f32|bf16|f16]\n"
            "                    [--range LO:HI] [--stride S] [--threads T] [--show N]\n"
            "                    [--mode screened|mpfr] [--no-probe] [--quiet]\n"
            "  LIB: a shared library (a path, or a name dlopen searches: libm.so.6)\n"
            "  SYM: its function, float SYM(float) for f32, uint16_t SYM(uint16_t) on bit patterns for\n"
            "       bf16 and f16\n"
            "  LO, HI: input bit patterns in hex, both included (default: every input)\n"
            "  NAME:");
    for (k = 0; k < REPDL_ORACLE_NFUNCS; k++) fprintf(stderr, " %s", repdl_oracle_names[k]);
    fprintf(stderr, "\n");
    return 2;
}

/* A pattern of the format as a hex float (exact) and its bits. */
static void show_value(char *buf, size_t n, int format, uint32_t bits)
{
    double v = format == REPDL_ORACLE_F32 ? (double)repdl__asfloat(bits) : (double)repdl_oracle_h2f(format, bits);
    int w = format == REPDL_ORACLE_F32 ? 8 : 4;
    if (v != v) snprintf(buf, n, "%snan (0x%0*" PRIx32 ")", bits >> (4 * w - 1) ? "-" : "", w, bits);
    else snprintf(buf, n, "%a (0x%0*" PRIx32 ")", v, w, bits);
}

static void show_failure(int format, const repdl_oracle_failure *f)
{
    char in[64], got[64], want[64];
    show_value(in, sizeof in, format, f->in);
    show_value(got, sizeof got, format, f->got);
    show_value(want, sizeof want, format, f->want);
    if (f->wrong_class)
        printf("  x = %s: got %s, correctly rounded %s (wrong class)\n", in, got, want);
    else
        printf("  x = %s: got %s, correctly rounded %s (%" PRIu64 " ulp%s)\n", in, got, want, f->ulps,
               f->ulps == 1 ? "" : "s");
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-') return 0;
    *out = strtoull(s, &end, base);
    return *end == '\0';
}

int main(int argc, char **argv)
{
    const char *lib = NULL, *sym = NULL, *fmt = "f32";
    repdl_oracle_args a;
    repdl_oracle_report *r;
    void *h, *p;
    int i, quiet = 0, probe = 1, ranged = 0, rc;
    uint64_t top, v;
    size_t k;

    memset(&a, 0, sizeof a);
    a.stride = 1;
    a.show = 10;
    for (i = 1; i < argc; i++) {
        const char *o = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--quiet") == 0) { quiet = 1; continue; }
        if (strcmp(o, "--no-probe") == 0) { probe = 0; continue; }
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) { usage(NULL); return 0; }
        if (!arg) { fprintf(stderr, "repdl-oracle: %s: ", o); return usage("a value is missing"); }
        i++;
        if (strcmp(o, "--lib") == 0) lib = arg;
        else if (strcmp(o, "--symbol") == 0) sym = arg;
        else if (strcmp(o, "--function") == 0) a.function = arg;
        else if (strcmp(o, "--format") == 0) fmt = arg;
        else if (strcmp(o, "--range") == 0) {
            char lo[32];
            const char *colon = strchr(arg, ':');
            if (!colon || (size_t)(colon - arg) >= sizeof lo) return usage("--range: LO:HI in hex");
            memcpy(lo, arg, (size_t)(colon - arg));
            lo[colon - arg] = '\0';
            if (!parse_u64(lo, 16, &a.lo) || !parse_u64(colon + 1, 16, &a.hi))
                return usage("--range: LO:HI in hex");
            ranged = 1;
        } else if (strcmp(o, "--stride") == 0) {
            if (!parse_u64(arg, 10, &a.stride) || a.stride < 1) return usage("--stride: a positive integer");
        } else if (strcmp(o, "--threads") == 0) {
            if (!parse_u64(arg, 10, &v) || v < 1 || v > 4096) return usage("--threads: 1 to 4096");
            a.threads = (int)v;
        } else if (strcmp(o, "--show") == 0) {
            if (!parse_u64(arg, 10, &v) || v > REPDL_ORACLE_FIRST_MAX) return usage("--show: 0 to 1000");
            a.show = (size_t)v;
        } else if (strcmp(o, "--mode") == 0) {
            if (strcmp(arg, "mpfr") == 0) a.mode_mpfr = 1;
            else if (strcmp(arg, "screened") != 0) return usage("--mode: screened or mpfr");
        } else {
            fprintf(stderr, "repdl-oracle: unknown option %s\n", o);
            return usage(NULL);
        }
    }
    if (!lib || !sym || !a.function) return usage("--lib, --symbol and --function are required");
    if (repdl_oracle_function_id(a.function) < 0) {
        fprintf(stderr, "repdl-oracle: unknown function '%s'\n", a.function);
        return usage(NULL);
    }
    if (strcmp(fmt, "f32") == 0) a.format = REPDL_ORACLE_F32;
    else if (strcmp(fmt, "bf16") == 0) a.format = REPDL_ORACLE_BF16;
    else if (strcmp(fmt, "f16") == 0) a.format = REPDL_ORACLE_F16;
    else return usage("--format: f32, bf16 or f16");
    top = a.format == REPDL_ORACLE_F32 ? 0xffffffffu : 0xffffu;
    if (!ranged) a.hi = top;                            /* every input */
    if (a.lo > a.hi || a.hi > top) return usage("--range: LO <= HI, both patterns of the format");
    a.progress = !quiet;

    h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "repdl-oracle: cannot load library '%s': %s\n", lib, dlerror());
        return 3;
    }
    dlerror();
    p = dlsym(h, sym);
    if (!p) {
        const char *e = dlerror();
        fprintf(stderr, "repdl-oracle: no symbol '%s' in '%s'%s%s\n", sym, lib, e ? ": " : "", e ? e : "");
        return 3;
    }
    /* POSIX: a dlsym result converts to a function pointer (this cast is
       how it says so); the signature is the caller's claim (the probe). */
    if (a.format == REPDL_ORACLE_F32) *(void **)(&a.fn32) = p;
    else *(void **)(&a.fn16) = p;

    if (!repdl_fpenv_ok(1.0f)) {
        fprintf(stderr, "repdl-oracle: the floating-point environment flushes subnormals; refusing to run\n");
        return 2;
    }
    if (probe) {
        repdl_oracle_failure pr[8];
        int bad = repdl_oracle_probe(&a, pr), j;
        if (bad >= 4) {
            fprintf(stderr, "repdl-oracle: '%s' in '%s' does not behave like %s in %s: %d of 8 probes are far "
                            "from it (another function, or another signature?); --no-probe checks it anyway\n",
                    sym, lib, a.function, fmt, bad);
            for (j = 0; j < 8; j++) {
                char in[64], got[64], want[64];
                show_value(in, sizeof in, a.format, pr[j].in);
                show_value(got, sizeof got, a.format, pr[j].got);
                show_value(want, sizeof want, a.format, pr[j].want);
                fprintf(stderr, "  x = %s: got %s, correctly rounded %s\n", in, got, want);
            }
            return 3;
        }
    }

    r = (repdl_oracle_report *)malloc(sizeof *r);
    if (!r) { fprintf(stderr, "repdl-oracle: out of memory\n"); return 2; }
    rc = repdl_oracle_check(&a, r);
    if (rc == 2) { free(r); return usage("bad arguments"); }
    if (r->nfirst) {
        printf("first %zu incorrectly rounded result%s (by input bit pattern):\n", r->nfirst,
               r->nfirst == 1 ? "" : "s");
        for (k = 0; k < r->nfirst; k++) show_failure(a.format, &r->first[k]);
    }
    printf("%s: %s %s in %s: %" PRIu64 " inputs [0x%" PRIx64 ", 0x%" PRIx64 "] stride %" PRIu64
           ": %" PRIu64 " incorrectly rounded (%" PRIu64 " of the wrong class), largest error %" PRIu64 " ulp%s",
           rc ? "FAIL" : "OK", a.function, sym, lib, r->checked, a.lo, a.hi, a.stride, r->wrong,
           r->wrong_class, r->max_ulps, r->max_ulps == 1 ? "" : "s");
    if (r->max_ulps) {
        char in[64];
        show_value(in, sizeof in, a.format, r->max_ulps_in);
        printf(" at x = %s", in);
    }
    printf("; format %s, oracle %s, %" PRIu64 " MPFR calls; %.1f s, %d threads\n", fmt,
           a.format != REPDL_ORACLE_F32 ? "mpfr" : a.mode_mpfr ? "mpfr" : "screened", r->mpfr_calls,
           r->seconds, r->threads);
    free(r);
    return rc;
}
