//===- TflKernels.cpp - Eager kernels of the tfl dialect ------------------===//
//
// One kernel per tfl op, each a call into libtflrt: the same kernels (and for
// matmul the same BLAS path) that compiled code reaches through the C ABI.
//
//===----------------------------------------------------------------------===//

#include "tfl/Eager/Interpreter.h"
#include "tfl/IR/TflOps.h"
#include "tflrt/Attention.h"
#include "tflrt/Conv.h"
#include "tflrt/DataIO.h"
#include "tflrt/Flags.h"
#include "tflrt/Kernels.h"
#include "tflrt/Output.h"
#include "tflrt/Random.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace tfl::eager {

Tensor tensorFromAttr(DenseElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  tflrt::DType dtype = toRuntimeDType(type.getElementType());
  Tensor t(dtype, tflrt::Shape(type.getShape().begin(), type.getShape().end()));
  int64_t i = 0;
  switch (dtype) {
  case tflrt::DType::F32:
    for (float v : attr.getValues<float>())
      t.data<float>()[i++] = v;
    break;
  case tflrt::DType::F64:
    for (double v : attr.getValues<double>())
      t.data<double>()[i++] = v;
    break;
  case tflrt::DType::I32:
    for (int32_t v : attr.getValues<int32_t>())
      t.data<int32_t>()[i++] = v;
    break;
  case tflrt::DType::I64:
    for (int64_t v : attr.getValues<int64_t>())
      t.data<int64_t>()[i++] = v;
    break;
  case tflrt::DType::U8:
    for (int8_t v : attr.getValues<int8_t>())
      t.data<uint8_t>()[i++] = static_cast<uint8_t>(v);
    break;
  case tflrt::DType::Bool:
    for (bool v : attr.getValues<bool>())
      t.data<uint8_t>()[i++] = v;
    break;
  case tflrt::DType::BF16:
  case tflrt::DType::F16:
    for (const llvm::APFloat &v : attr.getValues<llvm::APFloat>())
      t.data<uint16_t>()[i++] =
          static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue());
    break;
  }
  return t;
}

