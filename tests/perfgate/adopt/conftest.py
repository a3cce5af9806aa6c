"""Holding a conftest here puts this folder on ``sys.path``, so the tests of ``doctor/``
import the shared project helper (``adopt_project``) by name."""
