"""accountants."""
