"""`kb verify`: reproductions run on measured releases, and the version matrix they write."""
