# build/fixtures/dyn_pad32_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#136216; examples/gen/fixtures_dynamic.c; expectations in
# tests/src/dyn_fixtures.md).
import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim


class Pad32(nn.Module):
    def forward(self, x):
        H = x.shape[2]
        pad_H = (32 - H % 32) % 32
        if pad_H > 0:
            x = F.pad(x, (0, 0, 0, pad_H))
        return x * 2


args = (torch.ones(1, 1, 30, 4),)
static = torch.export.export(Pad32(), args)
h = Dim("h", min=224, max=1024)
# without the flag this export fails (the guard Ne(Mod(s0, 32), 0) is no range)
dynamic = torch.export.export(Pad32(), (torch.ones(1, 1, 230, 4),), dynamic_shapes={"x": {2: h}},
                              prefer_deferred_runtime_asserts_over_guards=True)
