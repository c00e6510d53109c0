"""Writes expected.rs: the results real torch gives for the inputs of tests/reduce.rs.

Run from this folder: python3 expected.py  (needs torch; the tests do not).
Every input here is built the same way in tests/reduce.rs (see `inputs()` there).
"""
import math
import warnings

import numpy as np
import torch

warnings.simplefilter("ignore")

X = torch.tensor([[0.5, -1.25, 3.0, 2.0], [7.0, -0.5, 1.5, -3.0], [2.25, 4.0, -2.0, 0.75]])
T = X.t()
S = X[:, ::2]
E = torch.tensor([1.5, -2.0, 3.0]).expand(4, 3)
C = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4).mul(0.25).sub(2.0)
I = torch.tensor([[3, -1, 4], [1, -5, 9]])
B = torch.tensor([[True, False, True], [True, True, True]])
NAN = torch.tensor([1.0, float("nan"), 3.0, float("nan")])
# 5000 elements, exactly representable, so only summation order can differ. Outputs as long as
# the input are compared at every 97th element (`.flatten()[::97]`, done the same way in Rust).
BIG = torch.tensor([(((i * 37) % 101) - 50) / 8 for i in range(5000)]).reshape(50, 100)
BIGT = BIG.t()
BIGF = BIG.reshape(5000)
# 100000 elements: rows this long are cut into chunks reduced by separate workgroups. The values
# repeat, so ties between chunks test that the first index wins.
HUGE = torch.tensor([(((i * 53) % 211) - 105) / 16 for i in range(100000)])
HUGE2 = HUGE[:80000].reshape(2, 40000)
HUGE2T = HUGE2.t()
HUGEI = torch.arange(100000) % 1000
inf = math.inf

