"""A hand-written operation's body, pasted into its member's derived handler.

A member declared with `op=Hand(fn)` (spec.py) has a handler that tests the
declared guards and then runs fn.  Calling fn costs a Python call on every
execution of the site; pasting fn's statements into the handler costs none,
and the handler then reads like the one a person would write by hand.

The handler already binds fn's parameters under the same names (f, stack,
site, nxt, the operands, the facts, the names the guards bind), so the body
needs no change but one: its own local variables are renamed (`_h_` prefix),
as the handler's other names -- operands fn does not take, facts the guards
read -- must keep their meaning.  fn's global names resolve in a snapshot of
fn's module namespace (taken when the handler is generated, once the program
runs: the modules are complete by then).

A body is not pasted, and fn is called as before, where pasting could change
what it means: it assigns one of its parameters, it makes a nested scope
(def, lambda, class, comprehension), it declares global or nonlocal names,
it yields, it reads a global name the handler's namespace gives another
meaning, or fn is a closure.
"""

import ast
import inspect
import textwrap

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)

PREFIX = "_h_"
_ABSENT = object()


def body_lines(fn, params):
    """(fn's body as source lines, unindented, the global names they read) for a
    handler whose scope binds `params`, or None when it cannot be pasted (see the
    module's docstring).  (Called where fn is declared, at import: reading fn's
    source in the middle of the program would use linecache, the program's too.)"""
    if fn.__code__.co_freevars:
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    (definition,) = tree.body
    statements = definition.body
    if (statements and isinstance(statements[0], ast.Expr)
            and isinstance(statements[0].value, ast.Constant)
            and isinstance(statements[0].value.value, str)):
        statements = statements[1:]          # the docstring
    module = ast.Module(body=statements, type_ignores=[])
    if any(isinstance(node, _SCOPES) for node in ast.walk(module)):
        return None
    assigned = {node.id for node in ast.walk(module)
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    assigned |= {node.name for node in ast.walk(module)
                 if isinstance(node, ast.ExceptHandler) and node.name}
    if assigned & set(params):
        return None
    read = {node.id for node in ast.walk(module)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    if not statements or not isinstance(statements[-1], (ast.Return, ast.Raise)):
        statements.append(ast.Return(value=None))     # (falling off fn's end)
    renamed = _Rename({name: PREFIX + name for name in assigned}).visit(module)
    return (ast.unparse(ast.fix_missing_locations(renamed)).splitlines(),
            frozenset(read - assigned - set(params)))


def meant_alike(fn, reads, handler_globals):
    """Whether each global name the body reads means in the handler's namespace
    (fn's module's, then handler_globals) what it means in fn's module."""
    return not any(name in handler_globals and fn.__globals__.get(name, _ABSENT)
                   is not handler_globals[name] for name in reads)


def namespace(fn):
    """The global names the pasted body reads: fn's module's, as they are now."""
    return dict(fn.__globals__)


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            node.id = self.names[node.id]
        return node

    def visit_ExceptHandler(self, node):
        self.generic_visit(node)
        if node.name in self.names:
            node.name = self.names[node.name]
        return node
