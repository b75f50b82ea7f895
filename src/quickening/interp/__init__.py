"""The interpreter: executes real CPython 3.13 code objects in pure Python.

Read top-down:
  host        the host version's tables (opcodes, cache sizes, operators)
  codeinfo    what is decoded once per code object
  frame       an interpreted frame
  loop        the evaluation loop: dispatch, calls, returns, exception unwinding
  ops/        the generic instruction handlers, grouped by what they do
  functions   real function objects whose bodies run here (trampolines, binding)
  generators  generator, coroutine and async-generator objects
  tracebacks  CPython-shaped tracebacks and frame views of interpreted frames
  runtime     the builtins that look at their caller (locals, super, exec ...)
  importer    the import hook that runs chosen modules in the interpreter
  escapes     counting interpreted code that ran natively anyway
  shutdown    the interpreter's modules while the host shuts down
"""
