"""One pure rules engine per variant (standard library + numpy only)."""
