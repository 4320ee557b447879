"""Content: the model of an entry, YAML read with positions, validation and loading of content/."""
