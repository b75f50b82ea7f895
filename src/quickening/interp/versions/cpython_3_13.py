"""CPython 3.13's specification facts (shared/facts/cpython-specializer.md).

Checked against the host where it exposes them (tests/interp/test_versions.py):
the families and members are `_opcode_metadata._specializations`, the cache
sizes `opcode._inline_cache_entries`.
"""

VERSION = (3, 13)

# -- the counter: one 16-bit cell, value << BACKOFF_BITS | backoff ---------------------
BACKOFF_BITS = 4
MAX_BACKOFF = 12
WARMUP = (1, 1)                 # value, backoff of a fresh site: the 2nd execution specializes
COOLDOWN = (52, 0)              # after a success: the 53rd miss re-specializes
JUMP_BACKWARD_INITIAL = (16, 4)     # tier 2's counter (untouched by default builds)
BRANCH_HISTORY_INITIAL = 0x5555     # POP_JUMP_IF_*: a shift register of taken branches

# -- inline caches ------------------------------------------------------------------
# opcode._cache_format lists LOAD_GLOBAL's fields in the wrong order; the real one:
CACHE_ORDER = {"LOAD_GLOBAL": {"counter": 1, "module_keys_version": 1,
                               "builtin_keys_version": 1, "index": 1}}

# -- families and their members, in CPython's order ------------------------------------
FAMILIES = {
    "RESUME": ["RESUME_CHECK"],
    "TO_BOOL": ["TO_BOOL_ALWAYS_TRUE", "TO_BOOL_BOOL", "TO_BOOL_INT", "TO_BOOL_LIST",
                "TO_BOOL_NONE", "TO_BOOL_STR"],
    "BINARY_OP": ["BINARY_OP_MULTIPLY_INT", "BINARY_OP_ADD_INT", "BINARY_OP_SUBTRACT_INT",
                  "BINARY_OP_MULTIPLY_FLOAT", "BINARY_OP_ADD_FLOAT", "BINARY_OP_SUBTRACT_FLOAT",
                  "BINARY_OP_ADD_UNICODE", "BINARY_OP_INPLACE_ADD_UNICODE"],
    "BINARY_SUBSCR": ["BINARY_SUBSCR_DICT", "BINARY_SUBSCR_GETITEM", "BINARY_SUBSCR_LIST_INT",
                      "BINARY_SUBSCR_STR_INT", "BINARY_SUBSCR_TUPLE_INT"],
    "STORE_SUBSCR": ["STORE_SUBSCR_DICT", "STORE_SUBSCR_LIST_INT"],
    "SEND": ["SEND_GEN"],
    "UNPACK_SEQUENCE": ["UNPACK_SEQUENCE_TWO_TUPLE", "UNPACK_SEQUENCE_TUPLE",
                        "UNPACK_SEQUENCE_LIST"],
    "STORE_ATTR": ["STORE_ATTR_INSTANCE_VALUE", "STORE_ATTR_SLOT", "STORE_ATTR_WITH_HINT"],
    "LOAD_GLOBAL": ["LOAD_GLOBAL_MODULE", "LOAD_GLOBAL_BUILTIN"],
    "LOAD_SUPER_ATTR": ["LOAD_SUPER_ATTR_ATTR", "LOAD_SUPER_ATTR_METHOD"],
    "LOAD_ATTR": ["LOAD_ATTR_INSTANCE_VALUE", "LOAD_ATTR_MODULE", "LOAD_ATTR_WITH_HINT",
                  "LOAD_ATTR_SLOT", "LOAD_ATTR_CLASS", "LOAD_ATTR_PROPERTY",
                  "LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN", "LOAD_ATTR_METHOD_WITH_VALUES",
                  "LOAD_ATTR_METHOD_NO_DICT", "LOAD_ATTR_METHOD_LAZY_DICT",
                  "LOAD_ATTR_NONDESCRIPTOR_WITH_VALUES", "LOAD_ATTR_NONDESCRIPTOR_NO_DICT"],
    "COMPARE_OP": ["COMPARE_OP_FLOAT", "COMPARE_OP_INT", "COMPARE_OP_STR"],
    "CONTAINS_OP": ["CONTAINS_OP_SET", "CONTAINS_OP_DICT"],
    "FOR_ITER": ["FOR_ITER_LIST", "FOR_ITER_TUPLE", "FOR_ITER_RANGE", "FOR_ITER_GEN"],
    "CALL": ["CALL_BOUND_METHOD_EXACT_ARGS", "CALL_PY_EXACT_ARGS", "CALL_TYPE_1", "CALL_STR_1",
             "CALL_TUPLE_1", "CALL_BUILTIN_CLASS", "CALL_BUILTIN_O", "CALL_BUILTIN_FAST",
             "CALL_BUILTIN_FAST_WITH_KEYWORDS", "CALL_LEN", "CALL_ISINSTANCE", "CALL_LIST_APPEND",
             "CALL_METHOD_DESCRIPTOR_O", "CALL_METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS",
             "CALL_METHOD_DESCRIPTOR_NOARGS", "CALL_METHOD_DESCRIPTOR_FAST",
             "CALL_ALLOC_AND_ENTER_INIT", "CALL_PY_GENERAL", "CALL_BOUND_METHOD_GENERAL",
             "CALL_NON_PY_GENERAL"],
}
