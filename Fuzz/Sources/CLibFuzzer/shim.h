// libFuzzer's documented entry for programs that own `main` (LLVM's libFuzzer docs, "Using
// libFuzzer as a library"). SwiftPM renames an executable's `main` to `<module>_main` and aliases it
// with `--defsym`, so a Swift fuzz target cannot rely on libFuzzer's own `main`; it calls this instead.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
