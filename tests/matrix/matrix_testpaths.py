"""Paths the matrix tests share (a module of its own: `from conftest import ...` would get
whichever of the suite's several conftest modules Python imported last)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE_SPECS = os.path.join(HERE, "fixtures", "specs")
