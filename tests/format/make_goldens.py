#!/usr/bin/python3
"""Write PyTorch's own output for the print/index tests (tests/test_format.c).

Developer tool, not run by the tests: it needs PyTorch (Debian's
python3-torch, 1.13) and writes text files that are committed, so the tests
never need Python.

  /usr/bin/python3 tests/format/make_goldens.py

Files written next to this script:

  repr.txt   repr(t) of many tensors under several print options
  index.txt  t[EXPR] for many index expressions: the view's geometry, or
             the error torch raises
  pyrepr.txt Python's repr of floats and strings (format_value)

Tensors are stored exactly: their whole storage as hex bytes (native
little-endian element bits, bfloat16 included) plus sizes, strides and
offset, so the C side rebuilds the same view, non-contiguous ones too.

  case NAME                      (repr.txt)
  tensor DTYPE SIZES STRIDES OFFSET
  data HEX                       ("-" when the storage is empty)
  opts PRECISION THRESHOLD EDGEITEMS LINEWIDTH SCI   (SCI: -1 auto, 0, 1)
  expect NLINES
  ...NLINES lines of repr(t)

SIZES and STRIDES are comma separated, "-" for a 0-d tensor.

  tensor NAME DTYPE SIZES STRIDES OFFSET   (index.txt: a tensor to index)
  data HEX
  expr TEXT                      (the text between the brackets)
  view SIZES STRIDES OFFSET      (result shares t's storage)
  copy SIZES HEX                 (torch copied, for True/False: values only)
  error MESSAGE                  (IndexError / ValueError / RuntimeError text)

  float HEXBITS REPR             (pyrepr.txt)
  str HEXUTF8 REPR
"""
import math
import os
import struct

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPE_NAMES = {
    torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64",
}
# An integer type of the same width, to get at the raw bits through numpy.
BITS_AS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def storage_flat(t):
    """The whole storage under t, as a flat contiguous tensor of t's dtype."""
    flat = torch.tensor([], dtype=t.dtype)
    flat.set_(t.storage())
    return flat


def hex_bytes(flat):
    if flat.numel() == 0:
        return "-"
    if flat.dtype == torch.bool:
        raw = flat.numpy().astype(np.uint8)
    else:
        raw = flat.view(BITS_AS[flat.element_size()]).numpy()
    return raw.tobytes().hex()


def dims(xs):
    return ",".join(str(x) for x in xs) if len(xs) else "-"


def tensor_lines(t, name=None):
    head = "tensor " + ((name + " ") if name else "")
    return [
        head + "%s %s %s %d" % (DTYPE_NAMES[t.dtype], dims(t.shape), dims(t.stride()), t.storage_offset()),
        "data " + hex_bytes(storage_flat(t)),
    ]


# ---- repr cases ---------------------------------------------------------------

gen = torch.Generator().manual_seed(1234)


def randn(*shape, dtype=torch.float32, scale=1.0):
    return (torch.randn(shape, generator=gen, dtype=torch.float64) * scale).to(dtype)


def randint(lo, hi, shape, dtype=torch.int64):
    return torch.randint(lo, hi, shape, generator=gen, dtype=torch.int64).to(dtype)


nan, inf = float("nan"), float("inf")
T = torch.tensor


