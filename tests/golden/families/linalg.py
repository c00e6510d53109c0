"""Products and norms: einsum, baddbmm, addbmm, cross / linalg_cross, cdist, and torch.linalg's
vector_norm / matrix_norm / norm under the catalog's flat names (`linalg_vector_norm`, …)."""
import torch

from .common import In, case, floats


def num(k):
    """Golden args spell infinities "inf" / "-inf" (JSON has none): torch gets the floats."""
    return {n: float(v) if v in ("inf", "-inf") else v for n, v in k.items()}


INF, NINF = "inf", "-inf"


def x(shape, seed, view=(), lo=-2.0, hi=2.0):
    n = 1
    for d in shape:
        n *= d
    return In(floats(n, lo, hi, seed), shape=list(shape), view=view)


def einsum_cases():
    es = lambda *ts, equation: torch.einsum(equation, *ts)
    specs = [
        ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
        ("implicit", "ij,jk", [(2, 3), (3, 4)]),
        ("bmm", "bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
        ("outer", "i,j->ij", [(3,), (4,)]),
        ("dot", "i,i->", [(5,), (5,)]),
        ("transpose", "ij->ji", [(2, 3)]),
        ("sum_all", "ij->", [(2, 3)]),
        ("row_sum", "ij->i", [(3, 4)]),
        ("three", "ij,jk,kl->il", [(2, 3), (3, 2), (2, 4)]),
        ("hadamard", "ij,ij->ij", [(2, 3), (2, 3)]),
        ("batch_outer", "bi,bj->bij", [(2, 3), (2, 2)]),
        ("ellipsis", "...ij,...jk->...ik", [(2, 2, 3), (2, 3, 2)]),
        ("ellipsis_broadcast", "...ij,jk->...ik", [(2, 2, 3), (3, 2)]),
        ("attention", "bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 2, 4)]),
        ("contract_two", "ijk,jkl->il", [(2, 3, 2), (3, 2, 2)]),
        ("spaces", "i j , j k -> i k", [(2, 3), (3, 2)]),
        ("broadcast_one", "ij,ij->ij", [(1, 3), (2, 3)]),
        ("bad_rank", "ijk,jk->i", [(2, 3), (3, 2)]),
        ("bad_size", "ij,jk->ik", [(2, 3), (4, 2)]),
        ("bad_output", "ij->k", [(2, 3)]),
    ]
    for i, (name, eq, shapes) in enumerate(specs):
        yield case(f"einsum/{name}", "einsum", [x(s, 900 + 10 * i + k) for k, s in enumerate(shapes)], es, {"equation": eq})
    yield case("einsum/transposed_input", "einsum", [x((3, 2), 990, [["t"]]), x((3, 4), 991)], es, {"equation": "ij,jk->ik"})


def product_cases():
    bad = lambda inp, b1, b2, **k: torch.baddbmm(inp, b1, b2, **k)
    yield case("baddbmm/default", "baddbmm", [x((2, 2, 4), 1), x((2, 2, 3), 2), x((2, 3, 4), 3)], bad)
    yield case("baddbmm/beta_alpha", "baddbmm", [x((2, 2, 4), 4), x((2, 2, 3), 5), x((2, 3, 4), 6)], bad, {"beta": 0.5, "alpha": -2.0})
    yield case("baddbmm/broadcast_input", "baddbmm", [x((4,), 7), x((2, 2, 3), 8), x((2, 3, 4), 9)], bad, {"beta": 2.0})
    yield case("baddbmm/beta_zero_nan", "baddbmm", [In([float("nan")] * 4, shape=[1, 1, 4]), x((1, 1, 3), 10), x((1, 3, 4), 11)], bad, {"beta": 0.0})
    yield case("baddbmm/bad_shapes", "baddbmm", [x((2, 2, 4), 12), x((2, 2, 3), 13), x((2, 2, 4), 14)], bad)
    adb = lambda inp, b1, b2, **k: torch.addbmm(inp, b1, b2, **k)
    yield case("addbmm/default", "addbmm", [x((2, 4), 15), x((3, 2, 3), 16), x((3, 3, 4), 17)], adb)
    yield case("addbmm/beta_alpha", "addbmm", [x((2, 4), 18), x((3, 2, 3), 19), x((3, 3, 4), 20)], adb, {"beta": -1.0, "alpha": 0.5})
    cr = lambda a, b, **k: torch.cross(a, b, **k)
    yield case("cross/dim1", "cross", [x((2, 3), 21), x((2, 3), 22)], cr, {"dim": 1})
    yield case("cross/dim0", "cross", [x((3, 2), 23), x((3, 2), 24)], cr, {"dim": 0})
    yield case("cross/broadcast", "cross", [x((2, 3), 25), x((1, 3), 26)], cr, {"dim": -1})
    yield case("cross/bad_size", "cross", [x((2, 4), 27), x((2, 4), 28)], cr, {"dim": 1})
    lc = lambda a, b, **k: torch.linalg.cross(a, b, **k)
    yield case("linalg_cross/default", "linalg_cross", [x((4, 3), 29), x((4, 3), 30)], lc)
    yield case("linalg_cross/dim0", "linalg_cross", [x((3, 2), 31, [["t"], ["t"]]), x((3, 2), 32)], lc, {"dim": 0})
    yield case("linalg_cross/bad", "linalg_cross", [x((2, 2), 33), x((2, 2), 34)], lc)
    cd = lambda a, b, **k: torch.cdist(a, b, **num(k))
    yield case("cdist/p2", "cdist", [x((3, 2), 35), x((4, 2), 36)], cd)
    yield case("cdist/p1", "cdist", [x((3, 2), 37), x((2, 2), 38)], cd, {"p": 1.0})
    yield case("cdist/p3", "cdist", [x((2, 3), 39), x((3, 3), 40)], cd, {"p": 3.0})
    yield case("cdist/pinf", "cdist", [x((2, 3), 41), x((3, 3), 42)], cd, {"p": INF})
    yield case("cdist/batched", "cdist", [x((2, 3, 2), 43), x((2, 2, 2), 44)], cd)
    yield case("cdist/bad_cols", "cdist", [x((2, 3), 45), x((2, 2), 46)], cd)
    yield case("cdist/1d", "cdist", [x((3,), 47), x((2, 3), 48)], cd)


def norm_cases():
    vn = lambda t, **k: torch.linalg.vector_norm(t, **num(k))
    for i, ord_ in enumerate([2, 1, 3.5, INF, NINF, 0.5]):
        yield case(f"linalg_vector_norm/ord_{ord_}", "linalg_vector_norm", [x((2, 3), 50 + i)], vn, {"ord": ord_})
    yield case("linalg_vector_norm/dim", "linalg_vector_norm", [x((2, 3), 60)], vn, {"dim": 1})
    yield case("linalg_vector_norm/dims_keepdim", "linalg_vector_norm", [x((2, 3, 2), 61)], vn, {"dim": [0, 2], "keepdim": True})
    yield case("linalg_vector_norm/int_error", "linalg_vector_norm", [In([1, 2], "int64")], vn)
    mn = lambda t, **k: torch.linalg.matrix_norm(t, **num(k))
    for i, ord_ in enumerate(["fro", INF, NINF, 1, -1]):
        yield case(f"linalg_matrix_norm/{ord_}", "linalg_matrix_norm", [x((3, 4), 70 + i)], mn, {"ord": ord_})
        yield case(f"linalg_matrix_norm/{ord_}_batched_keepdim", "linalg_matrix_norm", [x((2, 3, 3), 80 + i)], mn, {"ord": ord_, "keepdim": True})
    yield case("linalg_matrix_norm/dims", "linalg_matrix_norm", [x((3, 2, 4), 90)], mn, {"ord": 1, "dim": [2, 0]})
    yield case("linalg_matrix_norm/1d_error", "linalg_matrix_norm", [x((3,), 91)], mn)
    ln = lambda t, **k: torch.linalg.norm(t, **num(k))
    yield case("linalg_norm/default_vector", "linalg_norm", [x((5,), 92)], ln)
    yield case("linalg_norm/default_matrix", "linalg_norm", [x((2, 3), 93)], ln)
    yield case("linalg_norm/default_3d", "linalg_norm", [x((2, 3, 2), 94)], ln)
    yield case("linalg_norm/vector_ord", "linalg_norm", [x((5,), 95)], ln, {"ord": 1})
    yield case("linalg_norm/matrix_inf", "linalg_norm", [x((3, 3), 96)], ln, {"ord": INF})
    yield case("linalg_norm/matrix_fro_dims", "linalg_norm", [x((2, 3, 2), 97)], ln, {"ord": "fro", "dim": [0, 1]})
    yield case("linalg_norm/vector_dim", "linalg_norm", [x((2, 3), 98)], ln, {"ord": 3, "dim": 1, "keepdim": True})
    yield case("linalg_norm/ord_3d_error", "linalg_norm", [x((2, 2, 2), 99)], ln, {"ord": 2})


def cases():
    yield from einsum_cases()
    yield from product_cases()
    yield from norm_cases()
