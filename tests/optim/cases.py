"""Freeze torch's optimizer steps and LR schedules into cases.json for borch-optim's tests.

Run: python3 tests/optim/cases.py   (needs torch; the Rust tests only read cases.json)

Optimizer cases: small float32 params, gradients set by hand each step (no autograd), five
steps with foreach=False (torch's single-tensor path); after each step the params and every
state entry are recorded. Scheduler cases: 30 scheduler steps on an optimizer of two param
groups, recording every group's lr (and momentum / beta1) after construction and each step.
"""

import collections
import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = [[2, 3], [4], [1]]
STEPS = 5


def flat(t):
    return [float(x) for x in t.detach().reshape(-1).tolist()]


def state_json(opt, params):
    out = {}
    for i, p in enumerate(params):
        st = opt.state.get(p)
        if not st:
            continue
        entry = {}
        for k, v in st.items():
            if k == "step" or (torch.is_tensor(v) and v.dim() == 0):
                entry[k] = float(v)
            elif torch.is_tensor(v):
                entry[k] = flat(v)
        out[str(i)] = entry
    return out


def optimizer_case(name, cls, defaults, groups=None, skip=None, steps=STEPS, seed=0, foreach=True):
    """groups: list of (param indices, option overrides); skip: {step: [param indices without grad]}."""
    g = torch.Generator().manual_seed(seed)
    params = [torch.randn(s, generator=g) for s in SHAPES]
    params = [p.requires_grad_() for p in params]
    init = [{"shape": list(p.shape), "data": flat(p)} for p in params]
    if groups is None:
        groups = [(list(range(len(params))), {})]
    torch_groups = [dict({"params": [params[i] for i in idx]}, **over) for idx, over in groups]
    kwargs = {"foreach": False} if foreach else {}
    opt = cls(torch_groups, **kwargs, **defaults)
    record = []
    for step in range(steps):
        grads = []
        for i, p in enumerate(params):
            if skip and i in skip.get(step, []):
                p.grad = None
                grads.append(None)
            else:
                gr = torch.randn(p.shape, generator=g)
                p.grad = gr
                grads.append(flat(gr))
        opt.step()
        record.append({
            "grads": grads,
            "params": [flat(p) for p in params],
            "state": state_json(opt, params),
        })
    return {
        "name": name,
        "optimizer": cls.__name__,
        "defaults": defaults,
        "groups": [{"params": idx, "options": over} for idx, over in groups],
        "params": init,
        "steps": record,
    }


