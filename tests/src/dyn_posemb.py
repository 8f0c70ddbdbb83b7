# build/fixtures/dyn_posemb_{static,dynamic}.pt2 stand for this model
# (examples/gen/fixtures_dynamic.c; expectations in tests/src/dyn_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class PosEmb(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Embedding(8, 4)  # weight[i][j] = 10*i + j in the fixture
    def forward(self, x):
        T = x.shape[0]
        pos = torch.arange(T)
        return x + self.pos(pos)


args = (torch.full((5, 4), 0.5),)
static = torch.export.export(PosEmb(), args)
seq = Dim("seq", min=2, max=64)  # passes export, but T > 8 indexes past the table
dynamic = torch.export.export(PosEmb(), args, dynamic_shapes={"x": {0: seq}})
