// The test process's watchdog. It starts when the test bundle loads, before any test runs, and:
//
// - makes standard output line-buffered, so that when output goes to a pipe (CI) every line
//   the test library prints is there at once: a test that never ends is the one whose
//   "started" line has no matching end, instead of being lost in a buffer that is never
//   flushed;
// - after FEDERATE_TEST_WATCHDOG_SECONDS (default 1200, 0 turns it off) prints which
//   processes are running and every thread's stack (with gdb when it is installed), then
//   ends the process with status 124, so a test that waits for ever fails the run within
//   minutes, with what it was waiting for, instead of running into CI's time limit silently.
#include "TestWatchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static unsigned watchdog_seconds = 1200;

static void *watch(void *unused) {
    (void)unused;
    struct timespec left = {.tv_sec = (time_t)watchdog_seconds, .tv_nsec = 0};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
    fflush(stdout);
    pid_t pid = getpid();
    dprintf(STDERR_FILENO,
            "\nfederate test watchdog: test process %d still running after %u s "
            "(FEDERATE_TEST_WATCHDOG_SECONDS); the processes and every thread's stack follow\n",
            (int)pid, watchdog_seconds);
    char command[512];
    snprintf(command, sizeof command,
             "ps -eo pid,ppid,etime,args --forest 1>&2; "
             "if command -v gdb >/dev/null; then "
             "gdb -p %d -batch -nx -ex 'set complaints 0' -ex 'set pagination off' -ex 'thread apply all bt 30' 2>&1 "
             "| grep -v -e '^During symbol reading' -e '^warning:' | head -c 400000 1>&2; "
             "else echo 'federate test watchdog: no gdb, no stacks' 1>&2; fi",
             (int)pid);
    if (system(command) == -1) dprintf(STDERR_FILENO, "federate test watchdog: cannot run ps or gdb\n");
    dprintf(STDERR_FILENO, "federate test watchdog: ending test process %d\n", (int)pid);
    _exit(124);
}

__attribute__((constructor)) static void federate_test_watchdog_start(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *setting = getenv("FEDERATE_TEST_WATCHDOG_SECONDS");
    if (setting != NULL && *setting != '\0') {
        char *end = NULL;
        unsigned long seconds = strtoul(setting, &end, 10);
        if (end == NULL || *end != '\0' || seconds > 86400) {
            dprintf(STDERR_FILENO, "federate test watchdog: FEDERATE_TEST_WATCHDOG_SECONDS=%s is not 0 to 86400; using %u\n",
                    setting, watchdog_seconds);
        } else {
            watchdog_seconds = (unsigned)seconds;
        }
    }
    if (watchdog_seconds == 0) return;
    // gdb, a child of this process, may attach to it even where ptrace is limited to descendants.
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attributes, watch, NULL) != 0) {
        dprintf(STDERR_FILENO, "federate test watchdog: cannot start its thread\n");
    }
    pthread_attr_destroy(&attributes);
}
