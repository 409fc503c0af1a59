"""enumeration."""
