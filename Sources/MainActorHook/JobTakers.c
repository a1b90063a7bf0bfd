#define _GNU_SOURCE
#include "MainActorHook.h"
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Swift's runtime hands a main-actor job to the main queue, and many a global one to a global queue, by calling
   libdispatch's dispatch_async_f through its own import table: the one place such a job can be seen before it
   leaves for another thread. The slot is
   pointed at a function that offers the job to the room first. Global jobs have a hook of the runtime's own. */

typedef void (*nearcatch_async_f)(void *queue, void *context, void (*work)(void *));
typedef uint64_t (*nearcatch_time_f)(uint64_t when, int64_t delta);
static int delay_until(uint64_t when, double *delay);
int nearcatch_delay_until(uint64_t when, double *delay) { return delay_until(when, delay); }
static nearcatch_async_f real_async_f;
static void *main_queue;
static nearcatch_main_job_taker main_taker;
static nearcatch_global_job_taker global_taker;
static __thread void *running_phone;

/* A phone's code reads its clocks as the room's: while the room runs a phone's call or job, every clock Swift's
   runtime and Dispatch's overlay read (`ContinuousClock.now`, `DispatchTime.now()`) gives one reading, the room's
   time since a base taken when the takers were installed. So a deadline made there (`Task.sleep(for:)`,
   `.now() + 0.5`) is the room's time plus the delay, and the delay is read back exactly, however long the call took
   on the machine. 0: not in a phone's call. */
static __thread uint64_t phone_now;
static uint64_t clock_base;

uint64_t nearcatch_set_phone_time(double seconds) {
    uint64_t previous = phone_now;
    phone_now = seconds < 0 ? 0 : clock_base + (uint64_t)(seconds * 1e9 + 0.5);
    return previous;
}

void nearcatch_restore_phone_time(uint64_t previous) { phone_now = previous; }

void *nearcatch_running_phone(void) { return running_phone; }
void nearcatch_set_running_phone(void *phone) { running_phone = phone; }

/* The runtime's own calls reach the global executor's queues this way too, past the global hook (a continuation
   resumed, a task switching executors): offered the same. */
static void offer_async_f(void *queue, void *context, void (*work)(void *)) {
    if (main_taker != NULL && main_taker(context, work)) return;
    real_async_f(queue, context, work);
}

struct nearcatch_patch {
    const char *library;
    const char *symbol;
    void *replacement;
    int patched;
};

#if defined(__x86_64__)
#define NEARCATCH_JUMP_SLOT R_X86_64_JUMP_SLOT
#define NEARCATCH_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define NEARCATCH_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define NEARCATCH_GLOB_DAT R_AARCH64_GLOB_DAT
#else
#define NEARCATCH_JUMP_SLOT 0xffffffffu
#define NEARCATCH_GLOB_DAT 0xffffffffu
#endif

static uintptr_t absolute(uintptr_t value, uintptr_t base) { return value < base ? value + base : value; }

static int patch_import(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct nearcatch_patch *patch = data;
    if (info->dlpi_name == NULL || strstr(info->dlpi_name, patch->library) == NULL) return 0;
    const ElfW(Dyn) *dynamic = NULL;
    uintptr_t relro_start = 0, relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_GNU_RELRO) {
            relro_start = info->dlpi_addr + ph->p_vaddr;
            relro_end = relro_start + ph->p_memsz;
        }
    }
    if (dynamic == NULL) return 0;
    const ElfW(Sym) *symbols = NULL;
    const char *names = NULL;
    const ElfW(Rela) *tables[2] = {NULL, NULL};
    size_t sizes[2] = {0, 0};
    for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)absolute(d->d_un.d_ptr, info->dlpi_addr); break;
        case DT_STRTAB: names = (const char *)absolute(d->d_un.d_ptr, info->dlpi_addr); break;
        case DT_JMPREL: tables[0] = (const ElfW(Rela) *)absolute(d->d_un.d_ptr, info->dlpi_addr); break;
        case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
        case DT_RELA: tables[1] = (const ElfW(Rela) *)absolute(d->d_un.d_ptr, info->dlpi_addr); break;
        case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
        default: break;
        }
    }
    if (symbols == NULL || names == NULL) return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int t = 0; t < 2; t++) {
        if (tables[t] == NULL) continue;
        for (size_t k = 0; k < sizes[t] / sizeof(ElfW(Rela)); k++) {
            const ElfW(Rela) *r = &tables[t][k];
            uint32_t type = ELF64_R_TYPE(r->r_info);
            if (type != NEARCATCH_JUMP_SLOT && type != NEARCATCH_GLOB_DAT) continue;
            if (strcmp(names + symbols[ELF64_R_SYM(r->r_info)].st_name, patch->symbol) != 0) continue;
            void **slot = (void **)(info->dlpi_addr + r->r_offset);
            uintptr_t first = (uintptr_t)slot & ~(uintptr_t)(page - 1);
            if (mprotect((void *)first, (size_t)page, PROT_READ | PROT_WRITE) != 0) continue;
            *slot = patch->replacement;
            if ((uintptr_t)slot >= relro_start && (uintptr_t)slot < relro_end) {
                mprotect((void *)first, (size_t)page, PROT_READ);
            }
            patch->patched = 1;
        }
    }
    return patch->patched;
}

