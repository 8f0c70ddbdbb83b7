# build/fixtures/dyn_derived_{static,dynamic}.pt2 stand for this model
# (examples/gen/fixtures_dynamic.c; expectations in tests/src/dyn_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class Derived(nn.Module):
    def forward(self, x, y):
        return x + y[1:]


args = (torch.randn(5), torch.randn(6))
static = torch.export.export(Derived(), args)
dimx = Dim("dimx", min=2, max=64)
dynamic = torch.export.export(Derived(), args, dynamic_shapes={"x": {0: dimx}, "y": {0: dimx + 1}})
