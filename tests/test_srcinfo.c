/*
** test_srcinfo.c -- which frame of a node's stack trace is the user's:
** torch's own files (installed or in a source checkout) are skipped, a
** user's folder that happens to be named torch is not, and a trace made
** only of torch's frames falls back to the innermost.
*/
#include <stdlib.h>
#include <string.h>

#include "interp/srcinfo.h"
#include "testutil.h"

START_TEST(test_torch_files)
{
    const char *const torch[] = {
        "/usr/local/lib/python3.11/site-packages/torch/nn/modules/conv.py",
        "/usr/lib/python3/dist-packages/torch/_ops.py",
        "/home/me/.venv/lib/python3.12/site-packages/torch/fx/proxy.py",
        "/src/pytorch/torch/nn/modules/linear.py",
        "/src/pytorch/torch/_dynamo/eval_frame.py",
        "torch/_tensor.py",
        "torch/nn/functional.py",
        "/src/pytorch/torch/functional.py",
    };
    const char *const user[] = {
        "model.py",
        "/home/me/proj/model.py",
        "/home/me/torch/model.py",      /* a folder named torch, not torch's packages */
        "/home/me/mytorch/nn/layers.py", /* not a torch/ folder at all */
        "/usr/lib/python3/dist-packages/torchvision/models/resnet.py",
        "/srv/site-packages-backup/torchx/run.py",
    };
    for (size_t i = 0; i < sizeof torch / sizeof torch[0]; i++)
        ck_assert_msg(source_file_is_torch(torch[i]), "%s is torch's", torch[i]);
    for (size_t i = 0; i < sizeof user / sizeof user[0]; i++)
        ck_assert_msg(!source_file_is_torch(user[i]), "%s is the user's", user[i]);
}
END_TEST

START_TEST(test_user_frame)
{
    const char *trace = "File \"/w/model.py\", line 40, in forward\n    y = self.block(x)\n"
                        "File \"/w/blocks.py\", line 12, in forward\n    return self.conv(x)\n"
                        "File \"/usr/lib/python3/dist-packages/torch/nn/modules/conv.py\", line 554, in forward\n"
                        "    return self._conv_forward(input, self.weight, self.bias)\n"
                        "File \"/usr/lib/python3/dist-packages/torch/nn/modules/conv.py\", line 549, in _conv_forward\n"
                        "    return F.conv2d(input)\n";
    SourceFrame *f;
    int n = source_frames_parse(trace, &f);
    ck_assert_int_eq(n, 4);
    int u = source_user_frame(f, n);
    ck_assert_int_eq(u, 1);
    ck_assert_str_eq(f[u].file, "/w/blocks.py");
    source_frames_free(f, n);
    char buf[256];
    ck_assert_str_eq(source_user_location(trace, buf, sizeof buf), "blocks.py:12 in forward: return self.conv(x)");

    /* every frame torch's: the innermost, so something is still shown */
    const char *only_torch = "File \"/x/site-packages/torch/nn/modules/module.py\", line 1775, in _call_impl\n"
                             "    return forward_call(*args, **kwargs)\n"
                             "File \"/x/site-packages/torch/nn/modules/linear.py\", line 125, in forward\n"
                             "    return F.linear(input, self.weight, self.bias)\n";
    n = source_frames_parse(only_torch, &f);
    ck_assert_int_eq(source_user_frame(f, n), n - 1);
    source_frames_free(f, n);
    ck_assert_str_eq(source_user_location(only_torch, buf, sizeof buf),
                     "linear.py:125 in forward: return F.linear(input, self.weight, self.bias)");

    ck_assert_int_eq(source_user_frame(NULL, 0), -1);
    ck_assert_ptr_null(source_user_location("no trace here", buf, sizeof buf));
}
END_TEST

Suite *suite_srcinfo(void)
{
    Suite *s = suite_create("srcinfo");
    TCase *tc = tcase_create("frames");
    tcase_add_test(tc, test_torch_files);
    tcase_add_test(tc, test_user_frame);
    suite_add_tcase(s, tc);
    return s;
}