namespace {

template <tflrt::BinaryKind K>
void binaryKernel(Operation *, ArrayRef<Tensor> in,
                  SmallVectorImpl<Tensor> &out) {
  out.push_back(tflrt::binary(K, in[0], in[1]));
}

template <typename OpTy, tflrt::UnaryKind K>
void addUnary(KernelRegistry &registry) {
  registry.add(OpTy::getOperationName(), [](Operation *, ArrayRef<Tensor> in,
                                            SmallVectorImpl<Tensor> &out) {
    out.push_back(tflrt::unary(K, in[0]));
  });
}

template <typename OpTy, tflrt::ReduceKind K>
void addReduction(KernelRegistry &registry) {
  registry.add(OpTy::getOperationName(), [](Operation *op, ArrayRef<Tensor> in,
                                            SmallVectorImpl<Tensor> &out) {
    auto r = cast<OpTy>(op);
    std::vector<int64_t> axes(r.getAxes().begin(), r.getAxes().end());
    out.push_back(tflrt::reduce(K, in[0], axes, r.getKeepdims()));
  });
}

template <typename OpTy>
void addArgReduction(KernelRegistry &registry, bool isMax) {
  registry.add(OpTy::getOperationName(), [isMax](Operation *op,
                                                 ArrayRef<Tensor> in,
                                                 SmallVectorImpl<Tensor> &out) {
    auto r = cast<OpTy>(op);
    int64_t axis = r.getAxis() ? int64_t(*r.getAxis()) : -1;
    out.push_back(tflrt::argReduce(isMax, in[0], axis, r.getKeepdims()));
  });
}

/// A zero tensor of an op result's (static) type.
Tensor resultTensor(Type type) {
  auto t = cast<RankedTensorType>(type);
  return Tensor(toRuntimeDType(t.getElementType()),
                tflrt::Shape(t.getShape().begin(), t.getShape().end()));
}

/// The file ops: libtflrt's readers and writers (they throw IoError, which
/// the interpreter reports at the op).
void registerFileKernels(KernelRegistry &registry) {
  registry.add(
      mlir::tfl::LoadDataOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
        auto load = cast<mlir::tfl::LoadDataOp>(op);
        Tensor t = resultTensor(load.getType());
        if (load.getFormat() == "idx")
          tflrt::readIdx(tflrt::expandPath(load.getPath().str()), t.view());
        else if (load.getFormat() == "bytes")
          tflrt::readBytes(tflrt::expandPath(load.getPath().str()), t.view());
        else
          tflrt::readNpy(tflrt::expandPath(load.getPath().str()), t.view());
        out.push_back(t);
      });
  registry.add(
      mlir::tfl::EncodeTextOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
        auto encode = cast<mlir::tfl::EncodeTextOp>(op);
        Tensor t = resultTensor(encode.getType());
        tflrt::encodeText(tflrt::expandPath(encode.getText().str()), t.view());
        out.push_back(t);
      });
  registry.add(
      mlir::tfl::LoadOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
        auto load = cast<mlir::tfl::LoadOp>(op);
        for (auto [type, name] :
             llvm::zip(load.getResultTypes(), load.getNames())) {
          Tensor t = resultTensor(type);
          tflrt::readCheckpointTensor(tflrt::expandPath(load.getPath().str()),
                                      cast<StringAttr>(name).str(), t.view());
          out.push_back(t);
        }
      });
  registry.add(
      mlir::tfl::SaveNpyOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
        tflrt::writeNpy(
            tflrt::expandPath(cast<mlir::tfl::SaveNpyOp>(op).getPath().str()),
            in[0].view());
      });
  registry.add(
      mlir::tfl::SaveOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
        auto save = cast<mlir::tfl::SaveOp>(op);
        std::vector<std::string> names;
        std::vector<tflrt::TensorView> views;
        for (auto [tensor, name] : llvm::zip(in, save.getNames())) {
          names.push_back(cast<StringAttr>(name).str());
          views.push_back(tensor.view());
        }
        tflrt::writeCheckpoint(tflrt::expandPath(save.getPath().str()), names,
                               views);
      });
  registry.add(
      mlir::tfl::LogScalarOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
        tflrt::logScalar(cast<mlir::tfl::LogScalarOp>(op).getName().str(),
                         in[0].data<double>()[0], in[1].data<int64_t>()[0]);
      });
}

} // namespace

namespace {
/// The autodiff tapes: libtflrt's, shared with compiled code.
void registerTapeKernels(KernelRegistry &registry) {
  using namespace mlir::tfl;
  auto position = [](const Tensor &t) { return t.data<int64_t>()[0]; };
  // A result of the type the op gives: what tapeRead and tapeAccumulated
  // check the entry against, or the zeros they give.
  auto typed = [](Operation *op, auto read) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    return read(toRuntimeDType(type.getElementType()),
                tflrt::Shape(type.getShape().begin(), type.getShape().end()));
  };
  registry.add(TapeEnterOp::getOperationName(),
               [](Operation *, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &) {
                 tflrt::tapeEnter();
               });
  registry.add(TapeExitOp::getOperationName(),
               [](Operation *, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &) {
                 tflrt::tapeExit();
               });
  registry.add(
      TapePushOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
        tflrt::tapePush(cast<TapePushOp>(op).getTape(), in[0]);
      });
  registry.add(
      TapeSizeOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
        Tensor t(tflrt::DType::I64, {});
        t.data<int64_t>()[0] = tflrt::tapeSize(cast<TapeSizeOp>(op).getTape());
        out.push_back(t);
      });
  registry.add(TapeWriteOp::getOperationName(), [=](Operation *op,
                                                    ArrayRef<Tensor> in,
                                                    SmallVectorImpl<Tensor> &) {
    tflrt::tapeWrite(cast<TapeWriteOp>(op).getTape(), position(in[0]), in[1]);
  });
  registry.add(
      TapeReadOp::getOperationName(),
      [=](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(typed(op, [&](tflrt::DType dtype, tflrt::Shape shape) {
          return tflrt::tapeRead(cast<TapeReadOp>(op).getTape(),
                                 position(in[0]), dtype, shape);
        }));
      });
  registry.add(
      TapeRewindOp::getOperationName(),
      [=](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
        auto rewind = cast<TapeRewindOp>(op);
        tflrt::tapeRewind(rewind.getTape(), position(in[0]),
                          rewind.getRelease());
      });
  registry.add(
      TapeAddOp::getOperationName(),
      [=](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
        tflrt::tapeAdd(cast<TapeAddOp>(op).getTape(), position(in[0]), in[1]);
      });
  registry.add(
      TapeAccumulatedOp::getOperationName(),
      [=](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(typed(op, [&](tflrt::DType dtype, tflrt::Shape shape) {
          return tflrt::tapeAccumulated(cast<TapeAccumulatedOp>(op).getTape(),
                                        position(in[0]), dtype, shape);
        }));
      });
}
} // namespace

