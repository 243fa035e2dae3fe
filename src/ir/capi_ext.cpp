// Four functions MLIR's C API lacks. Compiled by build.rs against the same MLIR headers and
// libraries mlir-sys uses; each is declared and wrapped once in Rust (named below).
#include "mlir/CAPI/IR.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/Pass.h"
#include "mlir-c/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

// Set several attributes of an op at once. Setting them one by one
// (`mlirOperationSetAttributeByName`) builds and uniques a new attribute dictionary per call;
// a pass that writes a few attributes on every op of a million-op graph pays that several
// times per op. Wrapped in `src/ir/prim.rs`.

extern "C" void geOperationSetAttributes(MlirOperation op, intptr_t count,
                                         const MlirNamedAttribute *attributes) {
  mlir::Operation *operation = unwrap(op);
  // The op's entries are sorted by name; each new one is put in its place, so the result is
  // a sorted list for `getWithSorted` (no sort, no re-check). Sixteen entries in place
  // cover the ops of a GE graph without a heap block per op.
  mlir::DictionaryAttr old = operation->getAttrDictionary();
  llvm::SmallVector<mlir::NamedAttribute, 16> list(old.getValue().begin(),
                                                   old.getValue().end());
  for (intptr_t i = 0; i < count; ++i) {
    auto name = mlir::cast<mlir::StringAttr>(unwrap(attributes[i].name));
    mlir::Attribute value = unwrap(attributes[i].attribute);
    auto it = llvm::lower_bound(list, name,
                                [](const mlir::NamedAttribute &entry, mlir::StringAttr key) {
                                  return entry.getName().compare(key) < 0;
                                });
    if (it != list.end() && it->getName() == name)
      it->setValue(value);
    else
      list.insert(it, mlir::NamedAttribute(name, value));
  }
  operation->setAttrs(mlir::DictionaryAttr::getWithSorted(operation->getContext(), list));
}

// Prefetch what `geOperationSetAttributes` will read of an op: `stage` 0 the op itself,
// `stage` 1 its attribute dictionary and entries (the op must be in cache by then, or this
// waits for it). A pass updating every op of a million-op graph in order calls stage 0 a
// few ops ahead and stage 1 closer: ops and their dictionaries were allocated in parse
// order but far apart, and each would otherwise be a cache and TLB miss in turn. Wrapped
// in `src/ir/prim.rs`.
extern "C" void geOperationPrefetch(MlirOperation op, int stage) {
  const char *raw = reinterpret_cast<const char *>(op.ptr);
  if (stage == 0) {
    __builtin_prefetch(raw);
    __builtin_prefetch(raw + 64);
    return;
  }
  mlir::DictionaryAttr attrs = unwrap(op)->getAttrDictionary();
  const void *storage = attrs.getAsOpaquePointer();
  __builtin_prefetch(storage);
  if (!attrs.empty())
    __builtin_prefetch(attrs.getValue().data());
}

// Print an op, then a newline, to an open file descriptor through a buffered
// `raw_fd_ostream`, as mlir-opt prints its output. The C API's `mlirOperationPrintWithFlags`
// streams every token through an unbuffered callback, and the caller then holds the whole
// text (hundreds of MB for a million ops) before writing it. The descriptor stays open.
// Returns 0, or the OS error number of the first failed write. Wrapped in
// `src/ir/source.rs`.
extern "C" int geOperationPrintToFd(MlirOperation op, MlirOpPrintingFlags flags, int fd) {
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
  unwrap(op)->print(os, *unwrap(flags));
  os << '\n';
  os.flush();
  int error = os.has_error() ? os.error().value() : 0;
  os.clear_error();
  return error;
}

// Tell the pass manager that an external (Rust) pass left the IR unchanged, as a C++ pass
// does with `markAllAnalysesPreserved()`. MLIR then keeps its analyses and skips the
// verifier it runs after a pass (`--verify-each`): on a 100k-op module a verification costs
// about a tenth of parsing it, and a checker or a pass that found nothing to do would pay
// it for nothing. `MlirExternalPass` points to MLIR's `ExternalPass`, whose only base is
// `Pass`. `markAllAnalysesPreserved` is protected; a derived class may name it, and the
// member pointer it yields is called on the pass. Wrapped in `src/ir/external_pass.rs`.
namespace {
struct PreserveAccess : mlir::Pass {
  static void markAll(mlir::Pass *pass) {
    void (mlir::Pass::*mark)() = &PreserveAccess::markAllAnalysesPreserved;
    (pass->*mark)();
  }
};
} // namespace

extern "C" void geExternalPassMarkAllAnalysesPreserved(MlirExternalPass pass) {
  PreserveAccess::markAll(static_cast<mlir::Pass *>(pass.ptr));
}
