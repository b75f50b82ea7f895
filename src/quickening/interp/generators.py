"""Generators, coroutines and async generators whose frames run here.

The object a generator function returns must be a genuine generator (or
coroutine, or async generator) so that `inspect`, `asyncio` and C code accept
it.  So the function returns a small native *driver* that delegates every
send/throw/close to an inner object of ours (`yield from inner`, `await
inner`, or an explicit delegation loop for async generators); the inner
object resumes the interpreted frame with `run_frame`.

What a program reads of the object (gi_frame / cr_frame / ag_frame,
gi_yieldfrom / cr_await / ag_await, gi_running, gi_suspended ...) is the
interpreted frame's, as CPython's object shows its own frame: the generator
types' getset descriptors for them are replaced, when the first driver is made,
by ones that answer for drivers from the inner object and do what the
originals do for any other object (end of this module; the same mechanism as
frameview.py's for the frame type).  The interpreter itself reads a driver's
native state through facts.NATIVE_GETTERS.
"""

import gc
import sys
import types
import weakref

from quickening.interp import facts, frameview, host, hostframes, shutdown, tracebacks
from quickening.interp.handled import write_unraisable
from quickening.interp.loop import resume, run_frame
from quickening.interp.masquerade import _flat_linetable, named_code
from quickening.interp.ops.registry import RETURN

_origin_depth = sys.get_coroutine_origin_tracking_depth
_DONE = -4  # frame.pc of a frame that finished with an exception
_ABSENT = object()  # an argument throw() was not given
_RESUME = host.OPMAP["RESUME"]


