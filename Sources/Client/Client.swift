// Client module (work in progress on its own branch).
