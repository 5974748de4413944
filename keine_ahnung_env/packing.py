"""One buffer for a core's state and constants, so that a kernel call passes two arrays, not ~60.

Numba's compiled entry point unboxes every array argument at every call (~0.1 us each): a Keine
Ahnung core's state tuple (31 arrays) and constants (12 arrays, 22 scalars) cost ~5 us per call, more
than a batch-1 step of the rules. :func:`pack` copies the state arrays and the constants into one
aligned ``uint8`` buffer, and the core's state attributes become views into it, so the arrays a user
reads and writes are the ones the kernels see, as before. Each game's ``kernels.unpack(buf, meta)``
rebuilds its ``State`` and ``Consts`` tuples inside compiled code from the buffer and a small table,
``meta`` ([rows, 5] int64, one row per field, the state's fields first, then the constants'):

| column | meaning                                                                    |
|--------|----------------------------------------------------------------------------|
| 0      | byte offset of the field in the buffer (a multiple of 64; the buffer starts on a 64-byte line) |
| 1      | its length in bytes                                                        |
| 2-4    | its shape, padded with zeros (a scalar constant: shape ``()``, 8 bytes)     |

A scalar constant is stored as one 8-byte value (int64 for integers and booleans, float64 for floats)
and read with :func:`int_at` / :func:`bool_at` / :func:`float_at`; an array field with
:func:`field1` / :func:`field2` / :func:`field3` and its dtype. ``unpack`` is written by hand for each
game, in the order of its ``STATE_FIELDS`` and ``Consts``; :func:`check_unpacked` (the tests) compares
what it returns with the tuples field by field: dtype, shape, values and, for the state, the memory.

The entry points that take the buffer are the same for every game (unpack, then run the serial
loop): :func:`define_packed_entry_points` compiles them once per game, from the templates at the end
of this module, with that game's ``unpack`` and the body of its serial loop spliced in (so a first use
compiles each loop once).
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

ALIGN = 64
"""Every field starts at a multiple of this many bytes (a cache line)."""


def pack(state: tuple, consts: tuple) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """``(buf, meta, views)``: the state arrays and the constants (named tuples) copied into one buffer,
    the ``meta`` table of the module docstring, and the state arrays' views into ``buf`` (in the order
    of ``state``), which replace the core's own arrays."""
    items, shapes = [], []
    for value in tuple(state) + tuple(consts):
        if isinstance(value, np.ndarray):
            if value.ndim > 3:
                raise ValueError(f"pack: arrays of at most 3 dimensions; got shape {value.shape}")
            items.append(np.ascontiguousarray(value))
            shapes.append(value.shape)
        elif isinstance(value, (bool, np.bool_, int, np.integer)):
            items.append(np.array([int(value)], np.int64))
            shapes.append(())
        elif isinstance(value, (float, np.floating)):
            items.append(np.array([float(value)], np.float64))
            shapes.append(())
        else:
            raise ValueError(f"pack: a field must be an array, an integer, a boolean or a float; got {type(value)}")
    meta = np.zeros((len(items), 5), np.int64)
    offset = 0
    for i, (item, shape) in enumerate(zip(items, shapes)):
        meta[i, 0], meta[i, 1] = offset, item.nbytes
        meta[i, 2 : 2 + len(shape)] = shape
        offset += -(-max(item.nbytes, 1) // ALIGN) * ALIGN
    raw = np.zeros(offset + ALIGN, np.uint8)  # NumPy aligns to 16 bytes: start the buffer at a cache line
    start = -raw.ctypes.data % ALIGN
    buf = raw[start : start + offset]
    views = []
    for i, item in enumerate(items):
        lo = int(meta[i, 0])
        view = buf[lo : lo + item.nbytes].view(item.dtype).reshape(item.shape)
        view[...] = item
        if i < len(state):
            views.append(view)
    return buf, meta, views


def _view(context, builder, buf_type, buf, offset, shapes, result):
    """The code of a C-contiguous array ``result`` (a Numba array type) of ``shapes`` (LLVM integers)
    over ``buf``'s memory from byte ``offset``, sharing ``buf``'s reference count."""
    source = context.make_array(buf_type)(context, builder, buf)
    out = context.make_array(result)(context, builder)
    itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(result.dtype)))
    strides, stride = [None] * len(shapes), itemsize
    for d in range(len(shapes) - 1, -1, -1):
        strides[d] = stride
        stride = builder.mul(stride, shapes[d])
    data = builder.bitcast(builder.gep(source.data, [offset]), out.data.type)
    populate_array(out, data=data, shape=shapes, strides=strides, itemsize=itemsize, meminfo=source.meminfo)
    return impl_ret_borrowed(context, builder, result, out._getvalue())


