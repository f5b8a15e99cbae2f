//===- DeviceMemory.cpp - The host code's buffers in device memory --------===//
//
// `tfl-device-memory`, run after kernel outlining: the host functions keep
// their control flow and calls, while their buffers move to the GPU. The
// steps are the pass's description in Passes.td. Every device operation is
// queued on the program's one stream (libtflrt_cuda hands it out for each
// `gpu.wait async`), so no token needs threading through loops; the host
// waits only where a value crosses to it, inside the runtime.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Cuda/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfl {
#define GEN_PASS_DEF_DEVICEMEMORY
#include "tfl/Codegen/Cuda/Passes.h.inc"

namespace {

/// A token on the program's stream, for an async gpu op at `b`'s point.
Value streamToken(OpBuilder &b, Location loc) {
  return gpu::WaitOp::create(b, loc, gpu::AsyncTokenType::get(b.getContext()),
                             ValueRange{})
      .getAsyncToken();
}

/// The buffers that stay in host memory: stack buffers, and heap buffers
/// that only host code touches (the lists of pointers and ownership flags
/// that the deallocation lowering fills and hands to its helper).
using HostBuffers = llvm::DenseSet<Operation *>;

/// The allocation `memref` views, if any.
Operation *rootAllocation(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (isa<memref::AllocaOp, memref::AllocOp>(def))
      return def;
    if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
      memref = meta.getSource();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return nullptr;
    memref = view.getViewSource();
  }
  return nullptr;
}

bool isHostBuffer(Value memref, const HostBuffers &host) {
  Operation *root = rootAllocation(memref);
  return root && (isa<memref::AllocaOp>(root) || host.contains(root));
}

/// True when only host code uses buffer `v`: host loads and stores, its
/// metadata, calls of functions other than libtflrt's, and views of it
/// with the same uses; never a kernel, a runtime call or a loop.
bool onlyHostUses(Value v) {
  for (Operation *user : v.getUsers()) {
    if (isa<memref::LoadOp, memref::StoreOp, memref::DeallocOp, memref::DimOp,
            memref::ExtractAlignedPointerAsIndexOp>(user))
      continue;
    if (auto call = dyn_cast<func::CallOp>(user)) {
      if (call.getCallee().starts_with("tflrt_"))
        return false;
      continue;
    }
    if (isa<memref::ExtractStridedMetadataOp, memref::CastOp,
            ViewLikeOpInterface>(user) &&
        llvm::all_of(user->getResults(), [](Value r) {
          return !isa<BaseMemRefType>(r.getType()) || onlyHostUses(r);
        }))
      continue;
    return false;
  }
  return true;
}

/// A private function that host buffers are passed to and that touches
/// nothing on the device (the deallocation helper): left as it is.
bool isHostOnlyFunction(func::FuncOp fn, const HostBuffers &host) {
  if (!fn.isPrivate() || fn.isExternal())
    return false;
  bool deviceWork = false;
  fn.walk([&](Operation *op) {
    auto call = dyn_cast<func::CallOp>(op);
    if (isa<gpu::LaunchFuncOp>(op) ||
        (call && call.getCallee().starts_with("tflrt_")))
      deviceWork = true;
  });
  if (deviceWork)
    return false;
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(fn, fn->getParentOp());
  if (!uses)
    return false;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call)
      return false;
    for (Value arg : call.getOperands())
      if (isa<BaseMemRefType>(arg.getType()) && !isHostBuffer(arg, host))
        return false;
  }
  return true;
}

/// The integer type an element travels as (index as i64), and its bytes.
IntegerType bitsType(Type t) {
  if (t.isIndex())
    return IntegerType::get(t.getContext(), 64);
  return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
}

int64_t elementBytes(Type t) {
  return std::max<int64_t>(1, (bitsType(t).getWidth() + 7) / 8);
}

/// Raw bits (in an i64) as a value of type `t`, and back.
Value fromBits(OpBuilder &b, Location loc, Value bits, Type t) {
  IntegerType intType = bitsType(t);
  Value value = bits;
  if (intType.getWidth() != 64)
    value = arith::TruncIOp::create(b, loc, intType, bits);
  if (t.isIndex())
    return arith::IndexCastOp::create(b, loc, t, value);
  if (t != intType)
    return arith::BitcastOp::create(b, loc, t, value);
  return value;
}