class AsyncGenWrapped:
    """What INTRINSIC_ASYNC_GEN_WRAP makes of a value an async generator yields."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _finished(frame):
    return frame.pc < 0


class InterpGenerator:
    """The inner object of a generator (and the base of the other kinds)."""

    __slots__ = ("frame", "running", "started", "close_value", "primed", "detached",
                 "driver_addr", "__weakref__")
    _kind = "generator"

    def __init__(self, frame):
        self.frame = frame
        self.running = False
        self.started = False
        self.close_value = None
        self.primed = False
        self.detached = False    # run inline while its driver is not started (_genframes)
        self.driver_addr = 0     # id() of its driver (wrap), whose state _genframes sets
        # frame.gen links the frame back to this object only once the frame starts
        # (here, or _genframes.push): an unstarted generator dropped by the program
        # is then no cycle, and its locals are freed at once, as CPython's

    def finalize_unstarted(self):
        """(frame.clear() of its frame object before it started: finalize_unstarted)"""
        finalize_unstarted(self)

    def __iter__(self):
        return self

    def __next__(self):
        return self._resume(None)     # (send's body: one call less per step)

    def _resume(self, value, exc=None):
        if self.primed:
            # start_driver(): the driver's first step only enters `yield from self`
            self.primed = False
            return None
        frame = self.frame
        if self.running:
            raise ValueError(f"{self._kind} already executing")
        if frame.pc < 0:
            if exc is not None:
                raise exc
            self._exhausted()
        if self.started:
            if exc is None:
                frame.stack.append(value)
        else:
            self.started = True
            if exc is not None:
                # thrown in before it started: raised in the frame, at its start
                frameview.add_entry(exc, frame, frame.lasti())
                frame.pc = _DONE
                frame.stack.clear()
                raise exc
            frame.gen = self
        self.running = True
        try:
            result = run_frame(frame, exc) if exc is not None else resume(frame)
        except BaseException:
            exc = value = None     # (see _exc_scope)
            if frame.pc < 0:
                # finished with an exception: as CPython clears the frame, the
                # generator no longer holds its locals and stack (nor its frame
                # object, which keeps what it had for the traceback holding it)
                frame.stack.clear()
                frame.exc_stack = None
                frame.standin = None
                frame.gen = None    # (the frame and this object were a cycle)
            raise
        finally:
            self.running = False
        if frame.pc == RETURN:
            frame.stack.clear()
            frame.standin = None
            frame.gen = None        # (a cycle: a finished frame needs it no more)
            if result is None:
                raise StopIteration
            raise StopIteration(result)
        return result

    def _exhausted(self):
        raise StopIteration

    def _resume_scoped(self, value, exc=None):
        """_resume for throw() and close(): CPython runs the frame with the
        generator's own exception state on top of the caller's (gen_send_ex), so
        what the frame's handlers set and clear is not the caller's.  A native
        caller reaching us through the driver's throw()/close() has pushed none:
        run inside a native generator, whose exception state stands in for it."""
        scope = _exc_scope(self._resume, value, exc)
        exc = None   # (see _exc_scope)
        try:
            scope.send(None)
        except StopIteration as done:
            result, stop = done.value
        else:
            raise SystemError("exception scope yielded")
        if stop is not None:
            try:
                raise stop
            finally:
                stop = None
        return result

    def send(self, value):
        return self._resume(value)

    def throw(self, typ, val=_ABSENT, tb=_ABSENT):
        args = (typ,) if val is _ABSENT else (typ, val) if tb is _ABSENT else (typ, val, tb)
        return self._throw(_normalize(*args), args)

    def _yield_from(self):
        """The sub-iterator the suspended frame is delegating to (yield from / await)."""
        frame = self.frame
        if not self.started or frame.pc < 0:
            return None
        info = frame.info
        pc = frame.pc
        if pc < len(info.opcodes) and info.opcodes[pc] == _RESUME and info.opargs[pc] & 3 >= 2:
            return frame.stack[-1]
        return None

    def _throw(self, exc, args=None, close_on_genexit=True):
        """Throw into the frame, first into the sub-iterator it is delegating to (as CPython)."""
        try:
            yf = self._yield_from()
            if yf is not None:
                if isinstance(exc, GeneratorExit) and close_on_genexit:
                    self.running = True
                    try:
                        try:
                            close = getattr(yf, "close", None)
                        except Exception as err:
                            # CPython reports a failing lookup as unraisable and goes on
                            write_unraisable(err, yf)
                            close = None
                        if close is not None:
                            close()   # (CPython links no frame here, unlike for throw)
                    except BaseException as err:
                        self.running = False
                        return self._resume_scoped(None, err)
                    self.running = False
                    return self._resume_scoped(None, exc)
                meth = getattr(yf, "throw", None)
                if meth is not None:
                    self.running = True
                    try:
                        if type(yf) in (types.GeneratorType, types.CoroutineType):
                            # the frame is the caller of the one thrown into (_gen_throw)
                            result = on_behalf(self.frame, meth, exc)
                        elif args is None:
                            result = meth(exc)
                        else:
                            # as _gen_throw: the arguments throw() was given, up to the first absent one
                            result = meth(*args)
                    except StopIteration as stop:
                        self.running = False
                        return self._finish_yield_from(stop.value)
                    except BaseException as err:
                        self.running = False
                        return self._resume_scoped(None, err)
                    self.running = False
                    return result
            return self._resume_scoped(None, exc)
        except BaseException:
            exc = args = None     # (see _exc_scope)
            raise

    def _finish_yield_from(self, value):
        """The sub-iterator finished with value: the yield from / await expression is done."""
        frame = self.frame
        info = frame.info
        send_pc = info.prev_start[info.prev_start[frame.pc]]
        end_send = info.plain[send_pc][2] + info.opargs[send_pc]  # SEND jumps forward by its oparg
        frame.stack.pop()
        frame.pc = end_send + 1
        return self._resume_scoped(value)

    def close(self):
        if sys.meta_path is None:
            shutdown.bring_back()     # (freed as the host shuts down: shutdown.py)
        frame = self.frame
        if frame.pc < 0 or not self.started:
            frame.pc = _DONE
            return None
        try:
            self._throw(GeneratorExit())
        except GeneratorExit:
            return None
        except StopIteration as stop:
            self.close_value = stop.value
            return stop.value
        raise RuntimeError(f"{self._kind} ignored GeneratorExit")


def _exc_scope(call, value, exc):
    # An exception passed on as an argument must not stay in the locals of a frame
    # it then propagates through: the traceback keeps that frame's locals, and the
    # exception would hold itself in a cycle, outliving (with whatever the frames
    # hold) the moment CPython frees it.  So each such frame lets go of it first.
    try:
        return call(value, exc), None
    except StopIteration as stop:   # a generator must not let it out (PEP 479)
        return None, stop
    except BaseException:
        value = exc = None
        raise
    yield  # noqa: unreachable (makes this a generator: see _resume_scoped)


def on_behalf(f, call, *args):
    """call(*args) made by the suspended frame f while it delegates (throw() and
    close() passed on to what it yields from / awaits): as in CPython, f is the
    caller of what runs meanwhile.  Frame walks (frameview, hostframes) take this
    host frame for a run of the loop whose frame and entry are f."""
    entry = f  # noqa: F841  (read through f_locals, like run_frame's)
    pc = -1    # noqa: F841  (not running an instruction: f is at its yield)
    return call(*args)


frameview.CARRIERS.add(id(on_behalf.__code__))


def _normalize(typ, val=None, tb=None):
    if isinstance(typ, BaseException):
        if val is not None:
            raise TypeError("instance exception may not have a separate value")
        exc = typ
    elif isinstance(typ, type) and issubclass(typ, BaseException):
        # PyErr_NormalizeException: a failure to make the instance becomes the
        # exception that is thrown in
        try:
            if val is None:
                exc = typ()
            elif isinstance(val, typ):
                exc = val
            else:
                exc = typ(*val) if isinstance(val, tuple) else typ(val)
        except BaseException as err:
            return err
        if not isinstance(exc, BaseException):
            return TypeError(f"calling {typ!r} should have returned an instance of "
                             f"BaseException, not {type(exc).__name__}")
    else:
        raise TypeError(f"exceptions must be classes or instances deriving from BaseException, "
                        f"not {type(typ).__name__}")
    if tb is not None:
        exc = exc.with_traceback(tb)
    return exc


class InterpCoroutine(InterpGenerator):
    __slots__ = ()
    _kind = "coroutine"

    def __await__(self):
        return self

    def _exhausted(self):
        raise RuntimeError("cannot reuse already awaited coroutine")


# -- async generators ---------------------------------------------------------
class InterpAsyncGenerator(InterpGenerator):
    __slots__ = ("closed",)
    _kind = "async generator"

    def __init__(self, frame):
        super().__init__(frame)
        self.closed = False

    def asend(self, value):
        return _AsyncStep(self, value, None)

    def athrow(self, typ, val=None, tb=None):
        return _AsyncStep(self, None, _normalize(typ, val, tb))

    def aclose(self):
        return _AsyncStep(self, None, GeneratorExit(), closing=True)

    def _exhausted(self):
        raise StopAsyncIteration


class _AsyncStep:
    """The awaitable of one asend/athrow/aclose: runs the frame to its next async yield."""

    __slots__ = ("agen", "value", "exc", "closing", "state")

    def __init__(self, agen, value, exc, closing=False):
        self.agen, self.value, self.exc, self.closing = agen, value, exc, closing
        self.state = 0

    def __await__(self):
        return self

    def __iter__(self):
        return self

    def __next__(self):
        return self.send(None)

    def send(self, value):
        if self.state == 0:
            self.state = 1
            exc, self.exc = self.exc, None
            if self.closing and (not self.agen.started or self.agen.frame.pc < 0):
                self.agen.frame.pc = _DONE
                raise StopIteration
            return self._step(self.value if exc is None else None, exc)
        return self._step(value, None)

    def throw(self, typ, val=None, tb=None):
        return self._step(None, _normalize(typ, val, tb))

    def close(self):
        """async_gen_asend_close / async_gen_athrow_close: a step in progress gets
        GeneratorExit thrown in; a frame that goes on awaiting ignored it."""
        state, self.state = self.state, 2
        if state != 1:
            return None
        try:
            self._step(None, GeneratorExit())
        except (StopIteration, StopAsyncIteration, GeneratorExit):
            return None
        raise RuntimeError("coroutine ignored GeneratorExit")

    def _step(self, value, exc):
        agen = self.agen
        try:
            if exc is not None and agen.started and agen.frame.pc >= 0:
                result = agen._throw(exc, close_on_genexit=False)
            else:
                result = agen._resume(value, exc)
        except StopIteration:
            if self.closing:
                raise StopIteration from None
            raise StopAsyncIteration from None
        except GeneratorExit:
            if self.closing:
                raise StopIteration from None
            raise
        if type(result) is AsyncGenWrapped:
            if self.closing:
                raise RuntimeError("async generator ignored GeneratorExit")
            raise StopIteration(result.value)
        return result


# -- native drivers -------------------------------------------------------------
# An exception leaving a driver leaves interpreted code into whoever resumed it:
# each driver hands it to tracebacks.leaving (which drops the driver's own entry and
# the interpreter's) and re-raises it as it is, so native code sees CPython's traceback
def _drive_generator(inner):
    try:
        return (yield from inner)
    except GeneratorExit:
        # close() closed inner first; a value inner returned on close is ours to return
        value = inner.close_value
        if value is None:
            raise
        return value
    except BaseException as exc:
        _leaving(exc)
        raise


async def _drive_coroutine(inner):
    try:
        return await inner
    except BaseException as exc:
        _leaving(exc)
        raise


async def _drive_async_generator(inner):
    try:
        try:
            value = await inner.asend(None)
        except StopAsyncIteration:
            return
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                await inner.aclose()
                raise
            except BaseException as exc:
                try:
                    value = await inner.athrow(exc)
                except StopAsyncIteration:
                    return
            else:
                try:
                    value = await inner.asend(sent)
                except StopAsyncIteration:
                    return
    except BaseException as exc:
        _leaving(exc)
        raise


_leaving = tracebacks.leaving
_drive_iterable_coroutine = types.FunctionType(
    _drive_generator.__code__.replace(co_flags=_drive_generator.__code__.co_flags
                                      | host.CO_ITERABLE_COROUTINE),
    globals(), "_drive_iterable_coroutine")

for _fn in (_drive_generator, _drive_coroutine, _drive_async_generator, _drive_iterable_coroutine,
            _exc_scope):
    tracebacks.INTERNAL_CODES.add(_fn.__code__)


def start_driver(driver, inner):
    """Suspend a not yet started native driver inside its `yield from inner`
    (`await inner`) without running inner's frame.

    FOR_ITER_GEN and SEND_GEN run the frame of `inner` in the caller's loop;
    the driver must then be suspended in the delegation, as a started
    generator is, so that close(), throw() and finalization reach `inner`.
    """
    inner.primed = True
    try:
        driver.send(None)
    finally:
        inner.primed = False


# The inner object wrap() made last, weakly: FOR_ITER_GEN and SEND_GEN find a fresh
# driver's inner here (_genframes), not in its frame's locals (~1 us).  While it
# lives, a driver at its driver_addr is its own: drivers are made only by wrap(),
# so a later one at that address would have replaced it here.
LAST_WRAPPED = [lambda: None]
_weak = weakref.ref


def wrap(frame, extra_flags=0):
    """The native object a call of a generator-like function returns.

    extra_flags: flags the called function's __code__ adds to the real code's
    (types.coroutine() marks a generator function CO_ITERABLE_COROUTINE).
    """
    if _views_pending:
        _install_views()
    info = frame.info
    code = info.code
    flags = code.co_flags | extra_flags
    if flags & host.CO_COROUTINE:
        kind, inner = _drive_coroutine, InterpCoroutine(frame)
    elif flags & host.CO_ASYNC_GENERATOR:
        kind, inner = _drive_async_generator, InterpAsyncGenerator(frame)
    elif flags & host.CO_ITERABLE_COROUTINE:
        kind, inner = _drive_iterable_coroutine, InterpGenerator(frame)
    else:
        kind, inner = _drive_generator, InterpGenerator(frame)
    driver = _driver_for(info, kind, frame.globals)
    if kind is _drive_coroutine and _origin_depth():
        obj = _with_origin(driver, inner)
    else:
        obj = driver(inner)
    inner.driver_addr = id(obj)
    LAST_WRAPPED[0] = _weak(inner)
    # named as the function called is named now (make_gen), the driver as its code
    func = frame.func
    if func is not None:
        if func.__name__ is not code.co_name:
            obj.__name__ = func.__name__
        if func.__qualname__ is not code.co_qualname:
            obj.__qualname__ = func.__qualname__
    return obj


def _with_origin(driver, inner):
    """driver(inner) with sys.set_coroutine_origin_tracking_depth() in effect: CPython
    records cr_origin from the frames that create the coroutine, so it is created
    under a chain of stub frames named like the creating frames (interpreted ones
    and the native ones they were called from), innermost first."""
    depth = _origin_depth()
    call, args = driver, (inner,)
    n = 0
    for fr in hostframes._walk(hostframes._orig_getframe(1)):
        if n >= depth:
            break
        code = fr.f_code
        stub = types.FunctionType(named_code(code.co_filename, code.co_name, fr.f_lineno), {})
        call, args = stub, (call, args, {})
        n += 1
    return call(*args)


_drivers = {}   # (id(CodeInfo), driver template) -> driver function named like the code
# ids of every driver code object (templates and named copies, all kept alive),
# by kind: FOR_ITER_GEN / SEND_GEN recognize interpreted generators by these
GENERATOR_DRIVER_IDS = {id(_drive_generator.__code__), id(_drive_iterable_coroutine.__code__)}
COROUTINE_DRIVER_IDS = {id(_drive_coroutine.__code__)}
ASYNC_GENERATOR_DRIVER_IDS = {id(_drive_async_generator.__code__)}


def _driver_for(info, template, globals_):
    """A driver whose code carries the user's name, file and first line, so that
    gi_code / cr_code / ag_code and reprs ("running at file:line") name the
    user's function (the line stays the first line: the driver's frame does not
    move through the user's lines)."""
    key = (id(info), template)
    driver = _drivers.get(key)
    if driver is None:
        real = info.code
        # the real code's flags (CO_NESTED, __future__ features), the driver's own
        # kind and signature
        own = _KIND_FLAGS | host.CO_OPTIMIZED | host.CO_NEWLOCALS
        flags = (template.__code__.co_flags & own) | (
            real.co_flags & ~(own | host.CO_VARARGS | host.CO_VARKEYWORDS))
        code = template.__code__.replace(co_name=real.co_name, co_qualname=real.co_qualname,
                                         co_filename=real.co_filename,
                                         co_firstlineno=real.co_firstlineno, co_flags=flags)
        code = code.replace(co_linetable=_flat_linetable(code))
        tracebacks.INTERNAL_CODES.add(code)
        tracebacks.DRIVEN[id(code)] = info
        if template is _drive_coroutine:
            COROUTINE_DRIVER_IDS.add(id(code))
        elif template is _drive_async_generator:
            ASYNC_GENERATOR_DRIVER_IDS.add(id(code))
        else:
            GENERATOR_DRIVER_IDS.add(id(code))
        driver = _drivers[key] = types.FunctionType(code, template.__globals__, real.co_name)
        info_keepalive.append(info)
    return driver


