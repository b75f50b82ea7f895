"""python -m quickening.interp.families --reference > docs/members.md"""

import sys

from quickening.interp import spec
from quickening.interp.families.registered import FAMILIES_IN_ORDER


def main(argv):
    if argv != ["--reference"]:
        print("usage: python -m quickening.interp.families --reference", file=sys.stderr)
        return 2
    sys.stdout.write(spec.reference(FAMILIES_IN_ORDER))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
