/* A C program embedding MLIR with ge-mlir's C API (include/ge-mlir-c/GeMlir.h): reads a
 * .ge file, imports it, runs `ge-compile` (named in pipeline text that MLIR's own parser
 * reads, after geMlirRegisterPasses) or one pass created by its create function, and
 * prints the module to stdout. Errors go to stderr with exit status 1.
 *
 *   ge_compile FILE.ge [PIPELINE]   PIPELINE: builtin.module(...) text, default ge-compile
 *   ge_compile FILE.ge --create     runs geMlirCreateMemRwConflictPass() only
 */
#include "ge-mlir-c/GeMlir.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void toStream(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, (FILE *)userData);
}

static char *readFile(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  size_t capacity = 4096, used = 0;
  char *data = malloc(capacity);
  size_t got;
  while (data && (got = fread(data + used, 1, capacity - used, file)) > 0) {
    used += got;
    if (used == capacity)
      data = realloc(data, capacity *= 2);
  }
  fclose(file);
  *length = used;
  return data;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.ge [PIPELINE | --create]\n", argv[0]);
    return 1;
  }
  size_t length = 0;
  char *source = readFile(argv[1], &length);
  if (!source) {
    fprintf(stderr, "error: cannot read %s\n", argv[1]);
    return 1;
  }

  MlirContext context = mlirContextCreate();
  if (mlirLogicalResultIsFailure(geMlirLoadAscendDialect(context))) {
    fprintf(stderr, "error: the ascend dialect did not load\n");
    return 1;
  }
  geMlirRegisterPasses();

  MlirModule module =
      geMlirImportGe(context, mlirStringRefCreate(source, length),
                     mlirStringRefCreateFromCString(argv[1]), toStream, stderr);
  free(source);
  if (mlirModuleIsNull(module)) {
    mlirContextDestroy(context);
    return 1;
  }

  MlirPassManager manager = mlirPassManagerCreateOnOperation(
      context, mlirStringRefCreateFromCString("builtin.module"));
  if (argc > 2 && strcmp(argv[2], "--create") == 0) {
    MlirPass pass = geMlirCreateMemRwConflictPass();
    if (!pass.ptr) {
      fprintf(stderr, "error: geMlirCreateMemRwConflictPass returned null\n");
      return 1;
    }
    mlirPassManagerAddOwnedPass(manager, pass);
  } else {
    const char *pipeline = argc > 2 ? argv[2] : "builtin.module(ge-compile)";
    MlirLogicalResult parsed = mlirParsePassPipeline(
        mlirPassManagerGetAsOpPassManager(manager),
        mlirStringRefCreateFromCString(pipeline), toStream, stderr);
    if (mlirLogicalResultIsFailure(parsed)) {
      fprintf(stderr, "\nerror: bad pipeline\n");
      return 1;
    }
  }
  MlirLogicalResult ran = mlirPassManagerRunOnOp(manager, mlirModuleGetOperation(module));
  int status = 0;
  if (mlirLogicalResultIsFailure(ran)) {
    fprintf(stderr, "error: the pipeline failed\n");
    status = 1;
  } else {
    mlirOperationPrint(mlirModuleGetOperation(module), toStream, stdout);
    fputc('\n', stdout);
  }
  mlirPassManagerDestroy(manager);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return status;
}
