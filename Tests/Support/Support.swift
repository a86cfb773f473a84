// Shared test servers (work in progress).
