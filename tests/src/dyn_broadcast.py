# build/fixtures/dyn_broadcast_{static,dynamic}.pt2 stand for this model
# (examples/gen/fixtures_dynamic.c; expectations in tests/src/dyn_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class Broadcast(nn.Module):
    def forward(self, x, y):
        return x + y


args = (torch.randn(4, 3), torch.randn(4, 1))
static = torch.export.export(Broadcast(), args)
batch = Dim("batch", min=2, max=64)
dynamic = torch.export.export(Broadcast(), args, dynamic_shapes={"x": {0: batch}, "y": {0: batch}})
