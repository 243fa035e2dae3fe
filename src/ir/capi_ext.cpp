// One function MLIR's C API lacks: set several attributes of an op at once. Setting them one
// by one (`mlirOperationSetAttributeByName`) builds and uniques a new attribute dictionary
// per call; a pass that writes a few attributes on every op of a million-op graph pays that
// several times per op. Compiled by build.rs against the same MLIR headers and libraries
// mlir-sys uses; declared and wrapped in `src/ir/prim.rs`, the only caller.
#include "mlir/CAPI/IR.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"

extern "C" void geOperationSetAttributes(MlirOperation op, intptr_t count,
                                         const MlirNamedAttribute *attributes) {
  mlir::Operation *operation = unwrap(op);
  mlir::NamedAttrList list(operation->getAttrDictionary());
  for (intptr_t i = 0; i < count; ++i)
    list.set(mlir::cast<mlir::StringAttr>(unwrap(attributes[i].name)),
             unwrap(attributes[i].attribute));
  operation->setAttrs(list.getDictionary(operation->getContext()));
}
