import sys
def f(x):
    y = x + 1
    for i in range(2):
        y += i
    if y > 100:
        return 0
    return y
def g():
    try:
        raise ValueError
    except ValueError:
        pass
events = []
def tracer(frame, event, arg):
    if frame.f_code.co_name in ("f", "g"):
        events.append((frame.f_code.co_name, event, frame.f_lineno - frame.f_code.co_firstlineno, repr(arg) if event == "return" else None))
    return tracer
sys.settrace(tracer)
f(1)
g()
sys.settrace(None)
print(events, sys.gettrace())
