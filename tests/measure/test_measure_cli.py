"""Bad input gives one clear line and a non-zero status, never a traceback;
help works; workloads of every kind resolve."""

from pathlib import Path
import zipfile

import pytest

from quickening.measure import cli_compare, cli_experiment, cli_records, corpus


@pytest.mark.parametrize("module,argv", [
    (cli_compare, []),
    (cli_compare, ["no/such/file.py"]),
    (cli_compare, ["--a-python", "/no/python", "loop:dict"]),
    (cli_compare, ["--b-env", "NOEQUALS", "loop:dict"]),
    (cli_compare, ["-N", "zero", "loop:dict"]),
    (cli_compare, ["-N", "0", "loop:dict"]),
    (cli_compare, ["loop:nope"]),
    (cli_compare, ["pyperformance:nope"]),
    (cli_compare, ["--frobnicate", "loop:dict"]),
    (cli_experiment, ["nope"]),
    (cli_experiment, ["polymorphism", "--rounds", "0"]),
    (cli_experiment, ["specialize", "--python", "/no/python"]),
    (cli_experiment, ["warmup", "--executions", "-1"]),
    (cli_records, ["show"]),
    (cli_records, ["frob"]),
    (cli_records, ["compare", "a"]),
])
def test_bad_input_is_one_line(module, argv, cli, records_dir):
    status, out, err = cli(module, argv)
    assert status != 0
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("quickening ")


@pytest.mark.parametrize("module,argv", [(cli_compare, ["--help"]),
                                         (cli_experiment, ["--help"]),
                                         (cli_experiment, ["polymorphism", "--help"]),
                                         (cli_records, ["--help"])])
def test_help(module, argv, cli):
    status, out, _ = cli(module, argv)
    assert status == 0 and "usage" in out.lower()


def test_records_list_when_empty(cli, records_dir):
    status, out, _ = cli(cli_records, [])
    assert status == 0 and "no records" in out


def test_loop_workloads_resolve():
    assert corpus.loop_names() == ["calls", "dict", "float_math", "list_walk"]
    name, spec = corpus.resolve_workload("loop:dict")
    assert name == "loop:dict" and Path(spec["path"]).is_file()


FAKE_BENCH = """\
import pyperf

def fannkuch(n):
    t0 = pyperf.perf_counter()
    return sum(range(n))
"""


def test_pyperformance_workload_from_cache(tmp_path, monkeypatch, cli, records_dir):
    """A cached pyperformance wheel is used as is: its program is imported with
    the stand-in pyperf and its workload function called, on both sides."""
    monkeypatch.setenv("QUICKENING_CACHE", str(tmp_path / "cache"))
    base = tmp_path / "cache" / f"pyperformance-{corpus.PYPERFORMANCE_VERSION}"
    base.mkdir(parents=True)
    with zipfile.ZipFile(base / "pyperformance-1.14.0-py3-none-any.whl", "w") as zf:
        zf.writestr("pyperformance/data-files/benchmarks/bm_fannkuch/run_benchmark.py",
                    FAKE_BENCH)
    status, out, err = cli(cli_compare, ["-M", "1", "-N", "2", "--no-chart", "-q",
                                         "pyperformance:fannkuch"])
    assert status == 0, err
    assert "pyperformance:fannkuch" in out
    assert "outputs differ" not in out and "failed" not in out


def _fake_python(tmp_path, version="3 10 4", impl="cpython"):
    """An 'interpreter' that answers only the version question, and leaves a
    mark if anything else is run with it."""
    ran = tmp_path / "ran"
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = -I ] && [ \"$2\" = -c ]; then echo %s; echo %s; "
                    "exit 0; fi\necho \"$@\" >> %s\nexit 1\n" % (version, impl, ran))
    fake.chmod(0o755)
    return fake, ran


@pytest.mark.parametrize("argv", [
    ["experiment", "specialize", "--python", "{py}"],
    ["experiment", "warmup", "--python", "{py}"],
    ["experiment", "polymorphism", "--python", "{py}"],
    ["experiment", "jit", "--python", "{py}"],
    ["compare", "--a-python", "{py}", "loop:dict"],
])
def test_a_build_the_lens_cannot_read_is_refused_before_running(argv, tmp_path, cli,
                                                                records_dir):
    fake, ran = _fake_python(tmp_path)
    module = cli_experiment if argv[0] == "experiment" else cli_compare
    status, out, err = cli(module, [a.format(py=fake) for a in argv[1:]])
    assert status != 0
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert "supports CPython 3.11 to 3.15" in err and "3.10.4" in err
    # only the describe probe touched it: no workload, no snippet ran
    runs = ran.read_text().splitlines() if ran.exists() else []
    assert all("decode.py --describe" in r for r in runs), runs
    assert not records_dir.exists() or not list(records_dir.glob("*.json"))


def test_warmup_refuses_another_implementation(tmp_path):
    import subprocess
    import sys
    fake, ran = _fake_python(tmp_path, "3 11 0", "pypy")
    r = subprocess.run([sys.executable, "-m", "quickening", "warmup", "--python", str(fake),
                        "-c", "x = 1"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "supports CPython 3.11 to 3.15" in r.stderr and "pypy 3.11.0" in r.stderr
