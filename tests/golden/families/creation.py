"""Creation functions: shapes, dtypes inferred like torch, edge sizes."""
import torch

from .common import In, case, floats


def cases():
    for shape in [[2, 3], [0], [], [1, 4, 1]]:
        tag = "x".join(map(str, shape)) or "scalar"
        for dtype in ["float32", "int64", "bool"]:
            yield case(f"zeros/{tag}_{dtype}", "zeros", [], lambda shape, dtype: torch.zeros(shape, dtype=getattr(torch, dtype)), {"shape": shape, "dtype": dtype})
            yield case(f"ones/{tag}_{dtype}", "ones", [], lambda shape, dtype: torch.ones(shape, dtype=getattr(torch, dtype)), {"shape": shape, "dtype": dtype})
    for value in [2.5, 3, True, -7]:
        yield case(f"full/infer_{value}", "full", [], lambda shape, fill_value: torch.full(shape, fill_value), {"shape": [2, 2], "fill_value": value})
    yield case("full/float_as_int", "full", [], lambda shape, fill_value, dtype: torch.full(shape, fill_value, dtype=getattr(torch, dtype)), {"shape": [3], "fill_value": 2.9, "dtype": "int64"})
    for args in [(0, 5, 1), (2, 11, 3), (0.0, 1.0, 0.1), (5, 0, -1), (1, 2.5, 0.5), (-1.5, 1.5, 0.25), (0, 0, 1), (0, 10, 7)]:
        yield case(f"arange/{args[0]}_{args[1]}_{args[2]}", "arange", [], lambda start, end, step: torch.arange(start, end, step), {"start": args[0], "end": args[1], "step": args[2]})
    yield case("arange/zero_step", "arange", [], lambda start, end, step: torch.arange(start, end, step), {"start": 0, "end": 5, "step": 0})
    yield case("arange/wrong_sign", "arange", [], lambda start, end, step: torch.arange(start, end, step), {"start": 0, "end": 5, "step": -1})
    for args in [(0, 1, 5), (-2, 2, 9), (3, -3, 4), (1, 1, 1), (0, 10, 0), (0.1, 0.9, 7), (-5, 5, 100)]:
        yield case(f"linspace/{args[0]}_{args[1]}_{args[2]}", "linspace", [], lambda start, end, steps: torch.linspace(start, end, steps), {"start": args[0], "end": args[1], "steps": args[2]})
    for n, m in [(3, None), (2, 4), (4, 2), (0, None), (1, 1)]:
        yield case(f"eye/{n}_{m}", "eye", [], lambda n, m: torch.eye(n, m) if m is not None else torch.eye(n), {"n": n, "m": m})
    x = In(floats(6, seed=70), shape=[2, 3])
    yield case("zeros_like/f32", "zeros_like", [x], torch.zeros_like)
    yield case("ones_like/int", "ones_like", [In([1, 2, 3], "int64")], torch.ones_like)
    yield case("full_like/f32", "full_like", [x], lambda t, fill_value: torch.full_like(t, fill_value), {"fill_value": -2.25})
    yield case("tensor/nested_int", "tensor", [], lambda data: torch.tensor(data), {"data": [[1, 2], [3, 4]]})
    yield case("tensor/nested_float", "tensor", [], lambda data: torch.tensor(data), {"data": [[1.5, 2], [3, 4]]})
    yield case("tensor/bool", "tensor", [], lambda data: torch.tensor(data), {"data": [True, False]})
    yield case("tensor/scalar", "tensor", [], lambda data: torch.tensor(data), {"data": 3.5})
    yield case("tensor/ragged", "tensor", [], lambda data: torch.tensor(data), {"data": [[1, 2], [3]]})