def optimizer_cases():
    SGD, Adam, AdamW = torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW
    RMSprop, Adagrad = torch.optim.RMSprop, torch.optim.Adagrad
    two = [([0], {}), ([1, 2], {"lr": 0.05})]
    yield optimizer_case("sgd/plain", SGD, {"lr": 0.1})
    yield optimizer_case("sgd/momentum", SGD, {"lr": 0.1, "momentum": 0.9})
    yield optimizer_case("sgd/dampening", SGD, {"lr": 0.1, "momentum": 0.9, "dampening": 0.3})
    yield optimizer_case("sgd/nesterov", SGD, {"lr": 0.05, "momentum": 0.8, "nesterov": True})
    yield optimizer_case("sgd/weight_decay", SGD, {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.01})
    yield optimizer_case("sgd/maximize", SGD, {"lr": 0.1, "momentum": 0.9, "maximize": True, "weight_decay": 0.1})
    yield optimizer_case("sgd/groups", SGD, {"lr": 0.1}, groups=[([0], {"momentum": 0.9}), ([1, 2], {"lr": 0.01, "nesterov": False, "weight_decay": 0.2})])
    yield optimizer_case("sgd/skip_grad", SGD, {"lr": 0.1, "momentum": 0.9}, skip={0: [1], 2: [0, 2]})
    yield optimizer_case("adam/default", Adam, {})
    yield optimizer_case("adam/lr", Adam, {"lr": 0.1, "betas": (0.8, 0.99)})
    yield optimizer_case("adam/amsgrad", Adam, {"lr": 0.05, "amsgrad": True})
    yield optimizer_case("adam/weight_decay", Adam, {"lr": 0.01, "weight_decay": 0.1, "eps": 1e-6})
    yield optimizer_case("adam/maximize", Adam, {"lr": 0.01, "maximize": True, "amsgrad": True, "weight_decay": 0.05})
    yield optimizer_case("adam/decoupled", Adam, {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True})
    yield optimizer_case("adam/groups", Adam, {"lr": 0.01}, groups=[([0], {"betas": (0.5, 0.9)}), ([1, 2], {"lr": 0.1, "amsgrad": True})])
    yield optimizer_case("adam/skip_grad", Adam, {"lr": 0.02}, skip={0: [2], 3: [0]})
    yield optimizer_case("adamw/default", AdamW, {})
    yield optimizer_case("adamw/lr", AdamW, {"lr": 0.1, "weight_decay": 0.1})
    yield optimizer_case("adamw/amsgrad", AdamW, {"lr": 0.05, "amsgrad": True, "weight_decay": 0.5})
    yield optimizer_case("adamw/maximize", AdamW, {"lr": 0.01, "maximize": True})
    yield optimizer_case("adamw/groups", AdamW, {"lr": 0.01}, groups=two)
    yield optimizer_case("rmsprop/default", RMSprop, {})
    yield optimizer_case("rmsprop/centered", RMSprop, {"lr": 0.01, "centered": True})
    yield optimizer_case("rmsprop/momentum", RMSprop, {"lr": 0.01, "momentum": 0.9, "alpha": 0.9})
    yield optimizer_case("rmsprop/all", RMSprop, {"lr": 0.005, "momentum": 0.5, "centered": True, "weight_decay": 0.1, "eps": 1e-4})
    yield optimizer_case("rmsprop/maximize", RMSprop, {"lr": 0.01, "maximize": True, "centered": True})
    yield optimizer_case("rmsprop/groups", RMSprop, {"lr": 0.01}, groups=[([0], {"momentum": 0.9}), ([1, 2], {"centered": True, "lr": 0.02})])
    yield optimizer_case("adagrad/default", Adagrad, {})
    yield optimizer_case("adagrad/lr_decay", Adagrad, {"lr": 0.1, "lr_decay": 0.1})
    yield optimizer_case("adagrad/weight_decay", Adagrad, {"lr": 0.1, "weight_decay": 0.1, "eps": 1e-6})
    yield optimizer_case("adagrad/initial_accumulator", Adagrad, {"lr": 0.1, "initial_accumulator_value": 0.5})
    yield optimizer_case("adagrad/maximize", Adagrad, {"lr": 0.1, "maximize": True, "lr_decay": 0.01})
    yield optimizer_case("adagrad/groups", Adagrad, {"lr": 0.1, "initial_accumulator_value": 0.1}, groups=[([0], {}), ([1, 2], {"lr": 0.3, "lr_decay": 0.5, "initial_accumulator_value": 9.0})])
    yield optimizer_case("adagrad/skip_grad", Adagrad, {"lr": 0.1}, skip={0: [0], 1: [1, 2]})
    yield from new_optimizer_cases(two)


