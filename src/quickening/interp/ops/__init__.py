"""Generic instruction handlers, grouped by what they do.

Importing ops/registered.py registers every handler in `registry.HANDLERS` (the
package itself imports none of its modules: they all import it).
A handler is ``handler(frame, stack, arg, nxt) -> next pc``; it returns a
negative number to ask the loop to switch frames (see loop.py).
"""
