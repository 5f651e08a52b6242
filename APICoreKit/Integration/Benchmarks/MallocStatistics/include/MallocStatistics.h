// What the C allocator holds, for the soak benchmark: the bytes the program has allocated and not
// freed, beside what the process keeps resident. glibc only; elsewhere both answer 0.
#ifndef MALLOC_STATISTICS_H
#define MALLOC_STATISTICS_H
#include <stddef.h>

/// Bytes allocated with malloc and not yet freed (glibc's mallinfo2: uordblks + hblkhd), or 0.
size_t malloc_statistics_in_use(void);

/// Bytes the allocator holds free (glibc's mallinfo2: fordblks), or 0.
size_t malloc_statistics_free(void);

#endif
