"""The ``perfgate`` commands, one module each: its parser (``add_parser``) and ``run``.

A command module parses, calls the pipeline or library, and returns the exit code; it never
imports another command.
"""
