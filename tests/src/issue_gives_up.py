# build/fixtures/issue_gives_up_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#133653, #134137; examples/gen/fixtures_issues.c;
# expectations in tests/src/issue_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class GivesUp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)  # weight [[1, 0, 0], [0, 1, 1]], bias [-1, -1] in the fixture
    def forward(self, x):
        return self.fc(x).relu()


static = torch.export.export(GivesUp(), (torch.arange(3.0).reshape(1, 3),))
batch = Dim("batch", min=1, max=10)
# with the example of batch 1 this fails: "batch was inferred to be a constant (1)",
# suggested fix "batch = 1"; an example of batch 2 keeps it dynamic
dynamic = torch.export.export(GivesUp(), (torch.arange(6.0).reshape(2, 3),), dynamic_shapes={"x": {0: batch}})
