"""torch.nn.functional: activations, linear and bilinear, embedding, layer_norm and rms_norm,
dropout outside training, and the losses with every reduction, class weights, ignore_index,
label smoothing and probability targets. Inputs are contiguous and non-contiguous (transposed,
stepped, expanded); each case with a float graph also freezes the input gradients.

Op names are `F.<name>`. Optional tensors follow the required ones in `inputs` in torch's order,
flagged by args the runner reads: `has_bias` (linear, bilinear), `has_weight` / `has_bias`
(layer_norm, rms_norm), `has_weight` / `has_pos_weight` (losses). `detach_target` marks a target
whose gradient is not frozen (kl_div's is NaN in torch where the target is 0: xlogy's 0/0; borch's
is 0). Other args are torch's keyword arguments.
"""
import torch
import torch.nn.functional as F

from .common import In, case, floats

nan, inf = float("nan"), float("inf")

# 3x4 float inputs seen through different layouts; SPECIAL holds the kinks of the activations.
X = {
    "contig": lambda: In(floats(12, seed=200), shape=[3, 4]),
    "transposed": lambda: In(floats(12, seed=201), shape=[4, 3], view=[["t"]]),
    "stepped": lambda: In(floats(24, seed=202), shape=[3, 8], view=[["slice", 1, 1, None, 2]]),
    "expanded": lambda: In(floats(4, seed=203), shape=[1, 4], view=[["expand", [3, 4]]]),
}
SPECIAL = lambda: In([-3.0, 0.0, 3.0, 6.0, -1.0, 1.0, 25.0, -30.0, 0.5, -0.5, 2.0, -6.0],
                     shape=[3, 4])
NANS = lambda: In([nan, inf, -inf, 1.0], shape=[4])
IX = lambda data, shape=None, view=(): In(data, "int64", shape, view)


def activations():
    acts = [
        ("relu", F.relu, {}), ("relu6", F.relu6, {}),
        ("leaky_relu", F.leaky_relu, {"negative_slope": 0.1}),
        ("elu", F.elu, {"alpha": 0.7}), ("selu", F.selu, {}),
        ("gelu", F.gelu, {"approximate": "none"}), ("gelu_tanh", F.gelu, {"approximate": "tanh"}),
        ("silu", F.silu, {}), ("mish", F.mish, {}), ("tanh", torch.tanh, {}),
        ("sigmoid", torch.sigmoid, {}), ("hardtanh", F.hardtanh, {"min_val": -2.0, "max_val": 1.5}),
        ("hardswish", F.hardswish, {}), ("softplus", F.softplus, {"beta": 2.0, "threshold": 5.0}),
        ("softmax", F.softmax, {"dim": 1}), ("log_softmax", F.log_softmax, {"dim": -1}),
        ("softmax_dim0", F.softmax, {"dim": 0}),
    ]
    for name, fn, args in acts:
        op = "F." + ("gelu" if name == "gelu_tanh" else "softmax" if name == "softmax_dim0" else name)
        for layout, make in list(X.items()) + [("special", SPECIAL)]:
            yield case(f"{op}/{name}_{layout}", op, [make()], fn, args)
        if "softmax" not in name:
            yield case(f"{op}/{name}_nan_inf", op, [NANS()], fn, args)
    yield case("F.gelu/bad_approximate", "F.gelu", [X["contig"]()], F.gelu, {"approximate": "fast"})
    yield case("F.softmax/dim_out_of_range", "F.softmax", [X["contig"]()], F.softmax, {"dim": 2})


