"""Bit and memory primitives the compiled kernels share (Numba intrinsics: one LLVM instruction each).

* :func:`popcount`, :func:`count_trailing_zeros`: set bits and trailing zero bits of an integer word;
* :func:`load_word`: 8 bytes of a row of a byte array (bool, int8, uint8) as one integer, by one
  unaligned load (byte i = bits 8i..8i+7): masks read a word at a time instead of a byte at a time;
* :func:`byte_bits`: which of up to 64 bytes of a row of a byte array equal a constant, as the bits of
  one integer, by one (masked) vector load and compare: a bit set per card location without a loop;
* :func:`prefetch`, :func:`prefetch_write`: ask the CPU to bring an element's cache line closer, for
  reading or for writing (a hint: no load, no fault);
* :func:`copy_row`: a row of a table into a 1-d array as one fixed-size ``memcpy`` (vector loads and
  stores; an element-by-element loop between arrays that might overlap stays one scalar store per
  element);
* :func:`store_bit_bytes`: the low bits of a word as a row of 0/1 bytes (a mask row from its bit set), by
  a few vector stores;
* :func:`opaque`: a value LLVM cannot see through, so that addresses computed from it are not hoisted
  out of a loop (see there).

A kernel module that compiles these in names this file in its ``kernel_cache.drop_stale_cache`` list.
"""

from __future__ import annotations

import sys

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

_BYTES = (types.boolean, types.int8, types.uint8)


def _is_row_array(array, byte_dtype: bool) -> bool:
    """A C-contiguous 2-d array (of bytes, where ``byte_dtype``): what the row-address helpers accept."""
    return isinstance(array, types.Array) and array.ndim == 2 and array.layout == "C" \
        and (not byte_dtype or array.dtype in _BYTES)


