#ifndef FEDERATE_TEST_WATCHDOG_H
#define FEDERATE_TEST_WATCHDOG_H

/// How many seconds the watchdog lets the test process run (0: it is off). It starts when the
/// process loads, before any test: see watchdog.c.
unsigned federate_test_watchdog_seconds(void);

#endif
