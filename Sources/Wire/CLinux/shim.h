// Linux-only system headers that Glibc's Swift overlay does not expose.
#ifndef LARIAT_CLINUX_SHIM_H
#define LARIAT_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