CASES = {
    # sum / mean / prod
    "X_SUM": "X.sum()",
    "X_SUM_1": "X.sum(1)",
    "X_SUM_0_KEEP": "X.sum(0, keepdim=True)",
    "T_SUM_0": "T.sum(0)",
    "S_SUM_1": "S.sum(1)",
    "E_SUM_0": "E.sum(0)",
    "C_SUM_0_2": "C.sum([0, 2])",
    "C_SUM_M1_KEEP": "C.sum(-1, keepdim=True)",
    "I_SUM": "I.sum()",
    "I_SUM_0": "I.sum(0)",
    "B_SUM": "B.sum()",
    "B_SUM_1": "B.sum(1)",
    "X_MEAN_1": "X.mean(1)",
    "T_MEAN": "T.mean()",
    "C_MEAN_0_2": "C.mean([0, 2])",
    "E_MEAN_1_KEEP": "E.mean(1, keepdim=True)",
    "X_PROD_0": "X.prod(0)",
    "I_PROD_1": "I.prod(1)",
    "B_PROD": "B.prod()",
    "S_PROD": "S.prod()",
    # extremes
    "X_AMAX_0": "X.amax(0)",
    "T_AMAX_1_KEEP": "T.amax(1, keepdim=True)",
    "C_AMIN_0_2": "C.amin([0, 2])",
    "I_AMIN_1": "I.amin(1)",
    "B_AMAX_1": "B.amax(1)",
    "X_MAX": "X.max()",
    "T_MIN": "T.min()",
    "I_MAX": "I.max()",
    "B_MIN": "B.min()",
    "NAN_MAX": "NAN.max()",
    "NAN_AMIN": "NAN.amin(0)",
    "X_MAX_1": "X.max(1)",
    "T_MIN_0": "T.min(0)",
    "S_MAX_0": "S.max(0)",
    "E_MAX_0": "E.max(0)",
    "C_MIN_1_KEEP": "C.min(1, keepdim=True)",
    "I_MAX_0": "I.max(0)",
    "B_MAX_1": "B.max(1)",
    "TIES_MAX": "torch.tensor([3, 1, 3, 1]).max(0)",
    "TIES_MIN": "torch.tensor([3, 1, 3, 1]).min(0)",
    "NAN_MAX_0": "NAN.max(0)",
    "NAN_MIN_0": "NAN.min(0)",
    "X_ARGMAX": "X.argmax()",
    "X_ARGMAX_0": "X.argmax(0)",
    "T_ARGMAX": "T.argmax()",
    "T_ARGMIN_1": "T.argmin(1)",
    "E_ARGMIN": "E.argmin()",
    "C_ARGMAX_M1_KEEP": "C.argmax(-1, keepdim=True)",
    "X_ARGMIN_KEEP": "X.argmin(keepdim=True)",
    "I_ARGMIN": "I.argmin()",
    "NAN_ARGMIN": "NAN.argmin()",
    "ALLNAN_ARGMAX": "torch.tensor([float('nan'), float('nan')]).argmax()",
    # all / any
    "X_ALL": "X.all()",
    "I_ANY_1": "(I - 1).any(1)",
    "B_ALL_1": "B.all(1)",
    "B_ANY_0_KEEP": "B.any(0, keepdim=True)",
    "ZN_ALL_0": "torch.tensor([[0.0, float('nan')], [1.0, 2.0]]).all(0)",
    "ZN_ANY_1": "torch.tensor([[0.0, float('nan')], [0.0, 0.0]]).any(1)",
    "I_ALL_NONE_REDUCED": "I.all(dim=())",
    # logsumexp
    "X_LSE_1": "X.logsumexp(1)",
    "T_LSE_0": "T.logsumexp([0])",
    "C_LSE_0_2_KEEP": "C.logsumexp([0, 2], keepdim=True)",
    "I_LSE_0": "I.logsumexp(0)",
    "BIGVAL_LSE": "torch.tensor([1000.0, 1000.0, 999.0]).logsumexp(0)",
    "INF_LSE": "torch.tensor([[inf, 1.0], [-inf, -inf], [float('nan'), 1.0]]).logsumexp(1)",
    # norm
    "X_NORM": "X.norm()",
    "X_NORM1_1": "X.norm(p=1, dim=1)",
    "X_NORMINF_0": "X.norm(p=inf, dim=0)",
    "X_NORMNINF": "X.norm(p=-inf)",
    "NORM0_1": "torch.tensor([[0.0, float('nan'), 1.0], [0.0, -2.0, 0.0]]).norm(p=0, dim=1)",
    "X_NORM3_1_KEEP": "X.norm(p=3, dim=1, keepdim=True)",
    "T_NORM_0": "T.norm(dim=0)",
    "C_NORM_M1_0": "C.norm(p=2, dim=[-1, 0])",
    # var / std
    "X_VAR": "X.var()",
    "X_VAR_1_C0": "X.var(1, correction=0)",
    "T_VAR_0": "T.var(0)",
    "C_VAR_0_2": "C.var([0, 2])",
    "X_STD_0_KEEP": "X.std(0, keepdim=True)",
    "S_STD_C2": "S.std(correction=2)",
    "VAR_DOF_INF": "torch.tensor([1.0, 2.0]).var(correction=2)",
    "VAR_DOF_NAN": "torch.tensor([1.0, 1.0]).var(correction=5)",
    # softmax
    "X_SOFTMAX_1": "X.softmax(1)",
    "X_SOFTMAX_0": "X.softmax(0)",
    "T_SOFTMAX_1": "T.softmax(1)",
    "C_SOFTMAX_1": "C.softmax(1)",
    "E_LOG_SOFTMAX_0": "E.log_softmax(0)",
    "X_LOG_SOFTMAX_M1": "X.log_softmax(-1)",
    "BIGVAL_SOFTMAX": "torch.tensor([1000.0, 1000.0, 999.0]).softmax(0)",
    "BIGVAL_LOG_SOFTMAX": "torch.tensor([1000.0, 1000.0, 999.0]).log_softmax(0)",
    "SPECIAL_SOFTMAX": "torch.tensor([[inf, 1.0], [-inf, -inf], [float('nan'), 1.0], [-inf, 0.0]]).softmax(1)",
    "SPECIAL_LOG_SOFTMAX": "torch.tensor([[inf, 1.0], [-inf, -inf], [float('nan'), 1.0], [-inf, 0.0]]).log_softmax(1)",
    # scans
    "X_CUMSUM_1": "X.cumsum(1)",
    "T_CUMSUM_0": "T.cumsum(0)",
    "S_CUMPROD_0": "S.cumprod(0)",
    "I_CUMSUM_1": "I.cumsum(1)",
    "I_CUMPROD_0": "I.cumprod(0)",
    "B_CUMSUM_0": "B.cumsum(0)",
    "C_CUMSUM_1": "C.cumsum(1)",
    "E_CUMPROD_0": "E.cumprod(0)",
    "NAN_CUMSUM": "NAN.cumsum(0)",
    # 5000 elements: workgroup and thread paths, strided
    "BIG_SUM": "BIG.sum()",
    "BIG_SUM_1": "BIG.sum(1)",
    "BIG_MEAN_0": "BIG.mean(0)",
    "BIGT_AMAX_0": "BIGT.amax(0)",
    "BIG_ARGMAX": "BIG.argmax()",
    "BIGT_ARGMIN": "BIGT.argmin()",
    "BIG_MAX_1": "BIG.max(1)",
    "BIGT_MIN_0": "BIGT.min(0)",
    "BIG_VAR_1": "BIG.var(1)",
    "BIGT_STD": "BIGT.std()",
    "BIG_LSE": "BIG.logsumexp([0, 1])",
    "BIG_NORM": "BIG.norm()",
    "BIGT_NORM1_0": "BIGT.norm(p=1, dim=0)",
    "BIG_SOFTMAX_1": "BIG.softmax(1).flatten()[::97]",
    "BIGT_LOG_SOFTMAX_0": "BIGT.log_softmax(0).flatten()[::97]",
    "BIGF_SOFTMAX": "BIGF.softmax(0).flatten()[::97]",
    "BIGF_CUMSUM": "BIGF.cumsum(0).flatten()[::97]",
    "BIGT_CUMSUM_0": "BIGT.cumsum(0).flatten()[::97]",
    "BIGF_ANY": "(BIGF > 6.2).any()",
    "BIGF_ALL": "(BIGF > -6.3).all()",
    "BIGF_PROD": "(BIGF / 64 + 1).prod()",
    # 100000 elements, split rows
    "HUGE_SUM": "HUGE.sum()",
    "HUGE_MEAN": "HUGE.mean()",
    "HUGE_AMAX": "HUGE.amax()",
    "HUGE_ARGMAX": "HUGE.argmax()",
    "HUGE_ARGMIN": "HUGE.argmin()",
    "HUGE_LATE_ARGMAX": "(HUGE + (torch.arange(100000) >= 77777) * 0.01).argmax()",
    "HUGE_LATE_MAX_0": "(HUGE - (torch.arange(100000) < 33333) * 0.01).max(0)",
    "HUGE2_MAX_1": "HUGE2.max(1)",
    "HUGE2T_MIN_0": "HUGE2T.min(0)",
    "HUGE2T_ARGMAX_0_KEEP": "HUGE2T.argmax(0, keepdim=True)",
    "HUGE_NORM": "HUGE.norm()",
    "HUGE2T_NORMINF_0": "HUGE2T.norm(p=inf, dim=0)",
    "HUGE2_VAR_1": "HUGE2.var(1)",
    "HUGE_STD": "HUGE.std(correction=0)",
    "HUGE_LSE": "HUGE.logsumexp(0)",
    "HUGE2T_LSE_0_KEEP": "HUGE2T.logsumexp(0, keepdim=True)",
    "HUGE_ALL": "(HUGE > -6.5).all()",
    "HUGE_ANY": "(HUGE > 6.5).any()",
    "HUGEI_SUM": "HUGEI.sum()",
    "HUGE_PROD": "(HUGE / 2000 + 1).prod()",
}


