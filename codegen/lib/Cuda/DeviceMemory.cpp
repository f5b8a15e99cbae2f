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

#include "BufferAliases.h"
#include "tfl/Codegen/Cuda/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tflrt/CudaApi.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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

/// The buffers that stay in host memory: stack buffers, heap buffers that
/// only host code touches (the lists of pointers and ownership flags that
/// the deallocation lowering fills and hands to its helper), and the
/// classes of buffers tfl-host-scalars kept on the host.
struct HostBuffers {
  llvm::DenseSet<Operation *> allocs;
  llvm::DenseSet<Value> scalars; // of the function being converted

  bool contains(Operation *alloc) const { return allocs.contains(alloc); }
};

bool isHostBuffer(Value memref, const HostBuffers &host) {
  if (host.scalars.contains(memref))
    return true;
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
  fn.walk([&](memref::GetGlobalOp g) {
    if (!g->hasAttr(kHostBufferAttr))
      globals.push_back(g);
  });
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

/// The calls of tflrt_check_slice that check `value` (directly or after
/// integer extensions of one signedness, which `isSigned` gets), if
/// checking it is all that is done with `value`.
std::optional<SmallVector<func::CallOp>> onlyChecked(Value value,
                                                     bool &isSigned) {
  SmallVector<func::CallOp> checks;
  isSigned = true;
  bool extended = false;
  auto isCheck = [&](OpOperand &use) {
    auto call = dyn_cast<func::CallOp>(use.getOwner());
    if (!call || call.getCallee() != "tflrt_check_slice" ||
        use.getOperandNumber() != 0)
      return false;
    checks.push_back(call);
    return true;
  };
  for (OpOperand &use : value.getUses()) {
    if (isCheck(use))
      continue;
    Operation *ext = use.getOwner();
    bool sext = isa<arith::ExtSIOp>(ext);
    if (!(sext || isa<arith::ExtUIOp>(ext)) || (extended && sext != isSigned) ||
        !llvm::all_of(ext->getResult(0).getUses(), isCheck))
      return std::nullopt;
    isSigned = sext;
    extended = true;
  }
  if (checks.empty())
    return std::nullopt;
  // In program order (a use list runs the other way).
  llvm::sort(checks, [](func::CallOp a, func::CallOp b) {
    return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
  });
  return checks;
}

/// A load of a device scalar that is only range-checked: its checks are
/// queued where it is loaded (tflrt_cuda_check_slice_async copies the
/// scalar to the host in stream order, so it copies the loaded value even
/// if the buffer is written or freed later, and checks it at the host's
/// next wait, before any output), so the host does not wait for it.
bool checkAsync(IRRewriter &rewriter, memref::LoadOp load) {
  bool isSigned = true;
  std::optional<SmallVector<func::CallOp>> checks =
      onlyChecked(load.getResult(), isSigned);
  if (!checks || !load.getType().isSignlessInteger())
    return false;
  // The checks' other operands must be had where the load is: defined
  // before it, or constants (and string addresses) to copy there.
  DominanceInfo dominance(load->getParentOfType<func::FuncOp>());
  auto available = [&](Value v) {
    if (dominance.properlyDominates(v, load))
      return true;
    Operation *def = v.getDefiningOp();
    return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
           isMemoryEffectFree(def);
  };
  for (func::CallOp check : *checks)
    if (!llvm::all_of(check.getOperands().drop_front(), available))
      return false;
  Type i64 = rewriter.getI64Type();
  int64_t bytes = elementBytes(load.getType());
  for (func::CallOp check : *checks) {
    rewriter.setInsertionPoint(load);
    Location loc = check.getLoc();
    SmallVector<Value> args = {
        arith::ConstantIntOp::create(rewriter, loc, i64, bytes),
        elementAddress(rewriter, loc, load.getMemref(), load.getIndices(),
                       bytes),
        arith::ConstantIntOp::create(rewriter, loc, i64, isSigned ? 1 : 0)};
    for (Value v : check.getOperands().drop_front())
      args.push_back(dominance.properlyDominates(v, load)
                         ? v
                         : rewriter.clone(*v.getDefiningOp())->getResult(0));
    func::FuncOp fn = getOrInsertRuntimeFunction(
        rewriter, check->getParentOfType<ModuleOp>(),
        "tflrt_cuda_check_slice_async",
        rewriter.getFunctionType(ValueRange(args).getTypes(), {}));
    func::CallOp::create(rewriter, loc, fn, args);
    rewriter.eraseOp(check);
  }
  for (Operation *user : llvm::make_early_inc_range(load->getUsers()))
    rewriter.eraseOp(user);
  rewriter.eraseOp(load);
  return true;
}

/// The bytes of the dense buffer `memref` (identity layout).
Value bufferBytes(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  Value n = arith::ConstantIndexOp::create(b, loc,
                                           elementBytes(type.getElementType()));
  for (int64_t d = 0; d < type.getRank(); ++d)
    n = arith::MulIOp::create(b, loc, n,
                              memref::DimOp::create(b, loc, memref, d));
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
}

/// The address of `memref`'s first element, as an i64.
Value firstElement(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<Value> zeros(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return elementAddress(b, loc, memref, zeros,
                        elementBytes(type.getElementType()));
}

/// The sizes `memref.alloc` of a buffer shaped as `memref` takes.
SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, Value memref) {
  SmallVector<Value> sizes;
  auto type = cast<MemRefType>(memref.getType());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, memref, d));
  return sizes;
}

