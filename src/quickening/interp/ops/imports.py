"""IMPORT_NAME and IMPORT_FROM (import * is an intrinsic, see misc.py)."""

import builtins
import sys

from quickening.interp.masquerade import call_as
from quickening.interp.ops.registry import NULL, handles, name, tp_name

_builtin_import = builtins.__import__


@handles("IMPORT_NAME", decode=name)
def import_name(f, stack, arg, nxt):
    fromlist = stack.pop()
    level = stack.pop()
    b = f.builtins
    if type(b) is dict:
        import_func = b.get("__import__", NULL)
    else:
        try:
            import_func = b["__import__"]  # builtins may be any mapping
        except KeyError:
            import_func = NULL
    if import_func is NULL:
        raise ImportError("__import__ not found")
    f.pc = nxt
    # through a frame that looks like f: importlib's warnings name the importing line
    stack.append(call_as(f, import_func, (arg, f.globals, f.locals, fromlist, level), None))
    return nxt


def import_from(module, attrname):
    try:
        return getattr(module, attrname)
    except AttributeError:
        pass
    pkgname = getattr(module, "__name__", None)
    if isinstance(pkgname, str):
        found = sys.modules.get(f"{pkgname}.{attrname}")
        if found is not None:
            return found
    else:
        pkgname = "<unknown module name>"
    try:
        pkgpath = module.__file__
    except AttributeError:
        pkgpath = None
    spec = getattr(module, "__spec__", None)
    if spec is not None and getattr(spec, "_initializing", False):
        msg = (f"cannot import name {attrname!r} from partially initialized module {pkgname!r} "
               f"(most likely due to a circular import) ({pkgpath if pkgpath is not None else 'unknown location'})")
    elif pkgpath is None:
        msg = f"cannot import name {attrname!r} from {pkgname!r} (unknown location)"
    else:
        msg = f"cannot import name {attrname!r} from {pkgname!r} ({pkgpath})"
    err = ImportError(msg, name=pkgname, path=pkgpath)
    err.name_from = attrname
    raise err


@handles("IMPORT_FROM", decode=name)
def import_from_op(f, stack, arg, nxt):
    stack.append(import_from(stack[-1], arg))
    return nxt


def import_star(f, module):
    mapping = f.locals
    if mapping is None:
        raise SystemError("no locals found during 'import *'")
    try:
        names = module.__all__
        skip_private = False
    except AttributeError:
        try:
            names = module.__dict__.keys()
        except AttributeError:
            raise ImportError("from-import-* object has no __dict__ and no __all__") from None
        skip_private = True
    for attrname in list(names):
        if type(attrname) is not str:
            modname = getattr(module, "__name__", None)
            where = f"{modname}.__all__" if skip_private is False else f"{modname}.__dict__"
            raise TypeError(f"{'Item in ' + where if not skip_private else 'Key in ' + where} "
                            f"must be str, not {tp_name(type(attrname))}")
        if skip_private and attrname.startswith("_"):
            continue
        mapping[attrname] = getattr(module, attrname)
