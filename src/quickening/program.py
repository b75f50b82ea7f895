"""The program a command was given, checked the way `python` checks it, before
anything runs.

`python PATH` refuses a missing file (status 2) and a directory without
`__main__.py` (status 1), runs a directory's `__main__.py`, and reads the
program from stdin for `-`.  Every command that takes a program resolves it
here, so each says the same one line for the same mistake.
"""

import os
import subprocess
import sys

from quickening.pyargs import Target


class ProgramError(Exception):
    """The program cannot be run; ``str()`` is one line, ``status`` the exit status
    `python` gives for the same mistake."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def resolve(target):
    """A path target made runnable: a directory becomes its ``__main__.py`` (argv[0]
    stays the directory, as with `python DIR`); "-" and -m/-c targets pass through.
    Raises ProgramError for what `python` refuses before running anything."""
    if target.kind != "path" or target.value == "-":
        return target
    path = target.value
    if os.path.isdir(path):
        main = os.path.join(path, "__main__.py")
        if not os.path.isfile(main):
            raise ProgramError(f"can't find '__main__' module in {os.path.abspath(path)!r}", 1)
        return Target("path", main, list(target.argv))
    if not os.path.exists(path):
        raise ProgramError(f"can't open file {os.path.abspath(path)!r}: "
                           f"[Errno 2] No such file or directory", 2)
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise ProgramError(f"can't open file {os.path.abspath(path)!r}: "
                           f"[Errno {exc.errno}] {exc.strerror}", 2) from None
    return target


def is_stdin(target):
    return target.kind == "path" and target.value == "-"


def compile_error(path):
    """None if the file compiles; else the text `python PATH` prints for its
    SyntaxError (null bytes and undecodable files included, whose wording differs
    between compile() and the parser `python` reads files with)."""
    with open(path, "rb") as fh:
        source = fh.read()
    try:
        compile(source, os.path.abspath(path), "exec", dont_inherit=True)
        return None
    except SyntaxError as exc:
        ours = exc
    except ValueError as exc:       # (older hosts: null bytes are a ValueError)
        ours = exc
    # the file does not compile, so `python` stops at the same point without
    # running any of it: let it say so in its own words
    try:
        native = subprocess.run([sys.executable, "-I", os.path.abspath(path)],
                                capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                timeout=60)
        if native.returncode != 0 and "Error" in native.stderr:
            return native.stderr
    except (OSError, subprocess.SubprocessError):
        pass
    import traceback
    return "".join(traceback.format_exception_only(ours))


def syntax_error_line(text):
    """The one line that names a SyntaxError printed as `python` prints it:
    'FILE:LINE: SyntaxError: message' (or just its last line)."""
    lines = [line for line in text.splitlines() if line.strip()]
    last = lines[-1].strip() if lines else "SyntaxError"
    for line in lines:
        stripped = line.strip()
        if stripped.startswith('File "') and ", line " in stripped:
            name, _, rest = stripped[len('File "'):].partition('", line ')
            return f"{name}:{rest.split(',')[0]}: {last}"
    return last


def check(target):
    """resolve(target), then refuse a file or -c code that does not compile, with
    the one line that names the error (status 1, as `python` exits).  For report
    commands, whose output is about a program that ran."""
    target = resolve(target)
    if target.kind == "path" and target.value != "-":
        error = compile_error(target.value)
        if error is not None:
            raise ProgramError(syntax_error_line(error), 1)
    elif target.kind == "code":
        try:
            compile(target.value, "<string>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            import traceback
            raise ProgramError(syntax_error_line(
                "".join(traceback.format_exception_only(exc))), 1) from None
    return target
