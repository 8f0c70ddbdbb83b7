# build/fixtures/dyn_item_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#153174; examples/gen/fixtures_dynamic.c; expectations in
# tests/src/dyn_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class Item(nn.Module):
    def forward(self, a, b):
        n = a.item()
        torch._check(n >= 1)
        torch._check(n <= 16)
        z = torch.zeros(n, 18, b.shape[0]) + b
        torch._check((n * 18 * b.shape[0]) % 144 == 0)
        return z.view(-1, 144)


args = (torch.tensor([4]), torch.tensor([1.0, 2.0]))
static = torch.export.export(Item(), args)
s = Dim("s", min=2, max=64)
dynamic = torch.export.export(Item(), args, dynamic_shapes={"a": None, "b": {0: s}})
