// The one typed accessor for a directory entry's name, shared by EventLoop, TLS and the tests.
//
// C because it is the only place both TLS (which must not depend on EventLoop) and EventLoop can
// share without a dependency edge, and because C reads `d_name` as what it is: a NUL-terminated
// array inside the record, decaying to a pointer in place. Swift would import it as a 256-byte
// tuple, and copying that tuple reads past the end of the record: glibc's `readdir` records are
// only as long as their name (`d_reclen`), so for the last record of the buffer the copy runs off
// the heap allocation (AddressSanitizer heap-buffer-overflow, seen with a 676-file directory).
#ifndef LARIAT_CDIRENT_SHIM_H
#define LARIAT_CDIRENT_SHIM_H
#include <dirent.h>

/// The entry's name (`d_name`), NUL-terminated, in place inside the record `readdir` returned.
/// Valid until the next `readdir` or `closedir` on the same stream; read it up to the NUL only.
static inline const char *lariat_dirent_name(const struct dirent *entry) {
    return entry->d_name;
}
#endif
