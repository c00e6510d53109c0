"""torch.nn.functional: the losses beyond the first nine (poisson_nll, gaussian_nll,
margin_ranking, hinge_embedding, multilabel_margin, soft_margin, multilabel_soft_margin,
cosine_embedding, multi_margin, triplet_margin, triplet_margin_with_distance, ctc) with every
reduction, on contiguous and non-contiguous inputs, forward and backward.

Optional tensors follow the required ones in `inputs`, flagged by `has_weight`. `detach_target`
marks a target torch refuses a gradient for (soft_margin_loss's). ctc_loss takes its lengths as
int64 tensor inputs, or as int lists in args.
"""
import torch
import torch.nn.functional as F

from .common import In, Num, case, floats

REDUCTIONS = ["none", "mean", "sum"]
IX = lambda data, shape=None, view=(): In(data, "int64", shape, view)
X = lambda seed=400: In(floats(12, seed=seed), shape=[3, 4])
XT = lambda seed=401: In(floats(12, seed=seed), shape=[4, 3], view=[["t"]])
SIGN = lambda: In([1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0, -1.0], shape=[3, 4])


def with_weight(fn):
    def call(*inputs, has_weight=False, **kw):
        inputs = list(inputs)
        w = inputs.pop() if has_weight else None
        return fn(*inputs, weight=w, **kw)
    return call


def detached(fn):
    return lambda x, t, detach_target=False, **kw: fn(x, t.detach() if detach_target else t, **kw)


def regression():
    pos = lambda: In(torch.rand(12, generator=torch.Generator().manual_seed(402)).mul(3).add(0.1)
                     .tolist(), shape=[3, 4])
    counts = lambda: In([0.0, 1.0, 2.0, 5.0, 0.5, 3.0, 1.0, 7.0, 2.5, 0.0, 4.0, 1.5], shape=[3, 4])
    for r in REDUCTIONS:
        yield case(f"F.poisson_nll_loss/{r}", "F.poisson_nll_loss", [X(), counts()],
                   F.poisson_nll_loss, {"reduction": r})
        yield case(f"F.poisson_nll_loss/no_log_{r}", "F.poisson_nll_loss", [pos(), counts()],
                   F.poisson_nll_loss, {"reduction": r, "log_input": False})
        yield case(f"F.poisson_nll_loss/full_{r}", "F.poisson_nll_loss", [XT(), pos()],
                   F.poisson_nll_loss, {"reduction": r, "full": True})
    yield case("F.poisson_nll_loss/eps", "F.poisson_nll_loss", [pos(), counts()],
               F.poisson_nll_loss, {"log_input": False, "eps": 0.5})
    yield case("F.poisson_nll_loss/bad_reduction", "F.poisson_nll_loss", [X(), counts()],
               F.poisson_nll_loss, {"reduction": "avg"})
    var = lambda: In([0.5, 1.0, 2.0, 1e-9, 0.1, 3.0, 0.7, 1.2, 0.0, 0.4, 0.9, 2.5], shape=[3, 4])
    for r in REDUCTIONS:
        yield case(f"F.gaussian_nll_loss/{r}", "F.gaussian_nll_loss", [X(), XT(), var()],
                   F.gaussian_nll_loss, {"reduction": r})
        yield case(f"F.gaussian_nll_loss/full_{r}", "F.gaussian_nll_loss", [X(), X(403), var()],
                   F.gaussian_nll_loss, {"reduction": r, "full": True, "eps": 0.05})
    yield case("F.gaussian_nll_loss/homoscedastic", "F.gaussian_nll_loss",
               [X(), X(404), In([0.5, 1.5, 2.0])], F.gaussian_nll_loss)
    yield case("F.gaussian_nll_loss/last_dim_one", "F.gaussian_nll_loss",
               [X(), X(405), In([0.5, 1.5, 2.0], shape=[3, 1])], F.gaussian_nll_loss)
    yield case("F.gaussian_nll_loss/float_var", "F.gaussian_nll_loss", [X(), X(406), Num(0.5)],
               F.gaussian_nll_loss, {"reduction": "sum"})
    yield case("F.gaussian_nll_loss/bad_size", "F.gaussian_nll_loss", [X(), X(407), In([1.0, 2.0])],
               F.gaussian_nll_loss)
    yield case("F.gaussian_nll_loss/bad_reduction", "F.gaussian_nll_loss", [X(), X(), var()],
               F.gaussian_nll_loss, {"reduction": "avg"})


