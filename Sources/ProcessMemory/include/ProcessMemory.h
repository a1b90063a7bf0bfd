#ifndef PROCESS_MEMORY_H
#define PROCESS_MEMORY_H

/// Has glibc's malloc keep one arena for every thread (M_ARENA_MAX 1); returns whether it took the setting (1) or
/// not (0). The executable calls it first: its crowd's tables are made on worker threads, and an arena per thread
/// keeps what one thread freed out of the others' reach.
int nearcatch_one_malloc_arena(void);

#endif
