# build/fixtures/issue_offbyone_{static,dynamic}.pt2 stand for this model
# (pytorch/pytorch#126127; examples/gen/fixtures_issues.c; expectations in
# tests/src/issue_fixtures.md).
import torch
from torch import nn
from torch.export import Dim


class OffByOne(nn.Module):  # BERT's embeddings: tokens + positions 0..T-1 of a 512-row table
    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(16, 4)  # word[v][j] = 100*v + j in the fixture
        self.pos = nn.Embedding(512, 4)  # pos[p][j] = 10*p in the fixture
        self.register_buffer("position_ids", torch.arange(512).expand((1, -1)))
    def forward(self, input_ids, attention_mask):
        T = input_ids.shape[1]
        position_ids = self.position_ids[:, :T]
        h = self.word(input_ids) + self.pos(position_ids)
        return h * attention_mask.unsqueeze(-1)


ids = torch.tensor([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])
mask = torch.tensor([[1.0, 1, 1, 1, 1], [1, 1, 1, 1, 0.5]])
static = torch.export.export(OffByOne(), (ids, mask))
# separate Dims for both inputs fail with the suggested fixes b2 = b1, x2 = x1,
# x1 = Dim('x1', max=512); following them fails again with the guard
# Ne(512, L['attention_mask'].size()[1]) -- one too many
b, x1 = Dim("b", min=2, max=64), Dim("x1", min=2, max=512)
dynamic = torch.export.export(OffByOne(), (ids, mask),
                              dynamic_shapes={"input_ids": {0: b, 1: x1}, "attention_mask": {0: b, 1: x1}},
                              prefer_deferred_runtime_asserts_over_guards=True)
