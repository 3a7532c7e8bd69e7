"""`python -m ember` runs the `ember` command."""
import sys

from .cli import main

sys.exit(main())
