# build/fixtures/issue_max_dims_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#150851; examples/gen/fixtures_issues.c; expectations in
# tests/src/issue_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class MaxDims(nn.Module):
    def forward(self, x, y):
        z = torch.zeros(max(x.shape[0], y.shape[0]))
        z[: x.shape[0]] += x
        z[: y.shape[0]] += y
        return z


args = (torch.tensor([1.0, 2]), torch.tensor([10.0, 20, 30]))
static = torch.export.export(MaxDims(), args)
DYN = Dim.DYNAMIC
dynamic = torch.export.export(MaxDims(), args, dynamic_shapes={"x": {0: DYN}, "y": {0: DYN}})
# max() traced y.shape[0] > x.shape[0]: zeros(y.shape[0]); x of 3 with y of 2 fails
