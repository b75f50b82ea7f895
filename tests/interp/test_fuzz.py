"""Differential fuzzing: generated programs run natively and in the interpreter
must print the same output, raise the same exceptions, warn at the same places
and leave the same globals (see fuzzing.py for how programs are made and
compared).

CI runs fixed seeds of both generators; a longer run with any seed is
`python scripts/fuzz.py --seconds 600 --seed N`, which saves (and with
--minimize shrinks) every program that behaves differently.
"""

import pytest

from . import fuzzing

# Fixed seeds, about 40 seconds of work on one core in total.
CODEGEN_SEEDS = range(0, 40)
WRITER_SEEDS = range(0, 40)


def _check(generator, seed):
    try:
        src, diff = fuzzing.check_seed(generator, seed)
    except fuzzing.Skip as e:
        pytest.skip(str(e))
    if diff is not None:
        kind, text = diff
        pytest.fail(
            f"{generator} program {seed} behaves differently ({kind}):\n{text}\n\n"
            f"reproduce and shrink it with:\n"
            f"  python scripts/fuzz.py --generator {generator} --seed {seed} --count 1 --minimize",
            pytrace=False)


@pytest.mark.parametrize("seed", CODEGEN_SEEDS)
def test_codegen_program(seed):
    """pysource-codegen modules over a prelude binding their names."""
    _check("codegen", seed)


@pytest.mark.parametrize("seed", WRITER_SEEDS)
def test_written_program(seed):
    """Programs of our own generator: functions, generators, classes,
    exceptions, pattern matching and coroutines that actually run."""
    _check("writer", seed)


def test_differences_are_seen():
    """The comparison is not blind: each part of an outcome counts."""
    native, interp = fuzzing.run_both(fuzzing.HELPERS + "x = [1, 'a']\nprint(x)\n")
    assert native == interp and native["stdout"] == "[1, 'a']\n"
    assert native["globals"]["x"] == "list[1, 'a']"
    changed = [
        ("stdout", dict(interp, stdout="[1, 'b']\n")),
        ("uncaught", dict(interp, uncaught="ValueError: x")),
        ("warnings", dict(interp, warnings=["UserWarning: w at <fuzz>:1"])),
        ("globals", dict(interp, globals=dict(interp["globals"], x="list[1]"))),
        ("timeout", {"timeout": True}),
    ]
    for kind, outcome in changed:
        assert fuzzing.difference(native, outcome)[0] == kind


def test_masking_keeps_values():
    """Object addresses are masked, and nothing else."""
    assert (fuzzing.normalize("<f at 0x7f00ab12> 0x10 12 at 0x1f")
            == "<f at 0x?> 0x10 12 at 0x?")
