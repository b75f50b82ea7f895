"""The lens: what the real CPython specializer does to a program, per site,
over time.

* ``quickening watch`` (:mod:`quickening.lens.cli`) runs a program natively
  with a small stdlib-only agent (:mod:`quickening.lens.agent`) that samples
  ``code._co_code_adaptive`` from a background thread; the parent analyzes
  (:mod:`quickening.lens.analyze`) and reports (terminal, JSON, HTML).
* ``quickening warmup`` (:mod:`quickening.lens.warmup_cli`,
  :func:`quickening.lens.warmup.trace_warmup`) runs fresh code objects one
  execution at a time.
* :mod:`quickening.lens.decode` decodes a live quickened stream for CPython
  3.11 to 3.15.

This package must import on 3.11 and 3.12 too: keep it free of newer syntax.
"""
