/* main.c - the infersim binary: a thin shell around the library's command line. */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

int main(int argc, char **argv) { return sim_cli_main_fd(argc, argv, STDOUT_FILENO, stderr); }