def margins():
    y4 = lambda: In([1.0, -1.0, 1.0, -1.0])
    for r in REDUCTIONS:
        yield case(f"F.margin_ranking_loss/{r}", "F.margin_ranking_loss",
                   [In(floats(4, seed=410)), In(floats(4, seed=411)), y4()],
                   F.margin_ranking_loss, {"reduction": r})
        yield case(f"F.margin_ranking_loss/margin_2d_{r}", "F.margin_ranking_loss",
                   [X(), XT(), SIGN()], F.margin_ranking_loss, {"reduction": r, "margin": 0.5})
        yield case(f"F.hinge_embedding_loss/{r}", "F.hinge_embedding_loss", [X(), SIGN()],
                   F.hinge_embedding_loss, {"reduction": r})
        yield case(f"F.hinge_embedding_loss/margin_{r}", "F.hinge_embedding_loss", [XT(), SIGN()],
                   F.hinge_embedding_loss, {"reduction": r, "margin": 2.0})
        yield case(f"F.soft_margin_loss/{r}", "F.soft_margin_loss", [X(), SIGN()],
                   detached(F.soft_margin_loss), {"reduction": r, "detach_target": True})
        yield case(f"F.soft_margin_loss/transposed_{r}", "F.soft_margin_loss", [XT(), SIGN()],
                   detached(F.soft_margin_loss), {"reduction": r, "detach_target": True})
    yield case("F.margin_ranking_loss/dims", "F.margin_ranking_loss",
               [X(), X(), In([1.0, -1.0, 1.0, 1.0])], F.margin_ranking_loss)
    yield case("F.margin_ranking_loss/broadcast", "F.margin_ranking_loss",
               [In(floats(4, seed=412)), In(floats(4, seed=413)), In([-1.0])],
               F.margin_ranking_loss)
    # multilabel_margin: target classes up to the first -1 (a repeated class counts twice).
    MT = lambda: IX([3, 0, -1, 1, 1, 2, 3, 0, 0, 1, 2, 3], [3, 4])
    for r in REDUCTIONS:
        yield case(f"F.multilabel_margin_loss/{r}", "F.multilabel_margin_loss", [X(), MT()],
                   F.multilabel_margin_loss, {"reduction": r})
        yield case(f"F.multilabel_margin_loss/1d_{r}", "F.multilabel_margin_loss",
                   [In(floats(4, seed=414)), IX([2, -1, 0, 1])], F.multilabel_margin_loss,
                   {"reduction": r})
    yield case("F.multilabel_margin_loss/transposed", "F.multilabel_margin_loss", [XT(), MT()],
               F.multilabel_margin_loss)
    yield case("F.multilabel_margin_loss/duplicate", "F.multilabel_margin_loss",
               [X(), IX([1, 1, -1, 0, -1, 2, 3, 0, 2, 2, 2, -1], [3, 4])], F.multilabel_margin_loss)
    yield case("F.multilabel_margin_loss/target_size", "F.multilabel_margin_loss",
               [X(), IX([0, 1, 2], [3, 1])], F.multilabel_margin_loss)
    yield case("F.multilabel_margin_loss/float_target", "F.multilabel_margin_loss",
               [X(), In([0.0] * 12, shape=[3, 4])], F.multilabel_margin_loss)
    yield case("F.multilabel_margin_loss/3d", "F.multilabel_margin_loss",
               [In(floats(8, seed=415), shape=[2, 2, 2]), IX([0] * 8, [2, 2, 2])],
               F.multilabel_margin_loss)
    T3 = lambda: IX([1, 0, 3])
    W = lambda: In([0.5, 1.0, 2.0, 1.5])
    mml = with_weight(F.multi_margin_loss)
    for r in REDUCTIONS:
        yield case(f"F.multi_margin_loss/{r}", "F.multi_margin_loss", [X(), T3()], mml,
                   {"reduction": r})
        yield case(f"F.multi_margin_loss/p2_margin_{r}", "F.multi_margin_loss", [XT(), T3()], mml,
                   {"reduction": r, "p": 2, "margin": 0.7})
        yield case(f"F.multi_margin_loss/weight_{r}", "F.multi_margin_loss", [X(), T3(), W()], mml,
                   {"reduction": r, "has_weight": True})
    yield case("F.multi_margin_loss/1d", "F.multi_margin_loss", [In(floats(4, seed=416)), IX(2)],
               mml)
    yield case("F.multi_margin_loss/p3", "F.multi_margin_loss", [X(), T3()], mml, {"p": 3})
    yield case("F.multi_margin_loss/target_size", "F.multi_margin_loss", [X(), IX([1, 2])], mml)
    yield case("F.multi_margin_loss/weight_size", "F.multi_margin_loss",
               [X(), T3(), In([1.0, 2.0, 3.0])], mml, {"has_weight": True})
    yield case("F.multi_margin_loss/weight_2d", "F.multi_margin_loss",
               [X(), T3(), In([1.0] * 4, shape=[2, 2])], mml, {"has_weight": True})
    yield case("F.multi_margin_loss/float_target", "F.multi_margin_loss", [X(), In([1.0, 2.0, 0.0])],
               mml)
    targets = lambda: In(torch.rand(12, generator=torch.Generator().manual_seed(417)).tolist(),
                         shape=[3, 4])
    mlsm = with_weight(F.multilabel_soft_margin_loss)
    for r in REDUCTIONS:
        yield case(f"F.multilabel_soft_margin_loss/{r}", "F.multilabel_soft_margin_loss",
                   [X(), targets()], mlsm, {"reduction": r})
        yield case(f"F.multilabel_soft_margin_loss/weight_{r}", "F.multilabel_soft_margin_loss",
                   [XT(), targets(), W()], mlsm, {"reduction": r, "has_weight": True})
    yield case("F.multilabel_soft_margin_loss/bad_reduction", "F.multilabel_soft_margin_loss",
               [X(), targets()], mlsm, {"reduction": "avg"})