def new_optimizer_cases(two):
    O = torch.optim
    yield optimizer_case("adamax/default", O.Adamax, {})
    yield optimizer_case("adamax/lr", O.Adamax, {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-4})
    yield optimizer_case("adamax/weight_decay", O.Adamax, {"lr": 0.02, "weight_decay": 0.1, "maximize": True})
    yield optimizer_case("adamax/groups", O.Adamax, {"lr": 0.01}, groups=two, skip={1: [2]})
    yield optimizer_case("nadam/default", O.NAdam, {})
    yield optimizer_case("nadam/momentum_decay", O.NAdam, {"lr": 0.05, "momentum_decay": 0.1, "betas": (0.8, 0.95)})
    yield optimizer_case("nadam/weight_decay", O.NAdam, {"lr": 0.01, "weight_decay": 0.1})
    yield optimizer_case("nadam/decoupled", O.NAdam, {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True})
    yield optimizer_case("nadam/groups", O.NAdam, {"lr": 0.01}, groups=two, skip={2: [0]})
    yield optimizer_case("radam/default", O.RAdam, {}, steps=8)
    yield optimizer_case("radam/rectified", O.RAdam, {"lr": 0.05, "betas": (0.9, 0.9)}, steps=8)
    yield optimizer_case("radam/weight_decay", O.RAdam, {"lr": 0.01, "weight_decay": 0.1, "betas": (0.5, 0.8)}, steps=8)
    yield optimizer_case("radam/decoupled", O.RAdam, {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "betas": (0.5, 0.8), "maximize": True}, steps=8)
    yield optimizer_case("radam/groups", O.RAdam, {"lr": 0.01, "betas": (0.6, 0.7)}, groups=two, steps=8)
    yield optimizer_case("adadelta/default", O.Adadelta, {})
    yield optimizer_case("adadelta/rho", O.Adadelta, {"lr": 0.5, "rho": 0.5, "eps": 1e-3})
    yield optimizer_case("adadelta/weight_decay", O.Adadelta, {"weight_decay": 0.1, "maximize": True})
    yield optimizer_case("adadelta/groups", O.Adadelta, {"lr": 1.0}, groups=two, skip={0: [1]})
    yield optimizer_case("asgd/default", O.ASGD, {})
    yield optimizer_case("asgd/averaging", O.ASGD, {"lr": 0.05, "t0": 2.0, "lambd": 0.01, "alpha": 0.5})
    yield optimizer_case("asgd/weight_decay", O.ASGD, {"lr": 0.05, "t0": 1.0, "weight_decay": 0.1, "maximize": True})
    yield optimizer_case("asgd/groups", O.ASGD, {"lr": 0.05, "t0": 3.0}, groups=two)
    yield optimizer_case("rprop/default", O.Rprop, {}, steps=8)
    yield optimizer_case("rprop/etas", O.Rprop, {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (0.01, 0.2)}, steps=8)
    yield optimizer_case("rprop/maximize", O.Rprop, {"lr": 0.05, "maximize": True}, steps=8)
    yield optimizer_case("rprop/groups", O.Rprop, {"lr": 0.01}, groups=two, skip={3: [1]}, steps=8)
    yield optimizer_case("adafactor/default", O.Adafactor, {}, foreach=False)
    yield optimizer_case("adafactor/lr", O.Adafactor, {"lr": 0.1, "beta2_decay": -0.5, "d": 2.0}, foreach=False)
    yield optimizer_case("adafactor/eps", O.Adafactor, {"lr": 0.05, "eps": (1e-3, 1e-2), "weight_decay": 0.1, "maximize": True}, foreach=False)
    yield optimizer_case("adafactor/groups", O.Adafactor, {"lr": 0.05}, groups=two, foreach=False)


