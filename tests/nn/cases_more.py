"""Module cases for the activations, losses, dropouts, distances, EmbeddingBag and
ParameterList added after the first set (imported by cases.py; same spec format)."""

import torch

from cases import C, M, forward_case, inp, randint, randn, rand, activation_input  # noqa: F401


def activation_cases():
    out = []
    specs = [
        ("prelu", M("PReLU")), ("prelu_4", M("PReLU", 4, 0.1)), ("celu", M("CELU")),
        ("celu_0.5", M("CELU", alpha=0.5)), ("glu", M("GLU")), ("logsigmoid", M("LogSigmoid")),
        ("hardsigmoid", M("Hardsigmoid")), ("hardshrink", M("Hardshrink")),
        ("hardshrink_1", M("Hardshrink", 1.0)), ("softshrink", M("Softshrink")),
        ("softshrink_1", M("Softshrink", lambd=1.0)), ("tanhshrink", M("Tanhshrink")),
        ("softsign", M("Softsign")), ("softmin_1", M("Softmin", dim=1)),
        ("softmin_0", M("Softmin", 0)), ("threshold", M("Threshold", 0.1, 20)),
        ("threshold_float", M("Threshold", -1.0, 2.5)),
    ]
    for name, spec in specs:
        out.append(forward_case("act_" + name, spec, [inp(activation_input())],
                                randomize=False))
    out.append(forward_case("act_rrelu_eval", M("RReLU"), [inp(activation_input())], train=False))
    out.append(forward_case("act_rrelu_bounds_eval", M("RReLU", 0.2, 0.4),
                            [inp(activation_input())], train=False))
    out.append(forward_case("act_prelu_random", M("PReLU", 3), [inp(randn(2, 3, 2))]))
    out.append(forward_case("act_glu_0", M("GLU", 0), [inp(randn(4, 3))]))
    out.append(forward_case("act_softmax2d", M("Softmax2d"), [inp(randn(2, 3, 2, 2))]))
    out.append(forward_case("act_softmax2d_3d", M("Softmax2d"), [inp(randn(3, 2, 2))]))
    out.append(forward_case("act_softmin_implicit", M("Softmin"), [inp(randn(2, 3))]))
    out.append(forward_case("act_softsign_transposed", M("Softsign"),
                            [inp(randn(3, 2), transpose=True)]))
    return out


