// Linux-only system headers that Glibc's Swift overlay does not expose, plus tiny
// wrappers for calls Swift cannot import directly (variadic functions). <linux/netlink.h>
// for `struct sockaddr_nl` (NetlinkRouteSocket); <sys/xattr.h> for fetch's --xattr.
#ifndef LARIAT_CLINUX_SHIM_H
#define LARIAT_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
#include <linux/netlink.h>
#include <sys/xattr.h>

/// Names the calling thread (at most 15 bytes are kept). prctl is variadic, so Swift
/// cannot call it; pthread_setname_np is a GNU extension Glibc's overlay hides.
static inline int lariat_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
#endif
