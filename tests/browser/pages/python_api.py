# borch_webgpu's container, param-group and scheduler-state surface, as torch code writes it:
# model[i], len(model), iterating a ModuleList, opt.param_groups[0]["lr"] = …, and
# scheduler.state_dict() / load_state_dict(). Each check compares two ways of reaching the same
# result, or an error with torch 2.15's class and message. Run by python.mjs; prints one line.
import borch_webgpu as torch
from borch_webgpu import nn, optim

checks = 0


def check(what, ok):
    global checks
    if not ok:
        raise AssertionError(what)
    checks += 1


def raises(what, cls, message, fn):
    try:
        fn()
    except cls as e:
        check(f"{what}: {e}", str(e).strip("'\"") == message.strip("'\""))
        return
    raise AssertionError(f"{what}: nothing raised")


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
check("len(model)", len(model) == 3)
check("model[-1] is the last Linear", model[-1].weight.shape == (1, 3))
check("model[0].weight is shared", model[0].weight.tolist() == model.state_dict()["0.weight"].tolist())
raises("model[5]", IndexError, "index 5 is out of range", lambda: model[5])


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


tower = Tower()
x = torch.ones(4, 2)
by_hand = tower.layers[2](tower.layers[1](tower.layers[0](x)))
check("iterating a ModuleList in forward", tower(x).tolist() == by_hand.tolist())
check("ModuleList parameters reach the outer module", len(tower.parameters()) == 4)
heads = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.Identity()})
check("ModuleDict['b']", heads["b"](x).tolist() == x.tolist())
raises("ModuleDict['c']", KeyError, "'c'", lambda: heads["c"])

p = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
q = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
edited = optim.SGD([p], lr=0.1)
made = optim.SGD([q], lr=0.5)
for group in edited.param_groups:
    group["lr"] = 0.5
check("param_groups[0]['lr'] reads back", edited.param_groups[0]["lr"] == 0.5)
for opt, t in ((edited, p), (made, q)):
    opt.zero_grad()
    (t * t).sum().backward()
    opt.step()
check("a step after editing lr = a step made with it", p.tolist() == q.tolist())
raises("param_groups[0]['foo']", KeyError, "'foo'", lambda: edited.param_groups[0]["foo"])

sched = optim.lr_scheduler.StepLR(edited, step_size=2, gamma=0.5)
for _ in range(3):
    sched.step()
state = sched.state_dict()
check("state_dict keys are torch's", sorted(state) == sorted(
    ["step_size", "gamma", "base_lrs", "last_epoch", "_step_count", "_is_initial",
     "_get_lr_called_within_step", "_last_lr"]))
again = optim.lr_scheduler.StepLR(made, step_size=7)
again.load_state_dict(state)
made.param_groups[0]["lr"] = edited.param_groups[0]["lr"]
same = True
for _ in range(5):
    sched.step()
    again.step()
    same = same and sched.get_last_lr() == again.get_last_lr()
check("a loaded scheduler continues the same schedule", same)

# A Python float that is a whole number stays a float (borch-ts's asFloat), as in torch.
check("int tensor * 2.0 is float32", (torch.tensor([1, 2]) * 2.0).dtype == torch.float32)
check("int tensor * 2 stays int64", (torch.tensor([1, 2]) * 2).dtype == torch.int64)
check("full((2,), 2.0) is float32", torch.full((2,), 2.0).dtype == torch.float32)
check("tensor([1.0, 2.0]) is float32", torch.tensor([1.0, 2.0]).dtype == torch.float32)
plateau = optim.lr_scheduler.ReduceLROnPlateau(optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0))
plateau.step(0.0)
check("ReduceLROnPlateau.step(0.0)", plateau.get_last_lr() == (1.0,) or plateau.get_last_lr() == [1.0])

# ~, &, |, ^ are torch's bitwise ops (logical for bool tensors).
ints_ = torch.tensor([1, 2, -3])
check("~int is bitwise_not", (~ints_).tolist() == [-2, -3, 2])
check("int & int", (ints_ & 3).tolist() == [1, 2, 1])
check("~bool is logical not", (~torch.tensor([True, False])).tolist() == [False, True])
check("bool | bool", (torch.tensor([True, False]) | torch.tensor([False, False])).tolist() == [True, False])
# A Python value borch_webgpu cannot convert is named by its Python type, as torch names it.
raises("x.add(object())", TypeError, "add(): argument 'other' (position 1) must be Tensor or Number, not object",
       lambda: torch.ones(2).add(object()))
