/*
** torchsave.h -- files written by torch.save: a zip holding
** <root>/data.pkl (the pickle) and <root>/data/<key> (raw storages).
*/
#ifndef EP_TORCHSAVE_H
#define EP_TORCHSAVE_H

#include "pickle.h"
#include "zipread.h"

/* Load the object a torch.save zip holds.  Storages come from the zip's
** data/<key> records, used in place when stored and aligned, shared when
** several tensors view one key.  A big-endian byteorder record is refused.
** Errors name the archive label and the record.  Returns a new reference or
** NULL + err. */
PyObj *torchsave_load(ZipArchive *z, EpError *err);
/* The same, recording the storages that could not be viewed in place in
** copies, those of stored records left to read (zipa_storage_copying). */
PyObj *torchsave_load_copying(ZipArchive *z, ZipCopies *copies, EpError *err);

#endif
