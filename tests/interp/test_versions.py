"""The version's specification facts (interp/versions/) against what the host says."""

import opcode

import _opcode_metadata

from quickening.interp import host, quicken, spec
from quickening.interp.families.registered import FAMILIES_IN_ORDER
from quickening.interp.versions import SPEC


def test_families_and_members_are_the_hosts():
    assert SPEC.FAMILIES == {k: list(v) for k, v in _opcode_metadata._specializations.items()}
    assert {f.name: list(f.members) for f in FAMILIES_IN_ORDER} == SPEC.FAMILIES


def test_cache_layouts_have_the_hosts_sizes():
    for name in SPEC.FAMILIES:
        fields = spec.cache_fields(name)
        assert sum(fields.values()) == opcode._inline_cache_entries.get(name, 0), name
        if fields:
            assert next(iter(fields)) == "counter"
        assert set(fields) == set(host.CACHE_FORMAT.get(name, {}))


def _fresh_cells():
    """The first cache cell of each instruction of a fresh code object, natively."""
    code = compile("def f(a, b):\n    for i in a:\n        if i:\n            b = b + i\n"
                   "    return b\n", "<probe>", "exec").co_consts[0]
    raw = code._co_code_adaptive
    cells = {}
    pc = 0
    while pc < len(raw):
        op = raw[pc]
        n = opcode._inline_cache_entries.get(opcode.opname[op], 0)
        if n:
            cells.setdefault(opcode.opname[op], int.from_bytes(raw[pc + 2:pc + 4], "little"))
        pc += 2 * (1 + n)
    return cells


def test_counter_constants_are_what_a_fresh_code_object_holds():
    cells = _fresh_cells()
    assert cells["BINARY_OP"] == quicken.WARMUP
    assert cells["JUMP_BACKWARD"] == quicken.JUMP_BACKWARD_INITIAL
    branches = [v for k, v in cells.items() if k.startswith("POP_JUMP_IF_")]
    assert branches and all(v == quicken.BRANCH_HISTORY_INITIAL for v in branches)


def test_the_cooldown_is_what_a_specialized_site_holds():
    def g(a, b):
        return a + b
    g(1, 2)
    g(1, 2)
    raw = g.__code__._co_code_adaptive
    pc = next(i for i in range(0, len(raw), 2) if opcode._specialized_opmap.get(
        "BINARY_OP_ADD_INT") == raw[i])
    assert int.from_bytes(raw[pc + 2:pc + 4], "little") == quicken.COOLDOWN