bool isProductTranspose(Value value) {
  auto transpose = value.getDefiningOp<mlir::tfl::TransposeOp>();
  if (!transpose)
    return false;
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = perm.size();
  if (rank != 2 && !(rank == 3 && perm[0] == 0))
    return false;
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return false;
  return !value.use_empty() &&
         llvm::all_of(value.getUsers(), [](Operation *user) {
           return isa<mlir::tfl::MatmulOp>(user);
         });
}

namespace {

/// A transpose: a product's (isProductTranspose) passes its operand on,
/// for the product to read transposed.
void transposeKernel(Operation *op, ArrayRef<Tensor> in,
                     SmallVectorImpl<Tensor> &out) {
  if (isProductTranspose(op->getResult(0))) {
    out.push_back(in[0]);
    return;
  }
  ArrayRef<int64_t> perm = cast<mlir::tfl::TransposeOp>(op).getPerm();
  out.push_back(
      tflrt::transpose(in[0], std::vector<int64_t>(perm.begin(), perm.end())));
}

/// A product, reading a product's transpose's operand transposed.
void matmulKernel(Operation *op, ArrayRef<Tensor> in,
                  SmallVectorImpl<Tensor> &out) {
  out.push_back(tflrt::matmul(in[0], in[1],
                              isProductTranspose(op->getOperand(0)),
                              isProductTranspose(op->getOperand(1))));
}

} // namespace

/// `t`'s view as the kernels take it: with `seqMajor` ([..., T, H, E]),
/// its sequence and heads dims swapped by strides, not copied.
static tflrt::TensorView attentionView(const Tensor &t, bool seqMajor) {
  tflrt::TensorView view = t.view();
  if (seqMajor) {
    size_t r = view.shape.size();
    std::swap(view.shape[r - 3], view.shape[r - 2]);
    std::swap(view.strides[r - 3], view.strides[r - 2]);
  }
  return view;
}

/// A tensor of `op`'s result `i` shape and `operand`'s dtype: f32 where the
/// result is bf16 or f16 (the IR a GPU target keeps in 16 bits for cuDNN
/// and its fused attention), since the interpreter hands kernels f32
/// copies of 16-bit operands and rounds their results back.
static Tensor resultLike(Operation *op, const Tensor &operand, unsigned i = 0) {
  auto t = cast<RankedTensorType>(op->getResult(i).getType());
  return Tensor(operand.dtype(),
                tflrt::Shape(t.getShape().begin(), t.getShape().end()));
}

/// Attention and its adjoint: the fused kernels compiled code calls.
static void registerAttentionKernels(KernelRegistry &registry) {
  registry.add(
      mlir::tfl::AttentionOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto attention = cast<mlir::tfl::AttentionOp>(op);
        bool seqMajor = attention.getSeqMajor();
        auto view = [&](const Tensor &t) { return attentionView(t, seqMajor); };
        Tensor t = resultLike(op, in[0]);
        tflrt::attention(
            view(in[0]), view(in[1]), view(in[2]), view(t),
            {attention.getCausal(), attention.getScale().convertToDouble()});
        out.push_back(t);
      });
  registry.add(
      mlir::tfl::AttentionBackwardOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto backward = cast<mlir::tfl::AttentionBackwardOp>(op);
        bool seqMajor = backward.getSeqMajor();
        auto view = [&](const Tensor &t) { return attentionView(t, seqMajor); };
        for (unsigned i = 0; i < op->getNumResults(); ++i)
          out.push_back(resultLike(op, in[0], i));
        tflrt::attentionBackward(
            view(in[0]), view(in[1]), view(in[2]), view(in[3]), view(in[4]),
            view(out[0]), view(out[1]), view(out[2]),
            {backward.getCausal(), backward.getScale().convertToDouble()});
      });
}