def linear_like():
    lin = lambda x, w, b=None, has_bias=False: F.linear(x, w, b)
    W = lambda: In(floats(12, seed=210), shape=[3, 4])
    WT = lambda: In(floats(12, seed=211), shape=[4, 3], view=[["t"]])
    B = lambda: In(floats(3, seed=212))
    for name, x in [("2d", X["contig"]()), ("transposed", X["transposed"]()),
                    ("expanded", X["expanded"]()),
                    ("3d", In(floats(24, seed=213), shape=[2, 3, 4])),
                    ("1d", In(floats(4, seed=214)))]:
        yield case(f"F.linear/{name}", "F.linear", [x, W(), B()], lin, {"has_bias": True})
    yield case("F.linear/no_bias", "F.linear", [X["stepped"](), W()], lin, {"has_bias": False})
    yield case("F.linear/weight_transposed", "F.linear", [X["contig"](), WT(), B()], lin,
               {"has_bias": True})
    yield case("F.linear/bias_expanded", "F.linear",
               [X["contig"](), W(), In([0.5], view=[["expand", [3]]])], lin, {"has_bias": True})
    yield case("F.linear/shape_mismatch", "F.linear", [In(floats(10, seed=215), shape=[2, 5]), W(),
                                                       B()], lin, {"has_bias": True})
    bil = lambda x1, x2, w, b=None, has_bias=False: F.bilinear(x1, x2, w, b)
    W3 = lambda: In(floats(24, seed=216), shape=[2, 3, 4])
    x1 = lambda: In(floats(15, seed=217), shape=[5, 3])
    x2 = lambda: In(floats(20, seed=218), shape=[4, 5], view=[["t"]])
    yield case("F.bilinear/bias", "F.bilinear", [x1(), x2(), W3(), In(floats(2, seed=219))], bil,
               {"has_bias": True})
    yield case("F.bilinear/no_bias", "F.bilinear", [x1(), x2(), W3()], bil, {"has_bias": False})
    yield case("F.bilinear/size_mismatch", "F.bilinear", [x2(), x2(), W3()], bil,
               {"has_bias": False})


def embedding_and_norms():
    W = lambda: In(floats(15, seed=220), shape=[5, 3])
    emb = lambda i, w, padding_idx=None: F.embedding(i, w, padding_idx)
    yield case("F.embedding/2d", "F.embedding", [IX([0, 4, 2, 2, 1, 0], [2, 3]), W()], emb)
    yield case("F.embedding/padding", "F.embedding", [IX([1, 4, 1, 3], [4]), W()], emb,
               {"padding_idx": 1})
    yield case("F.embedding/padding_negative", "F.embedding", [IX([4, 0, 4], [3]), W()], emb,
               {"padding_idx": -1})
    yield case("F.embedding/transposed_weight", "F.embedding",
               [IX([2, 0], [2]), In(floats(15, seed=221), shape=[3, 5], view=[["t"]])], emb)
    yield case("F.embedding/float_indices", "F.embedding", [X["contig"](), W()], emb)
    # Many positions on few rows: the backward adds through several copies of the table.
    yield case("F.embedding/many_positions", "F.embedding",
               [IX([(i * 7 + 3) % 5 for i in range(120)], [8, 15]), W()], emb)

    def ln(x, w=None, b=None, normalized_shape=None, eps=1e-5, has_weight=False, has_bias=False):
        return F.layer_norm(x, normalized_shape, w, b, eps)

    def rms(x, w=None, normalized_shape=None, eps=None, has_weight=False):
        return F.rms_norm(x, normalized_shape, w, eps)

    X3 = lambda: In(floats(24, seed=222), shape=[2, 3, 4])
    XP = lambda: In(floats(24, seed=223), shape=[4, 3, 2], view=[["permute", [2, 1, 0]]])
    w4, b4 = (lambda: In(floats(4, seed=224))), (lambda: In(floats(4, seed=225)))
    w34 = lambda: In(floats(12, seed=226), shape=[3, 4])
    yield case("F.layer_norm/affine", "F.layer_norm", [X3(), w4(), b4()], ln,
               {"normalized_shape": [4], "has_weight": True, "has_bias": True})
    yield case("F.layer_norm/permuted", "F.layer_norm", [XP(), w4(), b4()], ln,
               {"normalized_shape": [4], "has_weight": True, "has_bias": True, "eps": 1e-3})
    yield case("F.layer_norm/two_dims", "F.layer_norm", [X3(), w34()], ln,
               {"normalized_shape": [3, 4], "has_weight": True})
    yield case("F.layer_norm/plain", "F.layer_norm", [X["transposed"]()], ln,
               {"normalized_shape": [4]})
    yield case("F.layer_norm/bad_shape", "F.layer_norm", [X3()], ln, {"normalized_shape": [3]})
    yield case("F.rms_norm/weight", "F.rms_norm", [X3(), w4()], rms,
               {"normalized_shape": [4], "has_weight": True})
    yield case("F.rms_norm/permuted_eps", "F.rms_norm", [XP(), w34()], rms,
               {"normalized_shape": [3, 4], "has_weight": True, "eps": 1e-5})
    yield case("F.rms_norm/plain", "F.rms_norm", [X["stepped"]()], rms, {"normalized_shape": [4]})
    drop = lambda x, p=0.5, training=True: F.dropout(x, p, training)
    yield case("F.dropout/eval", "F.dropout", [X["transposed"]()], drop, {"p": 0.5, "training": False})
    yield case("F.dropout/p0", "F.dropout", [X["contig"]()], drop, {"p": 0.0, "training": True})
    yield case("F.dropout/p1", "F.dropout", [X["stepped"]()], drop, {"p": 1.0, "training": True})
    yield case("F.dropout/bad_p", "F.dropout", [X["contig"]()], drop, {"p": 1.5, "training": True})


