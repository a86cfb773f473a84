// Linux-only system headers that Glibc's Swift overlay does not expose, plus tiny
// wrappers for calls Swift cannot import directly (variadic functions). <linux/netlink.h>
// for `struct sockaddr_nl` (NetlinkRouteSocket); <sys/xattr.h> for fetch's --xattr;
// accept4 for the tests' servers.
#ifndef LARIAT_CLINUX_SHIM_H
#define LARIAT_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
#include <linux/netlink.h>
#include <sys/xattr.h>
#include <sys/socket.h>

/// glibc's accept4 (a GNU extension: the Glibc module is built without _GNU_SOURCE, so its
/// <sys/socket.h> does not declare it; this is glibc's own prototype).
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// Accepts a connection with close-on-exec set by the same call, so a child that another
/// thread forks meanwhile (the tests run fetch and curl) never inherits it.
static inline int lariat_accept_cloexec(int fd) {
    return accept4(fd, (struct sockaddr *)0, (socklen_t *)0, SOCK_CLOEXEC);
}

/// Names the calling thread (at most 15 bytes are kept). prctl is variadic, so Swift
/// cannot call it; pthread_setname_np is a GNU extension Glibc's overlay hides.
static inline int lariat_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
#endif
