/*
** benchmodels.h -- the synthetic programs bench/ measures, built with the
** generator so the benchmarks read real-format archives.
*/
#ifndef EP_BENCHMODELS_H
#define EP_BENCHMODELS_H

#include "progbuild.h"

/* A chain of `nodes` one-element float32 add/mul/sub (with Python-number
** operands) and relu nodes: nearly all of a run is dispatch. */
ProgBuilder *bench_chain_model(int nodes, PbRng *r);

#define BENCH_WIDE_WIDTH 2048
#define BENCH_WIDE_LAYERS 6

/* Six 2048x2048 float32 linear layers with ReLU (96 MiB of weights); the
** input x is [batch, 2048]. */
ProgBuilder *bench_wide_model(int batch, PbRng *r);

/* Three models of a few hundred nodes whose nodes do real work (a run
** takes milliseconds, not microseconds), for measuring what observing
** every node costs where it matters (bench/profile.c).  Nodes carry
** nn_module_stack and stack_trace metadata pointing at Python files under
** bench/models/ (which do not exist: the views only need the names).  Each takes
** one input, returned by *input (a new reference). */

/* A ResNet-style CNN on float32[1, 3, 16, 16]: a conv-bn-relu stem, three
** stages of BENCH_CNN_BLOCKS residual blocks (conv2d, batch_norm, relu,
** conv2d, batch_norm, add, relu) at 8, 16 and 32 channels with
** conv-bn-relu-max_pool2d between them, mean over space, a linear head:
** 3 + 21 * BENCH_CNN_BLOCKS + 10 nodes. */
#define BENCH_CNN_BLOCKS 13
ProgBuilder *bench_cnn_model(PbRng *r, Tensor **input);
/* The same on float32[batch, 3, 16, 16]. */
ProgBuilder *bench_cnn_model_batch(int batch, PbRng *r, Tensor **input);

/* A pre-norm transformer encoder of BENCH_TF_LAYERS layers on
** float32[2, 64, 64] (batch, sequence, model width; 4 heads, 256 wide
** feed-forward): layer_norm, linear q/k/v, view and transpose to heads,
** matmul, scale, softmax, matmul, transpose, reshape, linear, residual
** add, layer_norm, linear, gelu, linear, residual add (24 nodes a layer),
** then a final layer_norm. */
#define BENCH_TF_LAYERS 12
ProgBuilder *bench_transformer_model(PbRng *r, Tensor **input);
/* The same on float32[batch, 64, 64]. */
ProgBuilder *bench_transformer_model_batch(int batch, PbRng *r, Tensor **input);

/* A GRU cell unrolled over BENCH_GRU_STEPS steps of float32[steps, 16,
** 128] input with a 256-wide hidden state (zero at the start): per step
** select, two addmm, two split, then the gates with add, sigmoid, mul,
** tanh, sub (15 nodes a step). */
#define BENCH_GRU_STEPS 20
ProgBuilder *bench_gru_model(PbRng *r, Tensor **input);

/* GPT-2 small's parameters (124 M; linear weights as [out, in]) and its
** forward over BENCH_GPT_TOKENS token ids (int64[64], the one input):
** token and position embeddings; per layer ln_1, the qkv projection, causal
** attention per head (matmul, scale, + a -inf mask buffer, softmax, matmul,
** heads back to [T, D]), c_proj, residual add, ln_2, the MLP with tanh
** gelu, residual add; ln_f and the logits through the token embedding.
** cls names the module class (the loading bench varies its length). */
#define BENCH_GPT_VOCAB 50257
#define BENCH_GPT_CTX 1024
#define BENCH_GPT_DIM 768
#define BENCH_GPT_HEADS 12
#define BENCH_GPT_LAYERS 12
#define BENCH_GPT_TOKENS 64
ProgBuilder *bench_gpt2_model(PbRng *r, const char *cls);

#endif