/// conv2d, pooling and their adjoints, on oneDNN or TFL's own kernels.
static void registerConvKernels(KernelRegistry &registry) {
  registry.add(
      mlir::tfl::Conv2DOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto conv = cast<mlir::tfl::Conv2DOp>(op);
        Tensor t = resultLike(op, in[0]);
        ArrayRef<int64_t> s = conv.getStrides(), p = conv.getPadding();
        tflrt::conv2d(in[0].view(), in[1].view(), t.view(),
                      {{s[0], s[1]}, {p[0], p[1], p[2], p[3]}});
        out.push_back(t);
      });
  auto convBackward = [](Operation *op, ArrayRef<Tensor> in,
                         SmallVectorImpl<Tensor> &out) {
    auto get = [&](StringRef name) {
      return cast<DenseI64ArrayAttr>(op->getAttr(name)).asArrayRef();
    };
    Tensor t = resultLike(op, in[0]);
    ArrayRef<int64_t> s = get("strides"), p = get("padding");
    tflrt::Window window{{s[0], s[1]}, {p[0], p[1], p[2], p[3]}};
    if (isa<mlir::tfl::Conv2DBackwardInputOp>(op))
      tflrt::conv2dBackwardInput(in[0].view(), in[1].view(), t.view(), window);
    else
      tflrt::conv2dBackwardFilter(in[0].view(), in[1].view(), t.view(), window);
    out.push_back(t);
  };
  registry.add(mlir::tfl::Conv2DBackwardInputOp::getOperationName(),
               convBackward);
  registry.add(mlir::tfl::Conv2DBackwardFilterOp::getOperationName(),
               convBackward);
  auto pool = [](Operation *op, ArrayRef<Tensor> in,
                 SmallVectorImpl<Tensor> &out) {
    auto get = [&](StringRef name) {
      return cast<DenseI64ArrayAttr>(op->getAttr(name)).asArrayRef();
    };
    Tensor t = resultLike(op, in[0]);
    ArrayRef<int64_t> k = get("size"), s = get("strides"), p = get("padding");
    tflrt::pool2d(isa<mlir::tfl::MaxPool2DOp>(op) ? tflrt::PoolKind::Max
                                                  : tflrt::PoolKind::Avg,
                  in[0].view(), t.view(), {k[0], k[1]},
                  {{s[0], s[1]}, {p[0], p[1], p[2], p[3]}});
    out.push_back(t);
  };
  // Pooling's adjoint ops: the backward ops and max pooling's gather, of
  // the pooled input and a tensor to route through its windows.
  auto poolAdjoint = [](Operation *op, ArrayRef<Tensor> in,
                        SmallVectorImpl<Tensor> &out) {
    auto get = [&](StringRef name) {
      return cast<DenseI64ArrayAttr>(op->getAttr(name)).asArrayRef();
    };
    Tensor t = resultLike(op, in[0]);
    ArrayRef<int64_t> k = get("size"), s = get("strides"), p = get("padding");
    tflrt::Window window{{s[0], s[1]}, {p[0], p[1], p[2], p[3]}};
    if (isa<mlir::tfl::MaxPool2DGatherOp>(op))
      tflrt::maxPool2dGather(in[0].view(), in[1].view(), t.view(), {k[0], k[1]},
                             window);
    else
      tflrt::pool2dBackward(
          isa<mlir::tfl::MaxPool2DBackwardOp>(op) ? tflrt::PoolKind::Max
                                                  : tflrt::PoolKind::Avg,
          in[0].view(), in[1].view(), t.view(), {k[0], k[1]}, window);
    out.push_back(t);
  };
  registry.add(mlir::tfl::MaxPool2DBackwardOp::getOperationName(), poolAdjoint);
  registry.add(mlir::tfl::AvgPool2DBackwardOp::getOperationName(), poolAdjoint);
  registry.add(mlir::tfl::MaxPool2DGatherOp::getOperationName(), poolAdjoint);
  registry.add(mlir::tfl::MaxPool2DOp::getOperationName(), pool);
  registry.add(mlir::tfl::AvgPool2DOp::getOperationName(), pool);
}

