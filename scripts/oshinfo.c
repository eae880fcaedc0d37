/* oshinfo: what this rshmem is and what it can use on this machine (what oshmem_info is to Open
 * MPI users): version, spec level, build, the UCX it runs with and the devices UCX sees, libpmix,
 * the launchers on PATH, the limits, and every SHMEM_* variable with its default and current
 * value. The library itself writes the report (rshmemx_info_print in shmemx.h), from the same
 * configuration table that shmem_init reads; scripts/install builds this file into bin/oshinfo.
 *
 * Usage: oshinfo [--parsable]     --parsable: `key:value` lines, for scripts
 */
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int parsable = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--parsable") == 0 || strcmp(argv[i], "--parseable") == 0) {
            parsable = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: oshinfo [--parsable]\n");
            return 0;
        } else {
            fprintf(stderr, "oshinfo: unknown argument '%s' (usage: oshinfo [--parsable])\n", argv[i]);
            return 2;
        }
    }
    return rshmemx_info_print(parsable) == 0 ? 0 : 1;
}
