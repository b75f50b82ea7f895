"""A small callee written into its caller's fused run (call inlining).

A call specialized as CALL_PY_EXACT_ARGS and run in place (fusion.py, the
member's shape in families/call.py) makes the callee's Frame, runs it through
loop.enter and its own fused run: about a microsecond, most of it for frames
that do a few attribute loads and some arithmetic.  The member's guard (the
function's version) pins the code called, so the run of that code can be
written into the caller's run right at the call site, with no frame at all,
when nothing could tell the difference:

- the callee's run from its first instruction runs no code of the program
  (_Run.escapes: no call, nothing through the table, no operation on operands
  of unknown types, no miss run in place), so nothing can look for its frame;
- every path of it returns, or leaves where a guard failed: none goes on in
  another run (a join, a loop, a branch not taken yet: _Run.goes_on), which
  would make the frame on every call taking it;
- it has no loop and no cells, and is short; it may use a prologue's names
  (LOAD_GLOBAL's: the frame's globals) where they are the caller's
  (fusion.CALLEE_PROLOGUES: the function's globals are the caller frame's);
- no trace function is set anywhere (one would see a 'call' event) and the
  recursion limit is not reached.

Written into the caller, the callee's locals are a list (what its frame's
locals would be), its temps and names are renamed, and each way its run
leaves becomes:

- a return: the call's result, and the caller goes on;
- leaving for the loop at an instruction (a guard that failed, a counter run
  out, an instruction through the table): the frame is made then, as the call
  would have made it, and the loop goes on in it from that instruction -- the
  protocol of a frame loop.enter stopped (Frame.stopped, RESUME);
- an exception: the frame is made and the exception unwinds from it, at the
  instruction that raised.

The callee's lines are its first run's as fusion writes it, except that every
site leaves the run on a miss (_Run.optimistic: a site that missed while warming
up would else stay a place where code may run).  What its sites hold is written
into the caller, so when one of them changes form (fusion.refuse, making the
callee's run again) the caller's runs that hold it are made again too
(CodeInfo.inlined_into); and a callee that keeps leaving them (MAX_EXITS,
EXIT_SHARE, MIN_CALLS) is not written any more.

A polymorphic site of the callee (one that keeps re-targeting: its member read
from the site as it runs) runs a miss in place only where the base operation
runs no code of the program for the owner's type (Family.base_purity: LOAD_ATTR's
and STORE_ATTR's, decided per type while its version holds); anything else
leaves the run.
"""

import io
import re
import tokenize

from quickening.interp import loop, tracing

# at most this many lines of a callee are written into a caller
MAX_LINES = 120
# a callee that left its callers' runs this many times (a guard failing, an
# exception: its frame made each time, slower than the call), once in EXIT_SHARE of
# its calls or more after MIN_CALLS, is not written any more (a site backing off
# leaves now and then; polymorphic sites re-target often while they warm up)
MAX_EXITS = 64
EXIT_SHARE = 4
MIN_CALLS = 1024

_UNINLINABLE = frozenset({"_gone", "callee", "ds", "arg", "nxt", "pc", "ts", "RESUME", "TRACE",
                          "YIELD", "SWITCH", "inner"})
_TEMP = re.compile(r"t\d+")
_PARAM = re.compile(r"p\d+")
_EXIT_THROUGH_TABLE = re.compile(r"h, a, n = _instrs\[(\d+)\]")


class Leaf:
    """A callee's run from its first instruction, as it can be written into a caller:
    its lines (at their own indentation), the names each uses, and its constants (p0 ...)."""

    __slots__ = ("lines", "names", "params", "prologues")

    def __init__(self, lines, names, params, prologues):
        self.lines, self.names, self.params = lines, names, params
        self.prologues = prologues   # the fusion.PROLOGUES keys whose names it uses


def leaf_of(run, prologues, callee_prologues):
    """The Leaf of a run written from a code's first instruction, or None when it cannot be
    written into a caller (see the module's docstring).  Its prologues' names are the
    caller's where callee_prologues' conditions hold (its globals are the caller's)."""
    prologue_names = {name for names in prologues for name in names}
    used = set()
    line_names = []
    info = run.info
    code = info.code
    if (run.escapes or run.goes_on_in_loop or run.loops or run.first_turn is not None
            or info.is_generator_like
            or code.co_cellvars or code.co_freevars or len(run.lines) > MAX_LINES):
        return None
    for line in run.lines:
        names = _names(line)
        if names is None or names & _UNINLINABLE:
            return None
        used |= names & prologue_names
        stripped = line.strip()
        if "f" in names and not (stripped.startswith("f.retval = ")
                                 or stripped == "return h(f, stack, a, n)"):
            return None
        if "_instrs" in names and not _EXIT_THROUGH_TABLE.fullmatch(stripped):
            return None
        line_names.append(names)
    keys = [names for names in prologues if used & set(names)]
    if any(names not in callee_prologues for names in keys):
        return None
    return Leaf(list(run.lines), line_names, list(run.params), keys)


