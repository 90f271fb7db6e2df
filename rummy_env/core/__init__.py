"""Cards, tiles, meld tables and meld solvers shared by the variants (standard library + numpy only)."""
