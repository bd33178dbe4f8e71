#include "common/harness/harness.h"
#include "v1_tma/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v1_tma::version, argc, argv); }