Value toBits(OpBuilder &b, Location loc, Value value) {
  Type t = value.getType();
  IntegerType intType = bitsType(t);
  if (t.isIndex())
    value = arith::IndexCastOp::create(b, loc, intType, value);
  else if (t != intType)
    value = arith::BitcastOp::create(b, loc, intType, value);
  if (intType.getWidth() != 64)
    value = arith::ExtUIOp::create(b, loc, b.getI64Type(), value);
  return value;
}

/// Step 1.
void allocateOnDevice(IRRewriter &rewriter, func::FuncOp fn,
                      const HostBuffers &host) {
  fn.walk([&](memref::AllocOp alloc) {
    if (host.contains(alloc))
      return;
    rewriter.setInsertionPoint(alloc);
    Location loc = alloc.getLoc();
    Value token = streamToken(rewriter, loc);
    auto device = gpu::AllocOp::create(
        rewriter, loc, alloc.getType(),
        gpu::AsyncTokenType::get(fn.getContext()), ValueRange{token},
        alloc.getDynamicSizes(), alloc.getSymbolOperands(),
        /*hostShared=*/false);
    rewriter.replaceOp(alloc, device.getMemref());
  });
  fn.walk([&](memref::DeallocOp dealloc) {
    if (isHostBuffer(dealloc.getMemref(), host))
      return;
    rewriter.setInsertionPoint(dealloc);
    Location loc = dealloc.getLoc();
    Value token = streamToken(rewriter, loc);
    gpu::DeallocOp::create(rewriter, loc,
                           gpu::AsyncTokenType::get(fn.getContext()),
                           ValueRange{token}, dealloc.getMemref());
    rewriter.eraseOp(dealloc);
  });
}

/// Step 2.
void uploadConstants(IRRewriter &rewriter, func::FuncOp fn) {
  SmallVector<memref::GetGlobalOp> globals;
  fn.walk([&](memref::GetGlobalOp g) { globals.push_back(g); });
  Block &entry = fn.getBody().front();
  for (memref::GetGlobalOp global : globals) {
    Location loc = global.getLoc();
    auto type = cast<MemRefType>(global.getType());
    rewriter.setInsertionPointToStart(&entry);
    auto host =
        memref::GetGlobalOp::create(rewriter, loc, type, global.getNameAttr());
    auto tokenType = gpu::AsyncTokenType::get(fn.getContext());
    auto device = gpu::AllocOp::create(rewriter, loc, type, tokenType,
                                       ValueRange{streamToken(rewriter, loc)},
                                       ValueRange{}, ValueRange{},
                                       /*hostShared=*/false);
    gpu::MemcpyOp::create(rewriter, loc, tokenType,
                          ValueRange{device.getAsyncToken()},
                          device.getMemref(), host);
    rewriter.replaceOp(global, device.getMemref());
    fn.walk([&](func::ReturnOp ret) {
      rewriter.setInsertionPoint(ret);
      gpu::DeallocOp::create(rewriter, loc, tokenType,
                             ValueRange{streamToken(rewriter, loc)},
                             device.getMemref());
    });
  }
}

/// The device address (an i64) of `memref`'s element at `indices`.
Value elementAddress(OpBuilder &b, Location loc, Value memref,
                     ValueRange indices, int64_t bytes) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value linear = meta.getOffset();
  for (auto [index, stride] : llvm::zip(indices, meta.getStrides()))
    linear = arith::AddIOp::create(
        b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value size = arith::ConstantIndexOp::create(b, loc, bytes);
  Value address = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, linear, size));
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
}

/// The call of libtflrt_cuda's `name` that reads (no `value`) or writes
/// (`value`) the element of `memref` at `indices`, by its device address.
Operation *accessElement(IRRewriter &rewriter, Operation *op, StringRef name,
                         Value memref, ValueRange indices, Type type,
                         Value value = {}) {
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  Type i64 = rewriter.getI64Type();
  int64_t bytes = elementBytes(type);
  SmallVector<Value> args = {
      arith::ConstantIntOp::create(rewriter, loc, i64, bytes),
      elementAddress(rewriter, loc, memref, indices, bytes)};
  if (value)
    args.push_back(toBits(rewriter, loc, value));
  SmallVector<Type> results;
  if (!value)
    results.push_back(i64);
  func::FuncOp fn = getOrInsertRuntimeFunction(
      rewriter, op->getParentOfType<ModuleOp>(), name,
      rewriter.getFunctionType(ValueRange(args).getTypes(), results));
  return func::CallOp::create(rewriter, loc, fn, args);
}

