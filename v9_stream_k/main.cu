#include "common/harness/harness.h"
#include "v9_stream_k/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v9_stream_k::version, argc, argv); }