raises("torch.matmul(x, {1, 2})", TypeError, "matmul(): argument 'other' (position 2) must be Tensor, not set",
       lambda: torch.matmul(torch.ones(2), {1, 2}))
# A dict given positionally is an argument, not keywords (it reaches JavaScript as an Object).
raises("torch.add(x, {})", TypeError, "add(): argument 'other' (position 2) must be Tensor or Number, not Object",
       lambda: torch.add(torch.ones(2), {}))
raises("~float", NotImplementedError, '"bitwise_not_cpu" not implemented for \'Float\'', lambda: ~torch.ones(2))

torch.manual_seed(0)
cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding="same"), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                    nn.Linear(4 * 2 * 2, 3))
check("Conv2d's weight is (out, in / groups, kh, kw)", cnn[0].weight.shape == (4, 1, 3, 3))
check("a CNN's output shape", cnn(torch.ones(2, 1, 4, 4)).shape == (2, 3))
values, indices = nn.functional.max_pool2d(torch.ones(1, 1, 4, 4), 2, return_indices=True)
check("max_pool2d(return_indices=True): the first maximum of each window",
      indices.tolist() == [[[[0, 2], [8, 10]]]])
raises("Conv2d(padding='full')", RuntimeError, "Invalid padding string: 'full'",
       lambda: nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), padding="full"))

# Every nn class comes from borch-ts's module catalog, by name; a Python subclass of one works.
check("model[0] is an nn.Linear", isinstance(model[0], nn.Linear) and type(model[0]) is nn.Linear)
check("keywords by torch's names", nn.LayerNorm(4, eps=1e-6, elementwise_affine=False).state_dict() == {})
raises("nn.Linear(3)", TypeError, "Linear() missing 1 required positional argument: 'out_features'",
       lambda: nn.Linear(3))


class Scaled(nn.Linear):
    def __init__(self):
        super().__init__(2, 1, bias=False)


check("a Python subclass of nn.Linear", isinstance(Scaled(), nn.Linear) and len(Scaled().parameters()) == 1)

# A Python nn.Module subclass anywhere a module goes: inside Sequential/ModuleList/ModuleDict (the
# container is then a Python one), in state_dict, parameters and train/eval; print(model) is
# torch's repr with the children. Strings from torch 2.15.
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(Block(), nn.Linear(3, 1))
        self.heads = nn.ModuleList([Block(), nn.Tanh()])

    def forward(self, x):
        return self.body(x)


net = Net()
check("repr(Net) is torch's, with its children", repr(net) == 'Net(\n  (body): Sequential(\n    (0): Block(\n      (fc): Linear(in_features=2, out_features=3, bias=True)\n      (act): ReLU()\n    )\n    (1): Linear(in_features=3, out_features=1, bias=True)\n  )\n  (heads): ModuleList(\n    (0): Block(\n      (fc): Linear(in_features=2, out_features=3, bias=True)\n      (act): ReLU()\n    )\n    (1): Tanh()\n  )\n)')
check("state_dict keys through Python containers", list(net.state_dict()) == [
    "body.0.fc.weight", "body.0.fc.bias", "body.1.weight", "body.1.bias", "heads.0.fc.weight", "heads.0.fc.bias"])
check("parameters() through Python containers", len(net.parameters()) == 6)
check("a Sequential holding a Python module is an nn.Sequential", isinstance(net.body, nn.Sequential))
check("a core Sequential is an nn.Sequential too", isinstance(nn.Sequential(nn.ReLU()), nn.Sequential))
y = torch.ones(4, 2)
block = net.body[0]
check("Sequential with a Python module runs its children in order",
      net(y).tolist() == net.body[1](block.act(block.fc(y))).tolist())
net.eval()
check("eval() reaches modules inside Python containers", not net.body[1].training and not block.training)
check("repr(ModuleDict) with a Python module", repr(nn.ModuleDict({"a": Block()})) == 'ModuleDict(\n  (a): Block(\n    (fc): Linear(in_features=2, out_features=3, bias=True)\n    (act): ReLU()\n  )\n)')

