"""The matmul family: mm, bmm, matmul, addmm, mv, dot, outer on odd shapes, non-contiguous
operands (transposed, stepped, expanded), 1-D and broadcast batch rules, int64, and torch's errors.

Values stay in [-1, 1) so sums over K <= 70 stay well inside atol/rtol 1e-4 in f32."""
import torch

from .common import In, case, floats, ints


def f(shape, seed, view=()):
    n = 1
    for d in shape:
        n *= d
    return In(floats(n, -1.0, 1.0, seed=seed), shape=shape, view=view)


def i(shape, seed, view=()):
    n = 1
    for d in shape:
        n *= d
    return In(ints(n, seed=seed), "int64", shape=shape, view=view)


def b(shape):
    n = 1
    for d in shape:
        n *= d
    return In([k % 2 == 0 for k in range(n)], "bool", shape=shape)


mm = lambda a, b: torch.mm(a, b)
bmm = lambda a, b: torch.bmm(a, b)
matmul = lambda a, b: torch.matmul(a, b)
mv = lambda a, b: torch.mv(a, b)
dot = lambda a, b: torch.dot(a, b)
outer = lambda a, b: torch.outer(a, b)
addmm = lambda c, a, b, beta, alpha: torch.addmm(c, a, b, beta=beta, alpha=alpha)


