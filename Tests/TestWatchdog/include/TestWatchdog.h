#ifndef FEDERATE_TEST_WATCHDOG_H
#define FEDERATE_TEST_WATCHDOG_H

// Nothing to call: the watchdog starts by itself when the test bundle loads (watchdog.c).

#endif
