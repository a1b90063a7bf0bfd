#include "ProcessMemory.h"

#include <malloc.h>

int nearcatch_one_malloc_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}