# torch.autograd from Python; Function is refused; item()/tolist() of float tensors are floats.
xg = torch.tensor([1.0, 2.0], requires_grad=True)
(gx,) = torch.autograd.grad((xg * xg).sum(), xg)
check("torch.autograd.grad", gx.tolist() == [2.0, 4.0])
xb = torch.tensor([1.0, 2.0], requires_grad=True)
torch.autograd.backward([(xb * 3).sum()])
check("torch.autograd.backward", xb.grad.tolist() == [3.0, 3.0])


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * x


try:
    Square.apply(xg)
    check("autograd.Function.apply is refused", False)
except NotImplementedError as e:
    check("autograd.Function.apply is refused", "torch.autograd.Function" in str(e))
acc = (torch.tensor([1, 2]) == torch.tensor([1, 2])).float().mean().item()
check("item() of a float tensor is a Python float", type(acc) is float and str(acc) == "1.0")
check("tolist() of a float tensor holds floats", str(torch.ones(2).tolist()) == "[1.0, 1.0]")
check("item() of an int tensor is an int", type(torch.tensor([3]).sum().item()) is int)
pc = nn.Linear(2, 1)
pc.weight.grad = torch.tensor([[3.0, 4.0]])
pc.bias.grad = torch.tensor([0.0])
total = nn.utils.clip_grad_norm_(pc.parameters(), 1.0)
check("nn.utils.clip_grad_norm_ returns the total norm", abs(total.item() - 5.0) < 1e-5)
check("nn.utils.clip_grad_norm_ scales the gradients", abs(pc.weight.grad.tolist()[0][0] - 0.6) < 1e-5)
# Data-dependent results (borch-ts returns a Promise; borch_webgpu settles it) and assignment,
# synchronous as in torch (values from torch 2.15).
dd = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
check("t[mask]", dd[dd > 0].tolist() == [1.0, 3.0, 5.0])
check("nonzero()", (dd > 0).nonzero().tolist() == [[0, 0], [0, 2], [1, 1]])
counted = torch.unique(dd.abs(), return_counts=True)
check("unique(return_counts=True)", [c.tolist() for c in counted] == [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1] * 6])
check("repeat_interleave(repeats tensor)", torch.tensor([1, 2]).repeat_interleave(torch.tensor([2, 1])).tolist() == [1, 1, 2])
written = dd.clone()
written[0, 1:] = 0.0
written[written < 0] = 9.0
check("t[0, 1:] = v; t[mask] = v", written.tolist() == [[1.0, 0.0, 0.0], [9.0, 5.0, 9.0]])

torch.manual_seed(0)
lstm = nn.LSTM(2, 3, num_layers=2)
seq = torch.ones(4, 1, 2)
result = lstm(seq)
out, (h_n, c_n) = result
check("LSTM returns (output, (h_n, c_n)) as tuples", type(result) is tuple and type(result[1]) is tuple)
check("LSTM shapes", out.shape == (4, 1, 3) and h_n.shape == (2, 1, 3) and c_n.shape == (2, 1, 3))
check("LSTM's last output is the top layer's h_n", out[3].tolist() == h_n[1].tolist())
again, (h2, c2) = lstm(seq, hx=(h_n, c_n))
same, _ = lstm(seq, (h_n, c_n))
check("LSTM takes hx by keyword as positionally", again.tolist() == same.tolist())
gru_out, gru_h = nn.GRU(2, 3, batch_first=True)(torch.ones(1, 4, 2))
check("GRU returns (output, h_n)", gru_out.shape == (1, 4, 3) and gru_h.shape == (1, 1, 3))
raises("GRU(input, hx=a 2-D state)", RuntimeError,
       "For batched 3-D input, hx should also be 3-D but got 2-D tensor",
       lambda: nn.GRU(2, 3)(torch.ones(4, 1, 2), hx=torch.zeros(1, 3)))
raises("LSTM.forward(bad=1)", TypeError, "LSTM.forward() got an unexpected keyword argument 'bad'",
       lambda: lstm(seq, bad=1))

