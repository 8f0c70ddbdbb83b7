/*
** fuzz_record.c -- libFuzzer harness for the replay file reader
** (debugger/record.c): the input as a .npz, read as `epdbg replay` reads
** it -- its metadata (__epdbg__.npy, a uint8 array holding JSON) and then
** every array.
*/
#include <stdlib.h>

#include "debugger/record.h"
#include "fuzz_util.h"
#include "interp/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_temp(data, size, "-replay.npz");
    if (!path)
        return 0;
    EpError err = {0};
    RecordMeta meta = {0};
    if (record_load_meta(path, &meta, &err) == EP_OK) {
        NpzArchive z;
        if (npz_load(path, &z, &err) == EP_OK)
            npz_free(&z);
    }
    record_meta_free(&meta);
    return 0;
}