def rust_value(v, dtype):
    if dtype == torch.bool:
        return "true" if v else "false"
    if dtype == torch.int64:
        return str(int(v))
    if math.isnan(v):
        return "f32::NAN"
    if math.isinf(v):
        return "f32::INFINITY" if v > 0 else "f32::NEG_INFINITY"
    return str(np.float32(v))


def const(name, t):
    kind = {torch.float32: "f32", torch.int64: "i64", torch.bool: "bool"}[t.dtype]
    shape = ", ".join(str(s) for s in t.shape)
    data = ", ".join(rust_value(v, t.dtype) for v in t.flatten().tolist())
    return f"pub const {name}: Exp<{kind}> = Exp {{\n    shape: &[{shape}],\n    data: &[{data}],\n}};\n"


def main():
    out = [
        "// Generated by expected.py from real torch "
        + torch.__version__
        + "; do not edit.\n#![allow(clippy::approx_constant, clippy::excessive_precision, dead_code)]\n\n"
        "pub struct Exp<T: 'static> {\n    pub shape: &'static [usize],\n    pub data: &'static [T],\n}\n\n"
    ]
    for name, expr in CASES.items():
        r = eval(expr)
        if isinstance(r, tuple):
            out.append(const(name + "_V", r[0]))
            out.append(const(name + "_I", r[1]))
        else:
            out.append(const(name, r))
    with open("expected.rs", "w") as f:
        f.write("\n".join(out))


main()
