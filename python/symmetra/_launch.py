"""The `symrun` command of the Python package: the symrun binary that the wheel carries."""

import os
import sys


def binary():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "symrun")


def symrun():
    path = binary()
    if not os.access(path, os.X_OK):
        sys.exit(f"symrun: {path} is missing from the installed package")
    os.execv(path, [path, *sys.argv[1:]])
