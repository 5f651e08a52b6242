#include "MallocStatistics.h"
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

size_t malloc_statistics_in_use(void) {
#if defined(__GLIBC__)
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}

size_t malloc_statistics_free(void) {
#if defined(__GLIBC__)
    return mallinfo2().fordblks;
#else
    return 0;
#endif
}
