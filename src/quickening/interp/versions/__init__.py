"""What differs between CPython versions, as data: one module per version.

Each module holds that version's specification facts -- its families and
their members, the counter's encoding and constants, corrections to the
host's cache tables -- and, keyed on the patch release, the few decisions
that changed within the version.  The interpreter reads the host's module
(SPEC); adding a version is adding its module.
"""

import sys

if sys.version_info[:2] == (3, 13):
    from quickening.interp.versions import cpython_3_13 as SPEC
else:       # (host.py refuses other versions with a clear message)
    SPEC = None
