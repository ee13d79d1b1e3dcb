"""The documentation site: pages generated from the database, terminal text, mkdocs builds."""
