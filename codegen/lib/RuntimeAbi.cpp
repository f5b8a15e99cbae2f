//===- RuntimeAbi.cpp - How compiled code calls libtflrt ------------------===//

#include "tfl/Codegen/RuntimeAbi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

namespace mlir::tfl {

func::FuncOp getOrInsertRuntimeFunction(OpBuilder &builder, ModuleOp module,
                                        StringRef name, FunctionType type) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto fn = func::FuncOp::create(builder, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

Value getOrCreateStringPointer(OpBuilder &builder, Location loc,
                               ModuleOp module, StringRef text) {
  std::string name =
      "__tfl_str_" + llvm::utohexstr(llvm::xxh3_64bits(text), true);
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    std::string data = text.str();
    data.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), data.size());
    global = LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, name,
                                    builder.getStringAttr(data));
  }
  return LLVM::AddressOfOp::create(builder, loc, global);
}

Value castToUnranked(OpBuilder &builder, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto unranked =
      UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace());
  return memref::CastOp::create(builder, loc, unranked, memref);
}

StringRef runtimeTypeSuffix(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  if (t.isInteger(8))
    return "u8";
  return "bool";
}

} // namespace mlir::tfl
