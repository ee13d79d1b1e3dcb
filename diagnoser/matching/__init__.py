"""Text matching: normalise what the user pasted, score entries against it, say why."""
