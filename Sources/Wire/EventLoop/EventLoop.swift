// EventLoop module: epoll event loop (work in progress on its own branch).
