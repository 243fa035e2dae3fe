/* A host toolchain using ge-mlir's passes as rewrite patterns (include/ge-mlir-c/GeMlir.h):
 * reads a .ge file, imports it, lets one or more passes run their analysis and add their
 * patterns to a pattern set it owns, applies each set with MLIR's walk driver and prints
 * the module. Errors go to stderr with exit status 1.
 *
 *   patterns FILE.ge PASS[{OPTIONS}]...   each PASS in turn, e.g. mem-rw-conflict
 *                                         'stream-alloc{max-task-normal=4}'
 *   patterns FILE.ge --rw-conflict         geMlirPopulateMemRwConflictPatterns only
 */
#include "ge-mlir-c/GeMlir.h"

#include "mlir-c/IR.h"
#include "mlir-c/Rewrite.h"

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

/* Populates a fresh set with `pass` (NAME or NAME{OPTIONS}) and walks the module once. */
static int applyPass(MlirContext context, MlirOperation module, const char *pass) {
  MlirRewritePatternSet set = mlirRewritePatternSetCreate(context);
  MlirLogicalResult populated;
  if (strcmp(pass, "--rw-conflict") == 0) {
    populated = geMlirPopulateMemRwConflictPatterns(context, module, set);
  } else {
    const char *brace = strchr(pass, '{');
    size_t nameLength = brace ? (size_t)(brace - pass) : strlen(pass);
    MlirStringRef options = mlirStringRefCreate("", 0);
    if (brace) {
      size_t rest = strlen(brace);
      if (rest < 2 || brace[rest - 1] != '}') {
        fprintf(stderr, "error: bad pass '%s'\n", pass);
        mlirRewritePatternSetDestroy(set);
        return 1;
      }
      options = mlirStringRefCreate(brace + 1, rest - 2);
    }
    populated = geMlirPopulatePatterns(context, mlirStringRefCreate(pass, nameLength),
                                       options, module, set);
  }
  if (mlirLogicalResultIsFailure(populated)) {
    fprintf(stderr, "error: %s: the analysis failed\n", pass);
    mlirRewritePatternSetDestroy(set);
    return 1;
  }
  /* Freezing moves the patterns out; the emptied set is still ours to destroy. */
  MlirFrozenRewritePatternSet frozen = mlirFreezeRewritePattern(set);
  mlirRewritePatternSetDestroy(set);
  mlirWalkAndApplyPatterns(module, frozen);
  mlirFrozenRewritePatternSetDestroy(frozen);
  if (!mlirOperationVerify(module)) {
    fprintf(stderr, "error: %s: the module does not verify\n", pass);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s FILE.ge PASS... | --rw-conflict\n", argv[0]);
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
  MlirModule module =
      geMlirImportGe(context, mlirStringRefCreate(source, length),
                     mlirStringRefCreateFromCString(argv[1]), toStream, stderr);
  free(source);
  if (mlirModuleIsNull(module)) {
    mlirContextDestroy(context);
    return 1;
  }
  int status = 0;
  for (int i = 2; i < argc && status == 0; ++i)
    status = applyPass(context, mlirModuleGetOperation(module), argv[i]);
  if (status == 0) {
    mlirOperationPrint(mlirModuleGetOperation(module), toStream, stdout);
    fputc('\n', stdout);
  }
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return status;
}
