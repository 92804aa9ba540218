"""Error types a caller can catch. Messages name the file, line, row or id at fault."""


class InputError(ValueError):
    """Bad user input (a raw annotation file, a predictions file, a grid file, ...).

    CLIs print the message and exit with status 2; nothing already computed is lost.
    """