/// The generator's seed and state, and its draws.
static void registerRandomKernels(KernelRegistry &registry) {
  registry.add(mlir::tfl::SeedOp::getOperationName(),
               [](Operation *, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
                 tflrt::seedRandom(in[0].data<int64_t>()[0]);
               });
  registry.add(mlir::tfl::RandomStateOp::getOperationName(),
               [](Operation *, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
                 Tensor t(tflrt::DType::I64, {2});
                 std::array<uint64_t, 2> state = tflrt::randomState();
                 t.data<int64_t>()[0] = static_cast<int64_t>(state[0]);
                 t.data<int64_t>()[1] = static_cast<int64_t>(state[1]);
                 out.push_back(t);
               });
  registry.add(mlir::tfl::SetRandomStateOp::getOperationName(),
               [](Operation *, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
                 const int64_t *state = in[0].data<int64_t>();
                 tflrt::setRandomState(static_cast<uint64_t>(state[0]),
                                       static_cast<uint64_t>(state[1]));
               });
  auto draw = [](Operation *op, ArrayRef<Tensor>,
                 SmallVectorImpl<Tensor> &out) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Tensor t(toRuntimeDType(type.getElementType()),
             tflrt::Shape(type.getShape().begin(), type.getShape().end()));
    int64_t n = t.numElements();
    bool normal = isa<mlir::tfl::RandomNormalOp>(op);
    if (isa<mlir::tfl::ShuffleIndicesOp>(op))
      tflrt::shuffleIndices(t.data<int64_t>(), n);
    else if (t.dtype() == tflrt::DType::F32)
      normal ? tflrt::randomNormal(t.data<float>(), n)
             : tflrt::randomUniform(t.data<float>(), n);
    else
      normal ? tflrt::randomNormal(t.data<double>(), n)
             : tflrt::randomUniform(t.data<double>(), n);
    out.push_back(t);
  };
  registry.add(mlir::tfl::RandomUniformOp::getOperationName(), draw);
  registry.add(mlir::tfl::RandomNormalOp::getOperationName(), draw);
  registry.add(mlir::tfl::ShuffleIndicesOp::getOperationName(), draw);
}

/// Reductions, shapes, transposes, slices and concatenations.
static void registerArrayKernels(KernelRegistry &registry) {
  addReduction<mlir::tfl::ReduceSumOp, tflrt::ReduceKind::Sum>(registry);
  addReduction<mlir::tfl::ReduceProdOp, tflrt::ReduceKind::Prod>(registry);
  addReduction<mlir::tfl::ReduceMaxOp, tflrt::ReduceKind::Max>(registry);
  addReduction<mlir::tfl::ReduceMinOp, tflrt::ReduceKind::Min>(registry);
  addArgReduction<mlir::tfl::ArgmaxOp>(registry, /*isMax=*/true);
  registry.add(
      mlir::tfl::BroadcastToOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto type = cast<RankedTensorType>(op->getResult(0).getType());
        out.push_back(
            tflrt::broadcastTo(in[0], tflrt::Shape(type.getShape().begin(),
                                                   type.getShape().end())));
      });
  registry.add(
      mlir::tfl::DimOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        Tensor t(tflrt::DType::I64, {});
        t.data<int64_t>()[0] =
            in[0].shape()[cast<mlir::tfl::DimOp>(op).getAxis()];
        out.push_back(t);
      });
  registry.add(
      mlir::tfl::ReshapeOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto type = cast<RankedTensorType>(op->getResult(0).getType());
        out.push_back(in[0].reshaped(
            tflrt::Shape(type.getShape().begin(), type.getShape().end())));
      });
  registry.add(mlir::tfl::TransposeOp::getOperationName(), transposeKernel);
  registry.add(
      mlir::tfl::SliceOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto slice = cast<mlir::tfl::SliceOp>(op);
        auto type = cast<RankedTensorType>(slice.getType());
        std::vector<int64_t> starts;
        size_t next = 1;
        for (int64_t s : slice.getStaticStarts())
          starts.push_back(ShapedType::isDynamic(s)
                               ? in[next++].view().getAsInt(nullptr)
                               : s);
        out.push_back(
            tflrt::slice(in[0], starts,
                         std::vector<int64_t>(type.getShape().begin(),
                                              type.getShape().end()),
                         std::vector<int64_t>(slice.getStrides().begin(),
                                              slice.getStrides().end())));
      });
  registry.add(
      mlir::tfl::EmbedSliceOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto embed = cast<mlir::tfl::EmbedSliceOp>(op);
        auto type = cast<RankedTensorType>(embed.getType());
        std::vector<int64_t> starts;
        size_t next = 1;
        for (int64_t s : embed.getStaticStarts())
          starts.push_back(ShapedType::isDynamic(s)
                               ? in[next++].view().getAsInt(nullptr)
                               : s);
        out.push_back(tflrt::embedSlice(
            in[0], tflrt::Shape(type.getShape().begin(), type.getShape().end()),
            starts,
            std::vector<int64_t>(embed.getStrides().begin(),
                                 embed.getStrides().end())));
      });
  registry.add(
      mlir::tfl::ConcatOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(tflrt::concat(std::vector<Tensor>(in.begin(), in.end()),
                                    cast<mlir::tfl::ConcatOp>(op).getAxis()));
      });
  addArgReduction<mlir::tfl::ArgminOp>(registry, /*isMax=*/false);
}

