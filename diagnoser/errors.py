"""Errors that are the user's, not ours: the CLI prints them as one line and exits 2."""
from __future__ import annotations


class UserInputError(Exception):
    """Bad input from the user (unreadable model, empty text, a directory...).

    `code` is the finding code when the problem is one the probes document (e.g.
    `file.git-lfs-pointer`), so a one-line error still leads to an entry.
    """

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.code = code
