// The executable's entry point. SwiftPM links an executable target's `main` to
// `<Target>_main`; Swift code built with -parse-as-library has none, so this hands control
// to libFuzzer's driver with the Swift `LLVMFuzzerTestOneInput` (Entry.swift).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void federate_fuzz_initialize(void);

int FederateFuzz_main(int argc, char **argv) {
    // Build the fixtures first: allocations made while an input runs count as leaks.
    federate_fuzz_initialize();
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
