#!/usr/bin/env python3
"""Writes the ONNX file of the browser benchmark's ViT-Tiny/16 eval forward (ONNX Runtime Web's
side) with borch's weights:

    cargo xtask bench vit --export-weights W.json   # borch's seeded vit_tiny_patch16_224
    pip install onnx && python3 scripts/make_bench_vit_onnx.py --weights W.json --out M.onnx

`cargo xtask bench browser --cases vit` runs both into $CARGO_TARGET_DIR/bench-vit/ (not
committed: 23 MB). The network is timm 1.0.31's `vit_tiny_patch16_224` written out in torch (no
timm needed): the same modules and state_dict keys (152 entries: `cls_token`, `pos_embed`,
`patch_embed.proj`, 12 `blocks.i.{norm1,attn.qkv,attn.proj,norm2,mlp.fc1,mlp.fc2}`, `norm`,
`head`), LayerNorm eps 1e-6, exact GELU, class-token pooling, and timm's attention
(`q * scale @ k^T`, softmax, `@ v`). borch's weights load into it strictly and its logits on the
check input must agree with borch's within 1e-4 (relative to the largest logit) before anything
is exported (scripts/bench_onnx_export.py, shared with make_bench_resnet18_onnx.py): input `x`
[batch, 3, 224, 224], output `logits` [batch, 1000].
"""
import argparse
import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_onnx_export import check_and_export  # noqa: E402


class PatchEmbed(nn.Module):
    def __init__(self, dim, patch):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, patch)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = ((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = Mlp(dim, dim * 4)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VisionTransformer(nn.Module):
    """timm's VisionTransformer at vit_tiny_patch16_224's settings (class token, no fc_norm)."""

    def __init__(self, dim=192, depth=12, heads=3, patch=16, img=224, classes=1000):
        super().__init__()
        self.patch_embed = PatchEmbed(dim, patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, (img // patch) ** 2 + 1, dim))
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_embed(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--weights", required=True, help="the manifest `xtask bench vit --export-weights` wrote")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    check_and_export(VisionTransformer(), args.weights, args.out)
    print("(timm's vit_tiny_patch16_224 structure, borch's weights)")


if __name__ == "__main__":
    main()
