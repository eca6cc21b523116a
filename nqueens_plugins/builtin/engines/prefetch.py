"""Built-in engine, worker side: a cache prefetch for compiled kernels (``llvm.prefetch``; numba only).

numba has no prefetch of its own. ``compiled_prefetch(function)`` teaches numba
to compile calls of ``function(array, index)`` to one prefetch instruction for
``array[index]`` (read, keep in all cache levels); called from plain Python,
``function`` stays what it is (a no-op). A prefetch never faults and never waits,
so a guessed index that is wrong costs nothing but the cache line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import llvmlite
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

# The intrinsic's name carries the pointer type: i8* in llvmlite's older typed-pointer IR, ptr since.
NAME = "llvm.prefetch.p0i8" if getattr(llvmlite, "ir_layer_typed_pointers_enabled", True) else "llvm.prefetch.p0"


@intrinsic
def _prefetch(typingctx: Any, array: Any, index: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array_type = signature.args[0]
        data = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, data, [args[1]], wraparound=False)
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function_type = ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32])
        function = cgutils.get_or_insert_function(builder.module, function_type, NAME)
        # read (0), keep in every cache level (3), data cache (1)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


def compiled_prefetch(function: Callable[[Any, int], None]) -> None:
    """Compile calls of ``function(array, index)`` in numba kernels to a prefetch of ``array[index]``."""

    @overload(function)
    def implementation(array: Any, index: Any) -> Any:
        def prefetch(array: Any, index: Any) -> None:
            _prefetch(array, index)  # type: ignore[call-arg]  # numba passes the typing context

        return prefetch
