"""Parse a `python`-like command line: ``[options] (script.py | -m mod | -c code) args...``.

`quickening run` and `quickening watch` both take the program the way the
`python` command does; the target and everything after it belong to the
program.  Options before the target are the command's own and are described
by a small table so each command declares what it accepts.
"""

import sys
from dataclasses import dataclass, field


class UsageError(Exception):
    """A command line we cannot accept; the message is one line for the user."""


@dataclass
class Target:
    kind: str            # "path", "module" or "code"
    value: str           # the script path, module name or source text
    argv: list           # what sys.argv becomes for the program


@dataclass
class ParsedArgs:
    target: Target
    options: dict = field(default_factory=dict)
    own: tuple = ()          # every option the command accepts
    prog: str = "quickening"


def parse_python_like(argv, flags=(), valued=(), repeatable=(), prog="quickening"):
    """Split argv into our options and the program target.

    flags: options without a value (stored True); valued: options taking one
    value; repeatable: valued options that may appear several times (stored
    as a list).  ``--opt=value`` is accepted for valued options.
    """
    parsed = _split(argv, flags, valued, repeatable, prog)
    parsed.own, parsed.prog = (*flags, *valued, *repeatable), prog
    return parsed


def _split(argv, flags, valued, repeatable, prog):
    options = {name: [] for name in repeatable}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-m" or arg == "-c":
            if i + 1 >= len(argv):
                raise UsageError(f"{prog}: argument {arg} needs a value")
            value = argv[i + 1]
            rest = argv[i + 2:]
            if arg == "-c":
                return ParsedArgs(Target("code", value, ["-c", *rest]), options)
            return ParsedArgs(Target("module", value, [value, *rest]), options)
        if arg.startswith("-m") and len(arg) > 2 and not arg.startswith("--"):
            return ParsedArgs(Target("module", arg[2:], [arg[2:], *argv[i + 1:]]), options)
        if arg.startswith("-c") and len(arg) > 2 and not arg.startswith("--"):
            return ParsedArgs(Target("code", arg[2:], ["-c", *argv[i + 1:]]), options)
        if arg == "--":
            i += 1
            break
        if arg.startswith("-") and arg != "-":
            name, eq, inline = arg.partition("=")
            if name in flags and not eq:
                options[name] = True
                i += 1
                continue
            if name in valued or name in repeatable:
                if eq:
                    value = inline
                    i += 1
                elif i + 1 < len(argv):
                    value = argv[i + 1]
                    i += 2
                else:
                    raise UsageError(f"{prog}: option {name} needs a value")
                if name in repeatable:
                    options[name].append(value)
                else:
                    options[name] = value
                continue
            raise UsageError(f"{prog}: unknown option {arg!r}")
        break
    if i >= len(argv):
        raise UsageError(f"{prog}: no program given (a script path, -m module or -c code)")
    script = argv[i]
    return ParsedArgs(Target("path", script, [script, *argv[i + 1:]]), options)


def note_late_options(parsed):
    """A report command's own options written after the program belong to the program
    (as with `python script.py --opt`): say so on stderr, since the report goes on
    without them.  (Not for `run` and `watch`, whose stderr is the program's.)"""
    given = {arg.partition("=")[0] for arg in parsed.target.argv[1:]}
    late = [name for name in parsed.own if name in given and not parsed.options.get(name)]
    if late:
        prog = parsed.prog
        print(f"{prog}: note: {', '.join(late)} after the program is the program's "
              f"argument; {prog}'s options go before the program", file=sys.stderr)
