/*
** dtype.h -- tensor element types, PyTorch's type promotion, and the
** float16/bfloat16 conversions.
*/
#ifndef EP_DTYPE_H
#define EP_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ordered by promotion category: bool < integers < floating types.  Keep in
** sync with the table in dtype.c (DTYPE_INFO). */
typedef enum DType {
    DT_BOOL,
    DT_U8,
    DT_I8,
    DT_I16,
    DT_I32,
    DT_I64,
    DT_F16,
    DT_BF16,
    DT_F32,
    DT_F64,
    DT_COUNT,
    DT_INVALID = -1
} DType;

typedef struct DTypeInfo {
    const char *name;       /* PyTorch spelling without "torch.": "float32" */
    const char *npy_descr;  /* numpy descr ("<f4"); NULL where numpy has none */
    int size;               /* bytes per element */
    int scalar_type;        /* code of the export schema's ScalarType enum */
    bool is_float;
    bool is_signed;
    const char *c10_name;   /* c10::ScalarType: "Float", "Long" (PyTorch's messages) */
    const char *meta_name;  /* caffe2::TypeMeta: "float", "long int" */
} DTypeInfo;

extern const DTypeInfo DTYPE_INFO[DT_COUNT];

static inline int dtype_size(DType t) { return DTYPE_INFO[t].size; }
static inline const char *dtype_name(DType t)
{
    return (t >= 0 && t < DT_COUNT) ? DTYPE_INFO[t].name : "invalid";
}
static inline bool dtype_is_float(DType t) { return DTYPE_INFO[t].is_float; }
/* The names PyTorch's error messages use: c10 ScalarType ("Float", as in
** "not implemented for 'Float'") and TypeMeta ("float", "long int"). */
static inline const char *dtype_c10_name(DType t)
{
    return (t >= 0 && t < DT_COUNT) ? DTYPE_INFO[t].c10_name : "Undefined";
}
static inline const char *dtype_meta_name(DType t)
{
    return (t >= 0 && t < DT_COUNT) ? DTYPE_INFO[t].meta_name : "nullptr (uninitialized)";
}
static inline bool dtype_is_int(DType t) { return t >= DT_U8 && t <= DT_I64; }
/* integral including bool */
static inline bool dtype_is_integral(DType t) { return t <= DT_I64; }

/* ---- the export schema's enums -------------------------------------------
** The codes torch/_export/serde/schema.py gives ScalarType, Layout and
** MemoryFormat, one table each (dtype.c), used by the loader (a code not in
** its table is a format error), the kernels and the messages.  Each entry
** has the name Python prints ("torch.strided") and the name c10's
** operator<< prints in ATen's own messages ("Strided"). */
typedef struct SchemaEnumEntry {
    int code;
    const char *torch_name; /* without "torch.": "strided", "channels_last", "complex64" */
    const char *c10_name;   /* "Strided", "ChannelsLast", "ComplexFloat" */
} SchemaEnumEntry;

/* Layout: Unknown=0, SparseCoo=1 .. SparseBsc=5, _mkldnn=6, Strided=7. */
enum { LAYOUT_UNKNOWN = 0, LAYOUT_STRIDED = 7 };
/* MemoryFormat: Unknown=0, ContiguousFormat=1, ChannelsLast=2,
** ChannelsLast3d=3, PreserveFormat=4. */
enum { MF_UNKNOWN = 0, MF_CONTIGUOUS = 1, MF_CHANNELS_LAST = 2, MF_CHANNELS_LAST_3D = 3, MF_PRESERVE = 4 };

/* The entry of a code, or NULL when the schema has no such code. */
const SchemaEnumEntry *scalar_type_entry(int code);
const SchemaEnumEntry *layout_entry(int code);
const SchemaEnumEntry *memory_format_entry(int code);

/* The code of a torch name ("strided", "torch.channels_last"), or -1. */
int layout_code(const char *torch_name);
int memory_format_code(const char *torch_name);

/* ScalarType code of the serialized program (1=uint8 ... 13=bfloat16) to a
** DType; DT_INVALID for types epdbg does not run (complex, float8, ...). */
DType dtype_from_scalar_type(int code);
/* Name of a ScalarType code, also for types epdbg cannot run ("complex64");
** "unknown scalar type" for a code the schema does not have. */
const char *scalar_type_name(int code);
/* "torch.strided", "torch.channels_last"; "<layout 9>"-style text (in buf,
** room for 32) for a code the schema does not have. */
const char *layout_name(int code, char *buf);
const char *memory_format_name(int code, char *buf);
/* Whether a device ("cpu", "cpu:0", "cuda:1", "meta") is the CPU. */
bool device_is_cpu(const char *device);
/* "float32", "float", "torch.float32", "f32" ... to a DType. */
DType dtype_from_name(const char *name);

/* torch.promote_types(a, b). */
DType dtype_promote(DType a, DType b);

/* Category of a dtype for result_type: 0 bool, 1 integer, 2 floating. */
static inline int dtype_category(DType t)
{
    return t == DT_BOOL ? 0 : (dtype_is_float(t) ? 2 : 1);
}

/* IEEE half and bfloat16, round to nearest even (as c10::Half/BFloat16). */
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);

/* The same conversions over n contiguous elements, in vector lanes: the
** same bits as the element functions above (tests/test_dtype.c compares
** every half and bfloat16 and a sweep of float32). */
void f16_to_f32_n(float *dst, const uint16_t *src, int64_t n);
void f32_to_f16_n(uint16_t *dst, const float *src, int64_t n);
/* f32_to_f16_n without the F16C instruction, which it uses where the CPU
** has it: the loop other CPUs run, for the tests to hold to the same bits */
void f32_to_f16_n_portable(uint16_t *dst, const float *src, int64_t n);
void bf16_to_f32_n(float *dst, const uint16_t *src, int64_t n);
void f32_to_bf16_n(uint16_t *dst, const float *src, int64_t n);

/* Read / write one element as double or int64, converting as PyTorch's
** static_cast does (float to int truncates toward zero and wraps to the
** width; NaN to int gives INT64_MIN's low bits; to bool: x != 0).  These are
** for generic, non-hot paths; kernels use typed loops. */
double dtype_load_f64(DType t, const void *p);
int64_t dtype_load_i64(DType t, const void *p);
void dtype_store_f64(DType t, void *p, double v);
void dtype_store_i64(DType t, void *p, int64_t v);

/* Convert n elements between dtypes with element strides (in elements). */
void dtype_convert(DType dst_t, void *dst, int64_t dst_stride,
                   DType src_t, const void *src, int64_t src_stride, int64_t n);

#endif