def embeddings():
    y3 = lambda: In([1.0, -1.0, -1.0])
    for r in REDUCTIONS:
        yield case(f"F.cosine_embedding_loss/{r}", "F.cosine_embedding_loss", [X(), XT(), y3()],
                   F.cosine_embedding_loss, {"reduction": r})
        yield case(f"F.cosine_embedding_loss/margin_{r}", "F.cosine_embedding_loss",
                   [XT(), X(420), y3()], F.cosine_embedding_loss, {"reduction": r, "margin": -0.2})
    yield case("F.cosine_embedding_loss/1d", "F.cosine_embedding_loss",
               [In(floats(4, seed=421)), In(floats(4, seed=422)), In(-1.0)],
               F.cosine_embedding_loss, {"margin": 0.1})
    yield case("F.cosine_embedding_loss/target_2d", "F.cosine_embedding_loss",
               [X(), X(), In([1.0, 1.0, 1.0], shape=[3, 1])], F.cosine_embedding_loss)
    yield case("F.cosine_embedding_loss/inputs_1d", "F.cosine_embedding_loss",
               [In(floats(4, seed=423)), In(floats(4, seed=424)), y3()], F.cosine_embedding_loss)
    A, P, N = (lambda: X(430)), (lambda: XT(431)), (lambda: X(432))
    for r in REDUCTIONS:
        yield case(f"F.triplet_margin_loss/{r}", "F.triplet_margin_loss", [A(), P(), N()],
                   F.triplet_margin_loss, {"reduction": r})
        yield case(f"F.triplet_margin_loss/p1_swap_{r}", "F.triplet_margin_loss", [A(), P(), N()],
                   F.triplet_margin_loss, {"reduction": r, "p": 1.0, "swap": True, "margin": 2.0})
        yield case(f"F.triplet_margin_with_distance_loss/{r}", "F.triplet_margin_with_distance_loss",
                   [A(), P(), N()], F.triplet_margin_with_distance_loss, {"reduction": r})
        yield case(f"F.triplet_margin_with_distance_loss/swap_{r}",
                   "F.triplet_margin_with_distance_loss", [A(), P(), N()],
                   F.triplet_margin_with_distance_loss, {"reduction": r, "swap": True,
                                                         "margin": 3.0})
    yield case("F.triplet_margin_loss/p3_eps", "F.triplet_margin_loss", [A(), P(), N()],
               F.triplet_margin_loss, {"p": 3.0, "eps": 0.01})
    yield case("F.triplet_margin_loss/1d", "F.triplet_margin_loss",
               [In(floats(4, seed=433)), In(floats(4, seed=434)), In(floats(4, seed=435))],
               F.triplet_margin_loss)
    yield case("F.triplet_margin_loss/dims", "F.triplet_margin_loss",
               [A(), P(), In(floats(4, seed=436))], F.triplet_margin_loss)
    yield case("F.triplet_margin_with_distance_loss/margin", "F.triplet_margin_with_distance_loss",
               [A(), P(), N()], F.triplet_margin_with_distance_loss, {"margin": 0.0})
    yield case("F.triplet_margin_with_distance_loss/dims", "F.triplet_margin_with_distance_loss",
               [A(), P(), In(floats(4, seed=437))], F.triplet_margin_with_distance_loss)


