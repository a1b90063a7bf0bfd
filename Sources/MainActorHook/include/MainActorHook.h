#ifndef NEARCATCH_MAIN_ACTOR_HOOK_H
#define NEARCATCH_MAIN_ACTOR_HOOK_H

/* Whether the code running now is isolated to `executor` though Swift's runtime cannot tell: 1 yes, 0 ask the
   runtime. */
typedef int (*nearcatch_isolation_decider)(const void *executor);

/* Installs the decider in front of Swift's runtime's own answer to "is this context isolated to that executor"
   (what `MainActor.assumeIsolated` and a `@preconcurrency` conformance's check ask). Returns 0 when the runtime
   has no such hook (then nothing is installed). */
int nearcatch_install_isolation_decider(nearcatch_isolation_decider decider);

#endif
