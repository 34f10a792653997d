"""``python -m dslint.verify TARGET [-- ARGS]`` (the same as ``dslint verify``)."""

import argparse
import sys

from .command import add_arguments, run


def main() -> int:
    parser = argparse.ArgumentParser(prog="dslint verify", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