/// Step 3.
void accessFromHost(IRRewriter &rewriter, func::FuncOp fn,
                    const HostBuffers &host) {
  fn.walk([&](memref::LoadOp load) {
    if (isHostBuffer(load.getMemref(), host))
      return;
    Operation *read =
        accessElement(rewriter, load, "tflrt_cuda_read_scalar",
                      load.getMemref(), load.getIndices(), load.getType());
    rewriter.replaceOp(load, fromBits(rewriter, load.getLoc(),
                                      read->getResult(0), load.getType()));
  });
  fn.walk([&](memref::StoreOp store) {
    if (isHostBuffer(store.getMemref(), host))
      return;
    accessElement(rewriter, store, "tflrt_cuda_write_scalar", store.getMemref(),
                  store.getIndices(), store.getValueToStore().getType(),
                  store.getValueToStore());
    rewriter.eraseOp(store);
  });
}

/// Step 4.
void callDeviceEntryPoints(IRRewriter &rewriter, func::FuncOp fn) {
  auto module = fn->getParentOfType<ModuleOp>();
  fn.walk([&](func::CallOp call) {
    StringRef callee = call.getCallee();
    if (!callee.starts_with("tflrt_") || callee.starts_with("tflrt_cuda_"))
      return;
    // now() waits for the queued device work, so timings measure it.
    if (callee != "tflrt_now" &&
        llvm::none_of(call.getOperandTypes(), llvm::IsaPred<BaseMemRefType>))
      return;
    rewriter.setInsertionPoint(call);
    func::FuncOp target = getOrInsertRuntimeFunction(
        rewriter, module, ("tflrt_cuda_" + callee.drop_front(6)).str(),
        call.getCalleeType());
    rewriter.replaceOpWithNewOp<func::CallOp>(call, target, call.getOperands());
  });
}

/// Step 5.
void launchOnStream(IRRewriter &rewriter, func::FuncOp fn) {
  SmallVector<gpu::LaunchFuncOp> launches;
  fn.walk([&](gpu::LaunchFuncOp launch) {
    if (!launch.getAsyncToken())
      launches.push_back(launch);
  });
  for (gpu::LaunchFuncOp launch : launches) {
    rewriter.setInsertionPoint(launch);
    Location loc = launch.getLoc();
    Value token = streamToken(rewriter, loc);
    std::optional<gpu::KernelDim3> cluster;
    if (launch.hasClusterSize())
      cluster = launch.getClusterSizeOperandValues();
    gpu::LaunchFuncOp::create(
        rewriter, loc, launch.getKernel(), launch.getGridSizeOperandValues(),
        launch.getBlockSizeOperandValues(), launch.getDynamicSharedMemorySize(),
        launch.getKernelOperands(), gpu::AsyncTokenType::get(fn.getContext()),
        ValueRange{token}, cluster);
    rewriter.eraseOp(launch);
  }
}

/// Step 6.
void askForTf32(IRRewriter &rewriter, func::FuncOp entry) {
  rewriter.setInsertionPointToStart(&entry.getBody().front());
  func::FuncOp fn = getOrInsertRuntimeFunction(
      rewriter, entry->getParentOfType<ModuleOp>(), "tflrt_cuda_allow_tf32",
      rewriter.getFunctionType({}, {}));
  func::CallOp::create(rewriter, entry.getLoc(), fn, ValueRange{});
}

struct DeviceMemoryPass : impl::DeviceMemoryBase<DeviceMemoryPass> {
  using DeviceMemoryBase::DeviceMemoryBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    HostBuffers host;
    getOperation().walk([&](memref::AllocOp alloc) {
      if (!alloc->getParentOfType<gpu::GPUModuleOp>() &&
          onlyHostUses(alloc.getResult()))
        host.insert(alloc);
    });
    // Host functions only: kernels live in gpu.modules.
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal() || isHostOnlyFunction(fn, host))
        continue;
      allocateOnDevice(rewriter, fn, host);
      uploadConstants(rewriter, fn);
      accessFromHost(rewriter, fn, host);
      callDeviceEntryPoints(rewriter, fn);
      launchOnStream(rewriter, fn);
      if (allowTf32 && fn.getSymName() == "tfl_main")
        askForTf32(rewriter, fn);
    }
  }
};

} // namespace
} // namespace mlir::tfl
