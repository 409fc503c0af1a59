"""divergence."""
