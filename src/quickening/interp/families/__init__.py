"""The instruction families of CPython 3.13, one module each.

A module declares its Family (the base instruction and its specialized
members, as bytecodes.c does), the base instruction's adaptive handler (the
counter: count down, and at zero specialize on the live operands), the
specializer (CPython's decision rules and failure kinds) and each member's
handler (guards first, then the fast operation; a failed guard jumps into the
base handler, which counts down to re-specialization).

Importing this package registers every family in quicken.FAMILIES.
"""

from quickening.interp.families import (  # noqa: F401  (imported for registration)
    resume, binary_op,
    to_bool, compare_op, contains_op, binary_subscr, store_subscr, unpack_sequence,
    load_global, for_iter, send, call,
    load_attr, store_attr, load_super_attr,
)

# every family, in the order docs/members.md lists them
FAMILIES_IN_ORDER = [
    binary_op.FAMILY, compare_op.FAMILY, contains_op.FAMILY, to_bool.FAMILY,
    unpack_sequence.FAMILY, store_subscr.FAMILY, binary_subscr.FAMILY, for_iter.FAMILY,
    send.FAMILY, store_attr.FAMILY, load_super_attr.FAMILY,
    load_global.FAMILY, load_attr.FAMILY, call.FAMILY, resume.FAMILY,
]
