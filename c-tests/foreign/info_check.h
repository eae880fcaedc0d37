/* The program of oshmem_info.c and sos_info.c, which differ in the header they are built with:
 * shmem_info_get_version and shmem_info_get_name must give that header's SHMEM_MAJOR_VERSION,
 * SHMEM_MINOR_VERSION and SHMEM_VENDOR_STRING, before shmem_init and after it. */
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
