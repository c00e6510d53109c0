"""Random ops after torch.manual_seed: torch's CPU algorithms, so values match exactly.

Every case seeds the default generator itself (arg `seed`) and may return several outputs drawn
one after another, so state carried between calls is checked. In-place samplers fill their input
(views included: values land in torch's iteration order) and return it.
"""
import torch

from .common import In, case


def seeded(draw):
    def fn(*inputs, seed, **args):
        torch.manual_seed(seed)
        return draw(*inputs, **args)

    return fn


def empty(shape, dtype="float32", view=()):
    n = 1
    for s in shape:
        n *= s
    data = [False] * n if dtype == "bool" else [0] * n if dtype == "int64" else [0.0] * n
    return In(data, dtype, shape=shape, view=view)


def fill(method):
    def draw(t, **args):
        getattr(t, method)(*args.values())
        return t

    return draw


def cases():
    for n in [1, 7, 15, 16, 17, 100]:
        yield case(f"rand/{n}", "rand", [], seeded(lambda shape: torch.rand(shape)), {"seed": 0, "shape": [n]})
        yield case(f"randn/{n}", "randn", [], seeded(lambda shape: torch.randn(shape)), {"seed": 0, "shape": [n]})
        yield case(f"randint/0_10_{n}", "randint", [], seeded(lambda low, high, shape: torch.randint(low, high, shape)), {"seed": 0, "low": 0, "high": 10, "shape": [n]})
        yield case(f"normal/m2_s3_{n}", "normal", [], seeded(lambda mean, std, shape: torch.normal(mean, std, shape)), {"seed": 0, "mean": 2.0, "std": 3.0, "shape": [n]})
    yield case("rand/2x3_seed42", "rand", [], seeded(lambda shape: torch.rand(shape)), {"seed": 42, "shape": [2, 3]})
    yield case("rand/scalar", "rand", [], seeded(lambda shape: torch.rand(shape)), {"seed": 1, "shape": []})
    yield case("randn/4x5_seed42", "randn", [], seeded(lambda shape: torch.randn(shape)), {"seed": 42, "shape": [4, 5]})
    yield case("randn/empty", "randn", [], seeded(lambda shape: torch.randn(shape)), {"seed": 0, "shape": [0, 3]})
    yield case("randn/seed_above_2pow32", "randn", [], seeded(lambda shape: torch.randn(shape)), {"seed": 2**40 + 5, "shape": [20]})
    yield case("randint/neg_2x5", "randint", [], seeded(lambda low, high, shape: torch.randint(low, high, shape)), {"seed": 1, "low": -50, "high": 50, "shape": [2, 5]})
    # torch switches from 32-bit to 64-bit draws at a range of 2^28.
    for high in [2**28 - 1, 2**28]:
        yield case(f"randint/range_{high}", "randint", [], seeded(lambda low, high, shape: torch.randint(low, high, shape)), {"seed": 0, "low": 0, "high": high, "shape": [5]})
    yield case("randint/empty_range", "randint", [], seeded(lambda low, high, shape: torch.randint(low, high, shape)), {"seed": 0, "low": 5, "high": 5, "shape": [2]})
    for n in [0, 1, 2, 10, 100]:
        yield case(f"randperm/{n}", "randperm", [], seeded(lambda n: torch.randperm(n)), {"seed": 0, "n": n})
    yield case("normal/negative_std", "normal", [], seeded(lambda mean, std, shape: torch.normal(mean, std, shape)), {"seed": 0, "mean": 0.0, "std": -1.0, "shape": [3]})
    yield case(
        "randn/cached_second_sample",
        "randn_sequence",
        [],
        seeded(lambda shapes: tuple(torch.randn(s) for s in shapes)),
        {"seed": 0, "shapes": [[1], [1], [3], [16], [1], [2]]},
    )
    yield case(
        "rand/sequence_mixed",
        "mixed_sequence",
        [],
        seeded(lambda: (torch.rand(5), torch.randn(7), torch.randint(0, 10, (6,)), torch.randperm(10), torch.randn(20), torch.rand(3))),
        {"seed": 3},
    )
    views = {"contig": [], "t": [["t"]], "stepped": [["slice", 1, 0, None, 2]]}
    for label, view in views.items():
        yield case(f"uniform_/{label}", "uniform_", [empty([4, 6], view=view)], seeded(fill("uniform_")), {"seed": 0, "from": -3.0, "to": 7.0})
        yield case(f"normal_/{label}", "normal_", [empty([4, 6], view=view)], seeded(fill("normal_")), {"seed": 0, "mean": 0.5, "std": 2.0})
        yield case(f"bernoulli_/{label}", "bernoulli_", [empty([4, 6], view=view)], seeded(fill("bernoulli_")), {"seed": 0, "p": 0.3})
    yield case("uniform_/permuted", "uniform_", [empty([2, 3, 4], view=[["permute", [2, 0, 1]]])], seeded(fill("uniform_")), {"seed": 5, "from": 0.0, "to": 1.0})
    yield case("random_/float", "random_", [empty([8])], seeded(fill("random_")), {"seed": 0, "from": -5, "to": 5})
    yield case("random_/int64", "random_", [empty([8], "int64")], seeded(fill("random_")), {"seed": 0, "from": 100, "to": 200})
    yield case("random_/bool", "random_", [empty([8], "bool")], seeded(fill("random_")), {"seed": 0, "from": 0, "to": 2})
    yield case("random_/bool_out_of_bounds", "random_", [empty([3], "bool")], seeded(fill("random_")), {"seed": 0, "from": 0, "to": 3})
    for p in [0.0, 0.5, 1.0]:
        yield case(f"bernoulli_/p{p}", "bernoulli_", [empty([20])], seeded(fill("bernoulli_")), {"seed": 0, "p": p})
    yield case("bernoulli_/int64", "bernoulli_", [empty([2, 6], "int64")], seeded(fill("bernoulli_")), {"seed": 0, "p": 0.7})
    yield case("bernoulli_/p_above_1", "bernoulli_", [empty([3])], seeded(fill("bernoulli_")), {"seed": 0, "p": 1.5})
    yield case("uniform_/from_above_to", "uniform_", [empty([3])], seeded(fill("uniform_")), {"seed": 0, "from": 2.0, "to": 1.0})
    yield case("uniform_/int64", "uniform_", [empty([3], "int64")], seeded(fill("uniform_")), {"seed": 0, "from": 0.0, "to": 1.0})
    yield case("uniform_/expanded", "uniform_", [empty([3], view=[["expand", [2, 3]]])], seeded(fill("uniform_")), {"seed": 0, "from": 0.0, "to": 1.0})
    yield case("normal_/int64", "normal_", [empty([3], "int64")], seeded(fill("normal_")), {"seed": 0, "mean": 0.0, "std": 1.0})
    yield case("rand_like/2x3", "rand_like", [empty([2, 3])], seeded(lambda t: torch.rand_like(t)), {"seed": 0})
    yield case("randn_like/4x5", "randn_like", [empty([4, 5])], seeded(lambda t: torch.randn_like(t)), {"seed": 0})
    yield case("randint_like/int", "randint_like", [empty([5], "int64")], seeded(lambda t, low, high: torch.randint_like(t, low, high)), {"seed": 0, "low": 3, "high": 9})