def repr_cases():
    """(name, tensor, options) with options a dict of set_printoptions args."""
    c = []

    def add(name, t, **opts):
        c.append((name, t, opts))

    # float layouts, widths and the three formatting modes
    add("f32_pair", T([0.1, -2.0]))
    add("f32_2d", randn(3, 4))
    add("f32_3d", randn(2, 3, 4))
    add("f32_4d", randn(2, 2, 2, 3))
    add("f32_negzero", T([-0.0, 1.5]))
    add("int_mode", T([1.0, -2.0, 3.0]))
    add("int_mode_negzero", T([-0.0, 1.0]))
    add("int_mode_2d", T([[1.0, 20.0], [-300.0, 4.0]]))
    add("int_mode_nonfinite", T([1.0, inf, -inf, nan, 0.0]))
    add("only_nonfinite", T([nan, inf, -inf]))
    add("all_zero", torch.zeros(2, 3))
    add("zero_nan", T([0.0, nan]))
    add("sci_small", T([1e-5, 1.0]))
    add("sci_big", T([1.0, 1e9]))
    add("sci_ratio", T([1.5, 2000.5]))
    add("no_sci_ratio_1000", T([1.5, 1500.0]))
    add("int_sci_ratio", T([1.0, 5000.0]))
    add("int_no_sci_1e8", T([1.0, 100000000.0, -7.0]))
    add("int_big_1e8", T([1e8, 3e8]))
    add("sci_mixed_nonfinite", T([1e-7, -3.5, nan, inf, 0.0]))
    add("sci_2d", randn(3, 3, scale=1e-5))
    add("sci_wide_exponent", T([1e-300, 1e300], dtype=torch.float64))
    add("tiny_min", T([1e-4, 0.5]))
    add("just_below_min", T([0.99e-4, 0.5]))
    add("subnormal_f32", T([1e-45, 1.0]))
    add("f32_max", T([3.4028234663852886e38, -1.0]))
    add("f64_third", T([1.0 / 3.0, 2.0 / 3.0], dtype=torch.float64))
    add("f64_huge", T([-1.7976931348623157e308, 1e308], dtype=torch.float64))
    add("rounding_half", T([0.00005, 0.00015, 0.12345, 2.71828]))
    add("negative_width", T([-123.456, 7.0, -0.5]))
    # dtypes
    add("f16", T([1.0, 2.5, -3.25], dtype=torch.float16))
    add("f16_rand", randn(3, 5, dtype=torch.float16))
    add("f16_big", T([65504.0, -0.0001, 6e-8], dtype=torch.float16))
    add("bf16", T([1.0, 3.140625, -1e10], dtype=torch.bfloat16))
    add("bf16_rand", randn(2, 6, dtype=torch.bfloat16))
    add("f64", randn(2, 3, dtype=torch.float64))
    add("u8", randint(0, 256, (3, 7), dtype=torch.uint8))
    add("i8", randint(-128, 128, (10,), dtype=torch.int8))
    add("i16", randint(-30000, 30000, (2, 5), dtype=torch.int16))
    add("i32", randint(-2**31, 2**31, (4,), dtype=torch.int32))
    add("i64", randint(-100, 100, (3, 4)))
    add("i64_extremes", T([-2**63, 2**63 - 1, 0]))
    add("bool", T([True, False]))
    add("bool_2d", T([[True, False, True], [False, False, True]]))
    add("bool_all_true", T([True, True]))
    # 0-d
    add("scalar_f32", T(1.5))
    add("scalar_int_mode", T(-3.0))
    add("scalar_i64", T(3))
    add("scalar_bool", T(True))
    add("scalar_f16", T(2.0, dtype=torch.float16))
    add("scalar_bf16", T(0.1, dtype=torch.bfloat16))
    add("scalar_nan", T(nan))
    add("scalar_neg_inf", T(-inf))
    add("scalar_sci", T(1e-9))
    add("scalar_u8", T(200, dtype=torch.uint8))
    # empty
    add("empty_1d", torch.zeros(0))
    add("empty_2d", torch.zeros(0, 3))
    add("empty_mid", torch.zeros(2, 0, 3, dtype=torch.int64))
    add("empty_bool", torch.zeros(0, dtype=torch.bool))
    add("empty_f16", torch.zeros(4, 0, dtype=torch.float16))
    add("empty_i64_1d", torch.zeros(0, dtype=torch.int64))
    # line wrapping
    add("wrap_f32", randn(30))
    add("wrap_int_mode", torch.arange(100.0))
    add("wrap_i64", torch.arange(50))
    add("wrap_2d", randn(2, 20))
    add("wrap_3d_i32", randint(-999, 999, (2, 2, 25), dtype=torch.int32))
    add("wrap_bool", torch.arange(40) % 3 == 0)
    add("wrap_sci", randn(16, scale=1e6))
    add("exactly_1000", torch.arange(1000.0).reshape(10, 100))
    add("exactly_1000_1d", torch.arange(1000))
    # summarisation
    add("sum_1001", randn(1001))
    add("sum_2d", randn(40, 40))
    add("sum_3d", randn(10, 10, 11))
    add("sum_i64", torch.arange(2000))
    add("sum_bool", torch.arange(2000) % 2 == 0)
    add("sum_small_dims", randn(4, 300))
    add("sum_tall", randn(300, 4))
    add("sum_16dims", torch.ones((2,) * 9 + (3,)))
    mid = torch.ones(2000)
    mid[1000] = 1e20  # hidden by the summary: must not switch to sci mode
    add("sum_hidden_middle", mid)
    hid = torch.full((50, 50), 0.5)
    hid[25, 25] = 12345.678
    add("sum_hidden_2d", hid)
    add("sum_i64_wide_hidden", torch.cat([torch.arange(3), T([10**15]), torch.arange(2000)]))
    # dtype suffix wrapping at the line width
    for n in range(1, 13):
        add("suffix_f16_%d" % n, torch.arange(float(n)).to(torch.float16) * 1.5)
    for n in (6, 7, 8, 9):
        add("suffix_i32_%d" % n, torch.arange(n, dtype=torch.int32) * 1000000)
    add("suffix_2d_f64", randn(3, 5, dtype=torch.float64))
    add("suffix_2d_u8_long", randint(100, 256, (2, 19), dtype=torch.uint8))
    # non-contiguous views
    base = randn(4, 6)
    add("nc_transpose", base.t())
    add("nc_step", base[:, ::2])
    add("nc_offset", base[1:3, 2:5])
    add("nc_expand", T([1.5, -2.0, 3.0]).expand(4, 3))
    add("nc_bf16_step", randn(12, dtype=torch.bfloat16)[1::3])
    add("nc_sum_transpose", randn(50, 30).t())
    # odd shapes
    add("dims16_ones", torch.ones((1,) * 16))
    add("dims16_mixed", randn(*((1,) * 13 + (2, 1, 3))))
    add("dims8_int", randint(0, 10, (1, 2, 1, 2, 1, 2, 1, 2)))
    add("size1_rows", randn(5, 1))
    # print options
    add("opt_precision2", randn(2, 3), precision=2)
    add("opt_precision0", T([1.5, 2.25, -0.5]), precision=0)
    add("opt_precision8", T([1.0 / 3.0]), precision=8)
    add("opt_precision8_sci", T([1e-6, 1.0 / 3.0]), precision=8)
    add("opt_sci_on", T([1.0, 2.5]), sci_mode=True)
    add("opt_sci_on_int", T([1.0, 2.0]), sci_mode=True)
    add("opt_sci_on_zero", torch.zeros(3), sci_mode=True)
    add("opt_sci_off", T([1e-7, 1e9]), sci_mode=False)
    add("opt_sci_off_int", T([1.0, 1e10]), sci_mode=False)
    add("opt_linewidth40", randn(20), linewidth=40)
    add("opt_linewidth10_2d", randn(2, 5), linewidth=10)
    add("opt_linewidth40_suffix", T([1.5, 2.5, 3.5, 4.5], dtype=torch.float64), linewidth=40)
    add("opt_threshold5", torch.arange(10), threshold=5)
    add("opt_threshold5_2d", torch.arange(64.0).reshape(8, 8), threshold=5)
    add("opt_edgeitems1", randn(10, 10, 10), edgeitems=1)
    add("opt_edgeitems0_1d", torch.arange(20), threshold=5, edgeitems=0)
    add("opt_edge5", torch.arange(30), threshold=10, edgeitems=5)
    add("opt_edge_big", torch.arange(30), threshold=10, edgeitems=20)
    return c


