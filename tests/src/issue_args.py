# build/fixtures/issue_args_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#160674; examples/gen/fixtures_issues.c; expectations in
# tests/src/issue_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class Args(nn.Module):
    def forward(self, *args):
        return args[0] + args[1]


args = (torch.arange(12.0).reshape(4, 3), torch.full((4, 3), 100.0))
static = torch.export.export(Args(), args)
batch = Dim("batch", min=2, max=64)
dynamic = torch.export.export(Args(), args, dynamic_shapes={"args": ({0: batch}, {0: batch})})
# placeholders args_0, args_1; a wrong size was reported at "*args.<unknown location>"