/// Elementwise ops (broadcasting) and matmul.
static void registerElementwiseKernels(KernelRegistry &registry) {
  addUnary<mlir::tfl::ExpOp, tflrt::UnaryKind::Exp>(registry);
  addUnary<mlir::tfl::LogOp, tflrt::UnaryKind::Log>(registry);
  addUnary<mlir::tfl::Log1pOp, tflrt::UnaryKind::Log1p>(registry);
  addUnary<mlir::tfl::ErfOp, tflrt::UnaryKind::Erf>(registry);
  addUnary<mlir::tfl::Expm1Op, tflrt::UnaryKind::Expm1>(registry);
  addUnary<mlir::tfl::SqrtOp, tflrt::UnaryKind::Sqrt>(registry);
  addUnary<mlir::tfl::RsqrtOp, tflrt::UnaryKind::Rsqrt>(registry);
  addUnary<mlir::tfl::TanhOp, tflrt::UnaryKind::Tanh>(registry);
  addUnary<mlir::tfl::SigmoidOp, tflrt::UnaryKind::Sigmoid>(registry);
  addUnary<mlir::tfl::SinOp, tflrt::UnaryKind::Sin>(registry);
  addUnary<mlir::tfl::CosOp, tflrt::UnaryKind::Cos>(registry);
  addUnary<mlir::tfl::FloorOp, tflrt::UnaryKind::Floor>(registry);
  addUnary<mlir::tfl::RoundOp, tflrt::UnaryKind::Round>(registry);
  addUnary<mlir::tfl::AbsOp, tflrt::UnaryKind::Abs>(registry);
  addUnary<mlir::tfl::SignOp, tflrt::UnaryKind::Sign>(registry);
  addUnary<mlir::tfl::SquareOp, tflrt::UnaryKind::Square>(registry);
  addUnary<mlir::tfl::ReluOp, tflrt::UnaryKind::Relu>(registry);
  registry.add(mlir::tfl::MaximumOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::Maximum>);
  registry.add(mlir::tfl::MinimumOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::Minimum>);
  registry.add(
      mlir::tfl::WhereOp::getOperationName(),
      [](Operation *, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(tflrt::where(in[0], in[1], in[2]));
      });
  registry.add(
      mlir::tfl::ConstantOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
        auto attr =
            cast<DenseElementsAttr>(cast<mlir::tfl::ConstantOp>(op).getValue());
        out.push_back(tensorFromAttr(attr));
      });
  registry.add(mlir::tfl::AddOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::Add>);
  registry.add(mlir::tfl::SubOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::Sub>);
  registry.add(mlir::tfl::MulOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::Mul>);
  registry.add(mlir::tfl::DivOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::Div>);
  registry.add(mlir::tfl::FloorDivOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::FloorDiv>);
  registry.add(mlir::tfl::ModOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::Mod>);
  registry.add(mlir::tfl::PowOp::getOperationName(),
               binaryKernel<tflrt::BinaryKind::Pow>);
  registry.add(
      mlir::tfl::NegOp::getOperationName(),
      [](Operation *, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(tflrt::unary(tflrt::UnaryKind::Neg, in[0]));
      });
  registry.add(
      mlir::tfl::CastOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto type = cast<RankedTensorType>(op->getResult(0).getType());
        out.push_back(
            tflrt::cast(in[0], toRuntimeDType(type.getElementType())));
      });
  registry.add(
      mlir::tfl::CompareOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto kind = static_cast<tflrt::CompareKind>(
            cast<mlir::tfl::CompareOp>(op).getPredicate());
        out.push_back(tflrt::compare(kind, in[0], in[1]));
      });
  registry.add(
      mlir::tfl::NotOp::getOperationName(),
      [](Operation *, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(tflrt::logicalNot(in[0]));
      });
  registry.add(mlir::tfl::MatmulOp::getOperationName(), matmulKernel);
}

