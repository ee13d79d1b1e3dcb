"""Ways in: the CLI, the exception hook, the notebook extension, wrapped commands."""
