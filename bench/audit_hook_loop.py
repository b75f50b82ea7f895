"""What an audit hook costs a program under `quickening run` (docs/known-differences.md,
"Audit hooks"): a small loop of calls, attribute reads and dict stores, timed in
CPU seconds, with a hook added (`hook` argument) or without.

    quickening run bench/audit_hook_loop.py          # no hook
    quickening run bench/audit_hook_loop.py hook     # a hook that looks at every event
"""

import sys
import time

if "hook" in sys.argv[1:]:
    opened = []
    sys.addaudithook(lambda event, args: opened.append(args) if event == "open" else None)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def norm(self):
        return abs(self.x) + abs(self.y)


def work(n):
    total = 0
    items = {}
    for i in range(n):
        p = Point(i, -i)
        total += p.norm()
        items[i % 100] = str(i)
        total += len(items)
    return total


start = time.process_time()
work(300_000)
print(f"{time.process_time() - start:.3f}s CPU")
