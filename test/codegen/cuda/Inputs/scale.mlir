// A tfl function for tfl-opt --tfl-cuda-pipeline (tfl-cuda-pipeline.tfl).
func.func @scale(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %c = tfl.constant dense<2.0> : tensor<f32>
  %y = tfl.mul %x, %c : tensor<1000xf32>, tensor<f32> -> tensor<1000xf32>
  return %y : tensor<1000xf32>
}
