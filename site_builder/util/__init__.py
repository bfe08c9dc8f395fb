"""Small helpers every stage shares: hashing, CJK text, atomic files, forked workers."""
