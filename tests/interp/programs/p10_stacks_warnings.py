import traceback, warnings, sys
def f():
    traceback.print_stack(limit=2)
    print([fs.name for fs in traceback.extract_stack()][-3:])
    warnings.warn("careful", UserWarning, stacklevel=2)
def g():
    f()
warnings.simplefilter("always")
g()