_KIND_FLAGS = (host.CO_GENERATOR | host.CO_COROUTINE | host.CO_ITERABLE_COROUTINE
               | host.CO_ASYNC_GENERATOR)
info_keepalive = []   # the CodeInfos keyed by id() above stay alive


# -- what a program sees of a driver: its interpreted frame -------------------------
# gi_frame is the interpreted frame's frame object (tracebacks.frame_object, which
# reads the live activation: frameview.py), gi_yieldfrom what that frame delegates
# to, gi_running / gi_suspended its state (a frame FOR_ITER_GEN / SEND_GEN run in
# the caller's loop runs while its driver stays suspended); a finished frame has
# no frame object left, as in CPython.  Each getter answers frameview.NATIVE for
# objects that are not drivers (the original descriptor answers).
_NATIVE_GET = facts.NATIVE_GETTERS
_native_locals = _NATIVE_GET["f_locals"]
_views_pending = True


def _inner_getter(code_attr, frame_attr, driver_ids):
    """f(obj) -> the InterpGenerator a driver delegates to while its frame lives, or
    None (not a driver, or a finished one: the original descriptors answer)."""
    get_code, get_frame = _NATIVE_GET[code_attr], _NATIVE_GET[frame_attr]

    def inner_of(obj):
        if id(get_code(obj)) not in driver_ids:
            return None
        driver_frame = get_frame(obj)
        if driver_frame is None:
            return None
        inner = _native_locals(driver_frame).get("inner")
        return inner if isinstance(inner, InterpGenerator) else None
    return inner_of


