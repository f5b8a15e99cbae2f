//===- Initializers.cpp - Constructors run on request ---------------------===//
//
// A GPU module's code is loaded by a constructor (llvm.global_ctors), which
// a program's loader runs. A JIT that links objects without running their
// initializers (the eager interpreter's compiled op kernels) calls them
// through one external function instead.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/NativeCode.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

#include <tuple>

namespace mlir::tfl {

void exposeInitializers(llvm::Module &m, llvm::StringRef name) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *init = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
      llvm::GlobalValue::ExternalLinkage, name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", init));
  if (llvm::GlobalVariable *ctors = m.getNamedGlobal("llvm.global_ctors")) {
    // By priority, then in the list's order (a sort that keeps equal
    // priorities' order).
    SmallVector<std::tuple<uint64_t, size_t, llvm::Function *>> calls;
    if (auto *list = dyn_cast<llvm::ConstantArray>(ctors->getInitializer()))
      for (llvm::Value *entry : list->operands()) {
        auto *fields = cast<llvm::ConstantStruct>(entry);
        if (auto *fn = dyn_cast<llvm::Function>(fields->getOperand(1)))
          calls.push_back(
              {cast<llvm::ConstantInt>(fields->getOperand(0))->getZExtValue(),
               calls.size(), fn});
      }
    llvm::sort(calls);
    for (auto [priority, index, fn] : calls)
      b.CreateCall(fn);
    ctors->eraseFromParent();
  }
  if (llvm::GlobalVariable *dtors = m.getNamedGlobal("llvm.global_dtors"))
    dtors->eraseFromParent();
  b.CreateRetVoid();
}

} // namespace mlir::tfl
