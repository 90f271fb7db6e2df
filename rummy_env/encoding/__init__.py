"""Engine state -> observation arrays and int8 action masks (numpy only)."""