def cases():
    seed = 200
    # mm on odd and tile-edge shapes, each operand contiguous or transposed.
    for m, k, n in [(1, 1, 1), (3, 5, 7), (65, 33, 17), (4, 8, 12), (68, 36, 20), (17, 1, 9), (1, 70, 1), (33, 64, 65)]:
        for ta in (False, True):
            for tb in (False, True):
                seed += 2
                a = f([k, m], seed, [["t"]]) if ta else f([m, k], seed)
                bb = f([n, k], seed + 1, [["t"]]) if tb else f([k, n], seed + 1)
                tag = f"{m}x{k}x{n}" + ("_at" if ta else "") + ("_bt" if tb else "")
                yield case(f"mm/{tag}", "mm", [a, bb], mm)
    yield case("mm/stepped", "mm", [f([6, 10], 300, [["slice", 1, 0, None, 2]]), f([5, 7], 301)], mm)
    yield case("mm/narrowed", "mm", [f([6, 10], 302, [["narrow", 1, 3, 4]]), f([6, 7], 303, [["narrow", 0, 1, 4]])], mm)
    yield case("mm/expanded", "mm", [f([1, 5], 304, [["expand", [4, 5]]]), f([5, 1], 305, [["expand", [5, 3]]])], mm)
    yield case("mm/k0", "mm", [In([], shape=[2, 0]), In([], shape=[0, 3])], mm)
    yield case("mm/m0", "mm", [In([], shape=[0, 3]), f([3, 4], 306)], mm)
    yield case("mm/int64", "mm", [i([5, 7], 307), i([7, 3], 308)], mm)
    yield case("mm/int64_transposed", "mm", [i([7, 5], 309, [["t"]]), i([7, 3], 310)], mm)
    yield case("mm/nan_inf", "mm", [In([1.0, float("nan"), 2.0, float("inf")], shape=[2, 2]), In([1.0, 0.0, 0.0, 1.0], shape=[2, 2])], mm)
    yield case("mm/inf_times_zero", "mm", [In([float("inf")] * 6, shape=[2, 3]), In([0.0] * 6, shape=[3, 2])], mm)
    yield case("mm/shape_error", "mm", [f([2, 3], 311), f([4, 5], 312)], mm)
    yield case("mm/vector_error", "mm", [f([3], 313), f([3, 4], 314)], mm)
    yield case("mm/mat2_vector_error", "mm", [f([2, 3], 315), f([3], 316)], mm)
    yield case("mm/3d_error", "mm", [f([2, 2, 3], 317), f([3, 4], 318)], mm)
    yield case("mm/dtype_error", "mm", [f([2, 3], 319), i([3, 4], 320)], mm)
    yield case("mm/bool_error", "mm", [b([2, 3]), b([3, 4])], mm)
    yield case("mm/bool_k0", "mm", [In([], "bool", shape=[2, 0]), In([], "bool", shape=[0, 4])], mm)

    # bmm.
    yield case("bmm/3x5x7x9", "bmm", [f([3, 5, 7], 330), f([3, 7, 9], 331)], bmm)
    yield case("bmm/transposed", "bmm", [f([3, 7, 5], 332, [["transpose", 1, 2]]), f([3, 9, 7], 333, [["transpose", 1, 2]])], bmm)
    yield case("bmm/batch_permuted", "bmm", [f([5, 3, 7], 334, [["permute", [1, 0, 2]]]), f([3, 7, 4], 335)], bmm)
    yield case("bmm/expanded_batch", "bmm", [f([3, 5, 7], 336), f([1, 7, 9], 337, [["expand", [3, 7, 9]]])], bmm)
    yield case("bmm/int64", "bmm", [i([2, 3, 4], 338), i([2, 4, 5], 339)], bmm)
    yield case("bmm/empty_batch", "bmm", [In([], shape=[0, 2, 3]), In([], shape=[0, 3, 4])], bmm)
    yield case("bmm/2d_error", "bmm", [f([2, 3], 340), f([3, 4], 341)], bmm)
    yield case("bmm/batch2_2d_error", "bmm", [f([2, 2, 3], 342), f([3, 4], 343)], bmm)
    yield case("bmm/batch_error", "bmm", [f([2, 2, 3], 344), f([3, 3, 4], 345)], bmm)
    yield case("bmm/inner_error", "bmm", [f([2, 2, 3], 346), f([2, 4, 4], 347)], bmm)
    yield case("bmm/dtype_error", "bmm", [i([2, 2, 3], 348), f([2, 3, 4], 349)], bmm)
    yield case("bmm/bool_error", "bmm", [b([2, 2, 3]), b([2, 3, 4])], bmm)

    # matmul: every rank combination torch distinguishes.
    shapes = [
        ([7], [7]), ([7], [7, 5]), ([4, 7], [7]), ([4, 7], [7, 5]),
        ([3, 4, 7], [7]), ([7], [3, 7, 5]), ([3, 4, 7], [7, 5]), ([4, 7], [3, 7, 5]),
        ([3, 4, 7], [3, 7, 5]), ([2, 1, 4, 7], [3, 7, 5]), ([2, 1, 4, 7], [1, 3, 7, 5]),
        ([1, 4, 7], [2, 3, 7, 5]), ([2, 3, 4, 7], [7]), ([7], [2, 3, 7, 5]), ([0, 4, 7], [7, 5]),
        ([3, 5, 0], [0, 0]), ([0], [0]), ([7], [2, 7, 1]), ([3, 7], [7, 1]),
    ]
    for sa, sb in shapes:
        seed += 2
        tag = "x".join(map(str, sa)) + "@" + "x".join(map(str, sb))
        yield case(f"matmul/{tag}", "matmul", [f(sa, seed), f(sb, seed + 1)], matmul)
    yield case("matmul/noncontig_3d_1d", "matmul", [f([4, 3, 7], 360, [["transpose", 0, 1]]), f([7], 361)], matmul)
    yield case("matmul/noncontig_3d_2d", "matmul", [f([4, 3, 7], 362, [["transpose", 0, 1]]), f([7, 5], 363)], matmul)
    yield case("matmul/transposed_batch", "matmul", [f([3, 7, 4], 364, [["transpose", 1, 2]]), f([3, 5, 7], 365, [["transpose", -1, -2]])], matmul)
    yield case("matmul/expanded_batch", "matmul", [f([1, 4, 7], 366, [["expand", [3, 4, 7]]]), f([3, 7, 5], 367)], matmul)
    yield case("matmul/int64", "matmul", [i([2, 3, 4], 368), i([4, 2], 369)], matmul)
    yield case("matmul/int64_dot", "matmul", [i([5], 370), i([5], 371)], matmul)
    yield case("matmul/0d_error", "matmul", [In(2.0), f([3], 372)], matmul)
    yield case("matmul/0d_error_b", "matmul", [f([3], 373), In(2.0)], matmul)
    yield case("matmul/dot_size_error", "matmul", [f([3], 374), f([4], 375)], matmul)
    yield case("matmul/1d_2d_error", "matmul", [f([3], 376), f([4, 5], 377)], matmul)
    yield case("matmul/2d_1d_error", "matmul", [f([2, 3], 378), f([4], 379)], matmul)
    yield case("matmul/3d_1d_error", "matmul", [f([2, 2, 3], 380), f([4], 381)], matmul)
    yield case("matmul/1d_3d_error", "matmul", [f([3], 382), f([2, 4, 5], 383)], matmul)
    yield case("matmul/3d_2d_error", "matmul", [f([2, 2, 3], 384), f([4, 5], 385)], matmul)
    yield case("matmul/2d_3d_error", "matmul", [f([2, 3], 386), f([2, 4, 5], 387)], matmul)
    yield case("matmul/broadcast_error", "matmul", [f([2, 2, 3], 388), f([3, 3, 4], 389)], matmul)
    yield case("matmul/broadcast_error_2dims", "matmul", [f([2, 3, 4, 5], 390), f([3, 2, 5, 6], 391)], matmul)
    yield case("matmul/noncontig_1d_error", "matmul", [f([2, 3, 2], 392, [["transpose", 0, 1]]), f([4], 393)], matmul)
    yield case("matmul/fold_k1_error", "matmul", [f([3], 394), f([2, 1, 5], 395)], matmul)
    yield case("matmul/dtype_error_batched", "matmul", [f([2, 2, 3], 396), i([2, 3, 4], 397)], matmul)
    yield case("matmul/dtype_error_mm", "matmul", [f([2, 2, 3], 398), i([3, 4], 399)], matmul)
    yield case("matmul/dtype_error_mv", "matmul", [f([2, 3], 400), i([3], 401)], matmul)
    yield case("matmul/dtype_error_dot", "matmul", [f([3], 402), i([3], 403)], matmul)
    yield case("matmul/bool_error", "matmul", [b([3]), b([3])], matmul)
    yield case("matmul/bool_batched_error", "matmul", [b([2, 2, 3]), b([2, 3, 3])], matmul)

    # mv and dot.
    yield case("mv/4x7", "mv", [f([4, 7], 410), f([7], 411)], mv)
    yield case("mv/transposed", "mv", [f([7, 4], 412, [["t"]]), f([14], 413, [["slice", 0, 0, None, 2]])], mv)
    yield case("mv/int64", "mv", [i([3, 5], 414), i([5], 415)], mv)
    yield case("mv/size_error", "mv", [f([2, 3], 416), f([4], 417)], mv)
    yield case("mv/rank_error", "mv", [f([3], 418), f([3], 419)], mv)
    yield case("mv/rank_error_b", "mv", [f([2, 3], 420), f([3, 1], 421)], mv)
    yield case("mv/dtype_error", "mv", [i([2, 3], 422), f([3], 423)], mv)
    yield case("mv/bool_k0", "mv", [In([], "bool", shape=[2, 0]), In([], "bool", shape=[0])], mv)
    yield case("dot/9", "dot", [f([9], 430), f([9], 431)], dot)
    yield case("dot/stepped", "dot", [f([18], 432, [["slice", 0, 1, None, 2]]), f([9], 433)], dot)
    yield case("dot/empty", "dot", [In([], shape=[0]), In([], shape=[0])], dot)
    yield case("dot/int64", "dot", [i([6], 434), i([6], 435)], dot)
    yield case("dot/size_error", "dot", [f([3], 436), f([4], 437)], dot)
    yield case("dot/rank_error", "dot", [f([3, 1], 438), f([3], 439)], dot)
    yield case("dot/dtype_error", "dot", [f([3], 440), i([3], 441)], dot)
    yield case("dot/bool_error", "dot", [b([3]), b([3])], dot)

    # outer.
    yield case("outer/3x4", "outer", [f([3], 450), f([4], 451)], outer)
    yield case("outer/int_float", "outer", [i([3], 452), f([2], 453)], outer)
    yield case("outer/bool", "outer", [b([3]), b([2])], outer)
    yield case("outer/empty", "outer", [f([3], 454), In([], shape=[0])], outer)
    yield case("outer/2d_error", "outer", [f([2, 3], 455), f([3], 456)], outer)
    yield case("outer/0d_error", "outer", [f([3], 457), In(1.0)], outer)

    # addmm.
    for beta, alpha in [(1, 1), (0.5, 2.0), (0, 1), (2, 0), (-1, 0.25)]:
        yield case(f"addmm/{beta}_{alpha}", "addmm", [f([5, 7], 460), f([5, 6], 461), f([6, 7], 462)], addmm, {"beta": beta, "alpha": alpha})
    yield case("addmm/bias_row", "addmm", [f([7], 463), f([5, 6], 464), f([6, 7], 465)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/bias_col", "addmm", [f([5, 1], 466), f([5, 6], 467), f([6, 7], 468)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/bias_scalar", "addmm", [In(1.5), f([5, 6], 469), f([6, 7], 470)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/transposed_all", "addmm", [f([7, 5], 471, [["t"]]), f([6, 5], 472, [["t"]]), f([7, 6], 473, [["t"]])], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/odd_65x33x17", "addmm", [f([17], 474), f([65, 33], 475), f([33, 17], 476)], addmm, {"beta": 0.5, "alpha": -1})
    yield case("addmm/beta0_nan", "addmm", [In([float("nan")] * 4, shape=[2, 2]), f([2, 3], 477), f([3, 2], 478)], addmm, {"beta": 0, "alpha": 1})
    yield case("addmm/k0", "addmm", [f([2, 3], 479), In([], shape=[2, 0]), In([], shape=[0, 3])], addmm, {"beta": 2, "alpha": 1})
    yield case("addmm/alpha0_inf", "addmm", [f([2, 2], 480), In([float("inf")] * 6, shape=[2, 3]), f([3, 2], 481)], addmm, {"beta": 1, "alpha": 0})
    yield case("addmm/int64", "addmm", [i([3, 4], 482), i([3, 5], 483), i([5, 4], 484)], addmm, {"beta": 2, "alpha": 3})
    yield case("addmm/int64_fractional", "addmm", [i([3, 4], 485), i([3, 5], 486), i([5, 4], 487)], addmm, {"beta": 0.5, "alpha": 1.5})
    yield case("addmm/input_error", "addmm", [f([3, 3], 488), f([2, 3], 489), f([3, 4], 490)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/input_rank_error", "addmm", [f([1, 2, 4], 491), f([2, 3], 492), f([3, 4], 493)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/shape_error", "addmm", [f([2, 4], 494), f([2, 3], 495), f([4, 4], 496)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/vector_error", "addmm", [f([2, 4], 497), f([3], 498), f([3, 4], 499)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/mat_dtype_error", "addmm", [f([2, 4], 500), i([2, 3], 501), f([3, 4], 502)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/self_dtype_error", "addmm", [f([2, 4], 503), i([2, 3], 504), i([3, 4], 505)], addmm, {"beta": 1, "alpha": 1})
    yield case("addmm/bool_error", "addmm", [b([2, 4]), b([2, 3]), b([3, 4])], addmm, {"beta": 1, "alpha": 1})
