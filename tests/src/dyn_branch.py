# build/fixtures/dyn_branch_{static,dynamic}.pt2 stand for this model
# (examples/gen/fixtures_dynamic.c; expectations in tests/src/dyn_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class Branch(nn.Module):
    def forward(self, x):
        if x.shape[0] <= 6:
            return x * 2
        return x - 1


args = (torch.ones(4, 3),)
static = torch.export.export(Branch(), args)
dim = Dim("dim", min=3, max=6)  # max=6: the branch's guard (with min=3 alone export fails)
dynamic = torch.export.export(Branch(), args, dynamic_shapes={"x": {0: dim}})
