"""The host version's tables, read from `dis`/`opcode` once.

The interpreter executes the code objects of the CPython running it; the
numbers (opcodes, inline cache sizes, operator numbering) therefore come from
the host, never from a table of our own.
"""

import dis
import opcode
import operator
import sys

SUPPORTED = (3, 13)


class UnsupportedHost(Exception):
    pass


def check_host():
    if sys.version_info[:2] != SUPPORTED:
        raise UnsupportedHost(
            f"the quickening interpreter runs on CPython {SUPPORTED[0]}.{SUPPORTED[1]}; "
            f"this is {sys.implementation.name} {sys.version.split()[0]}")


OPMAP = dict(opcode.opmap)
OPNAME = {v: k for k, v in OPMAP.items()}
HAVE_ARGUMENT = opcode.HAVE_ARGUMENT
CACHE_ENTRIES = {OPMAP[name]: n for name, n in opcode._inline_cache_entries.items()}
MIN_INSTRUMENTED = getattr(opcode, "MIN_INSTRUMENTED_OPCODE", 236)
EXTENDED_ARG = OPMAP["EXTENDED_ARG"]
CACHE = OPMAP["CACHE"]
# each family's inline-cache fields in stream order, name -> cells (opcode's table,
# with the version's corrections: versions/)
CACHE_FORMAT = {name: dict(fields) for name, fields in opcode._cache_format.items()}

# Opcodes that can never appear in co_code: pseudo-instructions (>= 256),
# instrumented forms (only ever in the live adaptive copy) and the tier-2 hook.
NEVER_IN_CO_CODE = frozenset(
    op for name, op in OPMAP.items()
    if op >= 256 or op >= MIN_INSTRUMENTED or name in ("ENTER_EXECUTOR", "RESERVED", "CACHE"))

# Opcodes the compiler can emit: everything else in the table.
EMITTABLE = sorted(op for op in OPMAP.values() if op not in NEVER_IN_CO_CODE)

# BINARY_OP's oparg numbering, as in dis._nb_ops.
_NB_FUNCS = {
    "NB_ADD": operator.add, "NB_AND": operator.and_, "NB_FLOOR_DIVIDE": operator.floordiv,
    "NB_LSHIFT": operator.lshift, "NB_MATRIX_MULTIPLY": operator.matmul,
    "NB_MULTIPLY": operator.mul, "NB_REMAINDER": operator.mod, "NB_OR": operator.or_,
    "NB_POWER": operator.pow, "NB_RSHIFT": operator.rshift, "NB_SUBTRACT": operator.sub,
    "NB_TRUE_DIVIDE": operator.truediv, "NB_XOR": operator.xor,
    "NB_INPLACE_ADD": operator.iadd, "NB_INPLACE_AND": operator.iand,
    "NB_INPLACE_FLOOR_DIVIDE": operator.ifloordiv, "NB_INPLACE_LSHIFT": operator.ilshift,
    "NB_INPLACE_MATRIX_MULTIPLY": operator.imatmul, "NB_INPLACE_MULTIPLY": operator.imul,
    "NB_INPLACE_REMAINDER": operator.imod, "NB_INPLACE_OR": operator.ior,
    "NB_INPLACE_POWER": operator.ipow, "NB_INPLACE_RSHIFT": operator.irshift,
    "NB_INPLACE_SUBTRACT": operator.isub, "NB_INPLACE_TRUE_DIVIDE": operator.itruediv,
    "NB_INPLACE_XOR": operator.ixor,
}
BINARY_OPS = tuple(_NB_FUNCS[name] for name, _ in dis._nb_ops)
BINARY_OP_SYMBOLS = tuple(sym for _, sym in dis._nb_ops)

_CMP_FUNCS = {"<": operator.lt, "<=": operator.le, "==": operator.eq,
              "!=": operator.ne, ">": operator.gt, ">=": operator.ge}
COMPARE_OPS = tuple(_CMP_FUNCS[sym] for sym in opcode.cmp_op)
COMPARE_SYMBOLS = tuple(opcode.cmp_op)

INTRINSIC_1 = tuple(dis._intrinsic_1_descs)
INTRINSIC_2 = tuple(dis._intrinsic_2_descs)

# code flags
CO_OPTIMIZED = 0x1
CO_NEWLOCALS = 0x2
CO_VARARGS = 0x4
CO_VARKEYWORDS = 0x8
CO_NESTED = 0x10
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ITERABLE_COROUTINE = 0x100
CO_ASYNC_GENERATOR = 0x200
GENERATOR_LIKE = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
