# build/fixtures/issue_ne_mod_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#124507; examples/gen/fixtures_issues.c; expectations in
# tests/src/issue_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class NeMod(nn.Module):  # ResNet's stem: a stride-2 7x7 conv, then a 3x3/2 max pool
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 7, stride=2, padding=3)  # weight 1, bias 0 in the fixture
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
    def forward(self, x):
        h = self.conv(x)
        return self.pool(h)


args = (torch.ones(1, 1, 23, 8),)
static = torch.export.export(NeMod(), args)
h = Dim("h", min=16, max=256)
# without the flag this export fails: the pool's shape formula guards
# Ne(Mod(((s0 - 1)//2), 2), 0) and the suggested fix is h's own range again
dynamic = torch.export.export(NeMod(), args, dynamic_shapes={"x": {2: h}},
                              prefer_deferred_runtime_asserts_over_guards=True)
