# build/fixtures/issue_view_multiple_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#181097; examples/gen/fixtures_issues.c; expectations in
# tests/src/issue_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class ViewMultiple(nn.Module):
    def forward(self, x, y):
        x1 = x.view(5, -1)
        return x1 - y


args = (torch.arange(20.0), torch.tensor([100.0, 200, 300, 400]))
static = torch.export.export(ViewMultiple(), args)
batch = Dim("batch", min=1, max=8)
dynamic = torch.export.export(ViewMultiple(), args, dynamic_shapes={"x": {0: 5 * batch}, "y": {0: batch}})
# dynamic.module()(torch.randn(5), torch.randn(1)) fails: Guard failed: x.size()[0] // 5 != 1
