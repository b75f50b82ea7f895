"""RESUME: rewritten to RESUME_CHECK on first execution (no counter).

RESUME_CHECK deoptimizes when the eval breaker or instrumentation version
changed; the interpreter has neither, so it stays.
"""

from quickening.interp.lowering import Shape
from quickening.interp.quicken import Family

FAMILY = Family("RESUME", operands=0)


@FAMILY.adaptive()
def resume(f, stack, site, nxt):
    site.rewrite("RESUME_CHECK", resume_check)
    return nxt


def resume_check(f, stack, site, nxt):
    return nxt


# in place in fused runs (fusion.py): nothing to check, nothing to do
resume_check.fuse_as = lambda oparg: Shape(0, guard="True", raises=False, pure=True)
FAMILY.inline_members = lambda oparg: (resume_check,)
