#include "common/harness/harness.h"
#include "v2_pipelined/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v2_pipelined::version, argc, argv); }
