"""Studies, A/B tools and profiles of the project: run from the repository root, never installed.

Each module is a command (its docstring gives it); nothing in ``keine_ahnung_env``, ``agents`` or
``training`` imports this package (``tests/test_research_apart.py``).
"""
