"""The Site: entries derived (Markdown, signatures), linked (taxonomies, backlinks) and checked."""
