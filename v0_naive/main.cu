#include "common/harness/harness.h"
#include "v0_naive/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v0_naive::version, argc, argv); }