def loss_cases():
    out = []
    f = forward_case
    red = ["none", "mean", "sum"]
    x, x2 = randn(3, 4), randn(3, 4)
    sign = torch.where(rand(3, 4) > 0.5, 1.0, -1.0)
    counts = torch.floor(rand(3, 4) * 5)
    var = rand(3, 4) + 0.1
    labels = torch.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [0, 1, 2, 3]])
    cls = torch.tensor([1, 0, 3])
    w = rand(4) + 0.5
    y3 = torch.tensor([1.0, -1.0, -1.0])
    probs = rand(3, 4)
    for r in red:
        out.append(f(f"poisson_nll_{r}", M("PoissonNLLLoss", reduction=r), [inp(x), inp(counts)]))
        out.append(f(f"poisson_nll_full_{r}", M("PoissonNLLLoss", log_input=False, full=True,
                                                 reduction=r), [inp(var), inp(counts + 1.5)]))
        out.append(f(f"gaussian_nll_{r}", M("GaussianNLLLoss", reduction=r),
                     [inp(x), inp(x2), inp(var)]))
        out.append(f(f"margin_ranking_{r}", M("MarginRankingLoss", margin=0.3, reduction=r),
                     [inp(x), inp(x2), inp(sign)]))
        out.append(f(f"hinge_embedding_{r}", M("HingeEmbeddingLoss", reduction=r),
                     [inp(x), inp(sign, requires_grad=False)]))
        out.append(f(f"multilabel_margin_{r}", M("MultiLabelMarginLoss", reduction=r),
                     [inp(x), inp(labels)]))
        out.append(f(f"soft_margin_{r}", M("SoftMarginLoss", reduction=r),
                     [inp(x), inp(sign, requires_grad=False)]))
        out.append(f(f"multilabel_soft_margin_{r}", M("MultiLabelSoftMarginLoss", weight=w,
                                                       reduction=r), [inp(x), inp(probs)]))
        out.append(f(f"cosine_embedding_{r}", M("CosineEmbeddingLoss", margin=0.1, reduction=r),
                     [inp(x), inp(x2), inp(y3, requires_grad=False)]))
        out.append(f(f"multi_margin_{r}", M("MultiMarginLoss", reduction=r), [inp(x), inp(cls)]))
        out.append(f(f"multi_margin_p2_weight_{r}", M("MultiMarginLoss", p=2, margin=0.5,
                                                       weight=w, reduction=r),
                     [inp(x), inp(cls)]))
        out.append(f(f"triplet_margin_{r}", M("TripletMarginLoss", reduction=r),
                     [inp(x), inp(x2), inp(randn(3, 4))]))
        out.append(f(f"triplet_margin_with_distance_{r}",
                     M("TripletMarginWithDistanceLoss", margin=2.0, swap=True, reduction=r),
                     [inp(x), inp(x2), inp(randn(3, 4))]))
    out.append(f("triplet_margin_p1_swap", M("TripletMarginLoss", margin=0.5, p=1.0, swap=True),
                 [inp(x), inp(x2), inp(randn(3, 4))]))
    out.append(f("multilabel_soft_margin_no_weight", M("MultiLabelSoftMarginLoss"),
                 [inp(x), inp(probs)]))
    out.append(f("gaussian_nll_full_homoscedastic", M("GaussianNLLLoss", full=True, eps=1e-3),
                 [inp(x), inp(x2), inp(rand(3) + 0.2)]))
    T, N, K = 5, 2, 4
    lp = torch.log_softmax(randn(T, N, K), 2)
    targets = torch.tensor([[1, 2, 2], [3, 1, 0]])
    il, tl = torch.tensor([5, 4]), torch.tensor([3, 2])
    for r in red:
        out.append(f(f"ctc_{r}", M("CTCLoss", reduction=r),
                     [inp(lp), inp(targets), inp(il), inp(tl)]))
    out.append(f("ctc_blank_zero_infinity", M("CTCLoss", blank=3, zero_infinity=True),
                 [inp(lp), inp(torch.tensor([[0, 0, 1], [2, 1, 2]])), inp(torch.tensor([5, 2])),
                  inp(torch.tensor([3, 3]))]))
    return out


def layer_cases():
    out = []
    f = forward_case
    for name, spec, x, seed in [
        ("dropout1d", M("Dropout1d", 0.5), randn(2, 4, 3), 31),
        ("dropout1d_unbatched", M("Dropout1d", 0.3), randn(4, 3), 32),
        ("dropout2d", M("Dropout2d", 0.5), randn(2, 4, 2, 2), 33),
        ("dropout3d", M("Dropout3d", 0.4), randn(2, 3, 2, 2, 2), 34),
        ("dropout3d_unbatched", M("Dropout3d"), randn(3, 2, 2, 2), 35),
        ("alpha_dropout", M("AlphaDropout", 0.2), randn(5, 6), 36),
        ("feature_alpha_dropout", M("FeatureAlphaDropout", 0.5), randn(2, 4, 3), 37),
    ]:
        out.append(f(name + "_train", spec, [inp(x)], seed=seed))
        out.append(f(name + "_eval", spec, [inp(x)], seed=seed, train=False))
    out.append(f("cosine_similarity", M("CosineSimilarity"), [inp(randn(3, 4)), inp(randn(3, 4))]))
    out.append(f("cosine_similarity_dim0", M("CosineSimilarity", 0, 1e-6),
                 [inp(randn(3, 4)), inp(randn(3, 4), transpose=True)]))
    out.append(f("pairwise_distance", M("PairwiseDistance"), [inp(randn(3, 4)), inp(randn(3, 4))]))
    out.append(f("pairwise_distance_p1_keepdim", M("PairwiseDistance", 1.0, 1e-3, True),
                 [inp(randn(3, 4)), inp(randn(4))]))
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0])
    offsets = torch.tensor([0, 3, 3, 6])
    for mode in ["sum", "mean", "max"]:
        out.append(f(f"embedding_bag_{mode}", M("EmbeddingBag", 6, 3, mode=mode),
                     [inp(idx), inp(offsets)]))
        out.append(f(f"embedding_bag_{mode}_2d", M("EmbeddingBag", 6, 3, mode=mode),
                     [inp(idx.reshape(2, 4))]))
    out.append(f("embedding_bag_padding_last_offset",
                 M("EmbeddingBag", 6, 2, mode="sum", padding_idx=2, include_last_offset=True),
                 [inp(idx), inp(torch.tensor([0, 3, 3, 8]))]))
    out.append(f("embedding_bag_per_sample_weights", M("EmbeddingBag", 6, 3, mode="sum"),
                 [inp(idx), inp(offsets), inp(randn(8))]))
    return out


