#include "ParentWatch.h"

#include <sys/prctl.h>
#include <unistd.h>

int nearcatch_end_with_parent(int signal, int parent) {
    if (prctl(PR_SET_PDEATHSIG, signal) != 0) return -1;
    // The parent may have ended before the request: then nothing would ever be sent.
    return getppid() == parent ? 0 : 1;
}
