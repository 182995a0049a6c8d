"""Tools of the repository (not part of the installed package): the docs' reference generator."""
