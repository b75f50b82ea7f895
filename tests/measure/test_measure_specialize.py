"""`experiment specialize` gives what dis(adaptive=True) shows natively.

For each CPython build (3.11, 3.12, 3.13, Debian's 3.13/3.14/3.15) the test reads the live forms
of the eleven snippets itself, in a separate process of that interpreter,
with code written here (no shared helper), and compares them site by site
with the experiment's record.  Nothing is compared with a stored table.
"""

import json
import subprocess

import pytest

from quickening.measure import cli_experiment, snippets

from measure_helpers import build_params, build_path

NATIVE = r'''
import dis, json, sys
snips = json.loads(sys.argv[1])
out = {}
for s in snips:
    g = {}
    exec(s["setup"], g)
    exec("def _qk_site():\n    return " + s["stmt"] + "\n", g)
    f = g["_qk_site"]
    for _ in range(500):
        f()
    out[s["key"]] = {i.offset: i.opname for i in dis.get_instructions(f, adaptive=True)}
print(json.dumps(out))
'''


def native_forms(python):
    arg = json.dumps([s.as_dict() for s in snippets.SNIPPETS])
    proc = subprocess.run([python, "-c", NATIVE, arg], capture_output=True, text=True, check=True)
    return {k: {int(o): n for o, n in v.items()} for k, v in json.loads(proc.stdout).items()}


@pytest.mark.parametrize("build", build_params(["3.11", "3.12", "3.13", "debian-3.13",
                                                "3.14", "3.15"]))
def test_specialize_matches_native_dis(build, records_dir, cli):
    python = build_path(build)
    version = build.replace("debian-", "")
    status, out, err = cli(cli_experiment, ["specialize", "--python", python, "--no-chart", "-q"])
    assert status == 0, err
    (path,) = records_dir.glob("*-specialize-*.json")
    rec = json.loads(path.read_text())
    (interp,) = rec["interpreters"]
    assert interp["interpreter"]["version"].startswith(version)
    native = native_forms(python)
    checked = 0
    for summary in interp["summary"]:
        forms = native[summary["key"]]
        assert summary["sites"], summary["key"]
        for site in summary["sites"]:
            assert forms[site["offset"]] == site["after"], (version, summary["key"], site)
            checked += 1
        # every seed snippet's main operation did specialize on every version
        focus = summary["sites"][0]
        if summary["key"] in snippets.SEED_KEYS:
            assert focus["after"] != focus["base"], (version, focus)
            assert not focus["after"].endswith("_ADAPTIVE")
    assert checked >= len(snippets.SNIPPETS)
    # and the printed table shows those forms
    for summary in interp["summary"]:
        assert summary["sites"][0]["after"] in out