OPT_DEFAULTS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)


def write_repr(path):
    out = ["# repr(t) by PyTorch %s (tests/format/make_goldens.py)" % torch.__version__]
    for name, t, opts in repr_cases():
        o = dict(OPT_DEFAULTS, **opts)
        torch.set_printoptions(**o)
        try:
            text = repr(t)
        finally:
            torch.set_printoptions(profile="default")
        sci = -1 if o["sci_mode"] is None else int(o["sci_mode"])
        out.append("case " + name)
        out.extend(tensor_lines(t))
        out.append("opts %d %d %d %d %d" % (o["precision"], o["threshold"], o["edgeitems"], o["linewidth"], sci))
        lines = text.split("\n")
        out.append("expect %d" % len(lines))
        out.extend(lines)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---- index cases ----------------------------------------------------------------

def index_cases():
    """(name, tensor, [expressions])"""
    a = torch.arange(24).reshape(2, 3, 4)
    v = torch.arange(10.0)
    s = T(2.5)
    nc = torch.arange(60, dtype=torch.int32).reshape(6, 10)[1:5, ::3]
    ex = T([1, 2, 3], dtype=torch.int16).expand(4, 3)
    e0 = torch.zeros(3, 0, 2)
    common = [
        "0", "-1", "1", "2", "-3", "5", "-5", ":", "::", "...", "None", ":, 0", "0, 0, 0",
        "0, 1, 2, 3", "1:", ":2", "-2:", ":-1", "::2", "1::2", "::3", "1:3:2", "10:", "-10:",
        ":100", "3:1", "0:0", "..., 0", "..., -1", "0, ...", "0, ..., 1", "..., 0, ...", "..., ...",
        "None, 0", "0, None", "None, None", "..., None", "None, ...", ":, None, :", "0, None, 1",
        "None, 5", "0, 9", "0, -9", "..., 9", "0, ..., 9", ":, :, :, :", "::0", "::-1", ":, ::-2",
        "0,", "True", "False", "0, True", "True, 0", "None, True", "-0", "+1", "0x1",
        "1_0:", ":99999999999999999999", "99999999999999999999",
        "1:2:3", "..., ..., 1:", "..., ..., None", "0, True, None", "  1 :  3 ",
        "0, -0, ...", "-9223372036854775808", "9223372036854775807:",
    ]
    return [("a", a, common), ("v", v, common), ("s", s, common), ("nc", nc, common),
            ("ex", ex, common), ("e0", e0, common)]


