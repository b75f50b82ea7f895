import sys

from quickening.cli import main

sys.exit(main())