def lbfgs_problem(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(8, 3, generator=g)
    y = torch.randn(8, 1, generator=g)
    w = torch.randn(3, 1, generator=g).requires_grad_()
    c = torch.randn(1, generator=g).requires_grad_()
    return x, y, [w, c]


def lbfgs_loss(x, y, w, c):
    """((x @ w + c - y)^2).mean() + 0.01 * (w^4).sum(), as the Rust test writes it."""
    return (x.matmul(w) + c - y).square().mean() + (w ** 4).sum() * 0.01


def lbfgs_case(name, options, steps=3, seed=0):
    x, y, params = lbfgs_problem(seed)
    init = [{"shape": list(p.shape), "data": flat(p)} for p in params]
    opt = torch.optim.LBFGS(params, **options)
    sign = -1.0 if options.get("maximize") else 1.0

    def closure():
        opt.zero_grad()
        loss = sign * lbfgs_loss(x, y, *params)
        loss.backward()
        return loss

    record = []
    for _ in range(steps):
        loss = opt.step(closure)
        st = opt.state[params[0]]
        record.append({
            "loss": float(loss.detach()),
            "params": [flat(p) for p in params],
            "func_evals": st["func_evals"],
            "n_iter": st["n_iter"],
        })
    return {
        "name": name,
        "options": options,
        "x": flat(x),
        "y": flat(y),
        "params": init,
        "steps": record,
    }


def lbfgs_cases():
    yield lbfgs_case("lbfgs/default", {"max_iter": 3})
    yield lbfgs_case("lbfgs/lr", {"lr": 0.5, "max_iter": 4, "history_size": 2}, seed=1)
    # Few iterations a step, so that no step ends at the minimum, where stopping tests compare
    # loss changes at float32 resolution.
    yield lbfgs_case("lbfgs/strong_wolfe", {"max_iter": 2, "line_search_fn": "strong_wolfe"})
    yield lbfgs_case("lbfgs/strong_wolfe_history", {"max_iter": 2, "history_size": 2, "line_search_fn": "strong_wolfe"}, seed=2)
    yield lbfgs_case("lbfgs/maximize", {"max_iter": 4, "maximize": True}, seed=3)
    yield lbfgs_case("lbfgs/tolerance", {"max_iter": 20, "tolerance_change": 1e-3, "line_search_fn": "strong_wolfe"}, seed=4)


LAMBDAS = {
    "pow095": lambda e: 0.95 ** e,
    "warmup5": lambda e: min(1.0, (e + 1) / 5),
    "inv_sqrt": lambda e: 1.0 / math.sqrt(e + 1),
}


def make_scheduler(opt, sched, args, lambdas=None, children=None):
    cls = getattr(torch.optim.lr_scheduler, sched)
    kwargs = dict(args)
    if lambdas is not None:
        fns = [LAMBDAS[n] for n in lambdas]
        kwargs["lr_lambda"] = fns[0] if len(fns) == 1 else fns
    if "anneal_strategy" in kwargs and sched != "OneCycleLR":
        del kwargs["anneal_strategy"]
    if children is not None:
        kids = [make_scheduler(opt, c["scheduler"], c["args"], c.get("lambdas")) for c in children]
        if sched == "ChainedScheduler":
            return cls(kids)
        return cls(opt, kids, **kwargs)
    return cls(opt, **kwargs)


def json_state(v):
    if isinstance(v, dict):
        return {k: json_state(x) for k, x in v.items() if not callable(x)}
    if isinstance(v, (list, tuple)):
        return [json_state(x) for x in v]
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if isinstance(v, collections.Counter):
        return sorted(v.elements())
    return v


def scheduler_case(name, sched, args, optimizer="SGD", steps=30, metrics=None, lambdas=None, children=None):
    params = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    groups = [{"params": [params[0]], "lr": 0.1}, {"params": [params[1]], "lr": 0.05}]
    if optimizer == "SGD":
        opt = torch.optim.SGD(groups, momentum=0.9)
    elif optimizer == "Adam":
        opt = torch.optim.Adam(groups)
    else:
        opt = torch.optim.Adagrad(groups)

    def momenta():
        if optimizer == "SGD":
            return [g["momentum"] for g in opt.param_groups]
        if optimizer == "Adam":
            return [g["betas"][0] for g in opt.param_groups]
        return []

    s = make_scheduler(opt, sched, args, lambdas, children)
    lrs = [[g["lr"] for g in opt.param_groups]]
    moms = [momenta()]
    last = [list(s.get_last_lr())]
    for i in range(steps):
        opt.step()
        if metrics is not None:
            s.step(metrics[i])
        else:
            s.step()
        lrs.append([g["lr"] for g in opt.param_groups])
        moms.append(momenta())
        last.append(list(s.get_last_lr()))
    if lrs != last:
        raise AssertionError(f"{name}: get_last_lr differs from the groups' lr")
    return {
        "name": name,
        "scheduler": sched,
        "optimizer": optimizer,
        "args": args,
        "lambdas": lambdas,
        "metrics": metrics,
        "children": children,
        "lrs": lrs,
        "momenta": moms,
        "state_dict": json_state(s.state_dict()),
    }


def plateau_metrics():
    g = torch.Generator().manual_seed(3)
    base = [1.0 / (1 + 0.3 * i) if i < 8 else 0.25 for i in range(30)]
    noise = torch.rand(30, generator=g, dtype=torch.float64).tolist()
    return [b + 0.01 * n for b, n in zip(base, noise)]


def scheduler_cases():
    yield scheduler_case("step_lr/basic", "StepLR", {"step_size": 7, "gamma": 0.5})
    yield scheduler_case("step_lr/every", "StepLR", {"step_size": 1, "gamma": 0.9})
    yield scheduler_case("multi_step_lr/basic", "MultiStepLR", {"milestones": [3, 10, 10, 21], "gamma": 0.3})
    yield scheduler_case("exponential_lr/basic", "ExponentialLR", {"gamma": 0.93})
    yield scheduler_case("cosine_annealing_lr/basic", "CosineAnnealingLR", {"T_max": 10})
    yield scheduler_case("cosine_annealing_lr/eta_min", "CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001})
    yield scheduler_case("cosine_annealing_lr/long", "CosineAnnealingLR", {"T_max": 40, "eta_min": 0.01})
    yield scheduler_case("linear_lr/default", "LinearLR", {})
    yield scheduler_case("linear_lr/decay", "LinearLR", {"start_factor": 1.0, "end_factor": 0.1, "total_iters": 20})
    yield scheduler_case("linear_lr/warmup", "LinearLR", {"start_factor": 0.25, "end_factor": 1.0, "total_iters": 8})
    yield scheduler_case("lambda_lr/one", "LambdaLR", {}, lambdas=["pow095"])
    yield scheduler_case("lambda_lr/per_group", "LambdaLR", {}, lambdas=["warmup5", "inv_sqrt"])
    yield scheduler_case("one_cycle_lr/cos_sgd", "OneCycleLR", {"max_lr": 1.0, "total_steps": 30})
    yield scheduler_case("one_cycle_lr/linear_sgd", "OneCycleLR", {"max_lr": [0.5, 0.2], "total_steps": 30, "anneal_strategy": "linear", "pct_start": 0.25})
    yield scheduler_case("one_cycle_lr/three_phase", "OneCycleLR", {"max_lr": 0.8, "epochs": 3, "steps_per_epoch": 10, "three_phase": True, "div_factor": 10.0, "final_div_factor": 100.0})
    yield scheduler_case("one_cycle_lr/adam", "OneCycleLR", {"max_lr": 0.01, "total_steps": 30, "base_momentum": 0.8, "max_momentum": [0.9, 0.95]}, optimizer="Adam")
    yield scheduler_case("one_cycle_lr/no_momentum", "OneCycleLR", {"max_lr": 0.3, "total_steps": 31, "cycle_momentum": False}, optimizer="Adagrad")
    m = plateau_metrics()
    yield scheduler_case("reduce_lr_on_plateau/min", "ReduceLROnPlateau", {"patience": 2, "factor": 0.5}, metrics=m)
    yield scheduler_case("reduce_lr_on_plateau/cooldown", "ReduceLROnPlateau", {"patience": 1, "factor": 0.3, "cooldown": 3, "min_lr": [0.01, 0.001]}, metrics=m)
    yield scheduler_case("reduce_lr_on_plateau/abs", "ReduceLROnPlateau", {"patience": 0, "threshold": 0.05, "threshold_mode": "abs", "min_lr": 0.004}, metrics=m)
    yield scheduler_case("reduce_lr_on_plateau/max", "ReduceLROnPlateau", {"mode": "max", "patience": 3, "factor": 0.7}, metrics=[-x for x in m])
    yield scheduler_case("reduce_lr_on_plateau/eps", "ReduceLROnPlateau", {"patience": 0, "factor": 0.5, "eps": 0.02}, metrics=[1.0] * 30)
    yield from new_scheduler_cases()


def new_scheduler_cases():
    yield scheduler_case("constant_lr/default", "ConstantLR", {})
    yield scheduler_case("constant_lr/factor", "ConstantLR", {"factor": 0.5, "total_iters": 12})
    yield scheduler_case("polynomial_lr/default", "PolynomialLR", {})
    yield scheduler_case("polynomial_lr/power", "PolynomialLR", {"total_iters": 20, "power": 2.0})
    yield scheduler_case("polynomial_lr/sqrt", "PolynomialLR", {"total_iters": 25, "power": 0.5}, optimizer="Adam")
    yield scheduler_case("cosine_annealing_warm_restarts/basic", "CosineAnnealingWarmRestarts", {"T_0": 7})
    yield scheduler_case("cosine_annealing_warm_restarts/mult", "CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.001})
    yield scheduler_case("cyclic_lr/triangular", "CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4})
    yield scheduler_case("cyclic_lr/triangular2", "CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": [0.1, 0.2], "step_size_up": 3, "step_size_down": 5, "mode": "triangular2"})
    yield scheduler_case("cyclic_lr/exp_range", "CyclicLR", {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 5, "mode": "exp_range", "gamma": 0.9, "base_momentum": 0.7, "max_momentum": [0.9, 0.95]})
    yield scheduler_case("cyclic_lr/adam", "CyclicLR", {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 6}, optimizer="Adam")
    yield scheduler_case("cyclic_lr/no_momentum", "CyclicLR", {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 6, "cycle_momentum": False}, optimizer="Adagrad")
    yield scheduler_case("multiplicative_lr/one", "MultiplicativeLR", {}, lambdas=["pow095"])
    yield scheduler_case("multiplicative_lr/per_group", "MultiplicativeLR", {}, lambdas=["warmup5", "inv_sqrt"])
    yield scheduler_case("sequential_lr/warmup_cosine", "SequentialLR", {"milestones": [5]}, children=[
        {"scheduler": "LinearLR", "args": {"start_factor": 0.1, "total_iters": 5}},
        {"scheduler": "CosineAnnealingLR", "args": {"T_max": 25}}])
    yield scheduler_case("sequential_lr/three", "SequentialLR", {"milestones": [4, 12]}, children=[
        {"scheduler": "ConstantLR", "args": {"factor": 0.5, "total_iters": 4}},
        {"scheduler": "ExponentialLR", "args": {"gamma": 0.9}},
        {"scheduler": "StepLR", "args": {"step_size": 5, "gamma": 0.5}}])
    yield scheduler_case("chained_scheduler/basic", "ChainedScheduler", {}, children=[
        {"scheduler": "ConstantLR", "args": {"factor": 0.2, "total_iters": 6}},
        {"scheduler": "ExponentialLR", "args": {"gamma": 0.95}}])
    yield scheduler_case("chained_scheduler/multistep", "ChainedScheduler", {}, children=[
        {"scheduler": "MultiStepLR", "args": {"milestones": [5, 15], "gamma": 0.5}},
        {"scheduler": "PolynomialLR", "args": {"total_iters": 20, "power": 1.5}}])


def main():
    out = {
        "optimizers": list(optimizer_cases()),
        "lbfgs": list(lbfgs_cases()),
        "schedulers": list(scheduler_cases()),
    }
    path = os.path.join(HERE, "cases.json")
    # One case a line, so that a regeneration's diff is the size of what changed.
    dump = lambda v: json.dumps(v, indent=None, separators=(",", ":"))
    with open(path, "w") as f:
        f.write("{" + dump("torch_version") + ":" + dump(torch.__version__))
        for key, cases in out.items():
            f.write(",\n" + dump(key) + ":[\n")
            f.write(",\n".join(dump(c) for c in cases))
            f.write("\n]")
        f.write("}\n")
    counts = ", ".join(f"{len(v)} {k}" for k, v in out.items())
    print(f"{counts} cases -> {path}")


if __name__ == "__main__":
    main()