def ctc():
    T, N, C = 6, 3, 5

    def log_probs(seed, shape=(T, N, C)):
        g = torch.Generator().manual_seed(seed)
        return In(torch.randn(*shape, generator=g).log_softmax(-1).tolist())

    raw = lambda seed: In(floats(T * N * C, seed=seed), shape=[T, N, C])
    padded = lambda: IX([1, 2, 2, 3, 3, 0, 4, 1, 4], [3, 3])
    IL, TL = (lambda: IX([6, 5, 4])), (lambda: IX([3, 2, 3]))
    for r in REDUCTIONS:
        yield case(f"F.ctc_loss/{r}", "F.ctc_loss", [log_probs(440), padded(), IL(), TL()],
                   F.ctc_loss, {"reduction": r})
        yield case(f"F.ctc_loss/raw_{r}", "F.ctc_loss", [raw(441), padded(), IL(), TL()],
                   F.ctc_loss, {"reduction": r})
    yield case("F.ctc_loss/blank_last", "F.ctc_loss",
               [log_probs(442), IX([0, 1, 1, 2, 3, 3, 0, 2, 0], [3, 3]), IL(), TL()],
               F.ctc_loss, {"blank": 4})
    yield case("F.ctc_loss/concatenated", "F.ctc_loss",
               [log_probs(443), IX([1, 2, 2, 3, 4, 1, 4]), IL(), IX([3, 1, 3])],
               F.ctc_loss, {"reduction": "sum"})
    yield case("F.ctc_loss/empty_target", "F.ctc_loss",
               [log_probs(444), padded(), IL(), IX([3, 0, 1])], F.ctc_loss,
               {"reduction": "none"})
    yield case("F.ctc_loss/list_lengths", "F.ctc_loss", [log_probs(445), padded()],
               F.ctc_loss, {"input_lengths": [6, 6, 3], "target_lengths": [2, 2, 1]})
    # Sample 1 cannot be aligned (3 labels with a repeat need 4 steps, it has 3).
    impossible = lambda: IX([1, 1, 2, 3, 3, 3, 2, 0, 0], [3, 3])
    for zi in [False, True]:
        yield case(f"F.ctc_loss/impossible_zero_infinity_{zi}", "F.ctc_loss",
                   [log_probs(446), impossible(), IX([6, 3, 5]), IX([3, 2, 1])], F.ctc_loss,
                   {"reduction": "none", "zero_infinity": zi})
    yield case("F.ctc_loss/zero_infinity_mean", "F.ctc_loss",
               [log_probs(447), impossible(), IX([6, 4, 5]), IX([3, 3, 1])], F.ctc_loss,
               {"zero_infinity": True})
    yield case("F.ctc_loss/unbatched", "F.ctc_loss",
               [log_probs(448, (T, C)), IX([2, 3, 3]), IX(6), IX(3)], F.ctc_loss)
    yield case("F.ctc_loss/transposed", "F.ctc_loss",
               [In(torch.randn(N, T, C, generator=torch.Generator().manual_seed(449))
                   .log_softmax(-1).tolist(), view=[["transpose", 0, 1]]),
                padded(), IL(), TL()], F.ctc_loss)
    yield case("F.ctc_loss/bad_blank", "F.ctc_loss", [log_probs(450), padded(), IL(), TL()],
               F.ctc_loss, {"blank": 5})
    yield case("F.ctc_loss/bad_reduction", "F.ctc_loss", [log_probs(451), padded(), IL(), TL()],
               F.ctc_loss, {"reduction": "avg"})


def cases():
    yield from regression()
    yield from margins()
    yield from embeddings()
    yield from ctc()
