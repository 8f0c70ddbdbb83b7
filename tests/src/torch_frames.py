# A convolution whose recorded stack ends inside torch's nn.Conv2d, then a
# custom op called through torch's OpOverload: each node's innermost frame
# is torch's own code, and the line to show is the one below that called it.
import torch


class ConvThenCustom(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 3)

    def forward(self, x):
        y = self.conv(x)
        return torch.ops.mylib.frobnicate(y)
