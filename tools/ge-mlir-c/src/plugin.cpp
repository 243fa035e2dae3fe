// The C++ side of libge_mlir_c.so: one MLIR pass class that carries any of our Rust passes
// into MLIR's pass registry, with MLIR-declared options, so that stock `mlir-opt
// --load-pass-plugin` (and a C/C++ host through `geMlirRegisterPasses`) can name our passes
// and aliases in `--pass-pipeline` text.
//
// Each registered pass is a `GePluginPass` built from a descriptor the Rust side exports
// (`geMlirPluginPass`). Its options are real `Pass::Option`s, so MLIR parses, prints
// (`--dump-pass-pipeline`) and documents (`--help`) them; the same option text is also
// resolved by the Rust registry, which builds the pass. `runOnOperation` runs the Rust pass
// as a dynamic pipeline on the operation (`Pass::runPipeline`): a Rust pass is a melior
// external pass, which only a pass manager can run.
//
// Compiled by build.rs with `llvm-config --cxxflags`' ABI flags (no RTTI, no exceptions),
// linked against the one shared libMLIR.so of the host process.
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

// Mirrors `OptionDescriptor` in src/plugin.rs.
struct GeOptionDesc {
  const char *name;
  uint32_t kind; // 0 bool, 1 signed, 2 unsigned, 3 string
  const char *defaultValue;
  const char *help;
};

// Mirrors `PassDescriptor` in src/plugin.rs. `index` is the row of the Rust registry.
struct GePassDesc {
  size_t index;
  const char *argument;
  const char *name;
  const char *description;
  const GeOptionDesc *options;
  size_t optionCount;
};

// Mirrors `AliasDescriptor` in src/plugin.rs.
struct GeAliasDesc {
  const char *argument;
  const char *description;
};

} // namespace

// The Rust side (src/plugin.rs).
extern "C" {
size_t geMlirPluginPassCount();
const GePassDesc *geMlirPluginPass(size_t index);
size_t geMlirPluginAliasCount();
const GeAliasDesc *geMlirPluginAlias(size_t index);
void *geMlirPluginResolve(size_t index, MlirStringRef options, MlirStringCallback error,
                          void *userData);
void *geMlirPluginClone(const void *handle);
void geMlirPluginFree(void *handle);
void geMlirPluginPrintStatistics();
bool geMlirPluginAddPasses(const void *handle, MlirOpPassManager manager,
                           MlirStringCallback error, void *userData);
// Calls `emit(pass row, option text, emitData)` for each pass of alias `alias` given
// `options`; false (and the reason through `error`) when the options do not resolve.
bool geMlirPluginExpandAlias(size_t alias, MlirStringRef options,
                             void (*emit)(size_t, MlirStringRef, void *), void *emitData,
                             MlirStringCallback error, void *userData);
}

namespace {

void appendTo(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

// One TypeID per registry row: MLIR keys passes by TypeID, and a descriptor's address is
// unique and stable for the process.
mlir::TypeID typeIdOf(const GePassDesc *desc) {
  return mlir::TypeID::getFromOpaquePointer(desc);
}

// Whether the host was asked for `--mlir-pass-statistics` (mlir-opt registers that
// option; a C program does not). Read while the option table is alive (at the first pass
// run); the report is printed at exit, after every pass of the process has counted.
struct StatisticsAtExit {
  bool requested = false;
  ~StatisticsAtExit() {
    if (requested)
      geMlirPluginPrintStatistics();
  }
};
StatisticsAtExit statisticsAtExit;

void noteStatisticsRequest() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto &options = llvm::cl::getRegisteredOptions();
    auto found = options.find("mlir-pass-statistics");
    statisticsAtExit.requested =
        found != options.end() && found->second->getNumOccurrences() > 0;
  });
}

class GePluginPass : public mlir::Pass {
public:
  explicit GePluginPass(const GePassDesc *desc)
      : mlir::Pass(typeIdOf(desc)), desc(desc) {
    declareOptions();
    // The defaults, resolved by the registry (an instance is usable without options).
    std::string error;
    handle = geMlirPluginResolve(desc->index, mlirStringRefCreate("", 0), appendTo, &error);
  }

  GePluginPass(const GePluginPass &other)
      : mlir::Pass(other), desc(other.desc) {
    declareOptions();
    handle = other.handle ? geMlirPluginClone(other.handle) : nullptr;
  }

  ~GePluginPass() override {
    if (handle)
      geMlirPluginFree(handle);
  }

  llvm::StringRef getName() const override { return desc->name; }
  llvm::StringRef getArgument() const override { return desc->argument; }
  llvm::StringRef getDescription() const override { return desc->description; }

  // Op-agnostic, as in ge-opt: a pass runs on whatever it is nested under.
  bool canScheduleOn(mlir::RegisteredOperationName) const override { return true; }

  std::unique_ptr<mlir::Pass> clonePass() const override {
    return std::make_unique<GePluginPass>(*this);
  }

  // MLIR checks the syntax and types against the declared options first (its own messages);
  // the Rust registry then resolves the same text into the pass it will build.
  llvm::LogicalResult
  initializeOptions(llvm::StringRef options,
                    llvm::function_ref<llvm::LogicalResult(const llvm::Twine &)> errorHandler)
      override {
    if (mlir::failed(mlir::Pass::initializeOptions(options, errorHandler)))
      return mlir::failure();
    std::string error;
    void *resolved = geMlirPluginResolve(desc->index, wrap(options), appendTo, &error);
    if (!resolved)
      return errorHandler(error);
    if (handle)
      geMlirPluginFree(handle);
    handle = resolved;
    return mlir::success();
  }

