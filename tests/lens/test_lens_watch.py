"""`quickening watch` against programs with known behaviour, on each CPython.

Expected forms are never written here: the programs ask CPython itself
(`dis.get_instructions(fn, adaptive=True)`, direct reads of
`_co_code_adaptive`) and print what it says; the lens must agree.
"""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # noqa: E402
from lens_helpers import PYTHONS, program, python_params, run_watch, watch_json


def _sites(report, filename):
    return {(s["function"], str(s["offset"])): s for s in report["sites"]
            if s["file"].endswith(filename)}


@pytest.mark.parametrize("python", python_params())
def test_forms_match_cpython(tmp_path, python):
    r, report = watch_json(tmp_path, python, [program("behaviours.py")])
    truth = json.loads(r.stdout)
    assert report["python"]["version"] == ".".join(map(str, truth["version"]))
    sites = _sites(report, "behaviours.py")
    # every site the program's functions hold is reported, with CPython's form
    for fn, forms in truth["forms"].items():
        mine = {off: s for (f, off), s in sites.items() if f == fn}
        assert mine, "no sites reported for %s" % fn
        for off, s in mine.items():
            assert s["form"] == forms[off], (fn, off, s["form"], forms[off])
    # and the counter word at exit is the one dis shows
    for fn, words in truth["counters"].items():
        for off, raw in words.items():
            s = sites.get((fn, off))
            if s is not None:
                assert s["counter"]["raw"] == raw, (fn, off, s["counter"], raw)
    # the states CPython showed at each pause appear in the site's history, in order
    for snap in truth["phases"]:
        for fn, forms in snap.items():
            for off, name in forms.items():
                s = sites.get((fn, off))
                if s is None:
                    continue
                assert name in [h[1] for h in s["history"]], (fn, off, name, s["history"])
    for fn, forms in truth["forms"].items():
        for off in forms:
            s = sites.get((fn, off))
            if s is None:
                continue
            hist = [h[1] for h in s["history"]]
            wanted = [snap[fn][off] for snap in truth["phases"] if fn in snap]
            # a form that stayed through two pauses is one entry of the history
            wanted = [w for i, w in enumerate(wanted) if i == 0 or w != wanted[i - 1]]
            pos = 0
            for name in hist:
                if pos < len(wanted) and name == wanted[pos]:
                    pos += 1
            assert pos == len(wanted), (fn, off, wanted, hist)


@pytest.mark.parametrize("python", python_params())
def test_verdicts_and_findings(tmp_path, python):
    r, report = watch_json(tmp_path, python, [program("behaviours.py")])
    truth = json.loads(r.stdout)
    sites = _sites(report, "behaviours.py")

    def site(fn):
        # 3.15's RESUME is a specialization site of every function too
        (s,) = [s for (f, _), s in sites.items() if f == fn and s["family"] != "RESUME"]
        return s

    assert site("mono")["verdict"] == "specialized"
    if report["python"]["version"] >= "3.12":
        # specialized for one class, then a few misses: not painted as fine
        miss = site("missing")
        assert miss["verdict"] == "missing"
        assert any(f["kind"] == "missing" and f["site"] == miss["id"]
                   for f in report["findings"])
    assert site("mono")["classes"] == ["__main__.Mono"]
    assert site("slot")["classes"] == ["__main__.Slotted"]
    # the never-specializing division is flagged, with the operator named
    div = site("div")
    assert div["verdict"] == "unspecialized"
    kinds = {(f["kind"], f["site"]) for f in report["findings"]}
    assert ("never-specialized", div["id"]) in kinds
    sentence = [f["sentence"] for f in report["findings"] if f["site"] == div["id"]][0]
    assert "`/`" in sentence and "div()" in sentence
    # the late site was seen generic (with failed attempts) before it specialized
    late = site("late")
    states = [h[2] for h in late["history"]]
    assert "specialized" in states
    first_spec = states.index("specialized")
    assert first_spec > 0 and late["history"][first_spec - 1][4], late["history"]
    assert truth["late_at"] is not None
    # the int site fed floats: both forms, int first
    add = site("add")
    off = str(add["offset"])
    forms = [h[1] for h in add["history"] if h[2] == "specialized"]
    int_form = truth["phases"][0]["add"][off]
    float_form = truth["forms"]["add"][off]
    assert int_form != float_form
    assert forms.index(int_form) < forms.index(float_form)
    assert add["retargets"] >= 1


