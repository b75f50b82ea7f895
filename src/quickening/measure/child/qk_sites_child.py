"""Run one-line snippets in this interpreter and report each site's live form.

Run by path with the interpreter under study (3.11 and up)::

    python qk_sites_child.py SPEC.json OUT.json

SPEC: {"snippets": [{"key", "setup", "stmt", "focus"}...], "checkpoints": [0, 500]}.
For each snippet the setup runs in a fresh namespace, the statement becomes
``def _qk_site(): return STMT``, and the function is called until each
checkpoint (a number of calls), where every site's live form is read with
``dis.get_instructions(fn, adaptive=True)`` and its first cache word (the
counter) from ``code._co_code_adaptive``.
"""

import dis
import json
import opcode
import platform
import sys


def cache_entries(opname):
    table = dis._inline_cache_entries
    if hasattr(table, "get"):          # 3.13+: by name (3.15: a frozendict)
        return table.get(opname, 0)
    op = opcode.opmap.get(opname)
    return table[op] if op is not None else 0


def families():
    try:
        from _opcode_metadata import _specializations as specs  # 3.13+
    except ImportError:
        specs = getattr(opcode, "_specializations", {})
    return sorted(specs)


def snapshot(fn):
    base = {i.offset: i.opname for i in dis.get_instructions(fn)}
    raw = fn.__code__._co_code_adaptive
    sites = []
    for ins in dis.get_instructions(fn, adaptive=True):
        if ins.offset not in base or ins.opname == "CACHE":
            continue
        b = base[ins.offset]
        counter = None
        if cache_entries(b) and ins.offset + 4 <= len(raw):
            counter = raw[ins.offset + 2] | (raw[ins.offset + 3] << 8)
        sites.append({"offset": ins.offset, "base": b, "live": ins.opname, "counter": counter})
    return sites


def run_snippet(snippet, checkpoints):
    ns = {"__name__": "__qk_snippet__"}
    exec(compile(snippet["setup"], "<setup:%s>" % snippet["key"], "exec"), ns)
    src = "def _qk_site():\n    return %s\n" % snippet["stmt"]
    exec(compile(src, "<snippet:%s>" % snippet["key"], "exec"), ns)
    fn = ns["_qk_site"]
    calls = 0
    shots = []
    for target in sorted(set(checkpoints)):
        while calls < target:
            fn()
            calls += 1
        shots.append({"calls": calls, "sites": snapshot(fn)})
    focus_offset = None
    names = {s["offset"]: s["base"] for s in shots[0]["sites"]} if shots else {}
    for want in snippet["focus"]:
        hits = [off for off, b in sorted(names.items()) if b == want]
        if hits:
            focus_offset = hits[0]
            break
    return {"key": snippet["key"], "focus_offset": focus_offset, "snapshots": shots}


def main(argv):
    with open(argv[1]) as fh:
        spec = json.load(fh)
    out = {
        "interpreter": {"executable": sys.executable, "version": platform.python_version(),
                        "version_info": list(sys.version_info[:3]),
                        "jit": hasattr(sys, "_jit")},
        "families": families(),
        "results": [run_snippet(s, spec["checkpoints"]) for s in spec["snippets"]],
    }
    with open(argv[2], "w") as fh:
        json.dump(out, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