def _element_address(context, builder, signature, args):
    """The ``i8*`` address of ``array[row, col]`` (``args[:3]``, a C-contiguous 2-d array)."""
    array_type, row_type, col_type = signature.args[:3]
    data = context.make_array(array_type)(context, builder, args[0])
    row = context.cast(builder, args[1], row_type, types.intp)
    col = context.cast(builder, args[2], col_type, types.intp)
    itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(array_type.dtype)))
    offset = builder.add(builder.mul(row, builder.extract_value(data.strides, 0)), builder.mul(col, itemsize))
    return builder.gep(builder.bitcast(data.data, ir.IntType(8).as_pointer()), [offset])


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of a uint64 (LLVM's ctpop)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(x), codegen


@intrinsic
def count_trailing_zeros(typingctx, x):
    """The number of trailing zero bits of an integer, as an int64 (64 for 0; LLVM's cttz)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.cttz(value, ir.Constant(ir.IntType(1), 0))
    return types.int64(x), codegen


@intrinsic
def load_word(typingctx, array, row, col):
    """The 8 bytes ``array[row, col:col + 8]`` of a C-contiguous 2-d byte array as one uint64."""
    if not _is_row_array(array, byte_dtype=True):
        return None

    def codegen(context, builder, signature, args):
        address = _element_address(context, builder, signature, args)
        word = builder.load(builder.bitcast(address, ir.IntType(64).as_pointer()), align=1)
        if sys.byteorder != "little":  # byte i of the row is bits 8i..8i+7 of the word
            word = builder.bswap(word)
        return word
    return types.uint64(array, row, col), codegen


@intrinsic
def byte_bits(typingctx, array, row, col, count, value):
    """The bits of ``array[row, col + j] == value`` for ``j < count`` as a uint64 (bit j; the bits from
    ``count`` on are 0): ``array`` a C-contiguous 2-d byte array (bool, int8, uint8), ``count`` at most 64
    (0 or less: 0; more: 64), ``value`` a compile-time constant (a module-level int). No byte outside the
    row is read: where the 64 bytes that end at ``col + count`` lie in the row, one plain vector load of
    them and one byte compare, the bits shifted down; else (a row shorter than 64 bytes, or fewer than 64
    bytes from its start) one masked load of the ``count`` bytes (LLVM's ``masked.load``, which reads no
    byte the mask leaves out). With AVX-512BW: ``vpcmpeqb`` into a mask register and ``kmovq``; with AVX2
    two 32-byte compares and ``vpmovmskb``. The masked load is a few instructions with AVX-512BW and
    emulated without it (~800 instructions with AVX2 only): the plain load first made the Keine Ahnung
    encoder 0.60x the time of its byte-by-byte predecessor there, not 0.95x (``NUMBA_CPU_NAME=haswell``,
    AVX-512 turned off in ``NUMBA_CPU_FEATURES``; research/README.md)."""
    if not (_is_row_array(array, byte_dtype=True) and isinstance(count, types.Integer)
            and isinstance(value, types.IntegerLiteral)):
        return None
    byte = value.literal_value & 0xFF

    def codegen(context, builder, signature, args):
        address = _element_address(context, builder, signature, args)
        i64, i8 = ir.IntType(64), ir.IntType(8)
        n = context.cast(builder, args[3], signature.args[3], types.int64)
        n = builder.select(builder.icmp_signed(">", n, ir.Constant(i64, 64)), ir.Constant(i64, 64), n)
        low = builder.lshr(ir.Constant(i64, -1), builder.sub(ir.Constant(i64, 64), n))  # n <= 64 here; n <= 0 below
        low = builder.select(builder.icmp_signed("<=", n, ir.Constant(i64, 0)), ir.Constant(i64, 0), low)
        vector = ir.VectorType(i8, 64)
        splat = ir.Constant(vector, [byte] * 64)
        # The 64 bytes that end at col + count, where they lie in the row: a plain load, the bits shifted down.
        col = context.cast(builder, args[2], signature.args[2], types.int64)
        start = builder.sub(builder.add(col, n), ir.Constant(i64, 64))
        width = builder.extract_value(context.make_array(signature.args[0])(context, builder, args[0]).shape, 1)
        window = builder.and_(builder.and_(builder.icmp_signed(">", n, ir.Constant(i64, 0)),
                                           builder.icmp_signed(">=", start, ir.Constant(i64, 0))),
                              builder.icmp_signed("<=", builder.add(start, ir.Constant(i64, 64)), width))
        result = cgutils.alloca_once(builder, i64)
        with builder.if_else(window, likely=True) as (plain, masked):
            with plain:
                at = builder.gep(address, [builder.sub(n, ir.Constant(i64, 64))])
                data = builder.load(builder.bitcast(at, vector.as_pointer()), align=1)
                bits = builder.bitcast(builder.icmp_unsigned("==", data, splat), i64)
                builder.store(builder.lshr(bits, builder.sub(ir.Constant(i64, 64), n)), result)
            with masked:
                lanes = builder.bitcast(low, ir.VectorType(ir.IntType(1), 64))
                fnty = ir.FunctionType(vector, [address.type, ir.IntType(32), lanes.type, vector])
                fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.masked.load.v64i8.p0")
                align = ir.Constant(ir.IntType(32), 1)
                data = builder.call(fn, [address, align, lanes, ir.Constant(vector, None)])
                bits = builder.bitcast(builder.icmp_unsigned("==", data, splat), i64)
                builder.store(builder.and_(bits, low), result)
        return builder.load(result)
    return types.uint64(array, row, col, count, value), codegen


def _prefetch_codegen(write: int):
    """LLVM's ``prefetch`` of an element's cache line: for reading (0) or writing (1), high locality."""
    def codegen(context, builder, signature, args):
        address = _element_address(context, builder, signature, args)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [address.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [address, ir.Constant(i32, write), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return codegen


@intrinsic
def prefetch(typingctx, array, row, col):
    """Asks the CPU to bring the cache line of ``array[row, col]`` (a C-contiguous 2-d array) closer
    (LLVM's ``prefetch``, for reading, high locality)."""
    if not _is_row_array(array, byte_dtype=False):
        return None
    return types.void(array, row, col), _prefetch_codegen(0)


@intrinsic
def prefetch_write(typingctx, array, row, col):
    """:func:`prefetch` for writing: the line comes in owned, so the stores that follow need not wait."""
    if not _is_row_array(array, byte_dtype=False):
        return None
    return types.void(array, row, col), _prefetch_codegen(1)


@intrinsic
def copy_row(typingctx, dst, start, table, row, count):
    """Copies ``table[row, :count]`` into ``dst[start:start + count]``: ``dst`` a C-contiguous 1-d array,
    ``table`` a C-contiguous 2-d array of the same dtype, ``count`` a compile-time constant (a module-level
    int), the two not overlapping. One ``memcpy`` of a constant size, which LLVM turns into a few vector
    loads and stores."""
    if not (isinstance(dst, types.Array) and dst.ndim == 1 and dst.layout == "C" and _is_row_array(table, False)
            and dst.dtype == table.dtype and isinstance(count, types.IntegerLiteral)):
        return None
    n = count.literal_value

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        out = context.make_array(signature.args[0])(context, builder, args[0])
        src = context.make_array(signature.args[2])(context, builder, args[2])
        at = context.cast(builder, args[1], signature.args[1], types.intp)
        r = context.cast(builder, args[3], signature.args[3], types.intp)
        intp = context.get_value_type(types.intp)
        dst_address = builder.gep(builder.bitcast(out.data, i8p), [builder.mul(at, ir.Constant(intp, itemsize))])
        row_offset = builder.mul(r, builder.extract_value(src.strides, 0))
        src_address = builder.gep(builder.bitcast(src.data, i8p), [row_offset])
        cgutils.raw_memcpy(builder, dst_address, src_address, ir.Constant(intp, n * itemsize), 1)
        return context.get_dummy_value()
    return types.void(dst, start, table, row, count), codegen


@intrinsic
def store_bit_bytes(typingctx, array, row, col, bits, count):
    """Writes the ``count`` (a literal, at most 64) low bits of the uint64 ``bits`` as ``count`` bytes of
    0/1 at ``array[row, col:col + count]`` (a C-contiguous 2-d byte array; byte i = bit i): a few vector
    instructions per 32 bytes (LLVM's ``<n x i1>`` to ``<n x i8>`` extension: a mask move and a masked byte move
    with AVX-512) instead of a store per byte or a multiply-and-shift spread per 8 bytes. Byte i is bit i
    on the little-endian targets Numba supports (x86-64, aarch64, ppc64le)."""
    if not (_is_row_array(array, byte_dtype=True) and bits == types.uint64
            and isinstance(count, types.IntegerLiteral) and 0 < count.literal_value <= 64):
        return None
    n = count.literal_value

    def codegen(context, builder, signature, args):
        base = _element_address(context, builder, signature, args)
        word = args[3]
        start = 0
        for size in (32, 16, 8, 4, 2, 1):  # the count as stores of descending powers of two
            while n - start >= size:
                chunk = builder.trunc(builder.lshr(word, ir.Constant(ir.IntType(64), start)), ir.IntType(size))
                flags = builder.bitcast(chunk, ir.VectorType(ir.IntType(1), size))
                byte_values = builder.zext(flags, ir.VectorType(ir.IntType(8), size))
                address = builder.gep(base, [ir.Constant(ir.IntType(64), start)])
                builder.store(byte_values, builder.bitcast(address, byte_values.type.as_pointer()), align=1)
                start += size
        return context.get_dummy_value()
    return types.void(array, row, col, bits, count), codegen


@intrinsic
def opaque(typingctx, x):
    """``x`` unchanged, through an empty inline-assembly statement LLVM cannot see through: what is
    computed from the result is computed where it is used. In a loop that uses the value of ``x`` from
    before the loop, LLVM otherwise hoists every address computed from it (a row pointer per array: a
    multiply, loads of the array's data pointer and stride) into the loop's preheader, where ~10 of them
    spilled to the stack cost more than the few that one pass through the loop needs. No instruction is
    emitted for it."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value_type = context.get_value_type(signature.args[0])
        return builder.asm(ir.FunctionType(value_type, [value_type]), "", "=r,0", [args[0]], side_effect=False)
    return x(x), codegen
