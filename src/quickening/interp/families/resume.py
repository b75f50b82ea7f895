"""RESUME: rewritten to RESUME_CHECK on first execution (no counter).

RESUME_CHECK deoptimizes when the eval breaker or instrumentation version
changed; the interpreter has neither, so it stays and does nothing.
"""

from quickening.interp.spec import Family

FAMILY = Family("RESUME")


@FAMILY.adaptive()
def resume(f, stack, site, nxt):
    site.rewrite("RESUME_CHECK", CHECK.handler(site.oparg))
    return nxt


# (CPython's guards, the eval breaker's and the instrumentation version's, have
# nothing to test here: the interpreter has neither)
CHECK = FAMILY.member("RESUME_CHECK", stack="--", guards=[], op="pass", raises=False,
                      runs_code=False)
