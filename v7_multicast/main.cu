#include "common/harness/harness.h"
#include "v7_multicast/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v7_multicast::version, argc, argv); }