typedef void (*nearcatch_global_original)(void *job) __attribute__((swiftcall));
typedef void (*nearcatch_global_hook_t)(void *job, nearcatch_global_original original) __attribute__((swiftcall));
extern nearcatch_global_hook_t swift_task_enqueueGlobal_hook __attribute__((weak));
extern void swift_job_run(void *job, void *identity, void *witness) __attribute__((swiftcall, weak));

static void __attribute__((swiftcall)) offer_global(void *job, nearcatch_global_original original) {
    if (global_taker != NULL && global_taker(job)) return;
    original(job);
}

void nearcatch_run_global_job(void *job) { swift_job_run(job, NULL, NULL); }

/* A task's sleep (`Task.sleep`) reaches libdispatch as a job after a deadline: on a phone, the wait is taken on
   the room's clock instead. */
typedef void (*nearcatch_after_f)(uint64_t when, void *queue, void *context, void (*work)(void *));
static nearcatch_after_f real_after_f;
static nearcatch_time_f time_f;
static nearcatch_sleep_taker sleep_taker;

static void offer_after_f(uint64_t when, void *queue, void *context, void (*work)(void *)) {
    double delay = 0;
    if (sleep_taker != NULL && delay_until(when, &delay) && sleep_taker(context, work, delay)) return;
    real_after_f(when, queue, context, work);
}

typedef int (*nearcatch_clock_gettime_t)(clockid_t clock, struct timespec *time);
static nearcatch_clock_gettime_t real_clock_gettime;

static int phone_clock_gettime(clockid_t clock, struct timespec *time) {
    if (phone_now != 0 && time != NULL
        && (clock == CLOCK_MONOTONIC || clock == CLOCK_BOOTTIME || clock == CLOCK_MONOTONIC_RAW)) {
        time->tv_sec = (time_t)(phone_now / 1000000000ull);
        time->tv_nsec = (long)(phone_now % 1000000000ull);
        return 0;
    }
    return real_clock_gettime(clock, time);
}

static uint64_t phone_dispatch_time(uint64_t when, int64_t delta) {
    if (phone_now != 0 && when == 0) {
        int64_t at = (int64_t)phone_now + delta;
        return at < 0 ? 0 : (uint64_t)at;
    }
    return time_f(when, delta);
}

int nearcatch_install_sleep_taker(nearcatch_sleep_taker taker) {
    real_after_f = (nearcatch_after_f)dlsym(RTLD_DEFAULT, "dispatch_after_f");
    time_f = (nearcatch_time_f)dlsym(RTLD_DEFAULT, "dispatch_time");
    if (real_after_f == NULL || time_f == NULL) return 0;
    sleep_taker = taker;
    struct nearcatch_patch after = {"libswift_Concurrency.so", "dispatch_after_f", (void *)offer_after_f, 0};
    dl_iterate_phdr(patch_import, &after);
    real_clock_gettime = (nearcatch_clock_gettime_t)dlsym(RTLD_DEFAULT, "clock_gettime");
    if (real_clock_gettime != NULL) {
        struct timespec base;
        real_clock_gettime(CLOCK_MONOTONIC, &base);
        clock_base = (uint64_t)base.tv_sec * 1000000000ull + (uint64_t)base.tv_nsec;
        struct nearcatch_patch clock = {"libswift_Concurrency.so", "clock_gettime", (void *)phone_clock_gettime, 0};
        dl_iterate_phdr(patch_import, &clock);
        struct nearcatch_patch now = {"libswiftDispatch.so", "dispatch_time", (void *)phone_dispatch_time, 0};
        dl_iterate_phdr(patch_import, &now);
    }
    return after.patched;
}

int nearcatch_install_job_takers(nearcatch_main_job_taker main, nearcatch_global_job_taker global) {
    int installed = 0;
#if defined(__x86_64__) || defined(__aarch64__)
    main_queue = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
    real_async_f = (nearcatch_async_f)dlsym(RTLD_DEFAULT, "dispatch_async_f");
    if (main_queue != NULL && real_async_f != NULL) {
        main_taker = main;
        struct nearcatch_patch patch = {"libswift_Concurrency.so", "dispatch_async_f", (void *)offer_async_f, 0};
        dl_iterate_phdr(patch_import, &patch);
        if (patch.patched) installed |= 1;
    }
#endif
    if (&swift_task_enqueueGlobal_hook != NULL && &swift_job_run != NULL) {
        global_taker = global;
        swift_task_enqueueGlobal_hook = offer_global;
        installed |= 2;
    }
    return installed;
}

