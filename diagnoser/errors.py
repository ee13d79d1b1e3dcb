"""Errors that are the user's, not ours: the CLI prints them as one line and exits 2."""
from __future__ import annotations


class UserInputError(Exception):
    """Bad input from the user (unreadable model, empty text, a directory...)."""
