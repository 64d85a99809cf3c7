"""The read path: rewrite -> recall (vector, keyword, filters) -> fuse (RRF) -> rerank -> assemble."""