@pytest.mark.parametrize("python", python_params())
def test_retargets_match_direct_reads(tmp_path, python):
    r, report = watch_json(tmp_path, python, [program("retarget.py"), "0.02"])
    direct = json.loads(r.stdout)
    (s,) = [s for s in report["sites"]
            if s["function"] == "get" and s["offset"] == direct["offset"]]
    assert s["retargets"] == direct["retargets"]
    assert s["fallbacks"] == direct["fallbacks"]
    assert sorted(c.rsplit(".", 1)[1] for c in s["classes"]) == list("ABCDE")
    assert s["verdict"] == "polymorphic"
    assert s["misses"]["at_least"] >= 52 * (direct["retargets"] - 1)
    top = report["findings"][0]
    assert top["kind"] == "polymorphic" and top["site"] == s["id"]
    assert "5 classes seen passing through `o.x` in `get()`" in top["sentence"]


def test_program_io_and_exit_status_untouched(tmp_path):
    prog = tmp_path / "echo.py"
    prog.write_text(
        "import sys\n"
        "data = sys.stdin.read()\n"
        "print('got', data.upper(), sys.argv[1:])\n"
        "print('to stderr', file=sys.stderr)\n"
        "sys.exit(7)\n")
    plain = subprocess.run([sys.executable, str(prog), "a", "b"], input="hi",
                           capture_output=True, text=True)
    watched = run_watch([str(prog), "a", "b"], input="hi")
    assert watched.returncode == plain.returncode == 7
    assert watched.stdout == plain.stdout
    assert watched.stderr.startswith("to stderr\n")
    assert "quickening watch" in watched.stderr  # the report goes to stderr


def test_uncaught_exception_keeps_traceback_and_status(tmp_path):
    prog = tmp_path / "boom.py"
    prog.write_text("def f():\n    raise ValueError('boom')\nf()\n")
    plain = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True)
    watched = run_watch([str(prog)])
    assert watched.returncode == plain.returncode == 1
    assert plain.stderr in watched.stderr


def test_dash_c_and_dash_m(tmp_path):
    r = run_watch(["-c", "import sys; print(sys.argv); sys.exit(4)", "x"])
    assert r.returncode == 4 and r.stdout.strip() == "['-c', 'x']"
    (tmp_path / "modprog.py").write_text("print(__name__)\n")
    r = run_watch(["-m", "modprog"], cwd=str(tmp_path))
    assert r.returncode == 0 and r.stdout.strip() == "__main__"