# TransformerEncoder / TransformerDecoder take a layer and deep-copy it (the layer stays the
# caller's); keys, shapes and the mask are torch's (python_expected.json, from python_expected.py).
import json

expected = json.loads(EXPECTED_JSON)  # noqa: F821 (set by python.mjs)
torch.manual_seed(0)
enc_layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
encoder = nn.TransformerEncoder(enc_layer, 2)
check("TransformerEncoder state_dict keys are torch's", list(encoder.state_dict()) == expected["encoder_keys"])
enc_out = encoder(torch.ones(5, 3, 8))
check("TransformerEncoder forward", list(enc_out.shape) == expected["encoder_output_shape"])
check("TransformerEncoder layers start equal to the layer", encoder.state_dict()["layers.1.linear1.weight"].tolist()
      == enc_layer.state_dict()["linear1.weight"].tolist())
check("the layer stays the caller's", enc_layer(torch.ones(5, 3, 8)).shape == (5, 3, 8)
      and len(enc_layer.state_dict()) == 12)
mask = nn.Transformer.generate_square_subsequent_mask(3)
check("nn.Transformer.generate_square_subsequent_mask", [[str(v) for v in row] for row in mask.tolist()]
      == expected["mask"])
masked = encoder(torch.ones(3, 2, 8), mask=mask, src_key_padding_mask=torch.tensor([[False, False, True]] * 2))
check("TransformerEncoder forward with masks by keyword", masked.shape == (3, 2, 8))
decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 1, norm=nn.LayerNorm(8))
check("TransformerDecoder state_dict keys are torch's", list(decoder.state_dict()) == expected["decoder_keys"])
check("TransformerDecoder forward", decoder(torch.ones(3, 2, 8), torch.ones(4, 2, 8), tgt_mask=mask).shape == (3, 2, 8))
raises("TransformerEncoder(nn.Linear)", NotImplementedError,
       "TransformerEncoder(encoder_layer=...): borch takes a TransformerEncoderLayer, not Linear",
       lambda: nn.TransformerEncoder(nn.Linear(2, 2), 2))

# torch.compile(model_or_fn) is borch-ts's compiled(...): replays equal eager bit for bit.
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
inp = torch.randn(3, 4)
fast_net = torch.compile(net)
want = net(inp).tolist()
check("torch.compile(model)(x) equals model(x), call after call",
      all(fast_net(inp).tolist() == want for _ in range(3)))
check("torch.compile(model).forward", fast_net.forward(inp).tolist() == want)
check("torch.compile(model) replays", fast_net._js.replays() >= 2)
check("torch.compile(model) keeps the module's attributes", len(fast_net.parameters()) == 4)
check("torch.compile(model) takes a new shape", fast_net(torch.randn(5, 4)).shape == (5, 2))


def squares(t, u):
    return (t * u).relu().sum(dim=1)


fast_squares = torch.compile(squares, mode="reduce-overhead")
check("torch.compile(fn)", fast_squares(inp, inp).tolist() == squares(inp, inp).tolist()
      and fast_squares(inp, inp).tolist() == squares(inp, inp).tolist())
# nn.intrinsic (torch.nn.intrinsic = torch.ao.nn.intrinsic): fused modules built from modules
# (they move in, as into a Sequential); outputs equal the unfused computation, keys are torch's.
nni = torch.ao.nn.intrinsic
check("torch.nn.intrinsic is torch.ao.nn.intrinsic", nn.intrinsic.ConvReLU2d is nni.ConvReLU2d)
torch.manual_seed(0)
xi = torch.randn(2, 2, 4, 4)
ri = torch.randn(2, 3, 4, 4)
conv_i = nn.Conv2d(2, 3, 1)
unfused_i = torch.relu(conv_i(xi) + ri)
add_relu = nni.ConvAddReLU2d(conv_i, torch.add, nn.ReLU())
check("ConvAddReLU2d(x, r) = relu(conv(x) + r)", (add_relu(xi, ri) - unfused_i).abs().max().item() < 1e-5)
check("ConvAddReLU2d state_dict keys are torch's",
      list(add_relu.state_dict()) == expected["fused_keys"]["ConvAddReLU2d"])
