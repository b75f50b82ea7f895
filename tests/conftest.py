"""Settings for the whole suite."""

import os

# GNU readline, which pytest imports (through pdb), writes LINES and COLUMNS into
# the process's C environment when it starts (unseen in os.environ): every command
# a test starts would then fit its tables to 80 columns in a pipe.  Tests that
# want a width (tests/commands/test_tables.py) set COLUMNS themselves.
for _name in ("COLUMNS", "LINES"):
    os.environ[_name] = ""
    del os.environ[_name]        # (unsetenv, which the C environment sees)