# The field readers are intrinsics, not jitted functions: ``unpack`` calls one per field (~60), and
# Numba inlines a jitted function by compiling and copying its code at every call site, which cost a
# second per ``unpack`` at every packed entry point's first compile; an intrinsic is typed once and
# emits the same few instructions (``meta``'s row i: offset and shape, then the view).


def _meta_at(context, builder, meta_type, meta, i, i_type, col):
    """``meta[i, col]`` (int64) in generated code, for a row ``i`` in range (no wraparound)."""
    array = context.make_array(meta_type)(context, builder, meta)
    row = context.cast(builder, i, i_type, types.intp)
    pointer = cgutils.get_item_pointer2(context, builder, array.data, cgutils.unpack_tuple(builder, array.shape, 2),
                                        cgutils.unpack_tuple(builder, array.strides, 2), meta_type.layout,
                                        [row, context.get_constant(types.intp, col)])
    return builder.load(pointer)


def _field_reader(ndim: int):
    """The intrinsic ``field<ndim>(buf, meta, i, dtype)``."""

    def field(typingctx, buf, meta, i, dtype):
        result = types.Array(dtype.instance_type, ndim, "C")

        def codegen(context, builder, signature, args):
            at = lambda col: _meta_at(context, builder, signature.args[1], args[1], args[2], signature.args[2], col)  # noqa: E731
            return _view(context, builder, signature.args[0], args[0], at(0), [at(2 + d) for d in range(ndim)], result)

        return result(buf, meta, i, dtype), codegen

    return field


def _scalar_reader(kind: str):
    """The intrinsic ``<kind>_at(buf, meta, i)`` (kind: int, bool or float): the 8-byte scalar of row i."""
    stored = types.float64 if kind == "float" else types.int64
    returned = types.boolean if kind == "bool" else stored

    def reader(typingctx, buf, meta, i):
        def codegen(context, builder, signature, args):
            offset = _meta_at(context, builder, signature.args[1], args[1], args[2], signature.args[2], 0)
            source = context.make_array(signature.args[0])(context, builder, args[0])
            pointer = builder.bitcast(builder.gep(source.data, [offset]), context.get_data_type(stored).as_pointer())
            value = builder.load(pointer)
            if kind == "bool":
                return builder.icmp_signed("!=", value, context.get_constant(types.int64, 0))
            return value

        return returned(buf, meta, i), codegen

    return reader


def _named_intrinsic(function, name: str, doc: str):
    """``function`` (an intrinsic's typing function) as the intrinsic ``name``, documented ``doc``."""
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return intrinsic(function)


field1 = _named_intrinsic(_field_reader(1), "field1", """Field ``i`` as a 1-d array of ``dtype`` (a view into ``buf``).""")
field2 = _named_intrinsic(_field_reader(2), "field2", """Field ``i`` as a 2-d array of ``dtype``.""")
field3 = _named_intrinsic(_field_reader(3), "field3", """Field ``i`` as a 3-d array of ``dtype``.""")
int_at = _named_intrinsic(_scalar_reader("int"), "int_at", """Scalar constant ``i`` (an integer).""")
bool_at = _named_intrinsic(_scalar_reader("bool"), "bool_at", """Scalar constant ``i`` (a boolean).""")
float_at = _named_intrinsic(_scalar_reader("float"), "float_at", """Scalar constant ``i`` (a float).""")


@njit(cache=True, _nrt=False)
def check_actions_kernel(actions, active, terminated, truncated, legal_mask):
    """``(live games, first out-of-range game, first illegal game, illegal games)`` among the active
    live games (-1 where none; a game is live when neither ``terminated`` nor ``truncated``); changes
    nothing. One compiled pass, so that ``step`` pays no NumPy temporaries for its checks."""
    live, first_out, first_bad, bad = 0, -1, -1, 0
    A = legal_mask.shape[1]
    for b in range(actions.shape[0]):
        if terminated[b] or truncated[b]:
            continue
        live += 1
        if not active[b]:
            continue
        a = actions[b]
        if a < 0 or a >= A:
            if first_out < 0:
                first_out = b
        elif not legal_mask[b, a]:
            if first_bad < 0:
                first_bad = b
            bad += 1
    return live, first_out, first_bad, bad


