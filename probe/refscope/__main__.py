"""Command line: python -m refscope --help."""

import sys

from ._runner import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
