"""Short loops shipped with quickening: `loop:NAME` workloads and the `jit` experiment's four.

Each file defines ``workload()``, called once per timed repeat, returning a
value that A and B must agree on.
"""
