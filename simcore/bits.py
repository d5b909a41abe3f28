"""Bit intrinsics for the kernels: a float's bits, and BMI2 ``pext`` where it is fast.

``compress3`` packs the lowest bit of each 3-bit field (bits 0, 3, ..., 27) into bits
0..9: a Shifting Stones grid's cells (3 bits a cell, and a dummy cell 9) as a 9-bit cell
set.  Where the machine runs ``pext`` in one instruction (``FAST_PEXT``) it is that one
instruction, else eight shifts and masks: a Shifting Stones greedy first decision is about
5% faster with ``pext`` (its placement analysis calls this for every placement).
The population count is ``simcore.rng.popcount`` (LLVM's ``ctpop``).
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# leaf kernels of the bots, which are compiled without reference counting (no arrays here:
# the option only keeps their compiled form the same as when they lived in the bot module)
_kernel = njit(cache=True, _nrt=False)


@intrinsic
def float_bits(typingctx, x):
    """The bits of a float64 as an int64 (to key a memo on a bot parameter exactly)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


LOW_BITS = 0x09249249  # bits 0, 3, ..., 27: the lowest bit of each 3-bit field (ten fields)


def fast_pext() -> bool:
    """Whether the machine the kernels are compiled for extracts bits in one instruction
    (BMI2 ``pext``: Intel since Haswell, AMD since Zen 3).  AMD's earlier cores with BMI2
    run it as microcode, tens of cycles, slower than the shifts; a target named through
    NUMBA_CPU_NAME or NUMBA_CPU_FEATURES (a cache for other machines) keeps the shifts."""
    from llvmlite import binding as ll
    from numba.core import config
    if config.CPU_NAME or config.CPU_FEATURES:
        return False
    return bool(ll.get_host_cpu_features().get("bmi2")) and \
        ll.get_host_cpu_name() not in ("bdver4", "znver1", "znver2")


FAST_PEXT = fast_pext()


@intrinsic
def pext(typingctx, v, mask):
    """BMI2 ``pext``: the bits of v under mask, packed low (only where FAST_PEXT)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pext.64"),
                            args)
    return types.int64(types.int64, types.int64), codegen


@_kernel
def compress3_shifts(v):
    """Bits 0, 3, 6, ..., 27 of v as bits 0..9."""
    v &= LOW_BITS
    v = (v ^ (v >> 2)) & 0x030C30C3
    v = (v ^ (v >> 4)) & 0x0300F00F
    v = (v ^ (v >> 8)) & 0xFF0000FF
    return (v ^ (v >> 16)) & 0x3FF


@_kernel
def compress3_pext(v):
    return pext(v, np.int64(LOW_BITS))


# one instruction instead of eight shifts and masks where the machine has a fast pext
compress3 = compress3_pext if FAST_PEXT else compress3_shifts
