"""Tier 2 per loop: executors and micro-ops on 3.14/3.15 with PYTHON_JIT=1,
compared with what the program itself reads natively (_opcode.get_executor);
the reason tier 2 is not running elsewhere; the HTML view in Chromium.

One watched run per build, shared by the assertions (module-scoped)."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # noqa: E402
from lens_helpers import PYTHONS, program, run_watch

from quickening.measure import builds

HOT = program("hot_loops.py")


def _watch(tmp, name, jit, html=False):
    py = PYTHONS.get(name)
    if py is None:
        if builds.under_ci():
            pytest.fail(builds.missing_reason(name) + " (CI=true: a missing build fails)")
        pytest.skip(builds.missing_reason(name))
    out = tmp / ("%s-%s.json" % (name, jit))
    args = ["--python", py, "--interval", "5", "--json", str(out),
            "--report", str(tmp / ("%s-%s.txt" % (name, jit)))]
    if html:
        args += ["--html", str(tmp / ("html-%s" % name))]
    r = run_watch(args + [HOT], env={"PYTHON_JIT": "1" if jit else "0"})
    assert r.returncode == 3, r.stderr           # the program's own status
    assert "Traceback" not in r.stderr, r.stderr
    return json.loads(r.stdout), json.loads(out.read_text()), tmp


@pytest.fixture(scope="module")
def jit314(tmp_path_factory):
    return _watch(tmp_path_factory.mktemp("t2-314"), "3.14", True, html=True)


@pytest.fixture(scope="module")
def jit315(tmp_path_factory):
    return _watch(tmp_path_factory.mktemp("t2-315"), "3.15", True)


def _loop(report, function):
    (l,) = [l for l in report["tier2"]["loops"] if l["function"] == function]
    return l


def _check_jit_run(truth, report):
    assert report["schema"] == "quickening.lens/2"
    t2 = report["tier2"]
    assert t2["why_not"] is None and t2["state"]["enabled"] is True
    assert truth["made"] and truth["valid_before"] is True
    hot = _loop(report, "hot")
    assert hot["offset"] == truth["offset"]
    (e,) = hot["executors"]
    # the micro-ops are the ones the interpreter itself lists
    assert [u[0] for u in e["uops"]] == truth["uops"]
    assert e["trace_length"] + e["exits"] == len(truth["uops"])
    assert e["guards"] > 0 and e["exits"] > 0
    # grouped under the loop's own lines
    lines = {g["line"] for g in e["by_line"]}
    assert {hot["line"], hot["end_line"]} <= lines
    assert any("o.x" in g["source"] for g in e["by_line"])
    # the class change invalidated it: the lens saw it go, no longer valid
    assert truth["valid_after"] is False
    assert e["gone_s"] is not None and e["gone_s"] > e["appeared_s"]
    assert e["valid"] is False
    assert hot["form"] != "ENTER_EXECUTOR"
    # the cold loop: no executor, its counter on its way
    cold = _loop(report, "cold")
    assert cold["executors"] == [] and cold["form"] == "JUMP_BACKWARD_JIT"
    assert cold["threshold"] - cold["counter"] == 100


def test_executors_on_314(jit314):
    truth, report, tmp = jit314
    _check_jit_run(truth, report)
    # and the terminal report says so, per loop
    text = (tmp / "3.14-True.txt").read_text()
    assert "Tier 2 (JIT on)" in text
    assert "in hot() — executor #%d" % _loop(report, "hot")["executors"][0]["index"] in text
    assert "in cold() — no executor (JUMP_BACKWARD_JIT: back edge counter 100 of" in text


def test_executors_on_315(jit315):
    truth, report, _ = jit315
    _check_jit_run(truth, report)


@pytest.mark.parametrize("name, needle", [("3.14", "PYTHON_JIT=1"), ("3.13", "no tier 2")])
def test_why_tier2_is_not_running(tmp_path, name, needle):
    truth, report, _ = _watch(tmp_path, name, False)
    assert report["tier2"]["why_not"] and needle in report["tier2"]["why_not"]
    text = (tmp_path / ("%s-False.txt" % name)).read_text()
    assert "Tier 2: not running" in text and needle in text
    assert not truth["made"]
    assert all(l["executors"] == [] for l in report["tier2"]["loops"])


def test_tier2_html_in_chromium(jit314):
    from test_lens_html import ARGS, CHROMIUM
    if not os.path.exists(CHROMIUM):
        pytest.fail("%s is missing: run `bash scripts/ensure-chromium.sh`" % CHROMIUM)
    from playwright.sync_api import sync_playwright
    truth, report, tmp = jit314
    index = tmp / "html-3.14" / "index.html"
    hot = _loop(report, "hot")
    (e,) = hot["executors"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            errors = []
            page.on("pageerror", lambda x: errors.append(str(x)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(index.as_uri())
            page.wait_for_function("window.__lensReady === true", timeout=15000)
            box = page.locator('.loop.has-exec[data-loop="%s"]' % hot["id"])
            assert box.count() == 1
            box.scroll_into_view_if_needed()
            assert box.is_visible()
            # the trace beside the source: one row per line group, source text
            # in one column, that group's micro-ops in the next
            rows = box.locator("table.trace tr.uop-group")
            assert rows.count() == len(e["by_line"])
            for i, g in enumerate(e["by_line"]):
                row = rows.nth(i)
                assert row.locator("td.src").inner_text() == g["source"]
                assert row.locator("code.uop").all_inner_texts() == [u[0] for u in g["uops"]]
            src = box.locator("td.src").first.bounding_box()
            ops = box.locator("td.uops").first.bounding_box()
            assert ops["x"] > src["x"] + src["width"] - 1      # beside, not below
            assert "gone at" in box.inner_text()
            # a loop without an executor shows its counter's progress
            assert page.locator(".loop.no-exec .t2-progress").count() >= 1
            assert errors == []
        finally:
            browser.close()


SIDE_EXIT = program("side_exit.py")


@pytest.mark.parametrize("name", ["3.14", "3.15"])
def test_an_executor_on_a_site_is_tier_2_not_a_fall_back(tmp_path, name):
    """Where tier 2 puts ENTER_EXECUTOR on a site that is not a back edge (3.14
    starts a trace at a guard that keeps failing, 3.15 also at a hot
    function's RESUME), the site is reported as covered by an executor, with
    its tier-1 verdict, not as having fallen back; the offsets are the ones
    the program reads in its own raw stream."""
    py = PYTHONS.get(name)
    if py is None:
        if builds.under_ci():
            pytest.fail(builds.missing_reason(name) + " (CI=true: a missing build fails)")
        pytest.skip(builds.missing_reason(name))
    reports = {}
    for jit in ("0", "1"):
        out = tmp_path / ("r%s.json" % jit)
        r = run_watch(["--python", py, "--quiet", "--json", str(out), SIDE_EXIT],
                      env={"PYTHON_JIT": jit})
        assert r.returncode == 0, r.stderr
        reports[jit] = (json.loads(r.stdout), json.loads(out.read_text()))
    truth, report = reports["1"]
    total = [s for s in report["sites"] if s["function"] == "total"]
    covered = sorted(s["offset"] for s in total if s["executor_at_exit"])
    assert covered == sorted(o for o in truth["executors"] if o not in truth["back_edges"])
    for s in report["sites"]:
        if s["executor_at_exit"]:
            assert s["executor_since_s"] is not None
            assert s["verdict"] != "fell-back" and s["form"] != "ENTER_EXECUTOR", s
    assert not [f for f in report["findings"] if f["kind"] == "fell-back"
                and "ENTER_EXECUTOR" in f["sentence"]]
    # a counter is evidence of guard misses only where it moves on misses: the
    # JIT-off run of the same program says which sites never miss
    quiet = {s["id"] for s in reports["0"][1]["sites"] if s["verdict"] == "specialized"}
    for f in report["findings"]:
        if f["kind"] == "missing":
            assert f["site"] not in quiet, f["sentence"]
            assert "`RESUME`" not in f["sentence"], f["sentence"]


ENTRY = program("entry_executors.py")


def _build(name):
    py = PYTHONS.get(name)
    if py is None:
        if builds.under_ci():
            pytest.fail(builds.missing_reason(name) + " (CI=true: a missing build fails)")
        pytest.skip(builds.missing_reason(name))
    return py


@pytest.mark.parametrize("name", ["3.14", "3.15"])
def test_a_site_first_seen_under_an_executor_keeps_its_tier1_form(tmp_path, name):
    """The lens's first sight of a code object may come after tier 2 put
    ENTER_EXECUTOR on one of its sites (a loaded machine samples late).  Here
    it is late on purpose: one --interval longer than the run, so the only
    read is at exit, when `total`'s attribute site (3.14) and the methods'
    RESUME (3.15) already hold an executor.  Each such site keeps its tier-1
    form, the one the executor hides: what the program reads natively (in
    an atexit handler, just before the lens's last read) with
    get_executor(...).get_opcode()."""
    py = _build(name)
    out = tmp_path / "r.json"
    r = run_watch(["--python", py, "--quiet", "--interval", "60000", "--json", str(out),
                   ENTRY], env={"PYTHON_JIT": "1"})
    assert r.returncode == 0, r.stderr
    truth, report = json.loads(r.stdout)["at_exit"], json.loads(out.read_text())
    assert report["run"]["samples"] == 1 and report["run"]["outside_reads"] == 0
    under = 0
    for fn, t in truth.items():
        sites = {s["offset"]: s for s in report["sites"] if s["function"] == fn}
        hidden = {int(o): e["hidden"] for o, e in t["executors"].items()
                  if int(o) in t["sites"]}
        assert sorted(o for o, s in sites.items() if s["executor_at_exit"]) == sorted(hidden)
        for off, form in hidden.items():
            s = sites[off]
            assert s["form"] == form, s
            assert s["state"] == "specialized" and s["verdict"] != "fell-back", s
            assert s["executor_since_s"] is not None
            under += 1
    assert under >= 1        # the program did put an executor on a site


_ENTRY_RUNS = {}


def _entry_run(tmp_path_factory, name):
    """One watched run of entry_executors.py --invalidate per build, shared."""
    if name not in _ENTRY_RUNS:
        py = _build(name)
        tmp = tmp_path_factory.mktemp("entries-%s" % name)
        out = tmp / "r.json"
        r = run_watch(["--python", py, "--interval", "5", "--json", str(out),
                       "--report", str(tmp / "r.txt"), "--html", str(tmp / "html"),
                       ENTRY, "--invalidate"], env={"PYTHON_JIT": "1"})
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr, r.stderr
        native, report = json.loads(r.stdout), json.loads(out.read_text())
        # the program's two waits each saw the agent take two samples, and
        # the agent's thread met no error (either loses the executors)
        assert len(native["waits"]) == 2, native["waits"]
        assert all(end >= start + 2 for start, end, _ in native["waits"]), native["waits"]
        assert report["agent_errors"] == [], report["agent_errors"]
        _ENTRY_RUNS[name] = (native["before"], report, tmp)
    return _ENTRY_RUNS[name]


def _entry_pairs(truth, report):
    """(native executor, the lens's entry, the lens's executor of that index)
    for every executor the program read at an offset that is no back edge."""
    entries = {(x["function"], x["offset"]): x for x in report["tier2"]["entries"]}
    out = []
    for fn, t in truth.items():
        for o, native in sorted(t["executors"].items()):
            off = int(o)
            if off in t["back_edges"]:
                assert (fn, off) not in entries       # reported as a loop
                continue
            x = entries.get((fn, off))
            assert x is not None, (fn, off, sorted(entries))
            (e,) = [e for e in x["executors"] if e["index"] == native["index"]][-1:]
            out.append((fn, t, native, x, e))
    return out


@pytest.mark.parametrize("name", ["3.14", "3.15"])
def test_executors_that_start_elsewhere_than_a_back_edge(tmp_path_factory, name):
    """An executor on a side exit's target (3.14+) or a hot function's RESUME
    (3.15) is reported like a loop's: its micro-ops, guards and exits, the
    tier-1 form it hides, the lines its micro-ops came from, and when it
    went; all compared with what the program reads natively."""
    truth, report, tmp = _entry_run(tmp_path_factory, name)
    pairs = _entry_pairs(truth, report)
    assert pairs                     # the program did make such executors
    kinds = set()
    for fn, t, native, x, e in pairs:
        assert [u[0] for u in e["uops"]] == native["uops"]
        assert e["trace_length"] + e["exits"] == len(native["uops"])
        assert e["guards"] > 0 and e["exits"] > 0
        assert e["tier1_form"] == native["hidden"] and x["form"] == native["hidden"]
        assert x["instruction"] == native["instruction"] and x["line"] == native["line"]
        assert x["starts_at"] == ("function entry" if native["instruction"] == "RESUME"
                                  else "side exit")
        kinds.add(x["starts_at"])
        if int(x["offset"]) in t["sites"]:
            site = [s for s in report["sites"] if s["id"] == x["site"]]
            assert site and site[0]["offset"] == x["offset"]
        # grouped under the function's own lines, starting at the entry's
        groups = e["by_line"]
        assert groups[0]["line"] == native["line"]
        assert {g["line"] for g in groups} - {None} <= set(t["lines"])
        assert sum(len(g["uops"]) for g in groups) == e["trace_length"]
        # sys._clear_internal_caches() invalidated it: the lens saw it go
        assert native["valid"] is True and native["valid_after"] is False
        assert e["gone_s"] is not None and e["gone_s"] > e["appeared_s"]
        assert e["valid"] is False and x["at_exit"] is False
    assert kinds == ({"side exit"} if name == "3.14" else {"side exit", "function entry"})
    text = (tmp / "r.txt").read_text()
    assert "Tier 2 traces that start elsewhere than a back edge: %d instruction(s)" % len(
        report["tier2"]["entries"]) in text
    for fn, t, native, x, e in pairs[:3]:
        assert "in %s() — %s (" % (fn, native["instruction"]) in text


def test_entry_executor_html_in_chromium(tmp_path_factory):
    from test_lens_html import ARGS, CHROMIUM
    if not os.path.exists(CHROMIUM):
        pytest.fail("%s is missing: run `bash scripts/ensure-chromium.sh`" % CHROMIUM)
    from playwright.sync_api import sync_playwright
    truth, report, tmp = _entry_run(tmp_path_factory, "3.14")
    fn, t, native, x, e = _entry_pairs(truth, report)[0]
    last = x["executors"][-1]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            errors = []
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto((tmp / "html" / "index.html").as_uri())
            page.wait_for_function("window.__lensReady === true", timeout=15000)
            box = page.locator('.entry[data-entry="%s"]' % x["id"])
            assert box.count() == 1
            box.scroll_into_view_if_needed()
            assert box.is_visible()
            assert native["hidden"] in box.locator("h3").inner_text()
            rows = box.locator("table.trace tr.uop-group")
            assert rows.count() == len(last["by_line"])
            for i, g in enumerate(last["by_line"]):
                row = rows.nth(i)
                assert row.locator("td.src").inner_text() == g["source"]
                assert row.locator("code.uop").all_inner_texts() == [u[0] for u in g["uops"]]
            src = box.locator("td.src").first.bounding_box()
            ops = box.locator("td.uops").first.bounding_box()
            assert ops["x"] > src["x"] + src["width"] - 1      # beside, not below
            assert "gone at" in box.inner_text()
            assert errors == []
        finally:
            browser.close()
