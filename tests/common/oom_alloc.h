/* SPDX-License-Identifier: MIT */
/* tests/common/oom_alloc.h: a counting allocator that fails on demand, for
   the out-of-memory rule of the batch order (docs/canonical-order.md).
   Included before the first repdl header, it becomes REPDL__ALLOC, through
   which every heap scratch of the batch order is taken.  Allocation k
   (0-based, counted across threads) is refused when k == oom_at, or when
   oom_from is set and k > oom_at; oom_at = -1 refuses none. */
#ifndef REPDL_TEST_OOM_ALLOC_H
#define REPDL_TEST_OOM_ALLOC_H

#include <pthread.h>
#include <stdlib.h>

static long oom_calls, oom_at = -1;
static int oom_from; /* refuse every allocation from oom_at on, not only it */
static pthread_mutex_t oom_lock = PTHREAD_MUTEX_INITIALIZER;

static void *oom_alloc(size_t bytes)
{
    long k;
    pthread_mutex_lock(&oom_lock);
    k = oom_calls++;
    pthread_mutex_unlock(&oom_lock);
    if (oom_at >= 0 && (k == oom_at || (oom_from && k > oom_at))) return NULL;
    return malloc(bytes);
}
#define REPDL__ALLOC(bytes) oom_alloc(bytes)

#endif