void callCopy(IRRewriter &rewriter, Location loc, StringRef name, Value dst,
              Value src) {
  ModuleOp module =
      rewriter.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  Value args[] = {firstElement(rewriter, loc, dst),
                  firstElement(rewriter, loc, src),
                  bufferBytes(rewriter, loc, src)};
  func::FuncOp fn = getOrInsertRuntimeFunction(
      rewriter, module, name,
      rewriter.getFunctionType(ValueRange(args).getTypes(), {}));
  func::CallOp::create(rewriter, loc, fn, args);
}

/// Step 2b: a call of work placed on the CPU (a host function) gets host
/// copies of its device operands, freed after it, and device copies of its
/// results, which the host's are freed for.
void crossToHostFunctions(IRRewriter &rewriter, func::FuncOp fn,
                          const HostBuffers &host, SymbolTable &symbols) {
  SmallVector<func::CallOp> calls;
  fn.walk([&](func::CallOp call) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (callee && isHostFunction(callee))
      calls.push_back(call);
  });
  for (func::CallOp call : calls) {
    Location loc = call.getLoc();
    for (OpOperand &operand : call->getOpOperands()) {
      Value v = operand.get();
      if (!isa<MemRefType>(v.getType()) || isHostBuffer(v, host))
        continue;
      rewriter.setInsertionPoint(call);
      auto copy = memref::AllocOp::create(
          rewriter, loc, cast<MemRefType>(v.getType()),
          dynamicSizes(rewriter, loc, v), IntegerAttr());
      copy->setAttr(kHostBufferAttr, rewriter.getUnitAttr());
      callCopy(rewriter, loc, "tflrt_cuda_copy_to_host", copy, v);
      operand.set(copy);
      rewriter.setInsertionPointAfter(call);
      memref::DeallocOp::create(rewriter, loc, copy);
    }
    for (Value r : call.getResults()) {
      if (!isa<MemRefType>(r.getType()))
        continue;
      rewriter.setInsertionPointAfter(call);
      auto device = gpu::AllocOp::create(
          rewriter, loc, r.getType(), gpu::AsyncTokenType::get(fn.getContext()),
          ValueRange{streamToken(rewriter, loc)},
          dynamicSizes(rewriter, loc, r), ValueRange{}, /*hostShared=*/false);
      callCopy(rewriter, loc, "tflrt_cuda_copy_to_device", device.getMemref(),
               r);
      auto free = memref::DeallocOp::create(rewriter, loc, r);
      // Every use but the copy's own (the ops made after the call).
      llvm::SmallPtrSet<Operation *, 16> own;
      for (Operation *op = call->getNextNode(); op != free;
           op = op->getNextNode())
        own.insert(op);
      own.insert(free);
      r.replaceUsesWithIf(device.getMemref(), [&](OpOperand &use) {
        return !own.contains(use.getOwner());
      });
    }
  }
}

