// Built with Sandia OpenSHMEM 1.5's constant values (sos/sos_abi.h) and linked against a stand-in libsma.so, run with rshmem preloaded: shmem_info_get_version and
// shmem_info_get_name report the version and vendor string of the header the program was compiled
// with (SOS 1.5.3's: 1.5 and "Sandia OpenSHMEM"), before shmem_init and after it, as the spec has them agree with
// SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION and SHMEM_VENDOR_STRING. rshmem's own would be 1.6 and
// "rshmem".
// build: sos
// pes: 2
// timeout: 60
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static int me = -1, errors;
#include "../check.h"

static void check_info(const char *when)
{
    int major = -1, minor = -1;
    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
          "%s: version %d.%d, the header's %d.%d", when, major, minor, SHMEM_MAJOR_VERSION,
          SHMEM_MINOR_VERSION);
    CHECK(memchr(name, 0, sizeof name) != NULL && strcmp(name, SHMEM_VENDOR_STRING) == 0,
          "%s: name \"%.*s\", the header's \"%s\"", when, (int)sizeof name, name,
          SHMEM_VENDOR_STRING);
}

int main(void)
{
    check_info("before shmem_init");
    shmem_init();
    me = shmem_my_pe();
    check_info("after shmem_init");
    shmem_finalize();
    return errors != 0;
}
