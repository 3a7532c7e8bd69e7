"""The `ember` command: `ember train` (the main job), `ember info`, `ember compat`.

The console script is ``ember = "ember.cli:main"``; ``python -m ember`` runs the same."""
import sys

from ember.datasets import DataError

from ._args import DEFAULTS, PeerFailed, UsageError, build_parser
from ._command import train
from ._compat import compat_command
from ._info import info

__all__ = ["main", "build_parser", "DEFAULTS", "UsageError"]


def main(argv=None):
    """Entry point of the `ember` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "train":
            return train(args)
        if args.command == "info":
            return info()
        return compat_command(args.write)
    except (UsageError, DataError) as error:
        if not isinstance(error, PeerFailed):  # the failing rank reports it
            print(f"ember {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"ember {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
