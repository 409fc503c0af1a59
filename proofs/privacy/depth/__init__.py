"""depth."""
