#include "MainActorHook.h"
#include <stddef.h>

/* Swift's runtime's hook (swift_Concurrency, Swift 6.2 and later): called with the executor asked about, as its
   identity and witness table, and the runtime's own implementation; answers -1 unknown, 0 no, 1 yes. Declared weak,
   so that a runtime without it leaves the address null. */
typedef signed char (*nearcatch_original_t)(void *identity, void *witness) __attribute__((swiftcall));
typedef signed char (*nearcatch_hook_t)(void *identity, void *witness, nearcatch_original_t original)
    __attribute__((swiftcall));
extern nearcatch_hook_t swift_task_isIsolatingCurrentContext_hook __attribute__((weak));

static nearcatch_isolation_decider installed;

static signed char __attribute__((swiftcall)) hook(void *identity, void *witness, nearcatch_original_t original) {
    if (installed != NULL && installed(identity)) return 1;
    return original(identity, witness);
}

int nearcatch_install_isolation_decider(nearcatch_isolation_decider decider) {
    if (&swift_task_isIsolatingCurrentContext_hook == NULL) return 0;
    installed = decider;
    swift_task_isIsolatingCurrentContext_hook = hook;
    return 1;
}
