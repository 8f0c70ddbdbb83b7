# The module behind build/fixtures/calls.pt2 (examples/gen/fixtures.c): a
# helper function called twice in a row, for `break FILE:FUNC` stopping once
# per call.
import torch
from torch import nn


def block(x):
    h = torch.relu(x)
    return h * 0.5


class Calls(nn.Module):
    def forward(self, x):
        a = block(x)
        b = block(a + 1.0)
        return b - 1.0
