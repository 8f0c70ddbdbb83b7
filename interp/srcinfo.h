/*
** srcinfo.h -- where a node came from: the frames of its Python stack
** trace and the nn.Module path of its nn_module_stack metadata.
*/
#ifndef EP_SRCINFO_H
#define EP_SRCINFO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct SourceFrame {
    char *file;
    int line;
    char *func;
    char *code;   /* the source line as recorded, trimmed; may be NULL */
} SourceFrame;

/* Parse "File \"f.py\", line 35, in forward\n    code" frames, outermost
** first.  Returns the number of frames; *frames is a new array (free with
** source_frames_free).  Text that is not a traceback gives 0 frames. */
int source_frames_parse(const char *trace, SourceFrame **frames);
void source_frames_free(SourceFrame *frames, int n);

/* Whether file is PyTorch's own code rather than the user's: a path with a
** "torch" folder right under site-packages or dist-packages (an installed
** torch), or a torch/ folder followed by one of torch's own packages --
** nn/, fx/, export/, utils/, autograd/, ao/, distributed/, functional.py or
** any _private module (_dynamo/, _ops.py, _tensor.py, ...) -- as in a source
** checkout ("~/pytorch/torch/nn/modules/conv.py").  A user's own folder
** named torch holding model.py is not torch's. */
bool source_file_is_torch(const char *file);

/* The frame to show the user: the innermost frame outside torch's own
** packages (nn.Conv2d's trace ends in conv.py's forward; the line that
** called the module is the user's), or the innermost when every frame is
** torch's.  An index into frames (outermost first); -1 when n == 0. */
int source_user_frame(const SourceFrame *frames, int n);

/* "f.py:35 in forward: k = end.item()" for the user's frame
** (source_user_frame), into buf; returns NULL if the trace has no frame. */
const char *source_user_location(const char *trace, char *buf, size_t cap);

typedef struct ModuleScope {
    char *key;    /* FX key: "L__self___linear" or "linear" */
    char *path;   /* module path as written: "L['self'].linear", "linear" */
    char *type;   /* "torch.nn.modules.linear.Linear" */
} ModuleScope;

/* Parse nn_module_stack ("key,path,type;key,path,type", or the 2.1 form
** "key:(path,type)"), outermost first.  Commas inside brackets or
** parentheses do not separate fields.  Returns the count; free with
** module_scopes_free. */
int module_scopes_parse(const char *text, ModuleScope **scopes);
void module_scopes_free(ModuleScope *scopes, int n);

/* The innermost module path in dotted form ("encoder.layers.0.attn"), with
** the tracer's L['self'] prefix and bracket spellings removed; "" for the
** top-level module.  Caller frees. */
char *module_path_clean(const char *path);

#endif