@pytest.mark.parametrize("args, needle", [
    ([], "usage"),
    (["--interval"], "needs a value"),
    (["--interval", "fast", "x.py"], "--interval"),
    (["--bogus", "x.py"], "unknown option"),
    (["/no/such/file.py"], "No such file or directory"),
    (["--python", "/no/such/python", "-c", "pass"], "no such executable"),
])
def test_usage_errors_are_one_line(args, needle):
    r = run_watch(args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    text = r.stderr or r.stdout
    assert needle in text
    if args:
        assert len(r.stderr.strip().splitlines()) == 1


def test_unsupported_python_is_named(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = -I ]; then echo 3 10 4; echo cpython; exit 0; fi\nexit 0\n")
    fake.chmod(0o755)
    r = run_watch(["--python", str(fake), "-c", "pass"])
    assert "supports CPython 3.11 to 3.15" in r.stderr
    assert "3.10.4" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.returncode != 0


def test_python_given_by_a_relative_path_is_probed_and_runs(tmp_path):
    # the build is probed in another directory: ./bin/python must still be found
    (tmp_path / "bin").mkdir()
    os.symlink(sys.executable, tmp_path / "bin" / "python")
    (tmp_path / "p.py").write_text("print('ran')\n")
    r = run_watch(["--quiet", "--python", os.path.join(".", "bin", "python"), "p.py"],
                  cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ran\n"


@pytest.mark.parametrize("python", python_params())
def test_observers_are_reported(tmp_path, python):
    prog = tmp_path / "tracer.py"
    prog.write_text(
        "import sys, time\n"
        "def f(o):\n    return o + 1\n"
        "for i in range(100):\n    f(i)\n"
        "time.sleep(0.03)\n"
        "def tr(frame, event, arg):\n    return tr\n"
        "sys.settrace(tr)\n"
        "for i in range(100):\n    f(i)\n"
        "sys.settrace(None)\n"
        "if hasattr(sys, 'monitoring'):\n"
        "    m = sys.monitoring\n"
        "    m.use_tool_id(3, 'mine')\n"
        "    m.register_callback(3, m.events.LINE, lambda *a: None)\n"
        "    m.set_events(3, m.events.LINE)\n"
        # the agent notices monitoring at its next sample: wait for two (a
        # fixed sleep was missed on a loaded machine)
        "    agent = sys.modules['_quickening_lens_agent'].AGENT\n"
        "    n, deadline = agent.nsamples, time.monotonic() + 20\n"
        "    while agent.nsamples < n + 2 and time.monotonic() < deadline:\n"
        "        time.sleep(0.002)\n"
        "    m.set_events(3, 0)\n")
    r, report = watch_json(tmp_path, python, [str(prog)])
    kinds = [o["kind"] for o in report["observers"]]
    assert "sys.settrace" in kinds
    if report["python"]["version"] >= "3.12":
        assert "sys.monitoring.register_callback" in kinds
        assert any(o["kind"] == "sys.monitoring" and "LINE" in o["detail"]
                   for o in report["observers"])
    term = run_watch(["--python", python, str(prog)])
    assert "warning: the program called sys.settrace" in term.stderr


def test_terminal_report_names_the_polymorphic_site(tmp_path):
    py = PYTHONS.get("3.13", sys.executable)
    r = run_watch(["--python", py, "--interval", "2", program("retarget.py"), "0.01"])
    assert r.returncode == 0
    assert "What to look at" in r.stderr
    assert "5 classes seen passing through `o.x` in `get()`" in " ".join(r.stderr.split())


@pytest.mark.parametrize("python", python_params())
def test_fork_sees_no_extra_thread(tmp_path, python):
    """3.12+ warns when a multi-threaded process forks: the lens's sampler
    thread must not make a single-threaded program trigger that warning."""
    prog = tmp_path / "forker.py"
    prog.write_text(
        "import os, time\n"
        "def f(x):\n    return x + 1\n"
        "for i in range(20000):\n    f(i)\n"
        "time.sleep(0.05)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "junk = [[i] for i in range(50000)]\n"
        "print('ok')\n")
    plain = subprocess.run([python, str(prog)], capture_output=True, text=True)
    r = run_watch(["--python", python, "--quiet", str(prog)])
    assert r.returncode == plain.returncode == 0
    assert r.stdout == plain.stdout
    assert r.stderr == plain.stderr


def test_json_schema_keys(tmp_path):
    """The documented JSON schema (quickening.lens/2: /1 plus tier2) keeps its keys."""
    py = PYTHONS.get("3.13", sys.executable)
    _, report = watch_json(tmp_path, py, [program("retarget.py"), "0.005"])
    assert report["schema"] == "quickening.lens/2"
    assert {"state", "why_not", "loops", "entries"} == set(report["tier2"])
    for l in report["tier2"]["loops"]:
        assert {"id", "file", "function", "offset", "line", "end_line", "source", "form",
                "executor_index", "counter", "threshold", "executors"} <= set(l)
    for x in report["tier2"]["entries"]:
        assert {"id", "file", "function", "offset", "line", "source", "instruction",
                "starts_at", "site", "form", "at_exit", "executors"} <= set(x)
    assert {"version", "executable", "supported"} <= set(report["python"])
    assert {"argv", "exit_status", "wall_s", "duration_s", "interval_ms",
            "samples", "code_objects", "complete"} <= set(report["run"])
    assert isinstance(report["observers"], list)
    for f in report["findings"]:
        assert {"kind", "site", "also", "score", "sentence"} <= set(f)
    ids = {s["id"] for s in report["sites"]}
    assert all(f["site"] in ids and set(f["also"]) <= ids for f in report["findings"])
    for s in report["sites"]:
        assert {"id", "file", "function", "firstlineno", "offset", "line",
                "end_line", "col", "end_col", "source", "family", "form",
                "state", "verdict", "counter", "classes", "targets",
                "specializations", "retargets", "fallbacks",
                "failed_attempts", "misses", "first_specialized_s",
                "history", "events"} <= set(s)
        assert s["id"] == "%s:%s:%s:%s" % (s["file"], s["function"],
                                           s["firstlineno"], s["offset"])
        assert {"raw", "value", "backoff"} == set(s["counter"])
        assert {"at_least", "exact", "per_second"} == set(s["misses"])
        assert all(len(h) == 6 for h in s["history"])
        assert all(len(e) == 5 for e in s["events"])


@pytest.mark.parametrize("python", python_params(("debian-3.13", "3.14", "3.15")))
def test_newer_builds_keep_io_status_and_name_the_polymorphic_site(tmp_path, python):
    """On Debian's 3.13.18, 3.14 and 3.15: the watched program's output and exit
    status are its native ones, JSON and HTML are written, and the polymorphic
    site leads the things to look at."""
    prog = program("poly_exit.py")
    native = subprocess.run([python, prog], input="hello\n", capture_output=True,
                            text=True, timeout=60)
    assert native.returncode == 5
    out = tmp_path / "r.json"
    html = tmp_path / "html"
    r = run_watch(["--python", python, "--interval", "2", "--json", str(out), "--html",
                   str(html), "--report", str(tmp_path / "report.txt"), prog], input="hello\n")
    assert r.returncode == native.returncode
    assert r.stdout == native.stdout
    assert "to stderr" in r.stderr and "Traceback" not in r.stderr
    report = json.loads(out.read_text())
    assert (html / "index.html").stat().st_size > 1000
    (s,) = [s for s in report["sites"] if s["function"] == "get" and s["family"] == "LOAD_ATTR"]
    assert s["verdict"] == "polymorphic"
    # which classes the re-specializations land on depends on the round-robin's
    # phase at each 53rd miss: at least two of the four, named
    assert all("." in c for c in s["classes"]), (s["classes"], report["run"]["complete"], report["run"]["samples"], s["history"])
    classes = {c.rsplit(".", 1)[1] for c in s["classes"]}
    assert len(classes) >= 2 and classes <= set("ABCD"), s["classes"]
    top = report["findings"][0]
    assert top["kind"] == "polymorphic" and top["site"] == s["id"]
    assert "`o.x` in `get()`" in top["sentence"]
    assert "`o.x` in `get()`" in (tmp_path / "report.txt").read_text()


@pytest.mark.parametrize("python", python_params(("3.14", "3.15")))
def test_binary_op_extend_names_its_operation(tmp_path, python):
    """The descriptor BINARY_OP_EXTEND caches is named by the operation it
    serves (found inside the watched process, where the pointer is valid)."""
    r, report = watch_json(tmp_path, python, [program("mixed_ops.py")])
    forms = {s["function"]: s for s in report["sites"] if s["family"] == "BINARY_OP"
             and s["function"] in ("mix", "mix2")}
    assert forms["mix"]["form"] == "BINARY_OP_EXTEND"
    assert forms["mix"]["targets"] == ["int + float"]
    assert forms["mix2"]["targets"] == ["float * int"]


@pytest.mark.parametrize("python", python_params())
def test_the_start_up_shim_is_loaded_compiled_by_the_watched_interpreter(tmp_path, python):
    """With bytecode caching off the shim was compiled from source in every
    watched program: the child's path holds a .pyc made by its own
    interpreter (nothing else), and the agent starts from it."""
    from quickening.lens import runner
    files = runner.agent_files(python)
    env = runner.child_env(str(tmp_path / "samples"), 10.0, "user",
                           dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), files)
    first = env["PYTHONPATH"].split(os.pathsep)[0]
    assert os.listdir(first) == ["sitecustomize.pyc"]
    r = subprocess.run([python, "-c", "import sys; print(sys.modules['_quickening_lens_agent']"
                        ".AGENT is not None)"], env=env, capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "True\n", "")


# a program whose own module code (not a function) holds the hot sites; at its
# end it prints what CPython made of them (offset -> form)
_MAIN_CODE_PROGRAM = """\
import dis, json, sys
total = 0
for i in range(3000):
    total += i % 7
    total = total * 1
forms = {str(ins.offset): ins.opname
         for ins in dis.get_instructions(sys._getframe().f_code, adaptive=True)}
print(json.dumps(forms))
"""


@pytest.mark.parametrize("how", ["stdin", "-c"])
@pytest.mark.parametrize("python", python_params())
def test_main_code_from_stdin_or_dash_c_is_watched(tmp_path, python, how):
    # the interpreter runs such code with no Python frame under it; the sites of
    # the module code are reported with CPython's forms
    out = tmp_path / "report.json"
    args = ["--python", python, "--json", str(out), "--quiet"]
    if how == "stdin":
        r = run_watch([*args, "-"], input=_MAIN_CODE_PROGRAM)
        filename = "<stdin>"
    else:
        r = run_watch([*args, "-c", _MAIN_CODE_PROGRAM])
        filename = "<string>"
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    truth = json.loads(r.stdout)
    report = json.loads(out.read_text())
    sites = {str(s["offset"]): s for s in report["sites"]
             if s["file"] == filename and s["function"] == "<module>"}
    specialized = [off for off, form in truth.items() if form.startswith("BINARY_OP_")]
    assert specialized, truth         # (the loop ran hot enough to specialize)
    for off in specialized:
        assert sites[off]["form"] == truth[off], (off, sites.get(off), truth[off])


_EXEC_PROGRAM = """\
import dis, json, os, sys
def hot(n):
    t = 0
    for i in range(n):
        t += i % 7
    return t
hot(3000)
forms = {str(ins.offset): ins.opname
         for ins in dis.get_instructions(hot, adaptive=True)}
print(json.dumps(forms), flush=True)
os.execv(sys.executable, [sys.executable, "-c", "print('after exec')"])
"""


@pytest.mark.parametrize("python", python_params())
def test_a_program_that_execs_keeps_what_ran_before(tmp_path, python):
    # os.exec* runs no exit hooks: the agent takes its last sample at the audit event
    prog = tmp_path / "execs.py"
    prog.write_text(_EXEC_PROGRAM)
    out = tmp_path / "report.json"
    r = run_watch(["--python", python, "--json", str(out), "--quiet", str(prog)])
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    first, after = r.stdout.splitlines()
    assert after == "after exec"
    truth = json.loads(first)
    report = json.loads(out.read_text())
    assert any("replaced itself with os.exec*" in n for n in report["notes"]), report["notes"]
    sites = {str(s["offset"]): s for s in report["sites"] if s["function"] == "hot"}
    specialized = [off for off, form in truth.items() if form.startswith("BINARY_OP_")]
    assert specialized, truth
    for off in specialized:
        assert sites[off]["form"] == truth[off], (off, sites.get(off), truth[off])


_STARTS_PROGRAM = """\
import multiprocessing, os, subprocess, sys
def work():
    pass
if __name__ == "__main__":
    for _ in range(2):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    ctx = multiprocessing.get_context("spawn")
    p = ctx.Process(target=work)
    p.start()
    p.join()
    print("done")
"""


@pytest.mark.parametrize("python", python_params(("3.13", "3.14")))
def test_processes_the_program_starts_are_named_as_not_watched(tmp_path, python):
    prog = tmp_path / "starts.py"
    prog.write_text(_STARTS_PROGRAM)
    out = tmp_path / "report.json"
    r = run_watch(["--python", python, "--json", str(out), "--quiet", str(prog)],
                  cwd=str(tmp_path))
    assert r.returncode == 0 and r.stdout == "done\n", r.stderr
    notes = [n for n in json.loads(out.read_text())["notes"] if "other processes" in n]
    assert len(notes) == 1, notes
    for started in ("subprocess.Popen x2", "os.fork x1", "multiprocessing.Process x1"):
        assert started in notes[0], notes[0]
