! pes: 1 2 3 4 8
! A fixed-form (FORTRAN 77 style) program with the deprecated INCLUDE 'mpp/shmem.fh',
! START_PES, MY_PE, NUM_PES, a COMMON block put to the right neighbour with SHMEM_PUT8 and
! SHMEM_FENCE, the flag waited on with SHMEM_INT8_WAIT, and SHMEM_BARRIER_ALL. A mismatch
! prints the PE, what, the expected and the received value and stops with status 1. Like legacy
! programs it declares the functions it calls itself (INTEGER MY_PE, NUM_PES): the default header
! must not declare their types too.
      PROGRAM FIXED
      IMPLICIT NONE
      INCLUDE 'mpp/shmem.fh'
      INTEGER MY_PE, NUM_PES
      INTEGER ME, NPES, RIGHT, LEFT, I
      INTEGER*8 DATA(16), FLAG, SRC(16), ONE(1)
      COMMON /BLK/ DATA, FLAG
      CALL START_PES(0)
      ME = MY_PE()
      NPES = NUM_PES()
      RIGHT = MOD(ME + 1, NPES)
      LEFT = MOD(ME + NPES - 1, NPES)
      FLAG = 0
      DO 10 I = 1, 16
         DATA(I) = 0
         SRC(I) = 1000 * ME + I
   10 CONTINUE
      CALL SHMEM_BARRIER_ALL()
      CALL SHMEM_PUT8(DATA, SRC, 16, RIGHT)
      CALL SHMEM_FENCE()
      ONE(1) = 1
      CALL SHMEM_PUT64(FLAG, ONE, 1, RIGHT)
      CALL SHMEM_INT8_WAIT(FLAG, 0_8)
      DO 20 I = 1, 16
         IF (DATA(I) .NE. 1000 * LEFT + I) THEN
            PRINT *, 'PE', ME, ': put8 after fence: expected',
     &         1000 * LEFT + I, ', got', DATA(I)
            STOP 1
         END IF
   20 CONTINUE
      CALL SHMEM_BARRIER_ALL()
      IF (ME .EQ. 0) PRINT *, 'fortran_fixed: passed on', NPES, 'PEs'
      END
