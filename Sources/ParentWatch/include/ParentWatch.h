#ifndef PARENT_WATCH_H
#define PARENT_WATCH_H

/// Asks the kernel to send this process `signal` when the process that started it ends (PR_SET_PDEATHSIG), and
/// says whether that process is still `parent`: 0 if so, 1 if it has already ended (the request came too late),
/// -1 if the kernel refused. A sweep's runs call it, so that a sweep killed outright leaves none going.
int nearcatch_end_with_parent(int signal, int parent);

#endif
