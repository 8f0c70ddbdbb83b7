# build/fixtures/issue_max512_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#148568; examples/gen/fixtures_issues.c; expectations in
# tests/src/issue_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class Max512(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(512, 4))  # pos[i][j] = 10*i + j in the fixture
    def forward(self, x):
        return x + self.pos[: x.shape[0]]


args = (torch.arange(20.0).reshape(5, 4),)
static = torch.export.export(Max512(), args)
# Dim("seq") fails with the suggested fix seq = Dim('seq', max=512); following it
# fails again: "... satisfy the generated guard L['x'].size()[0] != 512"
seq = Dim("seq", min=2, max=512)
dynamic = torch.export.export(Max512(), args, dynamic_shapes={"x": {0: seq}},
                              prefer_deferred_runtime_asserts_over_guards=True)