def _names(line):
    """The names a line of generated source uses (None if it does not tokenize alone)."""
    try:
        return {tok.string for tok in tokenize.generate_tokens(io.StringIO(line.strip()).readline)
                if tok.type == tokenize.NAME}
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def _renamed(line, rename):
    """The line with its names renamed (by token: strings and numbers left alone)."""
    indent = line[:len(line) - len(line.lstrip())]
    out = []
    end = 0
    body = line.lstrip()
    for tok in tokenize.generate_tokens(io.StringIO(body).readline):
        if tok.type == tokenize.NAME and tok.string in rename:
            start = tok.start[1]
            out.append(body[end:start])
            out.append(rename[tok.string])
            end = tok.end[1]
    out.append(body[end:])
    return indent + "".join(out)


def written_into(run, leaf, prefix, result):
    """(lines, temps): the leaf's lines for the caller's run, its temps and names renamed
    with prefix, its constants made the caller's, a return assigning `result`, and
    leaving the run `{prefix}stop = pc`.  Each ends its way out of `while True:` with a
    break (its lines are written one level inside that loop).  `temps`: the names of
    its temps, which the caller lets go of when it returns (as its frame would); None
    if a line is not understood."""
    rename = {"stack": f"{prefix}cs", "at": f"{prefix}at"}
    out = []
    lines = leaf.lines
    k = 0
    while k < len(lines):
        line = lines[k]
        stripped = line.strip()
        indent = line[:len(line) - len(stripped)]
        following = lines[k + 1].strip() if k + 1 < len(lines) else None
        if stripped.startswith("f.retval = ") and following == "return RETURN":
            value = _renamed(stripped[len("f.retval = "):],
                             _renames(leaf.names[k], rename, prefix, leaf, run))
            out += [f"{indent}{result} = {value}", f"{indent}break"]
            k += 2
            continue
        through_table = _EXIT_THROUGH_TABLE.fullmatch(stripped)
        if through_table and following == "return h(f, stack, a, n)":
            out += [f"{indent}{prefix}stop = {through_table.group(1)}", f"{indent}break"]
            k += 2
            continue
        if stripped.startswith("return "):
            target = stripped[len("return "):]
            if not target.isdigit():
                return None
            out += [f"{indent}{prefix}stop = {target}", f"{indent}break"]
            k += 1
            continue
        out.append(_renamed(line, _renames(leaf.names[k], rename, prefix, leaf, run)))
        k += 1
    return out, sorted(name for name in rename.values() if _TEMP.fullmatch(name[len(prefix):]))


def _renames(names, rename, prefix, leaf, run):
    """The renaming for a line using `names`: the fixed ones, its temps and constants."""
    for name in names:
        if name in rename:
            continue
        if _TEMP.fullmatch(name):
            rename[name] = prefix + name
        elif _PARAM.fullmatch(name):
            rename[name] = run.const(leaf.params[int(name[1:])])
    return rename


def conditions():
    """(no tracer set, the recursion limit): lists the caller's run reads, [0]."""
    return tracing.NO_TRACER, loop.RECURSION_LIMIT


def stopped_frame(f, func, info, locals_, ds, stop, at, new_frame, hook):
    """The frame a callee written into its caller is in when it leaves the caller's run
    at `stop` (an instruction, or the exception it raised at instruction `at`): made
    as the call would have made it (ds: its data stack state, None to find it; hook:
    its Frame.inline), and stopped there (loop.enter's protocol)."""
    exits = info.inline_exits = info.inline_exits + 1
    calls = info.inline_calls[0]
    if exits >= MAX_EXITS and exits * EXIT_SHARE >= calls >= MIN_CALLS:
        f.info.engine.stop_inlining(info)    # (the engine that wrote it into f's run)
    callee = new_frame(info, locals_, func.__globals__, func.__builtins__, None, f, f.depth + 1)
    if ds is not None:
        callee.ds = ds
    if hook is not None:
        callee.inline = hook
    if type(stop) is not int:
        callee.pc = at
    callee.stopped = stop
    return callee
