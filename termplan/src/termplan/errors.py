"""Exception types shared by every termplan module."""


class TermPlanError(ValueError):
    """A term plan or task configuration cannot be built as asked (unknown term, bad scale)."""