def write_index(path):
    out = ["# t[EXPR] by PyTorch %s (tests/format/make_goldens.py)" % torch.__version__]
    for name, t, exprs in index_cases():
        out.extend(tensor_lines(t, name))
        for e in exprs:
            out.append("expr " + e)
            try:
                r = eval("t[" + e + "]", {"t": t})
            except (IndexError, ValueError, RuntimeError) as ex:
                msg = str(ex)
                if "is_symbolic" in msg:
                    raise SystemExit("PyTorch internal error for %s[%s]" % (name, e))
                out.append("error " + msg.split("\n")[0])
                continue
            # only True/False make torch copy; every other index is a view
            if "True" not in e and "False" not in e:
                out.append("view %s %s %d" % (dims(r.shape), dims(r.stride()), r.storage_offset()))
            else:
                out.append("copy %s %s" % (dims(r.shape), hex_bytes(r.contiguous().reshape(-1))))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---- Python reprs -----------------------------------------------------------------

def write_pyrepr(path):
    floats = [
        0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.30000000000000004, 1.0 / 3.0, 2.0 / 3.0, 1e-5, 1e-4,
        0.0001234, 1e15, 1e16, 1e17, 123456789012345678.0, 1234567890123456.0, 12345678901234567.0,
        1e22, 1e23, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 9007199254740993.0,
        2.5, 100.0, 1e100, 1.5e-10, -2.75e-7, 3.14159, 2.0 ** 52, 2.0 ** 53 + 2, 2.0 ** -20,
        4.35, 0.1 + 0.7, 1e-7 * 3, 9.999999999999999e22, 1e21, 1e-6, 123.456, 0.5, 1024.0,
        float("inf"), float("-inf"), float("nan"), 8.589973e9, 5e-5, 100000000000000.5,
    ]
    for e in range(-30, 31, 3):
        floats.append(1.7 * 10.0 ** e)
    # powers of two have an asymmetric rounding interval: the shortest string
    # is not always the nearest one of its length
    for e in (-1074, -1022, -300, -100, -60, -3, 54, 60, 100, 200, 1000, 1023):
        floats.append(math.ldexp(1.0, e))
    strings = [
        "", "abc", "it's", 'say "hi"', "both ' and \"", "back\\slash", "tab\there", "new\nline",
        "cr\r", "bell\x07", "del\x7f", "caf\u00e9", "x.y:z",
    ]
    out = ["# repr() by Python (tests/format/make_goldens.py)"]
    for f in floats:
        out.append("float %016x %s" % (struct.unpack("<Q", struct.pack("<d", f))[0], repr(f)))
    for s in strings:
        out.append("str %s %s" % (s.encode().hex() or "-", repr(s)))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    write_repr(os.path.join(HERE, "repr.txt"))
    write_index(os.path.join(HERE, "index.txt"))
    write_pyrepr(os.path.join(HERE, "pyrepr.txt"))


if __name__ == "__main__":
    main()
