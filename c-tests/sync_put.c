// pes: 1 2 3 4 8
// timeout: 120
// A put with no quiet before shmem_sync_all or shmem_team_sync: the spec does not promise the
// data is there after the sync, but a program that relies on it worked where the puts and the
// sync's signals share a path, and rshmem keeps it working on every route (docs/ABI.md). Each
// round, every PE puts round-stamped data to its right neighbour (an 8-byte shmem_p into global
// data and a 4 KiB put into the heap), syncs with no quiet, and checks what its left neighbour
// put. The suite runs this on the network route too (RSHMEM_TEST_TRANSPORT), where the signals of
// a sync are messages of their own.
#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define ROUNDS 300
#define WORDS 512

static int64_t stamp;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), errors = 0;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int64_t *block = shmem_malloc(WORDS * sizeof *block);
    int64_t *mine = malloc(WORDS * sizeof *mine);
    REQUIRE(block != NULL && mine != NULL);
    shmem_barrier_all();
    for (int round = 1; round <= ROUNDS; round++) {
        for (int i = 0; i < WORDS; i++)
            mine[i] = (int64_t)round << 32 | (int64_t)me << 16 | i;
        shmem_putmem(block, mine, WORDS * sizeof *mine, right);
        shmem_int64_p(&stamp, (int64_t)round << 16 | me, right);
        if (round % 2)
            shmem_sync_all();
        else
            CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "shmem_team_sync failed");
        CHECK(stamp == ((int64_t)round << 16 | left), "round %d: the shmem_p from PE %d reads %#llx",
              round, left, (long long)stamp);
        for (int i = 0; i < WORDS; i++) {
            int64_t want = (int64_t)round << 32 | (int64_t)left << 16 | i;
            if (block[i] != want) {
                CHECK(0, "round %d: word %d of the put from PE %d reads %#llx, expected %#llx",
                      round, i, left, (long long)block[i], (long long)want);
                break;
            }
        }
        // Nobody overwrites what its right neighbour checks before it has checked it.
        shmem_sync_all();
    }
    free(mine);
    shmem_free(block);
    shmem_finalize();
    return errors != 0;
}
