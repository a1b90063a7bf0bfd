#ifndef NEARCATCH_MAIN_ACTOR_HOOK_H
#define NEARCATCH_MAIN_ACTOR_HOOK_H

/* Whether the code running now is isolated to `executor` though Swift's runtime cannot tell: 1 yes, 0 ask the
   runtime. */
typedef int (*nearcatch_isolation_decider)(const void *executor);

/* Installs the decider in front of Swift's runtime's own answer to "is this context isolated to that executor"
   (what `MainActor.assumeIsolated` and a `@preconcurrency` conformance's check ask). Returns 0 when the runtime
   has no such hook (then nothing is installed). */
int nearcatch_install_isolation_decider(nearcatch_isolation_decider decider);

/* Offered a job Swift's runtime is about to hand to a dispatch queue, the main one or a global one (`work(context)`
   runs it), or to the global executor (`nearcatch_run_global_job(job)` runs it): returns 1 when it takes the job,
   to run it itself, or 0. */
typedef int (*nearcatch_main_job_taker)(void *context, void (*work)(void *));
typedef int (*nearcatch_global_job_taker)(void *job);

/* Puts the takers in front of the dispatch queues and the global executor for the jobs of Swift's concurrency
   runtime (`Task { @MainActor in }`, `Task { }`). Returns a bit set: 1 the queues' taker is in, 2 the global
   executor's. */
int nearcatch_install_job_takers(nearcatch_main_job_taker main, nearcatch_global_job_taker global);

/* Runs a job taken from the global executor, as the global executor would. */
void nearcatch_run_global_job(void *job);

/* The phone whose job the thread runs now, as the room set it (an opaque reference), or null. */
void *nearcatch_running_phone(void);
void nearcatch_set_running_phone(void *phone);

#endif
