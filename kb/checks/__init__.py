"""Checks over the database that `kb lint` runs, and how their problems are reported."""
