/* Calls two libraries made by tflc build --shared (mlp.tfl and affine.tfl,
   see test/CMakeLists.txt) from C and checks them against what `tflc run
   mlp.tfl` wrote (.npy files in the directory given): the exported forward
   pass and gradient, the same exported for a batch of any size (`?`) and
   called with batches of 1, 7 and 1000, a run-time error and bad shapes
   reported as error codes with messages, parameters read from the
   checkpoint save() wrote, both libraries in one process, and concurrent
   calls from 4 threads (with batches of several sizes) giving the
   single-threaded results. Prints "ok ..." per check; exits 1 at the first
   failure. */
#include "affine.h"
#include "mlp.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dir;

static void fail(const char *what) {
  fprintf(stderr, "FAILED: %s\n", what);
  exit(1);
}

/* The f32 or i64 data of `name`.npy (a little-endian .npy of version 1). */
static void *readNpy(const char *name, size_t bytes) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    fail(path);
  unsigned char head[10];
  if (fread(head, 1, 10, f) != 10)
    fail(path);
  fseek(f, 10 + head[8] + 256 * head[9], SEEK_SET);
  void *data = malloc(bytes ? bytes : 1);
  if (fread(data, 1, bytes, f) != bytes)
    fail(path);
  fclose(f);
  return data;
}

static void expectClose(const char *what, const float *got, const char *npy,
                        size_t n) {
  float *want = readNpy(npy, n * sizeof(float));
  for (size_t i = 0; i < n; ++i)
    if (!(fabsf(got[i] - want[i]) <= 1e-5f * (1.0f + fabsf(want[i])))) {
      fprintf(stderr, "%s[%zu] = %.9g, expected %.9g\n", what, i, got[i],
              want[i]);
      fail(what);
    }
  free(want);
  printf("ok %s\n", what);
}

static int same(const float *a, const float *b, int n) {
  for (int i = 0; i < n; ++i)
    if (!(fabsf(a[i] - b[i]) <= 1e-6f * (1.0f + fabsf(b[i]))))
      return 0;
  return 1;
}

/* The inputs mlp.tfl builds: element k of each is a formula of k. */
static const int64_t w1Shape[] = {4, 8}, b1Shape[] = {8}, w2Shape[] = {8, 3},
                     b2Shape[] = {3}, xShape[] = {6, 4}, yShape[] = {6},
                     outShape[] = {6, 3}, rowShape[] = {4};
static float w1[32], b1[8], w2[24], b2[3], x[24];
static int64_t y[6];

static mlp_MLP params(float *pw1, float *pb1, float *pw2, float *pb2) {
  mlp_MLP p = {{pw1, 2, w1Shape},
               {pb1, 1, b1Shape},
               {pw2, 2, w2Shape},
               {pb2, 1, b2Shape}};
  return p;
}

/* One forward pass and one gradient; 0 on success. */
typedef struct {
  float logits[18], loss, gw1[32], gb1[8], gw2[24], gb2[3];
} Results;

static int compute(Results *r) {
  mlp_MLP p = params(w1, b1, w2, b2);
  tfl_tensor xt = {x, 2, xShape}, yt = {y, 1, yShape};
  tfl_tensor out = {r->logits, 2, outShape};
  if (mlp_predict(&p, &xt, &out) != 0)
    return 1;
  tfl_tensor loss = {&r->loss, 0, NULL};
  mlp_MLP g = params(r->gw1, r->gb1, r->gw2, r->gb2);
  return mlp_loss_grad(&p, &xt, &yt, &loss, &g);
}

/* A batch of n rows through the `?` exports, against what the program
   computed for the static shape [n, 4]. */
typedef struct {
  int64_t n;
  float *x, *logits;
  int64_t *y;
} Batch;

static const int64_t batchSizes[] = {1, 7, 1000};
static Batch batches[3];

static int predictBatch(const Batch *b, float *logits) {
  mlp_MLP p = params(w1, b1, w2, b2);
  int64_t xs[] = {b->n, 4}, outs[] = {b->n, 3};
  tfl_tensor xt = {b->x, 2, xs}, out = {logits, 2, outs};
  return mlp_predict_batch(&p, &xt, &out);
}

