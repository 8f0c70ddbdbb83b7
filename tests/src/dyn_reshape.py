# build/fixtures/dyn_reshape_{static,dynamic}.pt2 stand for these models
# (examples/gen/fixtures_dynamic.c; expectations in tests/src/dyn_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class ReshapeLiteral(nn.Module):
    def forward(self, x):
        y = x.view(4, 3, 2)
        return y.sum(-1)


class ReshapeFixed(nn.Module):
    def forward(self, x):
        y = x.view(x.shape[0], 3, 2)
        return y.sum(-1)


args = (torch.arange(24.0).reshape(4, 6),)
static = torch.export.export(ReshapeLiteral(), args)
batch = Dim("batch", min=2, max=64)
dynamic = torch.export.export(ReshapeFixed(), args, dynamic_shapes={"x": {0: batch}})
