"""Frames run where a specialized call pushes them (loop.enter) and handed to the loop:
what callees see of their callers, exceptions through them, recursion limits, a
trace set mid-call; and the outermost frame has no caller beyond the program."""
import sys, traceback

def leaf(x):
    return sys._getframe(1).f_code.co_name, sys._getframe(1).f_lineno, sys._getframe(2).f_code.co_name

def middle(x):
    return leaf(x)

def raiser(x):
    if x % 7 == 3:
        raise ValueError(x)
    return x

def catcher(x):
    try:
        return raiser(x)
    except ValueError as e:
        return -e.args[0]

def deep(n):
    if n == 0:
        return 0
    return deep(n - 1) + 1

class P:
    def __init__(self, v):
        self.v = raiser(v)

def generic_then_raise(x):
    d = dict(a=x)            # a call that goes through the loop (generic)
    if x > 150:
        raise KeyError(x)
    return d["a"]

log = []
for i in range(200):
    log.append(middle(i))
    log.append(catcher(i))
    try:
        log.append(P(i).v)
    except ValueError as e:
        log.append(("P", e.args, type(e.__context__).__name__))
    try:
        log.append(generic_then_raise(i))
    except KeyError as e:
        tb = traceback.extract_tb(e.__traceback__)
        log.append([(fs.name, fs.lineno) for fs in tb])
print(log[:12], log[-12:], len(log))
print(deep(300))
sys.setrecursionlimit(120)
try:
    deep(500)
except RecursionError as e:
    print("recursion", e)
sys.setrecursionlimit(1000)
seen = []
def tracer(frame, event, arg):
    if frame.f_code.co_name in ("leaf", "middle"):
        seen.append((frame.f_code.co_name, event))
    return tracer
def traced_caller():
    sys.settrace(tracer)
    r = middle(1)
    sys.settrace(None)
    return r
for i in range(40):
    traced_caller()
print(seen[:10], len(seen))
def depth_here():
    n = 0
    f = sys._getframe()
    while f is not None:
        n += 1
        f = f.f_back
    return n
def call_depth(k):
    return depth_here() if k == 0 else call_depth(k - 1)
print([call_depth(k) for k in range(12)])
import inspect
def stack_view():
    return [fi.function for fi in inspect.stack()], len(traceback.format_stack())
def outer_view():
    return stack_view()
for i in range(40):
    v = outer_view()
print(v)
try:
    sys._getframe(len(inspect.stack()) + 1)
except ValueError as e:
    print("ValueError", e)
print(sys._getframe(len(inspect.stack()) - 1).f_code.co_name)
