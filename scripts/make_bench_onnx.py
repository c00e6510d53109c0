#!/usr/bin/env python3
"""Writes the ONNX models of the browser benchmark (bench/browser/models/), for ONNX Runtime Web.

    pip install onnx && python3 scripts/make_bench_onnx.py

Every tensor, weights included, is a graph input with symbolic sizes, so the files are a few
hundred bytes, one file serves every size, and the page feeds ORT the very values it gives borch
and TF.js (put on ORT's GPU once, as the other two keep their parameters there):

- matmul.onnx: C[m, n] = MatMul(A[m, k], B[k, n]).
- mlp.onnx: logits = Gemm(Relu(Gemm(x, w1, b1, transB=1)), w2, b2, transB=1), torch's nn.Linear
  layout (weights [out, in]).

The files are committed; rerun this after editing it. Output is deterministic (no timestamps).
"""

from pathlib import Path

import onnx
from onnx import TensorProto, checker, helper

OUT = Path(__file__).resolve().parent.parent / "bench" / "browser" / "models"
OPSET = 17
IR_VERSION = 8


def f32(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def save(graph, name):
    model = helper.make_model(
        graph,
        producer_name="borch scripts/make_bench_onnx.py",
        opset_imports=[helper.make_opsetid("", OPSET)],
        ir_version=IR_VERSION,
    )
    checker.check_model(model, full_check=True)
    path = OUT / name
    onnx.save(model, path)
    print(f"wrote {path.relative_to(OUT.parent.parent.parent)} ({path.stat().st_size} bytes)")


def matmul():
    node = helper.make_node("MatMul", ["A", "B"], ["C"])
    return helper.make_graph(
        [node], "matmul", [f32("A", ["m", "k"]), f32("B", ["k", "n"])], [f32("C", ["m", "n"])]
    )


def mlp():
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["logits"], transB=1),
    ]
    inputs = [
        f32("x", ["batch", "inputs"]),
        f32("w1", ["hidden", "inputs"]),
        f32("b1", ["hidden"]),
        f32("w2", ["classes", "hidden"]),
        f32("b2", ["classes"]),
    ]
    return helper.make_graph(nodes, "mlp", inputs, [f32("logits", ["batch", "classes"])])


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    save(matmul(), "matmul.onnx")
    save(mlp(), "mlp.onnx")


if __name__ == "__main__":
    main()
