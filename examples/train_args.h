/* SPDX-License-Identifier: MIT */
/* examples/train_args.h: the command-line count parser shared by
   examples/train_fmnist.c and examples/train_gpt.c.

   parse_u64(s, &v): s is a decimal integer, digits only (no sign, no
   leading space, nothing after it), that fits in unsigned long long: *v =
   its value, 0 returned.  Anything else (NULL, empty, a sign, a space, a
   non-digit, an out-of-range value): -1, *v unchanged.  strtoull alone
   would skip leading space and take " -5" as 2^64 - 5, hence the first
   character is checked to be a digit.  The limits of each option
   (nonzero, at most 256 threads, ...) are the caller's. */
#ifndef TRAIN_ARGS_H
#define TRAIN_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    unsigned long long x;
    if (!s || *s < '0' || *s > '9') return -1;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno || *end) return -1;
    *v = (uint64_t)x;
    return 0;
}

#endif /* TRAIN_ARGS_H */
