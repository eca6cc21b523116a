"""Built-in engine, worker side: one-instruction popcount and trailing zeros for compiled kernels (numba only).

numba compiles ``int.bit_count`` for no integer type; the join's inner loop
counts the set bits of eight words per group of 512 pairs, so a shift-and-mask
popcount there would cost more than the AND it counts. These intrinsics compile
to LLVM's ``ctpop`` and ``cttz`` (``popcnt`` and ``tzcnt`` on x86-64), and the
join's whole test of one half board against a group (``clashes8``,
``clashes16``) to vector ORs and a vector popcount.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx: Any, word: Any) -> Any:
    """Set bits of an unsigned 64-bit word."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def trailing_zeros(typingctx: Any, word: Any) -> Any:
    """The position of the lowest set bit of an unsigned 64-bit word (64 for zero)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return types.uint64(types.uint64), codegen


def _clashes_of(vectors: int) -> Any:
    """The intrinsic ``clashes`` for groups of ``4 * vectors`` words (see ``clashes8``)."""
    words = 4 * vectors

    @intrinsic
    def clashes(typingctx: Any, tables: Any, packed: Any, chunks: Any, chunk_bits: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            _, packed, chunks, chunk_bits = args
            i64 = ir.IntType(64)
            vector = ir.VectorType(i64, 4)
            pointer = vector.as_pointer()
            sums = [cgutils.alloca_once_value(builder, ir.Constant(vector, [0] * 4)) for _ in range(vectors)]
            entries = builder.shl(ir.Constant(i64, 1), chunk_bits)
            low = builder.sub(entries, ir.Constant(i64, 1))
            with cgutils.for_range(builder, chunks) as loop:
                entry = builder.and_(builder.lshr(packed, builder.mul(loop.index, chunk_bits)), low)
                row = builder.add(builder.mul(loop.index, entries), entry)
                offset = builder.mul(row, ir.Constant(i64, words))
                for index, acc in enumerate(sums):
                    address = builder.gep(data, [builder.add(offset, ir.Constant(i64, 4 * index))])
                    loaded = builder.load(builder.bitcast(address, pointer), align=8)
                    builder.store(builder.or_(builder.load(acc), loaded), acc)
            count = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(vector, [vector]), "llvm.ctpop.v4i64"
            )
            total = builder.call(count, [builder.load(sums[0])])
            for acc in sums[1:]:
                total = builder.add(total, builder.call(count, [builder.load(acc)]))
            reduce = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i64, [vector]), "llvm.vector.reduce.add.v4i64"
            )
            return builder.call(reduce, [total])

        return types.int64(tables, types.uint64, types.int64, types.int64), codegen

    return clashes


# The conflicting slots of one group for one right half board: the OR, over the board's chunks of
# diagonal bits, of the group's table row for that chunk's value (``chunks`` rows of ``1 << chunk_bits``
# entries of 8 or 16 words, flat), then its set bits counted. Written in LLVM's vector types: numba
# leaves the 8 or 16 ORs scalar, and AVX2 does four words an instruction (measured 2.3x to 3.6x faster).
clashes8 = _clashes_of(2)
clashes16 = _clashes_of(4)


def _or_row_of(vectors: int) -> Any:
    """The intrinsic ``or_row`` for rows of ``4 * vectors`` words (see ``or_row8``)."""

    @intrinsic
    def or_row(typingctx: Any, target: Any, at: Any, first: Any, first_at: Any, second: Any, second_at: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            arrays = [context.make_array(signature.args[i])(context, builder, args[i]).data for i in (0, 2, 4)]
            starts = [args[1], args[3], args[5]]
            i64 = ir.IntType(64)
            pointer = ir.VectorType(i64, 4).as_pointer()

            def address(which: int, index: int) -> Any:
                place = builder.gep(arrays[which], [builder.add(starts[which], ir.Constant(i64, 4 * index))])
                return builder.bitcast(place, pointer)

            for index in range(vectors):
                one = builder.load(address(1, index), align=8)
                two = builder.load(address(2, index), align=8)
                builder.store(builder.or_(one, two), address(0, index), align=8)
            return context.get_dummy_value()

        return types.void(target, types.int64, first, types.int64, second, types.int64), codegen

    return or_row


# ``or_row8(target, i, first, j, second, k)``: ``target[i:i + 8] = first[j:j + 8] | second[k:k + 8]`` in two
# vector ORs (numba leaves it word by word: the arrays may overlap). Builds a group's tables. (And 16 words.)
or_row8 = _or_row_of(2)
or_row16 = _or_row_of(4)
