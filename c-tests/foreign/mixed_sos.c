// One process, two ABIs: a program compiled with rshmem's shmem.h calls a library compiled with
// Sandia OpenSHMEM's values and linked against libsma.so. SHMEM_CMP_NE is 1 in the program and 2
// in the library, and 1 is SOS's EQ: no single reading of the values is right, so shmem_init must
// stop the job and name both objects instead of picking one.
// build: mixed-sos
// pes: 2
// timeout: 30
// expect-fail: two OpenSHMEM ABIs
#include <shmem.h>
#include <stdio.h>

#ifdef PART_LIBRARY
int part_test_ne(int *var, int value) { return shmem_int_test(var, SHMEM_CMP_NE, value); }
#else
int part_test_ne(int *var, int value);

static int var = 5;

int main(void) {
    shmem_init();
    /* Not reached when the library stops the job as it must. */
    int mine = shmem_int_test(&var, SHMEM_CMP_NE, 4);
    int theirs = part_test_ne(&var, 4);
    printf("mixed_sos: program's NE gave %d, library's NE gave %d\n", mine, theirs);
    shmem_finalize();
    return 0;
}
#endif
