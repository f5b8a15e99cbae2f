/* Raw MPI_Allreduce (sum, float) at the sizes of allreduce.tfl, with the
   same warm-up and iterations, in the style of the OSU micro-benchmarks'
   osu_allreduce: prints, on rank 0, each size in bytes and the seconds per
   all-reduce (the mean over the ranks). From one buffer to another, or with
   --in-place on one buffer (MPI_IN_PLACE, as TFL reduces a tensor that
   dies at the all_reduce). Built by bench/dist.sh with mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int inPlace = 0;

static void measure(long count, int iters) {
  float *in = calloc(count, sizeof(float));
  float *out = calloc(count, sizeof(float));
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const void *send = inPlace ? MPI_IN_PLACE : in;
  for (int i = 0; i < 5; ++i)
    MPI_Allreduce(send, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < iters; ++i)
    MPI_Allreduce(send, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double seconds = (MPI_Wtime() - start) / iters, mean = 0;
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&seconds, &mean, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%ld %.9f\n", count * 4, mean / size);
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  inPlace = argc > 1 && strcmp(argv[1], "--in-place") == 0;
  measure(256, 2000);
  measure(16384, 1000);
  measure(262144, 200);
  measure(1048576, 60);
  measure(4194304, 20);
  measure(16777216, 8);
  MPI_Finalize();
  return 0;
}
