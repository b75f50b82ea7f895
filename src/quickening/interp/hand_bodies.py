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
`site.oparg` is that number; a fact of the site the body tests (`if not
enterable`, `tail is not None`) is given its answer there, and the branches
that cannot run are left out.  The handler is made per answer
(spec.Member.handler keys it by them), so this changes no meaning.  (The body
is taken apart at import; putting it together for a site, in the middle of
the program, uses no module the program could have changed.)
"""

import ast
import inspect
import os
import textwrap

from quickening.interp import codecache

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)

PREFIX = "_h_"
_ABSENT = object()


class Body:
    """fn's body, ready to paste: the global names it `reads`, the parameters it
    `tests` (names in the test of an if it can leave out: alone, negated or
    compared with None).

    Specializing it happens as the program runs, so it uses no module and no
    builtin (the program may have replaced them): the body is taken apart here,
    at import, into statements and tests that specialized() only puts together."""

    def __init__(self, statements, reads, params):
        self.reads = reads
        self._statements = statements      # (_parts)
        # name -> [whether a test asks if it is None, whether one asks its truth]
        self._asked = {}
        _asked_in(self._statements, params, self._asked)
        self.tests = frozenset(self._asked)

    def answer(self, name, value):
        """What the tests of name ask of value: (it is None, its truth), each None
        where no test asks it (sites differing only there share a handler)."""
        is_none, truth = self._asked[name]
        return (value is None if is_none else None,
                (True if value else False) if truth else None)

    def specialized(self, answers, oparg=None):
        """The lines for a site where each name in `answers` has that answer
        and, unless None, the oparg is that number."""
        out = []
        _put_together(self._statements, answers, "" if oparg is None else f"{oparg}", "", out)
        return out

    @staticmethod
    def said(name, answer):
        """An answer in words: `tail is not None`, `not has_free` ..."""
        is_none, truth = answer
        words = [] if is_none is None else [f"{name} is None" if is_none else f"{name} is not None"]
        if truth is not None and not is_none:
            words.append(name if truth else f"not {name}")
        return ", ".join(words)


def body_lines(fn, params):
    """fn's Body for a handler whose scope binds `params`, or None when it cannot be
    pasted (see the module's docstring).  (Called where fn is declared, at import:
    reading fn's source in the middle of the program would use linecache, the
    program's too.)  Taking a body apart is most of quickening's start-up, so what
    it gives is kept between runs (codecache.remembered), for as long as fn's file
    is unchanged."""
    if fn.__code__.co_freevars:
        return None
    key = _source_key(fn, params)
    parts = (_taken_apart(fn, params) if key is None
             else codecache.remembered(key, lambda: _taken_apart(fn, params)))
    return None if parts is None else Body(parts[0], frozenset(parts[1]), frozenset(params))


def _source_key(fn, params):
    """What the body taken apart depends on: fn's file and this one as they are now
    (as a .pyc is checked against its source), where fn is in its file, and the
    params; None when a file cannot be seen."""
    code = fn.__code__
    try:
        stats = [os.stat(path) for path in (code.co_filename, __file__)]
    except OSError:
        return None
    files = " ".join(f"{s.st_mtime_ns}:{s.st_size}" for s in stats)
    return (f"hand body {code.co_filename} {files} "
            f"{fn.__qualname__} {code.co_firstlineno} {sorted(params)}")


def _taken_apart(fn, params):
    """(fn's statements taken apart (_parts), the global names it reads), or None
    when it cannot be pasted."""
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
    return _parts(renamed.body), sorted(read - assigned - set(params))


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


def _none_test(node):
    """`name is None` or `name is not None`."""
    return (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name)
            and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot))
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value is None)


# -- a body taken apart (at import) and put together for a site (as the program runs) -----
_TEXT, _IF = range(2)                             # statements
_FACT, _NONE, _NOT, _AND, _OR, _EXPR = range(6)   # tests
_OPARG = "__site_oparg__"     # where the body reads site.oparg (put back, or the number)


def _parts(statements):
    """[(_TEXT, lines, ends) | (_IF, test, body, orelse)]: an if's test taken apart,
    every other statement as its source (ends: a return or a raise, after which
    nothing runs)."""
    out = []
    for statement in statements:
        if isinstance(statement, ast.If):
            out.append((_IF, _test(statement.test), _parts(statement.body),
                        _parts(statement.orelse)))
        else:
            text = ast.unparse(_OpargMarked().visit(statement))
            out.append((_TEXT, text.splitlines(), isinstance(statement, (ast.Return, ast.Raise))))
    return out


def _asked_in(statements, params, asked):
    """Record in asked what the ifs' tests ask of each of the params."""
    for statement in statements:
        if statement[0] == _IF:
            _asked_of(statement[1], params, asked)
            _asked_in(statement[2], params, asked)
            _asked_in(statement[3], params, asked)


def _asked_of(test, params, asked):
    kind = test[0]
    if kind in (_FACT, _NONE) and test[1] in params:
        asked.setdefault(test[1], [False, False])[kind == _FACT] = True
    elif kind == _NOT:
        _asked_of(test[1], params, asked)
    elif kind in (_AND, _OR):
        for value in test[1]:
            _asked_of(value, params, asked)


def _test(node):
    if isinstance(node, ast.Name):
        return (_FACT, node.id)
    if _none_test(node):
        return (_NONE, node.left.id, isinstance(node.ops[0], ast.Is))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return (_NOT, _test(node.operand))
    if isinstance(node, ast.BoolOp):
        return (_AND if isinstance(node.op, ast.And) else _OR,
                [_test(value) for value in node.values])
    return (_EXPR, ast.unparse(_OpargMarked().visit(node)))


class _OpargMarked(ast.NodeTransformer):
    def visit_Attribute(self, node):
        if (node.attr == "oparg" and isinstance(node.value, ast.Name)
                and node.value.id == "site" and isinstance(node.ctx, ast.Load)):
            return ast.Name(_OPARG, ast.Load())
        return self.generic_visit(node)


def _put_together(statements, answers, oparg, indent, out):
    """Write the statements' lines for the answers into out; whether they end (a
    return or raise that always runs)."""
    for statement in statements:
        if statement[0] == _TEXT:
            for line in statement[1]:
                out.append(indent + _with_oparg(line, oparg))
            if statement[2]:
                return True
            continue
        _, test, body, orelse = statement
        answer = _answer(test, answers, oparg)
        if answer is True or answer is False:
            if _put_together(body if answer else orelse, answers, oparg, indent, out):
                return True
            continue
        out.append(f"{indent}if {answer[0]}:")
        ends = _block(body, answers, oparg, indent, out)
        if orelse:
            out.append(f"{indent}else:")
            ends = _block(orelse, answers, oparg, indent, out) and ends
        else:
            ends = False
        if ends:
            return True
    return False


def _block(statements, answers, oparg, indent, out):
    before = len(out)
    ends = _put_together(statements, answers, oparg, indent + "    ", out)
    if len(out) == before:
        out.append(indent + "    pass")
    return ends


def _with_oparg(text, oparg):
    return text.replace(_OPARG, oparg if oparg else "site.oparg")


def _answer(test, answers, oparg):
    """True, False, or (the test's text where it is not known, whether it is an and/or)."""
    kind = test[0]
    if kind == _FACT:
        known = answers.get(test[1])
        return known[1] if known is not None else (test[1], False)
    if kind == _NONE:
        known = answers.get(test[1])
        if known is not None:
            return known[0] if test[2] else not known[0]
        return (f"{test[1]} is None" if test[2] else f"{test[1]} is not None", False)
    if kind == _NOT:
        inner = _answer(test[1], answers, oparg)
        if inner is True or inner is False:
            return not inner
        return (f"not ({inner[0]})" if inner[1] else f"not {inner[0]}", False)
    if kind == _EXPR:
        return (_with_oparg(test[1], oparg), True)
    decides = kind == _OR        # (in a test only its truth counts: known operands go)
    left = []
    for value in test[1]:
        answer = _answer(value, answers, oparg)
        if answer is decides:
            return decides
        if answer is not True and answer is not False:
            left.append(answer)
    if not left:
        return not decides
    if len(left) == 1:
        return left[0]
    joined = (" or " if decides else " and ").join(
        f"({text})" if grouped else text for text, grouped in left)
    return (joined, True)