def recurrent_cases():
    out = []
    f = forward_case
    x, h = randn(3, 4), randn(3, 5)
    for name, spec in [("rnn_cell", M("RNNCell", 4, 5)),
                       ("rnn_cell_relu_no_bias", M("RNNCell", 4, 5, False, "relu")),
                       ("gru_cell", M("GRUCell", 4, 5)),
                       ("gru_cell_no_bias", M("GRUCell", 4, 5, bias=False))]:
        out.append(f(name, spec, [inp(x), inp(h)]))
        out.append(f(name + "_no_hx", spec, [inp(x)]))
        out.append(f(name + "_unbatched", spec, [inp(randn(4)), inp(randn(5))]))
    out.append(f("rnn_cell_transposed", M("RNNCell", 3, 2), [inp(randn(4, 3), transpose=True)]))
    return out


def init_specs():
    return [("rnn_cell", 11, [M("RNNCell", 4, 3)]), ("gru_cell", 12, [M("GRUCell", 3, 5)]),
            ("gru_cell_no_bias", 13, [M("GRUCell", 2, 4, bias=False)]),
            ("prelu", 14, [M("PReLU", 3)]), ("embedding_bag", 15, [M("EmbeddingBag", 6, 3)]),
            ("embedding_bag_padding", 16, [M("EmbeddingBag", 5, 2, padding_idx=1)])]


def structure_specs():
    return [
        M("PReLU"), M("PReLU", 3, 0.1), M("RReLU"), M("RReLU", 0.1, 0.3), M("CELU"),
        M("CELU", 0.5), M("GLU"), M("GLU", 0), M("LogSigmoid"), M("Hardsigmoid"),
        M("Hardshrink"), M("Hardshrink", 0.3), M("Softshrink"), M("Softshrink", 1.0),
        M("Tanhshrink"), M("Softsign"), M("Softmin", 1), M("Softmin"), M("Softmax2d"),
        M("Threshold", 0.1, 20), M("Threshold", 1, 2.5),
        M("PoissonNLLLoss"), M("GaussianNLLLoss"), M("MarginRankingLoss"),
        M("HingeEmbeddingLoss"), M("MultiLabelMarginLoss"), M("SoftMarginLoss"),
        M("MultiLabelSoftMarginLoss"), M("MultiLabelSoftMarginLoss", weight=torch.ones(3)),
        M("CosineEmbeddingLoss"), M("MultiMarginLoss"), M("MultiMarginLoss", weight=torch.ones(3)),
        M("TripletMarginLoss"), M("TripletMarginWithDistanceLoss"), M("CTCLoss"),
        M("CTCLoss", blank=1, zero_infinity=True),
        M("Dropout1d"), M("Dropout2d", 0.2), M("Dropout3d"), M("AlphaDropout", 0.1),
        M("FeatureAlphaDropout"), M("CosineSimilarity"), M("CosineSimilarity", 0),
        M("PairwiseDistance"), M("PairwiseDistance", 1.0, keepdim=True),
        M("EmbeddingBag", 5, 3), M("EmbeddingBag", 5, 3, mode="sum", padding_idx=0),
        M("EmbeddingBag", 5, 3, mode="max", include_last_offset=True),
        C("Sequential", [M("Linear", 4, 4), M("PReLU", 4), M("AlphaDropout", 0.1), M("Softmin", 1)]),
        M("RNNCell", 4, 3), M("RNNCell", 4, 3, bias=False, nonlinearity="relu"), M("GRUCell", 4, 3),
        M("GRUCell", 2, 3, False),
    ]
