"""Autofixes: LibCST codemods for the findings that have one (``dslint check --fix``)."""