/* Blocks sent to the main queue by Swift's Dispatch overlay and by Foundation (a DispatchWorkItem, `asyncAfter`
   with one, `OperationQueue.main`, `DispatchQueue.main.sync`) leave through their import tables the same way. */

typedef void (*nearcatch_dispatch_async)(void *queue, void *block);
typedef void (*nearcatch_dispatch_after)(uint64_t when, void *queue, void *block);
static nearcatch_dispatch_async real_async;
static nearcatch_dispatch_async real_sync;
static nearcatch_dispatch_after real_after;
static nearcatch_block_taker block_taker;
static nearcatch_phone_test in_phone;
static void *(*block_copy)(const void *);
static void (*block_release)(const void *);

/* A deadline says its clock in its top two bits: none, the machine's uptime; 10, the monotonic clock; 11, the wall
   clock (left to libdispatch, as is "forever"). Its delay, seconds, is read against that clock's now. */
static int delay_until(uint64_t when, double *delay) {
    static nearcatch_time_f now_of;
    uint64_t clock = when & (3ull << 62);
    if (now_of == NULL) now_of = (nearcatch_time_f)dlsym(RTLD_DEFAULT, "dispatch_time");
    if (when == ~0ull || clock == (3ull << 62) || clock == (1ull << 62) || now_of == NULL) return 0;
    if (phone_now != 0) {
        uint64_t at = when & ~(3ull << 62);
        *delay = at > phone_now ? (double)(at - phone_now) / 1e9 : 0;
        return 1;
    }
    uint64_t now = now_of(clock, 0);
    if ((now & (3ull << 62)) != clock) return 0;
    *delay = when > now ? (double)(when - now) / 1e9 : 0;
    return 1;
}

struct nearcatch_block {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *);
};

void nearcatch_run_block(void *block) {
    ((struct nearcatch_block *)block)->invoke(block);
    block_release(block);
}

static void offer_async(void *queue, void *block) {
    if (queue == main_queue && block_taker != NULL) {
        void *copy = block_copy(block);
        if (block_taker(copy, 0)) return;
        block_release(copy);
    }
    real_async(queue, block);
}

/* On a phone, the room's thread is its main thread: a block sent synchronously to the main queue runs at once. */
static void offer_sync(void *queue, void *block) {
    if (queue == main_queue && in_phone != NULL && in_phone()) {
        ((struct nearcatch_block *)block)->invoke(block);
        return;
    }
    real_sync(queue, block);
}

static void offer_after(uint64_t when, void *queue, void *block) {
    double delay = 0;
    if (queue == main_queue && block_taker != NULL && delay_until(when, &delay)) {
        void *copy = block_copy(block);
        if (block_taker(copy, delay)) return;
        block_release(copy);
    }
    real_after(when, queue, block);
}

int nearcatch_install_block_takers(nearcatch_block_taker taker, nearcatch_phone_test test) {
    main_queue = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
    real_async = (nearcatch_dispatch_async)dlsym(RTLD_DEFAULT, "dispatch_async");
    real_sync = (nearcatch_dispatch_async)dlsym(RTLD_DEFAULT, "dispatch_sync");
    real_after = (nearcatch_dispatch_after)dlsym(RTLD_DEFAULT, "dispatch_after");
    block_copy = (void *(*)(const void *))dlsym(RTLD_DEFAULT, "_Block_copy");
    block_release = (void (*)(const void *))dlsym(RTLD_DEFAULT, "_Block_release");
    if (main_queue == NULL || real_async == NULL || real_sync == NULL || real_after == NULL
        || block_copy == NULL || block_release == NULL) return 0;
    block_taker = taker;
    in_phone = test;
    int patched = 0;
    const char *libraries[2] = {"libswiftDispatch.so", "libFoundation.so"};
    for (int k = 0; k < 2; k++) {
        struct nearcatch_patch async = {libraries[k], "dispatch_async", (void *)offer_async, 0};
        dl_iterate_phdr(patch_import, &async);
        struct nearcatch_patch sync = {libraries[k], "dispatch_sync", (void *)offer_sync, 0};
        dl_iterate_phdr(patch_import, &sync);
        struct nearcatch_patch after = {libraries[k], "dispatch_after", (void *)offer_after, 0};
        dl_iterate_phdr(patch_import, &after);
        patched += async.patched;
    }
    return patched;
}
