# build/fixtures/dyn_catslice_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#146315; examples/gen/fixtures_dynamic.c; expectations in
# tests/src/dyn_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class CatSlice(nn.Module):
    def forward(self, x, y, z):
        return torch.cat((x, y), 1) + z[:, ::2]


args = (torch.randn(2, 3), torch.randn(2, 5), torch.randn(2, 16))
static = torch.export.export(CatSlice(), args)
dx = Dim("dx", min=2, max=64)
dynamic = torch.export.export(CatSlice(), args, dynamic_shapes={"x": {1: dx}, "y": None, "z": {1: 2 * dx + 10}})
