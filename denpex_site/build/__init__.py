"""Building: the builder (parallel, incremental), assets, output written atomically, Pagefind, dev server."""