def check_unpacked(state: tuple, consts: tuple, unpacked_state: tuple, unpacked_consts: tuple) -> list[str]:
    """The differences between a core's tuples and what its ``kernels.unpack`` made of the buffer (an
    empty list when they agree): per field, the dtype, the shape and the values, for a scalar its type
    and value, and for a state array whether it is the very memory of the core's array."""
    problems = []
    for kind, ours, theirs in (("state", state, unpacked_state), ("consts", consts, unpacked_consts)):
        if len(ours) != len(theirs):
            problems.append(f"{kind}: {len(theirs)} fields unpacked; expected {len(ours)}")
            continue
        for name, want, got in zip(type(ours)._fields, ours, theirs):
            if isinstance(want, np.ndarray):
                if not isinstance(got, np.ndarray) or got.dtype != want.dtype or got.shape != want.shape:
                    problems.append(f"{kind}.{name}: got {getattr(got, 'dtype', type(got))} "
                                    f"{getattr(got, 'shape', '')}; expected {want.dtype} {want.shape}")
                elif not np.array_equal(got, want):
                    problems.append(f"{kind}.{name}: values differ")
                elif kind == "state" and got.__array_interface__["data"][0] != want.__array_interface__["data"][0]:
                    problems.append(f"{kind}.{name}: not the core's memory")
            else:
                want_type = bool if isinstance(want, (bool, np.bool_)) else \
                    int if isinstance(want, (int, np.integer)) else float
                if not isinstance(got, want_type) or (want_type is int and isinstance(got, bool)) or got != want:
                    problems.append(f"{kind}.{name}: got {got!r}; expected {want!r}")
    return problems


def unpack_source(state: tuple, consts: tuple) -> str:
    """The source of a game's ``unpack(buf, meta)`` for these tuples (a core's ``_state()`` and ``_k``):
    a starting point for a new game's kernels module, checked there by :func:`check_unpacked`."""
    def read(i, value):
        if isinstance(value, np.ndarray):
            return f"field{value.ndim}(buf, meta, {i}, np.{'bool_' if value.dtype == np.bool_ else value.dtype.name})"
        kind = "bool" if isinstance(value, (bool, np.bool_)) else "int" if isinstance(value, (int, np.integer)) \
            else "float"
        return f"{kind}_at(buf, meta, {i})"

    n = len(state)
    lines = ['@njit(cache=True, inline="always", _nrt=False)', "def unpack(buf, meta):",
             '    """The ``State`` and ``Consts`` tuples from a core\'s packed buffer (``packing.py``)."""',
             "    s = State("]
    lines += [f"        {read(i, v)},  # {name}" for i, (name, v) in enumerate(zip(type(state)._fields, state))]
    lines += ["    )", "    k = Consts("]
    lines += [f"        {read(n + i, v)},  # {name}" for i, (name, v) in enumerate(zip(type(consts)._fields, consts))]
    lines += ["    )", "    return s, k"]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ every game's packed entry points
# Templates, compiled once per game by ``define_packed_entry_points``: their free names (``unpack``,
# ``step_range``, ``deal_range``, ``observe_range`` and ``check_actions_kernel``) are looked up in the
# game's kernels module when Numba compiles them, so each game gets its own machine code, as if the
# functions were written in its module.
#
# In a packed template a statement that calls one of the game's serial loops (``step_range(s, k, ...)``
# with the loop's own parameter names) is replaced by that loop's body, taken from the game's source:
# the packed entry point is then the loop itself. Calling the compiled loop instead compiled it on its
# own first and then optimized and generated its machine code again inside every caller (a first
# Keine Ahnung env step compiled its step loop three times over: ``step_range``,
# ``step_range_checked`` and the packed twin); Numba's ``inline="always"`` copies the loop's whole
# expanded code (the rules inlined into it), which costs as much.


def _step_range_packed(buf, meta, actions, active, lo, hi):
    """``step_range`` on a packed core."""
    s, k = unpack(buf, meta)  # noqa: F821 (the game's)
    step_range(s, k, actions, active, lo, hi)  # noqa: F821


def _step_range_checked(s, k, actions, active, lo, hi):
    """``check_actions_kernel``'s findings for the whole batch; ``step_range`` runs only when they find
    no fault (so a bad action changes nothing). One call where a small batch paid two."""
    findings = check_actions_kernel(actions, active, s.terminated, s.truncated, s.legal_mask)
    live, first_out, first_bad, _ = findings
    if live > 0 and first_out < 0 and first_bad < 0:
        step_range(s, k, actions, active, lo, hi)  # noqa: F821
    return findings


def _step_range_checked_packed(buf, meta, actions, active, lo, hi):
    """``step_range_checked`` on a packed core."""
    s, k = unpack(buf, meta)  # noqa: F821
    findings = check_actions_kernel(actions, active, s.terminated, s.truncated, s.legal_mask)
    live, first_out, first_bad, _ = findings
    if live > 0 and first_out < 0 and first_bad < 0:
        step_range(s, k, actions, active, lo, hi)  # noqa: F821
    return findings


def _deal_range_packed(buf, meta, games, lo, hi):
    """``deal_range`` on a packed core."""
    s, k = unpack(buf, meta)  # noqa: F821
    deal_range(s, k, games, lo, hi)  # noqa: F821