cbr = nni.ConvBnReLU2d(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU())
check("ConvBnReLU2d state_dict keys are torch's",
      list(cbr.state_dict()) == expected["fused_keys"]["ConvBnReLU2d"])
cbr(xi)
cbr.eval()
check("ConvBnReLU2d eval forward", cbr(xi).shape == (2, 3, 2, 2))
raises("ConvReLU2d(Conv1d, ReLU)", RuntimeError, expected["fused_error"],
       lambda: nni.ConvReLU2d(nn.Conv1d(1, 1, 1), nn.ReLU()))

# torch.nn.utils.fusion (borch-ts's nn.utils.fusion): fuse_conv_bn_eval / fuse_conv_bn_weights and
# borch's fuse_for_eval(model) fold BatchNorm into the convolutions; fused = unfused within 1e-5.
from borch_webgpu.nn.utils.fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_for_eval  # noqa: E402

torch.manual_seed(0)
xf = torch.randn(2, 2, 6, 6)
cnn = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                    nn.Conv2d(4, 3, 3, stride=2), nn.BatchNorm2d(3), nn.Flatten(), nn.Linear(12, 5))
cnn(xf)  # a train forward: running statistics away from 0 and 1
cnn.eval()
conv_f = nn.Conv2d(2, 4, 3, padding=1)
conv_f.eval()
folded = fuse_conv_bn_eval(conv_f, cnn[1])
check("fuse_conv_bn_eval gives a Conv2d", type(folded).__name__ == "Conv2d")
with torch.no_grad():
    check("fuse_conv_bn_eval(conv, bn)(x) = bn(conv(x))",
          (folded(xf) - cnn[1](conv_f(xf))).abs().max().item() < 1e-5)
bn_state = cnn[1].state_dict()
fw, fb = fuse_conv_bn_weights(conv_f.weight, None, bn_state["running_mean"], bn_state["running_var"],
                              1e-5, cnn[1].weight, cnn[1].bias)
check("fuse_conv_bn_weights(conv_b=None) gives the folded weight and bias",
      fw.shape == (4, 2, 3, 3) and fb.shape == (4,) and fw.requires_grad and not fb.requires_grad)
raises("fuse_for_eval(train model)", RuntimeError, "Fusion only for eval!",
       lambda: torch.nn.utils.fusion.fuse_for_eval(nn.Sequential(nn.Conv2d(1, 1, 1))))
with torch.no_grad():
    unfused_f = cnn(xf)
    fuse_for_eval(cnn)
    cnn(xf)
    start = torch.dispatches()
    fused_f = cnn(xf)
    fused_dispatches = torch.dispatches() - start
check("fuse_for_eval(model): Conv-BN-ReLU, Conv-BN folded", type(cnn[0]) is nn.intrinsic.ConvReLU2d
      and type(cnn[1]).__name__ == "Identity" and type(cnn[3]).__name__ == "Conv2d")
