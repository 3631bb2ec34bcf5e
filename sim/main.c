/* main.c - the infersim binary: a thin shell around the library's command line. */
#include <stdio.h>

#include "cli.h"

int main(int argc, char **argv) { return sim_cli_main(argc, argv, stdout, stderr); }