static void checkBatch(int k) {
  char name[64];
  Batch *b = &batches[k];
  int64_t n = b->n = batchSizes[k];
  snprintf(name, sizeof name, "x_b%lld", (long long)n);
  b->x = readNpy(name, (size_t)n * 4 * sizeof(float));
  snprintf(name, sizeof name, "y_b%lld", (long long)n);
  b->y = readNpy(name, (size_t)n * sizeof(int64_t));
  b->logits = malloc((size_t)n * 3 * sizeof(float));
  if (predictBatch(b, b->logits) != 0)
    fail(mlp_last_error());
  snprintf(name, sizeof name, "predict_b%lld", (long long)n);
  expectClose(name, b->logits, name, (size_t)n * 3);

  mlp_MLP p = params(w1, b1, w2, b2);
  int64_t xs[] = {n, 4}, ys[] = {n};
  tfl_tensor xt = {b->x, 2, xs}, yt = {b->y, 1, ys};
  float loss, gw1[32], gb1[8], gw2[24], gb2[3];
  tfl_tensor lt = {&loss, 0, NULL};
  mlp_MLP g = params(gw1, gb1, gw2, gb2);
  if (mlp_loss_grad_batch(&p, &xt, &yt, &lt, &g) != 0)
    fail(mlp_last_error());
  snprintf(name, sizeof name, "loss_b%lld", (long long)n);
  expectClose(name, &loss, name, 1);
  snprintf(name, sizeof name, "grad_w1_b%lld", (long long)n);
  expectClose(name, gw1, name, 32);
  snprintf(name, sizeof name, "grad_b2_b%lld", (long long)n);
  expectClose(name, gb2, name, 3);
}

static Results reference;
static char callFailed[] = "a call failed";
static char differ[] = "results differ from the single-threaded ones";
static char failingCall[] = "a failing call on a thread";
static char batchDiffers[] = "a batch's results differ on a thread";

