"""Rendering a Site: Jinja2 environment, Markdown, pages, feeds, the JSON API and the search index."""
