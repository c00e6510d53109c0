"""Freeze torch's optimizer steps and LR schedules into cases.json for borch-optim's tests.

Run: python3 tests/optim/cases.py   (needs torch; the Rust tests only read cases.json)

Optimizer cases: small float32 params, gradients set by hand each step (no autograd), five
steps with foreach=False (torch's single-tensor path); after each step the params and every
state entry are recorded. Scheduler cases: 30 scheduler steps on an optimizer of two param
groups, recording every group's lr (and momentum / beta1) after construction and each step.
"""

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
            if k == "step":
                entry[k] = float(v)
            elif torch.is_tensor(v):
                entry[k] = flat(v)
        out[str(i)] = entry
    return out


def optimizer_case(name, cls, defaults, groups=None, skip=None, steps=STEPS, seed=0):
    """groups: list of (param indices, option overrides); skip: {step: [param indices without grad]}."""
    g = torch.Generator().manual_seed(seed)
    params = [torch.randn(s, generator=g) for s in SHAPES]
    params = [p.requires_grad_() for p in params]
    init = [{"shape": list(p.shape), "data": flat(p)} for p in params]
    if groups is None:
        groups = [(list(range(len(params))), {})]
    torch_groups = [dict({"params": [params[i] for i in idx]}, **over) for idx, over in groups]
    opt = cls(torch_groups, foreach=False, **defaults)
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


LAMBDAS = {
    "pow095": lambda e: 0.95 ** e,
    "warmup5": lambda e: min(1.0, (e + 1) / 5),
    "inv_sqrt": lambda e: 1.0 / math.sqrt(e + 1),
}


def scheduler_case(name, sched, args, optimizer="SGD", steps=30, metrics=None, lambdas=None):
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

    cls = getattr(torch.optim.lr_scheduler, sched)
    kwargs = dict(args)
    if lambdas is not None:
        fns = [LAMBDAS[n] for n in lambdas]
        kwargs["lr_lambda"] = fns[0] if len(fns) == 1 else fns
    if "anneal_strategy" in kwargs and sched != "OneCycleLR":
        del kwargs["anneal_strategy"]
    s = cls(opt, **kwargs)
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
        "lrs": lrs,
        "momenta": moms,
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


def main():
    out = {
        "torch_version": torch.__version__,
        "optimizers": list(optimizer_cases()),
        "schedulers": list(scheduler_cases()),
    }
    path = os.path.join(HERE, "cases.json")
    import sys

    sys.path.insert(0, os.path.dirname(HERE))
    import json_lines  # tests/json_lines.py: one case a line, so a regeneration's diff is what changed

    json_lines.write(path, out)
    print(f"{len(out['optimizers'])} optimizer cases, {len(out['schedulers'])} scheduler cases -> {path}")


if __name__ == "__main__":
    main()
