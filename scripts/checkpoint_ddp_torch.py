"""Continue a borch training run in PyTorch under DistributedDataParallel (docs/checkpoints.md).

    python3 scripts/checkpoint_ddp_torch.py target/tmp/checkpoints/borch_checkpoint.safetensors

The checkpoint is the one `cargo test -p borch-nn --test checkpoints` leaves (an MLP
Linear(8,16)-ReLU-Linear(16,4)-Dropout trained with Adam and StepLR). One process (world_size 1,
gloo backend, CPU) is enough to show the path; with torchrun, every rank loads the same file.
"""

import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from borch_checkpoint_torch import load_borch_checkpoint  # noqa: E402


def main(path):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("gloo", rank=int(os.environ.get("RANK", 0)),
                            world_size=int(os.environ.get("WORLD_SIZE", 1)))
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4),
                                torch.nn.Dropout(0.25))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    # Load before wrapping: DDP broadcasts rank 0's parameters when it is built.
    epoch = load_borch_checkpoint(path, model, opt, sched)
    ddp = DDP(model)
    x = torch.randn(6, 8)
    opt.zero_grad()
    loss = ddp(x).square().mean()
    loss.backward()  # gradients all-reduced over the process group
    opt.step()
    sched.step()
    step = opt.state_dict()["state"][0]["step"].item()
    print(f"DDP (gloo, world_size {dist.get_world_size()}) resumed borch epoch {epoch}: "
          f"loss {loss.item():.6f}, Adam step {step:.0f}, lr {sched.get_last_lr()[0]}")
    dist.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
