/* Calls affine.tfl's export through the static library tflc build --static
   made (test/export/static.tfl). */
#include "affine.h"

#include <stdio.h>

int main(void) {
  float x[3] = {1, 2, 3}, y[3];
  static const int64_t shape[] = {3}, bad[] = {4};
  tfl_tensor in = {x, 1, shape}, out = {y, 1, shape};
  if (affine_predict(&in, &out) != 0)
    return 1;
  printf("%g %g %g\n", y[0], y[1], y[2]);
  tfl_tensor wrong = {x, 1, bad};
  if (affine_predict(&wrong, &out) != 1)
    return 1;
  printf("error: %s\n", affine_last_error());
  return 0;
}
