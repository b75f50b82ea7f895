"""Every instruction family of the version, registered in quicken.FAMILIES (importing
this module imports each family's module; the package's __init__ does not, as they
import it)."""

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
