# build/fixtures/dyn_convpool_{static,dynamic}.pt2 stand for this model
# (examples/gen/fixtures_dynamic.c; expectations in tests/src/dyn_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class ConvPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.pool = nn.MaxPool2d(2)
    def forward(self, x):
        h = self.conv(x)
        return self.pool(h)


args = (torch.randn(1, 3, 10, 10),)
static = torch.export.export(ConvPool(), args)
h, w = Dim("h", min=4, max=256), Dim("w", min=4, max=256)
dynamic = torch.export.export(ConvPool(), args, dynamic_shapes={"x": {2: h, 3: w}})
