// Wire: HTTP/1.1 codec.
