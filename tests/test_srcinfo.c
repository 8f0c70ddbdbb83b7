/*
** test_srcinfo.c -- which frame of a node's stack trace is the user's:
** torch's own files (installed or in a source checkout) are skipped, a
** user's folder that happens to be named torch is not, and a trace made
** only of torch's frames falls back to the innermost.  Module stacks and
** JSON paths of any depth are kept whole.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/json.h"
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

/* A module stack deeper than any fixed table: 300 scopes, all kept, in
** order, the innermost last. */
START_TEST(test_deep_module_stack)
{
    StrBuf sb;
    sb_init(&sb);
    for (int k = 0; k < 300; k++)
        sb_printf(&sb, "%sm%d,blocks.%d,mod.Block", k ? ";" : "", k, k);
    ModuleScope *scopes;
    int n = module_scopes_parse(sb.data, &scopes);
    ck_assert_int_eq(n, 300);
    for (int k = 0; k < n; k++) {
        char key[16], path[32];
        snprintf(key, sizeof key, "m%d", k);
        snprintf(path, sizeof path, "blocks.%d", k);
        ck_assert_str_eq(scopes[k].key, key);
        ck_assert_str_eq(scopes[k].path, path);
        ck_assert_str_eq(scopes[k].type, "mod.Block");
    }
    module_scopes_free(scopes, n);
    sb_free(&sb);
}
END_TEST

/* A JSON path deeper than any fixed table is printed whole, the outermost
** key first: graph[0][1]...[199]. */
START_TEST(test_deep_json_path)
{
    JPath nodes[201];
    nodes[0] = (JPath){NULL, "graph", 0};
    for (int k = 1; k <= 200; k++)
        nodes[k] = (JPath){&nodes[k - 1], NULL, k - 1};
    char buf[4096];
    jpath_str(&nodes[200], buf, sizeof buf);
    StrBuf want;
    sb_init(&want);
    sb_append(&want, "graph");
    for (int k = 0; k < 200; k++)
        sb_printf(&want, "[%d]", k);
    ck_assert_str_eq(buf, want.data);
    sb_free(&want);
}
END_TEST

Suite *suite_srcinfo(void)
{
    Suite *s = suite_create("srcinfo");
    TCase *tc = tcase_create("frames");
    tcase_add_test(tc, test_torch_files);
    tcase_add_test(tc, test_user_frame);
    tcase_add_test(tc, test_deep_module_stack);
    tcase_add_test(tc, test_deep_json_path);
    suite_add_tcase(s, tc);
    return s;
}
