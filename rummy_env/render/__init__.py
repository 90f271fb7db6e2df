"""Text renderers of engine states (numpy and the standard library only)."""
