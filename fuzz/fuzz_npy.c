/*
** fuzz_npy.c -- libFuzzer harness for the .npy and .npz readers
** (interp/npy.c): an input starting with a zip signature goes through
** npz_load from a file, anything else through npy_load_mem; an array that
** loads is encoded again and read back (the round trip must succeed).
*/
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "interp/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const Tensor *t)
{
    EpError err = {0};
    char *bytes;
    size_t len;
    if (npy_encode(t, &bytes, &len, &err) != EP_OK)
        return;
    Tensor *back = npy_load_mem(bytes, len, "fuzz-again.npy", &err);
    if (!back)
        abort(); /* what epdbg writes it must read */
    tensor_unref(back);
    free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    EpError err = {0};
    if (size >= 2 && memcmp(data, "PK", 2) == 0) {
        const char *path = fuzz_write_temp(data, size, ".npz");
        NpzArchive z;
        if (path && npz_load(path, &z, &err) == EP_OK) {
            for (int i = 0; i < z.n; i++)
                round_trip(z.entries[i].t);
            npz_free(&z);
        }
        return 0;
    }
    Tensor *t = npy_load_mem(data, size, "fuzz.npy", &err);
    if (t) {
        round_trip(t);
        tensor_unref(t);
    }
    return 0;
}