check("fuse_for_eval(model)(x) = model(x) within 1e-5", (fused_f - unfused_f).abs().max().item() < 1e-5)
# ConvReLU2d, the folded Conv2d, the Linear (Flatten is a view): tests/node/fusion.mjs pins the same.
check(f"fused eval forward: {fused_dispatches} dispatches", fused_dispatches == 3)
# torch.onnx.export (borch-onnx through borch-ts's onnx.exportOnnx): the file written to a path
# on Pyodide's file system and to a file object; ORT runs such files in tests/onnx/.
import io
onnx_model = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
onnx_model.eval()
torch.onnx.export(onnx_model, (torch.randn(2, 4),), "/tmp/model.onnx", input_names=["x"],
                  output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": [0]}, opset_version=17)
with open("/tmp/model.onnx", "rb") as fh:
    onnx_bytes = fh.read()
check("torch.onnx.export writes the ONNX file",
      b"main_graph" in onnx_bytes and b"0.weight" in onnx_bytes and b"/0/Gemm" in onnx_bytes)
onnx_buf = io.BytesIO()
torch.onnx.export(onnx_model, torch.randn(2, 4), onnx_buf)
check("torch.onnx.export to a file object", b"batch" in onnx_buf.getvalue())
raises("torch.onnx.export(opset_version=18)", NotImplementedError,
       "ONNX export: opset_version 18 is not supported: borch-onnx writes opset 17",
       lambda: torch.onnx.export(onnx_model, torch.randn(2, 4), io.BytesIO(), opset_version=18))

# torch.save / torch.load (borch-ts's save / load, safetensors bytes): a path on Pyodide's file
# system, io.BytesIO and bytes; torch's own MLP file (tests/checkpoints/fixtures, handed over by
# python.mjs as CHECKPOINT_FIXTURES) gives torch's logits; hostile bytes raise.
def ckpt_mlp():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


torch.manual_seed(0)
saved_mlp = ckpt_mlp()
torch.save(saved_mlp.state_dict(), "/tmp/mlp.safetensors")
torch.manual_seed(1)
loaded_mlp = ckpt_mlp()
loaded_mlp.load_state_dict(torch.load("/tmp/mlp.safetensors"))
ckpt_x = torch.randn(3, 8)
check("torch.save / torch.load on a path: the same forward",
      saved_mlp(ckpt_x).tolist() == loaded_mlp(ckpt_x).tolist())
ckpt_buf = io.BytesIO()
torch.save(saved_mlp.state_dict(), ckpt_buf)
ckpt_bytes = ckpt_buf.getvalue()
ckpt_buf.seek(0)
from_buf = torch.load(ckpt_buf)
check("torch.load(io.BytesIO) gives the state dict's names",
      sorted(from_buf) == ["0.bias", "0.weight", "2.bias", "2.weight"])
check("torch.load(bytes) = the saved weight",
      torch.load(ckpt_bytes)["2.weight"].tolist() == saved_mlp[2].weight.tolist())
with open("/tmp/mlp.safetensors", "rb") as fh:
    check("the file and the BytesIO hold the same bytes", fh.read() == ckpt_bytes)
fixtures = {"mlp": CHECKPOINT_FIXTURES.mlp.to_bytes(), "mlp_io": CHECKPOINT_FIXTURES.mlp_io.to_bytes()}
torch_mlp = ckpt_mlp()
torch_mlp.load_state_dict(torch.load(fixtures["mlp"]))
torch_io = torch.load(io.BytesIO(fixtures["mlp_io"]))
check("torch's MLP file gives torch's logits within 1e-5",
      (torch_mlp(torch_io["input"]) - torch_io["logits"]).abs().max().item() <= 1e-5)
for what, hostile in [("truncated", ckpt_bytes[:-3]), ("empty", b""),
                      ("header length past the file", b"\xff\xff" + ckpt_bytes[2:]),
                      ("garbage", b"{" * 64), ("huge header length", b"\xff" * 8 + ckpt_bytes[8:])]:
    try:
        torch.load(hostile)
    except (RuntimeError, ValueError) as e:
        check(f"torch.load({what}) raises {type(e).__name__}", len(str(e)) > 0)
    else:
        raise AssertionError(f"torch.load({what}): nothing raised")
for what, bad in [("a list", [saved_mlp[0].weight]), ("a dict of floats", {"w": 3.0})]:
    try:
        torch.save(bad, io.BytesIO())
    except TypeError as e:
        check(f"torch.save({what}) raises TypeError: {e}", len(str(e)) > 0)
    else:
        raise AssertionError(f"torch.save({what}): nothing raised")


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(2))
        self.fc = nn.Linear(2, 3)

    def forward(self, x):
        return self.fc(x * self.scale)


torch.manual_seed(2)
scaled = Scaled()
with torch.no_grad():
    scaled.scale.mul_(3.0)
scaled_bytes = io.BytesIO()
torch.save(scaled.state_dict(), scaled_bytes)
scaled_again = Scaled()
scaled_keys = scaled_again.load_state_dict(torch.load(io.BytesIO(scaled_bytes.getvalue())))
check("a Python nn.Module subclass: load_state_dict(torch.load(f)) gives the same forward",
      scaled_again(ckpt_x[:, :2]).tolist() == scaled(ckpt_x[:, :2]).tolist()
      and scaled_keys.missing_keys == [] and scaled_keys.unexpected_keys == [])
raises("Python module load_state_dict(missing, unexpected, size mismatch)", RuntimeError,
       expected["load_state_dict_error"],
       lambda: Scaled().load_state_dict({"fc.weight": torch.zeros(4, 2), "fc.bias": torch.zeros(3),
                                          "bogus": torch.zeros(1)}))
