"""The agent's search for ENTER_EXECUTOR among a stream's opcodes (a masked
int compare, agent._opcode_finder) finds exactly the instruction offsets
holding the opcode: at every offset, whatever the cache cells hold (the
opcode's byte, 255 on 3.14, is common there), for streams of any size."""
import random

from hypothesis import given, settings, strategies as st

from quickening.lens.agent import _opcode_finder

EE = 255


def _naive(starts, b, op):
    return [o for o in starts if b[o] == op]


@st.composite
def _streams(draw):
    """(instruction offsets, stream, op): instructions of 0-4 cache cells,
    every byte drawn with op over-represented, op put at some opcodes."""
    caches = draw(st.lists(st.integers(0, 4), min_size=1, max_size=120))
    starts, off = [], 0
    for k in caches:
        starts.append(off)
        off += 2 + 2 * k
    op = draw(st.sampled_from([EE, 254, 1, 0x80]))
    byte = st.one_of(st.just(op), st.just(0), st.integers(0, 255))
    b = bytearray(draw(st.lists(byte, min_size=off, max_size=off)))
    for o in draw(st.lists(st.sampled_from(starts), max_size=len(starts))):
        b[o] = op
    return starts, bytes(b), op


@settings(max_examples=400, deadline=None)
@given(_streams())
def test_finder_matches_a_byte_by_byte_search(case):
    starts, b, op = case
    assert _opcode_finder(starts, len(b), op)(b) == _naive(starts, b, op)


def test_enter_executor_at_every_even_offset():
    """One executor at each offset in turn, and at all at once, of streams
    whose every 2 bytes are an instruction, with every other byte 255."""
    rng = random.Random(1)
    for size in (2, 4, 6, 8, 16, 30, 62, 64, 66, 126, 128, 130, 254, 256, 1000):
        starts = list(range(0, size, 2))
        find = _opcode_finder(starts, size, EE)
        for fill in (0, EE, None):
            base = bytearray(rng.randrange(256) if fill is None else fill
                             for _ in range(size))
            for o in starts:
                base[o] = rng.randrange(EE)      # no opcode is EE ...
            for o in starts:
                b = bytearray(base)
                b[o] = EE                        # ... but this one
                assert find(bytes(b)) == [o], (size, fill, o)
            every = bytearray(base)
            for o in starts:
                every[o] = EE
            assert find(bytes(every)) == starts
            assert find(bytes(base)) == []


def test_cache_cells_holding_the_byte_are_no_hit():
    """Offsets that are cache cells (odd bytes, opargs and cells of an
    instruction with a cache) never count, even holding the opcode's byte."""
    starts = [0, 2, 10, 12]                  # the instruction at 2 has 3 cells
    b = bytes([1, EE, 3, EE, EE, EE, EE, EE, EE, EE, 4, EE, 5, EE])
    assert _opcode_finder(starts, len(b), EE)(b) == []
    b2 = bytes([EE]) + b[1:10] + bytes([EE]) + b[11:]
    assert _opcode_finder(starts, len(b2), EE)(b2) == [0, 10]
    # a stream of another size (never the same code object's) finds nothing
    assert _opcode_finder(starts, len(b), EE)(b + b"\0\0") == []
