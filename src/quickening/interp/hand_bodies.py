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

A pasted body is then specialized for its site, as a person writing the
handler for that one site would: where the handler serves one oparg,
`site.oparg` is that number; a fact of the site the body only tests (`if
not enterable`, `tail is not None`) is given its answer there, and the
branches that cannot run are left out.  The handler is made per answer
(spec.Member.handler keys it by them), so this changes no meaning.
"""

import ast
import inspect
import textwrap

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)

PREFIX = "_h_"
_ABSENT = object()


class Body:
    """fn's body, ready to paste: `lines` (unindented source), the global names it
    `reads`, the parameters it `tests` (names in an if's test, alone, negated or
    compared with None)."""

    def __init__(self, tree, reads, tests):
        self.reads, self.tests = reads, tests
        self.lines = ast.unparse(tree).splitlines()

    def specialized(self, answers, oparg=None):
        """The lines for a site where each name in `answers` has that value (only
        its truth and whether it is None are used) and, unless None, the oparg."""
        # (made in the middle of the program: nothing here may leave garbage for its
        # gc -- ast.fix_missing_locations would, and unparse needs no locations)
        tree = _Specialize(answers, oparg).visit(ast.parse("\n".join(self.lines)))
        return ast.unparse(tree).splitlines()


def answers_of(value):
    """What a specialized body uses of a tested value: (it is None, its truth)."""
    return (value is None, bool(value))


def body_lines(fn, params):
    """fn's Body for a handler whose scope binds `params`, or None when it cannot be
    pasted (see the module's docstring).  (Called where fn is declared, at import:
    reading fn's source in the middle of the program would use linecache, the
    program's too.)"""
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
    renamed = ast.fix_missing_locations(
        _Rename({name: PREFIX + name for name in assigned}).visit(module))
    tests = {node.id for test in _tests(renamed) for node in _tested_names(test)}
    return Body(renamed, frozenset(read - assigned - set(params)),
                frozenset(tests & set(params)))


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


def _tests(tree):
    return [node.test for node in ast.walk(tree) if isinstance(node, (ast.If, ast.IfExp))]


def _tested_names(test):
    """The names whose truth (or being None) the test asks directly."""
    if isinstance(test, ast.Name):
        return [test]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _tested_names(test.operand)
    if isinstance(test, ast.BoolOp):
        return [name for value in test.values for name in _tested_names(value)]
    if _none_test(test):
        return [test.left]
    return []


def _is_int(node):
    return isinstance(node, ast.Constant) and type(node.value) is int


def _none_test(node):
    """`name is None` or `name is not None`."""
    return (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name)
            and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot))
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value is None)


class _Specialize(ast.NodeTransformer):
    """A body specialized for a site (Body.specialized)."""

    def __init__(self, answers, oparg):
        self.answers, self.oparg = answers, oparg

    def visit_Attribute(self, node):
        if (self.oparg is not None and node.attr == "oparg" and isinstance(node.value, ast.Name)
                and node.value.id == "site" and isinstance(node.ctx, ast.Load)):
            return ast.Constant(self.oparg)
        return self.generic_visit(node)

    def visit_BinOp(self, node):
        # (x - 1 - 2 is x - 3: the compiler folds only constants standing together)
        self.generic_visit(node)
        inner = node.left
        if (isinstance(node.op, (ast.Add, ast.Sub)) and _is_int(node.right)
                and isinstance(inner, ast.BinOp) and isinstance(inner.op, (ast.Add, ast.Sub))
                and _is_int(inner.right)):
            total = ((inner.right.value if isinstance(inner.op, ast.Add) else -inner.right.value)
                     + (node.right.value if isinstance(node.op, ast.Add) else -node.right.value))
            return ast.BinOp(inner.left, ast.Add() if total >= 0 else ast.Sub(),
                             ast.Constant(abs(total)))
        return node

    def _truth(self, test):
        """The test with its known parts answered: True, False or an expression."""
        if isinstance(test, ast.Name) and test.id in self.answers:
            return self.answers[test.id][1]
        if _none_test(test) and test.left.id in self.answers:
            is_none = self.answers[test.left.id][0]
            return is_none if isinstance(test.ops[0], ast.Is) else not is_none
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._truth(test.operand)
            return (not inner) if type(inner) is bool else ast.UnaryOp(ast.Not(), inner)
        if isinstance(test, ast.BoolOp):
            # (in a test only its truth counts: a known operand can be dropped)
            decides = isinstance(test.op, ast.Or)
            left = []
            for value in test.values:
                answer = self._truth(value)
                if answer is decides:
                    return decides
                if type(answer) is not bool:
                    left.append(answer)
            if not left:
                return not decides
            return left[0] if len(left) == 1 else ast.BoolOp(test.op, left)
        return self.visit(test)

    def visit_If(self, node):
        test = self._truth(node.test)
        if type(test) is not bool:
            node.test = test
            node.body = self._statements(node.body) or [ast.Pass()]
            node.orelse = self._statements(node.orelse)
            return node
        return self._statements(node.body if test else node.orelse)

    def visit_IfExp(self, node):
        test = self._truth(node.test)
        if type(test) is not bool:
            node.test = test
            return self.generic_visit(node)
        return self.visit(node.body if test else node.orelse)

    def _statements(self, statements):
        out = []
        for statement in statements:
            new = self.visit(statement)
            out.extend(new if isinstance(new, list) else [new])
            if out and isinstance(out[-1], (ast.Return, ast.Raise)):
                break           # (what follows cannot run)
        return out

    def visit_Module(self, node):
        node.body = self._statements(node.body)
        return node
