"""The interpreter: executes real CPython 3.13 code objects in pure Python.

Its modules are layered (quickening/_layers.py, checked by tests/test_layers.py):
each imports only from its own layer and the ones below.  Read bottom-up:

  host          versions/ (each CPython version's facts, as data), host (the host
                version's tables), facts (what Python does not
                expose, read from memory), typewatch, handled, escapes, shutdown,
                generated (the source of generated code), hardening
  core          ops/registry (the handler table), quicken (sites and counters),
                codeinfo (what is decoded once per code object), frame
  frames        what the program sees of interpreted frames: tracebacks (stand-in
                frame objects, entries), frameview (frame objects, linked and
                live), localsproxy (f_locals), tracing (sys.settrace)
  loop          the evaluation loop: dispatch, calls, returns, exception unwinding
  objects       functions (trampolines, binding), generators, masquerade,
                sitestate, hostframes (sys._getframe called by native code)
  instructions  ops/: the generic instruction handlers (ops/registered imports them)
  vocabulary    lowering, spec: what the families are declared in
  specification families/: one module per family (families/registered imports them)
  engine        inlining, fusion: fused runs and the callees written into them
  runtime       runtime (builtins that look at their caller), importer, interrupts
                (Ctrl-C raised in the program, not in the interpreter's own work)

Where a lower layer needs something of a higher one it is handed it: a code
object is decoded for its speed engine (codeinfo.CodeInfo.engine: fusion, which
quicken.install tells when a site changes form); tables a lower module reads
(HANDLERS, INTERCEPTS, FAMILIES, frameview.CARRIERS ...) are filled by the
modules above it when they are imported.  So nothing is imported in the middle of
the program: every module is loaded once `quickening.api` is.
"""