def _frame_object(inner):
    """gi_frame of a driver whose frame has not finished: the frame's frame object,
    placed where the frame is (a running frame's linked to its callers; a
    suspended one's f_back is None, as CPython's)."""
    frame = inner.frame
    if inner.running:
        return frameview.frame_object_linked(frame)
    fresh = frame.standin is None
    stand = frameview.frame_object(frame)
    if not fresh and id(stand) not in frameview.LIVE:
        frameview.register_live(stand, frame)
    tracebacks.place(frame, stand, frame.lasti())
    facts.set_frame_back(stand, None)
    return stand


def _views(prefix, code_attr, frame_attr, await_attr, driver_ids, native):
    inner_of = _inner_getter(code_attr, frame_attr, driver_ids)

    def frame_view(obj):
        inner = inner_of(obj)
        if inner is None:
            return native
        if inner.frame.pc < 0:
            return None
        return _frame_object(inner)

    def yield_from_view(obj):
        inner = inner_of(obj)
        return native if inner is None else inner._yield_from()

    def running_view(obj):
        inner = inner_of(obj)
        return True if inner is not None and inner.running else native

    def suspended_view(obj):
        inner = inner_of(obj)
        if inner is None:
            return native
        if inner.running or inner.frame.pc < 0:
            return False
        return native

    get_code = _NATIVE_GET[code_attr]

    def code_view(obj):
        # the code of the function called (its __code__), finished or not
        info = tracebacks.DRIVEN.get(id(get_code(obj)))
        if info is None:
            return native
        return info.trampoline or info.code

    views = {frame_attr: frame_view, await_attr: yield_from_view,
             prefix + "suspended": suspended_view, code_attr: code_view}
    if prefix != "ag_":        # (ag_running is a member: the driver's own flag)
        views[prefix + "running"] = running_view
    return views