  void runOnOperation() override {
    noteStatisticsRequest();
    std::string error;
    if (!handle) {
      getOperation()->emitError() << "pass '" << desc->argument << "' has no resolved options";
      return signalPassFailure();
    }
    // The Rust pass runs in a pass manager of its own (only a pass manager can run an
    // external pass), not as a dynamic pipeline of this pass: a dynamic pipeline inherits
    // the host's instrumentation, so `--mlir-print-ir-after-all` printed the IR after the
    // Rust pass and again after this one. The host verifies after this pass, so the inner
    // manager does not.
    mlir::Operation *op = getOperation();
    mlir::PassManager inner(op->getContext(), op->getName().getStringRef(),
                            mlir::OpPassManager::Nesting::Implicit);
    inner.enableVerifier(false);
    if (!geMlirPluginAddPasses(handle, wrap(static_cast<mlir::OpPassManager *>(&inner)),
                               appendTo, &error)) {
      op->emitError() << error;
      return signalPassFailure();
    }
    if (mlir::failed(inner.run(op)))
      signalPassFailure();
  }

private:
  void declareOptions() {
    for (size_t i = 0; i < desc->optionCount; ++i) {
      const GeOptionDesc &option = desc->options[i];
      llvm::cl::desc help(option.help);
      llvm::StringRef text(option.defaultValue);
      switch (option.kind) {
      case 0:
        boolOptions.push_back(std::make_unique<Option<bool>>(
            *this, option.name, help, llvm::cl::init(text == "true" || text == "1")));
        break;
      case 1: {
        int64_t value = 0;
        text.getAsInteger(10, value);
        intOptions.push_back(
            std::make_unique<Option<int64_t>>(*this, option.name, help, llvm::cl::init(value)));
        break;
      }
      case 2: {
        uint64_t value = 0;
        text.getAsInteger(10, value);
        uintOptions.push_back(
            std::make_unique<Option<uint64_t>>(*this, option.name, help, llvm::cl::init(value)));
        break;
      }
      default:
        stringOptions.push_back(std::make_unique<Option<std::string>>(
            *this, option.name, help, llvm::cl::init(text.str())));
        break;
      }
    }
  }

  const GePassDesc *desc;
  void *handle = nullptr;
  std::vector<std::unique_ptr<Option<bool>>> boolOptions;
  std::vector<std::unique_ptr<Option<int64_t>>> intOptions;
  std::vector<std::unique_ptr<Option<uint64_t>>> uintOptions;
  std::vector<std::unique_ptr<Option<std::string>>> stringOptions;
};

std::unique_ptr<GePluginPass> createConfigured(const GePassDesc *desc, llvm::StringRef options,
                                               std::string &error) {
  auto pass = std::make_unique<GePluginPass>(desc);
  auto fail = [&](const llvm::Twine &message) {
    error = message.str();
    return mlir::failure();
  };
  if (mlir::failed(pass->initializeOptions(options, fail)))
    return nullptr;
  return pass;
}

struct ExpandState {
  mlir::OpPassManager *manager;
  std::string error;
  bool failed = false;
};

void addExpandedPass(size_t row, MlirStringRef options, void *data) {
  auto *state = static_cast<ExpandState *>(data);
  if (state->failed)
    return;
  auto pass = createConfigured(geMlirPluginPass(row), unwrap(options), state->error);
  if (!pass) {
    state->failed = true;
    return;
  }
  state->manager->addPass(std::move(pass));
}

void registerEverything() {
  for (size_t i = 0, e = geMlirPluginPassCount(); i < e; ++i) {
    const GePassDesc *desc = geMlirPluginPass(i);
    mlir::registerPass([desc] { return std::make_unique<GePluginPass>(desc); });
  }
  for (size_t i = 0, e = geMlirPluginAliasCount(); i < e; ++i) {
    const GeAliasDesc *alias = geMlirPluginAlias(i);
    mlir::registerPassPipeline(
        alias->argument, alias->description,
        [i](mlir::OpPassManager &manager, llvm::StringRef options,
            llvm::function_ref<llvm::LogicalResult(const llvm::Twine &)> errorHandler)
            -> llvm::LogicalResult {
          ExpandState state{&manager, {}, false};
          std::string error;
          if (!geMlirPluginExpandAlias(i, wrap(options), addExpandedPass, &state, appendTo,
                                       &error))
            return errorHandler(error);
          if (state.failed)
            return errorHandler(state.error);
          return mlir::success();
        },
        // An alias's options are those of its passes (listed under each pass).
        [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
  }
}

} // namespace

extern "C" {

// Registers every pass and alias of the registry with MLIR's pass registry, once per
// process (the plugin loader and `geMlirRegisterPasses` may both call it).
void geMlirPluginRegisterAll() {
  static std::once_flag once;
  std::call_once(once, registerEverything);
}

// A configured pass of registry row `row`, owned by the caller (MLIR's C API ownership:
// `mlirPassManagerAddOwnedPass`); null, and the reason through `error`, when `options` do
// not resolve.
MlirPass geMlirPluginCreatePass(size_t row, MlirStringRef options, MlirStringCallback error,
                                void *userData) {
  std::string message;
  auto pass = createConfigured(geMlirPluginPass(row), unwrap(options), message);
  if (!pass) {
    if (error)
      error(mlirStringRefCreate(message.data(), message.size()), userData);
    return MlirPass{nullptr};
  }
  return wrap(static_cast<mlir::Pass *>(pass.release()));
}

// What `mlirGetPassPluginInfo` returns: the MLIR version the plugin was built against.
const char *geMlirPluginLlvmVersion() { return LLVM_VERSION_STRING; }
uint32_t geMlirPluginApiVersion() { return 1; /* MLIR_PLUGIN_API_VERSION */ }
}