REDUCTIONS = ["none", "mean", "sum"]


def losses():
    Y = lambda: In(floats(12, seed=230), shape=[3, 4])
    YT = lambda: In(floats(12, seed=231), shape=[4, 3], view=[["t"]])
    plain = [("mse_loss", F.mse_loss, {}), ("l1_loss", F.l1_loss, {}),
             ("smooth_l1_loss", F.smooth_l1_loss, {"beta": 0.5}),
             ("huber_loss", F.huber_loss, {"delta": 1.5})]
    for name, fn, extra in plain:
        op = "F." + name
        for r in REDUCTIONS:
            yield case(f"{op}/{r}", op, [X["contig"](), Y()], fn, dict(extra, reduction=r))
        yield case(f"{op}/transposed_target", op, [X["stepped"](), YT()], fn, extra)
        yield case(f"{op}/broadcast_target", op, [X["contig"](), In(floats(4, seed=232))], fn, extra)
        yield case(f"{op}/bad_reduction", op, [X["contig"](), Y()], fn, dict(extra, reduction="avg"))

    P = lambda: In(torch.sigmoid(torch.tensor(floats(12, seed=233))).tolist(), shape=[3, 4])
    T = lambda: In(torch.rand(12, generator=torch.Generator().manual_seed(234)).tolist(),
                   shape=[3, 4])
    TT = lambda: In(torch.rand(12, generator=torch.Generator().manual_seed(235)).tolist(),
                    shape=[4, 3], view=[["t"]])
    W = lambda: In([0.5, 1.0, 1.5, 2.0])

    def bce(x, t, w=None, has_weight=False, reduction="mean"):
        return F.binary_cross_entropy(x, t, w, reduction=reduction)

    def bcel(x, t, *rest, has_weight=False, has_pos_weight=False, reduction="mean"):
        rest = list(rest)
        w = rest.pop(0) if has_weight else None
        pw = rest.pop(0) if has_pos_weight else None
        return F.binary_cross_entropy_with_logits(x, t, w, reduction=reduction, pos_weight=pw)

    for r in REDUCTIONS:
        yield case(f"F.binary_cross_entropy/{r}", "F.binary_cross_entropy", [P(), T()], bce,
                   {"reduction": r})
        yield case(f"F.binary_cross_entropy/weight_{r}", "F.binary_cross_entropy",
                   [P(), TT(), W()], bce, {"reduction": r, "has_weight": True})
        yield case(f"F.binary_cross_entropy_with_logits/{r}", "F.binary_cross_entropy_with_logits",
                   [X["transposed"](), T()], bcel, {"reduction": r})
        yield case(f"F.binary_cross_entropy_with_logits/pos_weight_{r}",
                   "F.binary_cross_entropy_with_logits", [SPECIAL(), T(), W()], bcel,
                   {"reduction": r, "has_pos_weight": True})
        yield case(f"F.binary_cross_entropy_with_logits/both_{r}",
                   "F.binary_cross_entropy_with_logits", [X["contig"](), TT(), W(), W()], bcel,
                   {"reduction": r, "has_weight": True, "has_pos_weight": True})
    yield case("F.binary_cross_entropy/edges", "F.binary_cross_entropy",
               [In([0.0, 1.0, 0.5, 1.0]), In([0.0, 1.0, 0.25, 0.5])], bce, {"reduction": "none"})
    yield case("F.binary_cross_entropy/size_mismatch", "F.binary_cross_entropy",
               [P(), In([0.5, 0.5, 0.5, 0.5])], bce)

    def ce(x, t, w=None, has_weight=False, **kw):
        return F.cross_entropy(x, t, w, **kw)

    def nll(x, t, w=None, has_weight=False, **kw):
        return F.nll_loss(x, t, w, **kw)

    L = lambda: In(floats(20, seed=240), shape=[4, 5])
    LT = lambda: In(floats(20, seed=241), shape=[5, 4], view=[["t"]])
    T4 = lambda: IX([1, 0, 4, 1])
    TI = lambda: IX([1, -100, 4, 2])
    CW = lambda: In([0.2, 0.5, 1.0, 1.5, 3.0])
    PT = lambda: In(torch.softmax(torch.tensor(floats(20, seed=242)).reshape(4, 5), 1).tolist(),
                    shape=[4, 5])
    SP = lambda: In(floats(24, seed=243), shape=[2, 3, 4])
    ST = lambda: IX([0, 2, 1, 2, 1, 1, 0, 2], [2, 4])
    for r in REDUCTIONS:
        yield case(f"F.cross_entropy/{r}", "F.cross_entropy", [L(), T4()], ce, {"reduction": r})
        yield case(f"F.cross_entropy/weight_transposed_{r}", "F.cross_entropy", [LT(), T4(), CW()],
                   ce, {"reduction": r, "has_weight": True})
        yield case(f"F.cross_entropy/ignore_{r}", "F.cross_entropy", [L(), TI()], ce,
                   {"reduction": r})
        yield case(f"F.cross_entropy/ignore_index_weight_{r}", "F.cross_entropy",
                   [L(), T4(), CW()], ce, {"reduction": r, "has_weight": True, "ignore_index": 1})
        yield case(f"F.cross_entropy/smoothing_{r}", "F.cross_entropy", [LT(), TI(), CW()], ce,
                   {"reduction": r, "has_weight": True, "label_smoothing": 0.25})
        yield case(f"F.cross_entropy/probs_{r}", "F.cross_entropy", [L(), PT()], ce,
                   {"reduction": r})
        yield case(f"F.cross_entropy/probs_weight_smoothing_{r}", "F.cross_entropy",
                   [LT(), PT(), CW()], ce,
                   {"reduction": r, "has_weight": True, "label_smoothing": 0.1})
        yield case(f"F.cross_entropy/spatial_{r}", "F.cross_entropy", [SP(), ST()], ce,
                   {"reduction": r})
        yield case(f"F.nll_loss/{r}", "F.nll_loss", [L(), TI(), CW()], nll,
                   {"reduction": r, "has_weight": True})
        yield case(f"F.nll_loss/spatial_{r}", "F.nll_loss", [SP(), ST()], nll, {"reduction": r})
    yield case("F.cross_entropy/1d", "F.cross_entropy", [In(floats(5, seed=244)), IX(3)], ce)
    yield case("F.cross_entropy/all_ignored", "F.cross_entropy", [L(), IX([-100] * 4)], ce)
    yield case("F.cross_entropy/batch_mismatch", "F.cross_entropy", [L(), IX([1, 2])], ce)
    yield case("F.cross_entropy/bad_smoothing", "F.cross_entropy", [L(), T4()], ce,
               {"label_smoothing": 1.5})
    yield case("F.cross_entropy/negative_smoothing", "F.cross_entropy", [L(), T4()], ce,
               {"label_smoothing": -0.5})
    yield case("F.cross_entropy/weight_size", "F.cross_entropy", [L(), T4(), W()], ce,
               {"has_weight": True})
    yield case("F.nll_loss/float_target", "F.nll_loss", [L(), In([1.0, 0.0, 2.0, 1.0])], nll)

    LP = lambda: In(torch.log_softmax(torch.tensor(floats(12, seed=250)).reshape(3, 4), 1).tolist(),
                    shape=[3, 4])
    Q = lambda: In(torch.softmax(torch.tensor(floats(12, seed=251)).reshape(4, 3), 1).tolist(),
                   shape=[4, 3], view=[["t"]])
    LQ = lambda: In(torch.log_softmax(torch.tensor(floats(12, seed=252)).reshape(3, 4), 1).tolist(),
                    shape=[3, 4])
    for r in REDUCTIONS + ["batchmean"]:
        yield case(f"F.kl_div/{r}", "F.kl_div", [LP(), Q()], F.kl_div, {"reduction": r})
        yield case(f"F.kl_div/log_target_{r}", "F.kl_div", [LP(), LQ()], F.kl_div,
                   {"reduction": r, "log_target": True})
    yield case("F.kl_div/zero_target", "F.kl_div", [LP(), In([0.0, 0.5, 0.5, 0.0] * 3, shape=[3, 4])],
               lambda x, t, detach_target, **kw: F.kl_div(x, t.detach(), **kw),
               {"reduction": "sum", "detach_target": True})


def cases():
    yield from activations()
    yield from linear_like()
    yield from embedding_and_norms()
    yield from losses()
