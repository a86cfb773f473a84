// libdispatch's main-queue hooks for a loop other than dispatch_main(): the pair
// swift-corelibs-foundation's CFRunLoop uses on Linux. libdispatch exports both (libdispatch.so
// and the toolchain's static libdispatch.a) but declares them only in its private headers
// (private/private.h; `dispatch_runloop_handle_t` is an `int` on Linux).
//
// fetch's synchronous `main` drains the main queue with them on the main thread
// (Sources/fetch/MainQueueLoop.swift), so the main thread never ends in pthread_exit.
#ifndef LARIAT_CDISPATCHMAIN_SHIM_H
#define LARIAT_CDISPATCHMAIN_SHIM_H

/// The main queue's wake-up descriptor (an eventfd, non-blocking): readable when the main
/// queue has work. Call on the main thread.
extern int _dispatch_get_main_queue_handle_4CF(void);

/// Runs the work queued on the main queue. Call on the main thread; `msg` is unused on Linux.
extern void _dispatch_main_queue_callback_4CF(void *_Null_unspecified msg);
#endif
