"""`dtype=` on every factory (torch.arange(5, dtype=torch.float32), …), and torch's refusals:
random float draws refuse integer and bool dtypes, arange / linspace refuse bool."""
import torch

from .common import In, case


def D(name):
    return getattr(torch, name)


def cases():
    for dt in ["float32", "int64", "bool"]:
        yield case(f"arange/dtype_{dt}", "arange", [], lambda start, dtype: torch.arange(start, dtype=D(dtype)), {"start": 5, "dtype": dt})
        yield case(f"arange/range_dtype_{dt}", "arange", [], lambda start, end, step, dtype: torch.arange(start, end, step, dtype=D(dtype)), {"start": 0.0, "end": 2.0, "step": 0.5, "dtype": dt})
        yield case(f"linspace/dtype_{dt}", "linspace", [], lambda start, end, steps, dtype: torch.linspace(start, end, steps, dtype=D(dtype)), {"start": 0.0, "end": 5.0, "steps": 6, "dtype": dt})
        yield case(f"eye/dtype_{dt}", "eye", [], lambda n, m, dtype: torch.eye(n, m, dtype=D(dtype)), {"n": 2, "m": 3, "dtype": dt})
        yield case(f"zeros_like/dtype_{dt}", "zeros_like", [In([[1.5, 2.0]])], lambda t, dtype: torch.zeros_like(t, dtype=D(dtype)), {"dtype": dt})
        yield case(f"ones_like/dtype_{dt}", "ones_like", [In([1, 2, 3], "int64")], lambda t, dtype: torch.ones_like(t, dtype=D(dtype)), {"dtype": dt})
        yield case(f"full_like/dtype_{dt}", "full_like", [In([1.0, 2.0])], lambda t, fill_value, dtype: torch.full_like(t, fill_value, dtype=D(dtype)), {"fill_value": 3, "dtype": dt})
    yield case("arange/float_int_dtype", "arange", [], lambda start, end, step, dtype: torch.arange(start, end, step, dtype=D(dtype)), {"start": 0.0, "end": 1.0, "step": 0.3, "dtype": "int64"})
    yield case("linspace/int_trunc", "linspace", [], lambda start, end, steps, dtype: torch.linspace(start, end, steps, dtype=D(dtype)), {"start": 0.0, "end": 1.0, "steps": 5, "dtype": "int64"})
    for op, f in [("rand", torch.rand), ("randn", torch.randn)]:
        for dt in ["int64", "bool"]:
            yield case(f"{op}/dtype_{dt}_error", op, [], lambda size, dtype, f=f: f(size, dtype=D(dtype)), {"size": [3], "dtype": dt})
        yield case(f"{op}/dtype_float32", op, [], lambda size, dtype, seed, f=f: (torch.manual_seed(seed), f(size, dtype=D(dtype)))[1], {"size": [3], "dtype": "float32", "seed": 5})
    yield case("normal/dtype_int_error", "normal", [], lambda mean, std, size, dtype: torch.normal(mean, std, size, dtype=D(dtype)), {"mean": 0.0, "std": 1.0, "size": [2], "dtype": "int64"})
    yield case("rand_like/int_input_error", "rand_like", [In([1, 2], "int64")], torch.rand_like)
    yield case("rand_like/dtype_int_error", "rand_like", [In([1.0, 2.0])], lambda t, dtype: torch.rand_like(t, dtype=D(dtype)), {"dtype": "int64"})
    yield case("randn_like/dtype_float", "randn_like", [In([1, 2, 3], "int64")], lambda t, dtype, seed: (torch.manual_seed(seed), torch.randn_like(t, dtype=D(dtype)))[1], {"dtype": "float32", "seed": 7})
    yield case("randint/dtype_float", "randint", [], lambda low, high, size, dtype, seed: (torch.manual_seed(seed), torch.randint(low, high, size, dtype=D(dtype)))[1], {"low": 0, "high": 10, "size": [5], "dtype": "float32", "seed": 3})
    yield case("randint/dtype_bool", "randint", [], lambda low, high, size, dtype, seed: (torch.manual_seed(seed), torch.randint(low, high, size, dtype=D(dtype)))[1], {"low": 0, "high": 2, "size": [6], "dtype": "bool", "seed": 4})
    yield case("randint/dtype_bool_error", "randint", [], lambda low, high, size, dtype: torch.randint(low, high, size, dtype=D(dtype)), {"low": 0, "high": 5, "size": [2], "dtype": "bool"})
    yield case("randperm/dtype_float", "randperm", [], lambda n, dtype, seed: (torch.manual_seed(seed), torch.randperm(n, dtype=D(dtype)))[1], {"n": 5, "dtype": "float32", "seed": 2})
    yield case("randperm/dtype_bool_error", "randperm", [], lambda n, dtype: torch.randperm(n, dtype=D(dtype)), {"n": 3, "dtype": "bool"})
