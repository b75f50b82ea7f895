"""Describe this interpreter from inside (version, build, JIT state).

    python qk_probe_child.py SPEC.json OUT.json     SPEC: {"env_keys": [...]}
"""

import json
import sys

from qk_measure_child import describe_interpreter


def main(argv):
    with open(argv[1]) as fh:
        spec = json.load(fh)
    with open(argv[2], "w") as fh:
        json.dump({"interpreter": describe_interpreter(spec.get("env_keys", ()))}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
