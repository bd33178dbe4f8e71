#include "common/harness/harness.h"
#include "v4_two_consumers/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v4_two_consumers::version, argc, argv); }
