// Counts heap allocations for scripts/load.sh (LOAD_ALLOCS=1): LD_PRELOAD it, and SIGUSR2
// writes "allocs N" to standard error; `FederatePerf allocs` reads the count itself. Uses glibc's own entry points (__libc_malloc and
// friends), so it needs no dlsym and no bootstrap heap.
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static _Atomic unsigned long count;

static void report(int sig) {
    (void)sig;
    char buf[48], digits[24];
    int n = 0, k = 0;
    unsigned long v = atomic_load(&count);
    do { digits[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    for (const char *p = "allocs "; *p; p++) buf[k++] = *p;
    while (n) buf[k++] = digits[--n];
    buf[k++] = '\n';
    (void)!write(2, buf, (size_t)k);
}

__attribute__((constructor)) static void init(void) { signal(SIGUSR2, report); }

static inline void counted(void) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); }

// The count so far, for a process that measures itself (Benchmarks' `FederatePerf allocs`).
unsigned long federate_allocation_count(void) { return atomic_load(&count); }
void *malloc(size_t n) { counted(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { counted(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { counted(); return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { counted(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { counted(); return __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) {
    counted();
    void *r = __libc_memalign(a, n);
    if (!r) return 12; // ENOMEM
    *p = r;
    return 0;
}