/// Step 3.
void accessFromHost(IRRewriter &rewriter, func::FuncOp fn,
                    const HostBuffers &host) {
  SmallVector<memref::LoadOp> loads;
  fn.walk([&](memref::LoadOp load) {
    if (!isHostBuffer(load.getMemref(), host))
      loads.push_back(load);
  });
  for (memref::LoadOp load : loads) {
    if (checkAsync(rewriter, load))
      continue;
    Operation *read =
        accessElement(rewriter, load, "tflrt_cuda_read_scalar",
                      load.getMemref(), load.getIndices(), load.getType());
    rewriter.replaceOp(load, fromBits(rewriter, load.getLoc(),
                                      read->getResult(0), load.getType()));
  }
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
void callDeviceEntryPoints(IRRewriter &rewriter, func::FuncOp fn,
                           const HostBuffers &host) {
  auto module = fn->getParentOfType<ModuleOp>();
  fn.walk([&](func::CallOp call) {
    StringRef callee = call.getCallee();
    if (!callee.starts_with("tflrt_") || callee.starts_with("tflrt_cuda_"))
      return;
    // Host buffers only (tfl-host-scalars sees to all or none): the host
    // function, as on the CPU.
    auto memrefs = llvm::make_filter_range(call.getOperands(), [](Value v) {
      return isa<BaseMemRefType>(v.getType());
    });
    // The tapes live in device memory, whichever side a value is pushed
    // from or read into (a scalar may be pushed from the device and read
    // on the host): every tape call goes to libtflrt_cuda.
    // So do the collectives: their tensors stay on the device (NCCL).
    bool tape = callee.starts_with("tflrt_tape_") ||
                callee.starts_with("tflrt_collective_");
    if (!tape && !memrefs.empty() &&
        llvm::all_of(memrefs, [&](Value v) { return isHostBuffer(v, host); }))
      return;
    // now() waits for the queued device work, so timings measure it.
    bool always = tape || callee == "tflrt_now";
    if (!always &&
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
LogicalResult launchOnStream(IRRewriter &rewriter, func::FuncOp fn,
                             const HostBuffers &host) {
  SmallVector<gpu::LaunchFuncOp> launches;
  WalkResult walk = fn.walk([&](gpu::LaunchFuncOp launch) {
    for (Value v : launch.getKernelOperands())
      if (isa<BaseMemRefType>(v.getType()) && isHostBuffer(v, host))
        return WalkResult(launch.emitOpError(
            "would read a host buffer on the device (internal error)"));
    if (!launch.getAsyncToken())
      launches.push_back(launch);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
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
  return success();
}

/// Step 6: the libraries the program's host code calls, as
/// tflrt_cuda_start's flags (CudaApi.h).
int64_t librariesCalled(ModuleOp module) {
  int64_t flags = 0;
  module.walk([&](func::CallOp call) {
    StringRef callee = call.getCallee();
    if (!callee.consume_front("tflrt_cuda_"))
      return;
    if (callee.starts_with("gemm"))
      flags |= TFLRT_CUDA_START_CUBLAS;
    else if (callee.starts_with("conv2d"))
      flags |= TFLRT_CUDA_START_CUDNN;
  });
  return flags;
}

void startDevice(IRRewriter &rewriter, func::FuncOp entry, int64_t flags) {
  rewriter.setInsertionPointToStart(&entry.getBody().front());
  Location loc = entry.getLoc();
  Value arg = arith::ConstantIntOp::create(rewriter, loc, flags, 64);
  func::FuncOp fn = getOrInsertRuntimeFunction(
      rewriter, entry->getParentOfType<ModuleOp>(), "tflrt_cuda_start",
      rewriter.getFunctionType({rewriter.getI64Type()}, {}));
  func::CallOp::create(rewriter, loc, fn, arg);
}

struct DeviceMemoryPass : impl::DeviceMemoryBase<DeviceMemoryPass> {
  using DeviceMemoryBase::DeviceMemoryBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    HostBuffers host;
    getOperation().walk([&](memref::AllocOp alloc) {
      if (!alloc->getParentOfType<gpu::GPUModuleOp>() &&
          (alloc->hasAttr(kHostBufferAttr) || onlyHostUses(alloc.getResult())))
        host.allocs.insert(alloc);
    });
    // Host functions only: kernels live in gpu.modules. Work placed on
    // the CPU stays host code, on host buffers.
    SymbolTable symbols(getOperation());
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal() || isHostOnlyFunction(fn, host) || isHostFunction(fn))
        continue;
      // (Taken before any change: the analysis holds on to ops that the
      // steps replace.)
      host.scalars = BufferAliases(fn).hostValues();
      allocateOnDevice(rewriter, fn, host);
      uploadConstants(rewriter, fn);
      crossToHostFunctions(rewriter, fn, host, symbols);
      accessFromHost(rewriter, fn, host);
      callDeviceEntryPoints(rewriter, fn, host);
      if (failed(launchOnStream(rewriter, fn, host)))
        return signalPassFailure();
    }
    if (auto entry = getOperation().lookupSymbol<func::FuncOp>("tfl_main");
        entry && !entry.isExternal())
      startDevice(rewriter, entry,
                  librariesCalled(getOperation()) |
                      (allowTf32 ? TFLRT_CUDA_START_TF32 : 0));
  }
};

} // namespace
} // namespace mlir::tfl
