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

/* Offered a job the runtime is to run after `delay` seconds (a task's sleep; `work(context)` runs it): 1 when it
   takes it. */
typedef int (*nearcatch_sleep_taker)(void *context, void (*work)(void *), double delay);
/* Puts the taker in front of the runtime's delayed jobs. Returns 1 when installed. */
int nearcatch_install_sleep_taker(nearcatch_sleep_taker taker);

/* Runs a job taken from the global executor, as the global executor would. */
void nearcatch_run_global_job(void *job);

/* The phone whose job the thread runs now, as the room set it (an opaque reference), or null. */
void *nearcatch_running_phone(void);
void nearcatch_set_running_phone(void *phone);

/* Offered a block bound for the main queue, copied (`nearcatch_run_block` runs and releases it), to run after
   `delay` seconds: returns 1 when it takes it, or 0 (then the copy is released). */
typedef int (*nearcatch_block_taker)(void *block, double delay);
/* Whether the code running now is a phone's. */
typedef int (*nearcatch_phone_test)(void);

/* Puts the taker in front of the main queue for the blocks Swift's Dispatch overlay and Foundation send it
   (`async`, `asyncAfter`, and `sync`, which runs a phone's block at once). Returns how many libraries it reached. */
int nearcatch_install_block_takers(nearcatch_block_taker taker, nearcatch_phone_test test);

/* Runs a block a taker took, and releases it. */
void nearcatch_run_block(void *block);

/* While a phone's call or job runs on this thread, its clocks read the room's time `seconds` (a negative value: not
   a phone's call); returns the previous setting, to restore. */
#include <stdint.h>
uint64_t nearcatch_set_phone_time(double seconds);
void nearcatch_restore_phone_time(uint64_t previous);

/* The delay, seconds, until a libdispatch deadline, read on the phone's clock in a phone's call: 0 when the
   deadline is on the wall clock or "forever". */
int nearcatch_delay_until(uint64_t when, double *delay);

#endif
