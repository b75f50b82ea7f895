"""The instruction families of CPython 3.13, one module each.

A module declares its Family (the base instruction and its specialized
members, as bytecodes.c does), the base instruction's adaptive handler (the
counter: count down, and at zero specialize on the live operands), the
specializer (CPython's decision rules and failure kinds) and each member's
handler (guards first, then the fast operation; a failed guard jumps into the
base handler, which counts down to re-specialization).

Importing families/registered.py registers every family in quicken.FAMILIES (the
package itself imports none of its modules: they all import it).
"""