static void *worker(void *arg) {
  long id = (long)arg;
  for (int iteration = 0; iteration < 100; ++iteration) {
    Results r;
    if (compute(&r) != 0)
      return callFailed;
    if (memcmp(&r, &reference, sizeof r) != 0)
      return differ;
    /* A batch whose size depends on the thread. */
    const Batch *b = &batches[id % 3];
    float *logits = malloc((size_t)b->n * 3 * sizeof(float));
    int ok = predictBatch(b, logits) == 0 &&
             memcmp(logits, b->logits, (size_t)b->n * 3 * sizeof(float)) == 0;
    free(logits);
    if (!ok)
      return batchDiffers;
    /* Thread 0 also fails calls: its messages are its own. */
    if (id == 0) {
      float row[4];
      int64_t i = 9;
      tfl_tensor xt = {x, 2, xShape}, it = {&i, 0, NULL},
                 rt = {row, 1, rowShape};
      if (mlp_row(&xt, &it, &rt) != 1 ||
          !strstr(mlp_last_error(), "index 9 is out of range"))
        return failingCall;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR (where tflc run mlp.tfl wrote)\n", argv[0]);
    return 2;
  }
  dir = argv[1];
  for (int k = 0; k < 32; ++k)
    w1[k] = (float)k * 0.05f - 0.5f;
  for (int k = 0; k < 8; ++k)
    b1[k] = (float)k * 0.1f - 0.3f;
  for (int k = 0; k < 24; ++k)
    w2[k] = (float)k * -0.04f + 0.5f;
  for (int k = 0; k < 3; ++k)
    b2[k] = (float)k * 0.2f;
  for (int k = 0; k < 24; ++k)
    x[k] = (float)k * 0.1f - 1.0f;
  for (int k = 0; k < 6; ++k)
    y[k] = k % 3;

  if (compute(&reference) != 0)
    fail(mlp_last_error());
  expectClose("predict", reference.logits, "predict", 18);
  expectClose("loss", &reference.loss, "loss", 1);
  expectClose("grad w1", reference.gw1, "grad_w1", 32);
  expectClose("grad b1", reference.gb1, "grad_b1", 8);
  expectClose("grad w2", reference.gw2, "grad_w2", 24);
  expectClose("grad b2", reference.gb2, "grad_b2", 3);

  float row[4];
  int64_t i = 3;
  tfl_tensor xt = {x, 2, xShape}, it = {&i, 0, NULL}, rt = {row, 1, rowShape};
  if (mlp_row(&xt, &it, &rt) != 0)
    fail(mlp_last_error());
  expectClose("row", row, "row3", 4);
  i = 9;
  if (mlp_row(&xt, &it, &rt) != 1)
    fail("row 9 did not fail");
  printf("error: %s\n", mlp_last_error());

  for (int k = 0; k < 3; ++k)
    checkBatch(k);
  /* A batch of 7 images with 6 labels: refused. */
  {
    int64_t xs[] = {7, 4}, ys[] = {6};
    tfl_tensor bx = {batches[1].x, 2, xs}, by = {batches[1].y, 1, ys};
    float loss, gw1[32], gb1[8], gw2[24], gb2[3];
    tfl_tensor lt = {&loss, 0, NULL};
    mlp_MLP pp = params(w1, b1, w2, b2), g = params(gw1, gb1, gw2, gb2);
    if (mlp_loss_grad_batch(&pp, &bx, &by, &lt, &g) != 1)
      fail("batches of two sizes were taken");
    printf("error: %s\n", mlp_last_error());
  }

  /* A bad shape: the call is refused before anything runs. */
  static const int64_t badShape[] = {5, 4};
  tfl_tensor bad = {x, 2, badShape};
  mlp_MLP p = params(w1, b1, w2, b2);
  float logits[18];
  tfl_tensor out = {logits, 2, outShape};
  if (mlp_predict(&p, &bad, &out) != 1)
    fail("a bad shape was taken");
  printf("error: %s\n", mlp_last_error());

  /* The checkpoint mlp.tfl saved holds these parameters. */
  float lw1[32], lb1[8], lw2[24], lb2[3];
  mlp_MLP loaded = params(lw1, lb1, lw2, lb2);
  char path[1024];
  snprintf(path, sizeof path, "%s/mlp.safetensors", dir);
  if (mlp_load_MLP(path, &loaded) != 0)
    fail(mlp_last_error());
  /* (Equal up to rounding: this compiler may contract k * 0.05f - 0.5f
     into one FMA where TFL rounds twice.) */
  if (!same(lw1, w1, 32) || !same(lb1, b1, 8) || !same(lw2, w2, 24) ||
      !same(lb2, b2, 3))
    fail("the checkpoint's parameters");
  printf("ok load\n");
  snprintf(path, sizeof path, "%s/missing.safetensors", dir);
  if (mlp_load_MLP(path, &loaded) != 1)
    fail("a missing checkpoint was read");
  printf("error: %s\n", mlp_last_error());

  /* A second library in the process, with its own runtime. */
  float a[3] = {1, 2, 3}, b[3];
  static const int64_t three[] = {3};
  tfl_tensor at = {a, 1, three}, bt = {b, 1, three};
  if (affine_predict(&at, &bt) != 0)
    fail(affine_last_error());
  if (b[0] != 3 || b[1] != 5 || b[2] != 7)
    fail("affine_predict");
  Results again;
  if (compute(&again) != 0 || memcmp(&again, &reference, sizeof again) != 0)
    fail("mlp after affine");
  printf("ok two libraries\n");

  pthread_t threads[4];
  for (long t = 0; t < 4; ++t)
    pthread_create(&threads[t], NULL, worker, (void *)t);
  for (int t = 0; t < 4; ++t) {
    void *problem;
    pthread_join(threads[t], &problem);
    if (problem)
      fail((const char *)problem);
  }
  printf("ok 4 threads\n");
  return 0;
}