/// The ops that pass their operands through.
static void registerIdentityKernels(KernelRegistry &registry) {
  auto identity = [](Operation *, ArrayRef<Tensor> in,
                     SmallVectorImpl<Tensor> &out) {
    out.append(in.begin(), in.end());
  };
  registry.add(mlir::tfl::StopGradientOp::getOperationName(), identity);
  registry.add(mlir::tfl::OptimizationBarrierOp::getOperationName(), identity);
  // Eager mode runs on the CPU, where every device's tensors are.
  registry.add(mlir::tfl::ToDeviceOp::getOperationName(), identity);
}

void registerTflKernels(KernelRegistry &registry) {
  registry.add(
      mlir::tfl::GatherOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(tflrt::gather(in[0], in[1],
                                    cast<mlir::tfl::GatherOp>(op).getAxis()));
      });
  registry.add(mlir::tfl::NowOp::getOperationName(),
               [](Operation *, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
                 Tensor t(tflrt::DType::F64, {});
                 t.data<double>()[0] = tflrt::nowSeconds();
                 out.push_back(t);
               });
  registry.add(
      mlir::tfl::CheckNumericsOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        if (!tflrt::allFinite(in[0]))
          throw RuntimeError(tflrt::checkNumericsMessage(
              cast<mlir::tfl::CheckNumericsOp>(op).getMessage().str()));
        out.push_back(in[0]);
      });
  registerFileKernels(registry);
  registry.add(
      mlir::tfl::ScatterAddOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto scatter = cast<mlir::tfl::ScatterAddOp>(op);
        Tensor t = resultTensor(scatter.getType());
        tflrt::scatterAdd(in[0].view(), in[1].view(), t.view(),
                          scatter.getAxis());
        out.push_back(t);
      });
  registerTapeKernels(registry);
  registerCollectiveKernels(registry);
  registerIdentityKernels(registry);
  registerConvKernels(registry);
  registerAttentionKernels(registry);
  registerRandomKernels(registry);
  registry.add(
      mlir::tfl::FlagOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
        out.push_back(
            tflrt::flagValue(cast<mlir::tfl::FlagOp>(op).getName().str()));
      });
  registry.add(
      mlir::tfl::AssertOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
        if (in[0].data<uint8_t>()[0])
          return;
        std::string message = cast<mlir::tfl::AssertOp>(op).getMessage().str();
        throw RuntimeError("assertion failed" +
                           (message.empty() ? "" : ": " + message));
      });
  registerArrayKernels(registry);
  registerElementwiseKernels(registry);
  registry.add(mlir::tfl::PrintTemplateOp::getOperationName(),
               [](Operation *op, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &) {
                 tflrt::writeText(tflrt::expandPath(
                     cast<mlir::tfl::PrintTemplateOp>(op).getText().str()));
               });
  registry.add(
      mlir::tfl::PrintOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &) {
        auto print = cast<mlir::tfl::PrintOp>(op);
        SmallVector<std::string> pieces = print.getTextPieces();
        SmallVector<std::string> specs = print.getSpecs();
        for (size_t i = 0; i < pieces.size(); ++i) {
          tflrt::writeText(pieces[i]);
          if (i < in.size())
            tflrt::writeTensor(in[i].view(), specs[i]);
        }
      });
}

} // namespace tfl::eager