check("the instance computes after the errors", (torch.tensor([1.0, 2.0]) + 1).tolist() == [2.0, 3.0])

# torch.save_checkpoint / torch.load_checkpoint (borch extensions over borch-ts's saveCheckpoint /
# loadCheckpoint; docs/checkpoints.md): training resumed from a checkpoint gives the losses of the
# uninterrupted run bit for bit (the native resumed_training_matches_uninterrupted_bit_for_bit).
def resume_run(seed):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4), nn.Dropout(0.25))
    opt = optim.Adam(model.parameters(), lr=1e-2)
    return model, opt, optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)


def resume_step(run):
    model, opt, sched = run
    x = torch.randn(6, 8)
    opt.zero_grad()
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    sched.step()
    return loss.item()


whole_run = resume_run(11)
whole_losses = [resume_step(whole_run) for _ in range(6)]
first_run = resume_run(11)
resumed_losses = [resume_step(first_run) for _ in range(3)]
torch.save_checkpoint(*first_run, 3, "/tmp/resume.safetensors")
resumed_run = resume_run(12345)
torch.randn(17)
check("load_checkpoint returns the saved epoch",
      torch.load_checkpoint("/tmp/resume.safetensors", *resumed_run) == 3)
resumed_losses += [resume_step(resumed_run) for _ in range(3)]
check(f"resumed losses == the uninterrupted run's, bit for bit: {resumed_losses} {whole_losses}",
      resumed_losses == whole_losses and len(set(whole_losses)) == 6)
no_sched_buf = io.BytesIO()
torch.save_checkpoint(resumed_run[0], resumed_run[1], None, 0, no_sched_buf)
raises("load_checkpoint of a file without the scheduler", ValueError,
       "not a borch training checkpoint: it holds the state of scheduler None, not Some(\"StepLR\")",
       lambda: torch.load_checkpoint(no_sched_buf.getvalue(), *resumed_run))
try:
    torch.save_checkpoint(Scaled(), resumed_run[1], None, 0, io.BytesIO())
except TypeError as e:
    check(f"save_checkpoint of a Python nn.Module subclass raises TypeError: {e}", "nn.Module" in str(e))
else:
    raise AssertionError("save_checkpoint of a Python nn.Module subclass: nothing raised")

# torch.utils.data: a seeded, shuffled DataLoader gives torch's batches in torch's order (the
# y column of case dataloader/n10_batch_size4_shuffleTrue_global_0 of tests/data/cases.json,
# frozen from torch by tests/data/fixtures_torch.py), two passes, and torch's errors.
from borch_webgpu.utils.data import DataLoader, TensorDataset  # noqa: E402

torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.arange(30.0).reshape(10, 3), torch.arange(10) * 10),
                    batch_size=4, shuffle=True)
check("len(loader) is the number of batches", len(loader) == 3)
passes = [[yb.tolist() for _, yb in loader] for _ in range(2)]
check(f"the DataLoader's order is torch's: {passes}",
      passes == [[[60, 70, 10, 40], [20, 0, 90, 80], [30, 50]],
                 [[20, 40, 70, 0], [80, 90, 50, 30], [60, 10]]])
torch.manual_seed(0)
first_x = next(iter(loader))[0]
check("x rows follow y", first_x.tolist()[0] == [18.0, 19.0, 20.0] and first_x.shape == (4, 3))
raises("DataLoader(batch_size=0)", ValueError,
       "batch_size should be a positive integer value, but got batch_size=0",
       lambda: DataLoader(TensorDataset(torch.zeros(4)), batch_size=0))

import borch_webgpu.vision as torchvision  # noqa: E402

vit = torchvision.models.vit_tiny_patch16_224(img_size=32, num_classes=10)
vit.eval()
check("timm's ViT-Tiny through vision.models: (2, 10) logits",
      vit(torch.randn(2, 3, 32, 32)).shape == (2, 10))
check("the ViT's state_dict keys are timm's",
      list(vit.state_dict())[:3] == ["cls_token", "pos_embed", "patch_embed.proj.weight"])

print(f"python api: {checks} checks passed")