def _install_views():
    global _views_pending
    _views_pending = False
    if facts.PROBLEM is not None:
        return
    native = frameview.NATIVE
    frameview.override_getsets(types.GeneratorType, _views(
        "gi_", "gi_code", "gi_frame", "gi_yieldfrom", GENERATOR_DRIVER_IDS, native))
    frameview.override_getsets(types.CoroutineType, _views(
        "cr_", "cr_code", "cr_frame", "cr_await", COROUTINE_DRIVER_IDS, native))
    frameview.override_getsets(types.AsyncGeneratorType, _views(
        "ag_", "ag_code", "ag_frame", "ag_await", ASYNC_GENERATOR_DRIVER_IDS, native))


def finalize_unstarted(inner):
    """frame.clear() of the frame object of a generator not started yet: CPython
    finalizes the generator (_PyGen_Finalize: a coroutine warns that it was never
    awaited, any other is closed).  Done to its driver, whose own frame is cleared."""
    for obj in gc.get_referrers(inner):
        t = type(obj)
        if t is types.GeneratorType:
            attr = "gi_frame"
        elif t is types.CoroutineType:
            attr = "cr_frame"
        elif t is types.AsyncGeneratorType:
            attr = "ag_frame"
        else:
            continue
        driver_frame = _NATIVE_GET[attr](obj)
        if driver_frame is not None and _native_locals(driver_frame).get("inner") is inner:
            driver_frame.clear()     # (a driver's frame: the original method)
            if _NATIVE_GET[attr](obj) is None:
                inner.frame.pc = _DONE      # closed (a coroutine only warned)
            return