def _observe_range_packed(buf, meta, games, seats, out, lo, hi):
    """``observe_range`` on a packed core."""
    s, k = unpack(buf, meta)  # noqa: F821
    observe_range(s, k, games, seats, out, lo, hi)  # noqa: F821


_TEMPLATES = (_step_range_packed, _step_range_checked, _step_range_checked_packed, _deal_range_packed,
              _observe_range_packed)

_SPLICED = ("step_range", "deal_range", "observe_range")
"""The serial loops whose bodies replace their calls in the packed templates."""


def _function_ast(function) -> ast.FunctionDef:
    """``function``'s definition as an AST with the line numbers of its source file."""
    lines, first = inspect.getsourcelines(function)
    definition = ast.parse(textwrap.dedent("".join(lines))).body[0]
    ast.increment_lineno(definition, first - 1)
    definition.decorator_list = []
    return definition


def _loop_body(definition: ast.FunctionDef) -> list[ast.stmt] | None:
    """A serial loop's statements without its docstring; None where they hold a ``return`` (which
    would leave the template early) or a nested function."""
    body = definition.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, (ast.Return, ast.FunctionDef, ast.Lambda, ast.Yield)):
            return None
    return body


def _bound_names(nodes) -> set[str]:
    """The names ``nodes`` (AST nodes) assign to, parameters included."""
    names = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return names


class _SpliceLoops(ast.NodeTransformer):
    """Replaces each statement ``loop(a, b, ...)`` whose arguments are the loop's own parameter names
    by the loop's body (``bodies``: name -> (parameter names, statements)), unless the body assigns a
    name the template binds too (``template_names``): then the call stays."""

    def __init__(self, bodies: dict, template_names: set[str]):
        self.bodies = bodies
        self.template_names = template_names

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in self.bodies \
                and not call.keywords and all(isinstance(a, ast.Name) for a in call.args):
            params, body = self.bodies[call.func.id]
            if [a.id for a in call.args] == params and not _bound_names(body) & self.template_names:
                return copy.deepcopy(body)
        return node


def _spliced_function(template, namespace: dict, name: str, bodies: dict):
    """The template's function with the game's loops spliced in, compiled with the module's globals
    and file name (lines of the template keep this file's numbers, the loops' lines their own)."""
    definition = _function_ast(template)
    definition.name = name
    definition = _SpliceLoops(bodies, _bound_names([definition])).visit(definition)
    module = ast.fix_missing_locations(ast.Module(body=[definition], type_ignores=[]))
    scope: dict = {}
    exec(compile(module, namespace["__file__"], "exec"), namespace, scope)
    function = scope[name]
    function.__qualname__ = name
    function.__doc__ = template.__doc__
    return function


def define_packed_entry_points(namespace: dict) -> dict:
    """Compiles the packed entry points into a game's kernels module, whose globals are ``namespace``
    (call it as ``PACKED = define_packed_entry_points(globals())`` after ``unpack``, ``step_range``,
    ``deal_range`` and ``observe_range``): adds ``step_range_packed``, ``step_range_checked``,
    ``step_range_checked_packed``, ``deal_range_packed`` and ``observe_range_packed`` to it and returns
    ``PACKED``, the serial entry points' packed twins that ``CompiledCore._run`` calls on a packed core.

    Each function is the template's code, the game's serial loops spliced in (see the templates), with
    the module's globals and the module's file name, so Numba caches its machine code beside the
    module's own kernels (``__pycache__`` of the game's folder), where the module's ``drop_stale_cache``
    (which lists this file) keeps it true; Numba's cache notices a change of the module's source
    itself. A Numba error inside one names the game's ``kernels.py``, with the loop's own line numbers
    there and this file's for the template's lines. Numba compiles each at its first call."""
    bodies = {}
    for loop in _SPLICED:
        definition = _function_ast(namespace[loop].py_func)
        body = _loop_body(definition)
        if body is not None:
            bodies[loop] = ([a.arg for a in definition.args.args], body)
    for template in _TEMPLATES:
        name = template.__name__.lstrip("_")
        # step_range_checked (the tuple version) keeps calling the compiled step_range: it serves
        # unpacked cores, which compile step_range anyway.
        function = _spliced_function(template, namespace, name, {} if name == "step_range_checked" else bodies)
        namespace[name] = njit(cache=True, _nrt=False)(function)
    return {namespace["step_range"]: namespace["step_range_packed"],
            namespace["step_range_checked"]: namespace["step_range_checked_packed"],
            namespace["deal_range"]: namespace["deal_range_packed"],
            namespace["observe_range"]: namespace["observe_range_packed"]}
