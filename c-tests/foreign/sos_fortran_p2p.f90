! The Fortran point-to-point routines under the SOS personality: compiled with Sandia OpenSHMEM
! 1.5's Fortran values (its shmem.fh: SHMEM_CMP_EQ..LE are 1..6, in another order than rshmem's
! 0..5), written out here as that header would give them, linked against the stand-in libsma.so
! and run with rshmem preloaded. The deprecated SHMEM_WAIT, SHMEM_INT4_WAIT and SHMEM_INT8_WAIT
! wait while the variable equals the value (the library's own "not equal", never a value read as
! SOS's); SHMEM_INT4_WAIT_UNTIL and SHMEM_INT8_WAIT_UNTIL take SOS's codes. Each wait that must
! return at once does; each real wait ends on the value the left neighbour puts after a pause.
! build: sos
! pes: 2 4
! timeout: 60
program sos_fortran_p2p
  implicit none
  integer, parameter :: SHMEM_CMP_EQ = 1, SHMEM_CMP_NE = 2, SHMEM_CMP_GT = 3
  integer, parameter :: SHMEM_CMP_GE = 4, SHMEM_CMP_LT = 5, SHMEM_CMP_LE = 6
  integer :: shmem_my_pe, shmem_n_pes
  integer :: me, npes, right, left
  integer :: flag
  integer*4 :: flag4
  integer*8 :: flag8
  common /p2p/ flag8, flag4, flag

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  right = mod(me + 1, npes)
  left = mod(me + npes - 1, npes)

  ! Waits whose condition already holds return at once.
  flag = 4; flag4 = 4; flag8 = 4
  call shmem_wait(flag, 3)
  call shmem_int4_wait(flag4, 3_4)
  call shmem_int8_wait(flag8, 3_8)
  call shmem_int4_wait_until(flag4, SHMEM_CMP_EQ, 4_4)
  call shmem_int4_wait_until(flag4, SHMEM_CMP_NE, 5_4)
  call shmem_int4_wait_until(flag4, SHMEM_CMP_GT, 3_4)
  call shmem_int4_wait_until(flag4, SHMEM_CMP_GE, 4_4)
  call shmem_int4_wait_until(flag4, SHMEM_CMP_LT, 5_4)
  call shmem_int4_wait_until(flag4, SHMEM_CMP_LE, 4_4)
  call shmem_int8_wait_until(flag8, SHMEM_CMP_EQ, 4_8)
  call shmem_int8_wait_until(flag8, SHMEM_CMP_NE, 3_8)

  ! Real waits: each variable is 0 until the left neighbour puts left + 1 into it.
  flag = 0; flag4 = 0; flag8 = 0
  call shmem_barrier_all()
  if (me == 0) call nap()
  call shmem_integer_put(flag, [me + 1], 1, right)
  call shmem_wait(flag, 0)
  call check('shmem_wait', left + 1, flag)
  call shmem_barrier_all()
  if (me == 0) call nap()
  call shmem_put32(flag4, [int(me + 1, 4)], 1, right)
  call shmem_int4_wait(flag4, 0_4)
  call check('shmem_int4_wait', left + 1, int(flag4))
  call shmem_barrier_all()
  if (me == 0) call nap()
  call shmem_put64(flag8, [int(me + 1, 8)], 1, right)
  call shmem_int8_wait(flag8, 0_8)
  call check('shmem_int8_wait', left + 1, int(flag8))
  call shmem_barrier_all()
  flag4 = 0
  call shmem_barrier_all()
  if (me == 0) call nap()
  call shmem_put32(flag4, [int(me + 1, 4)], 1, right)
  call shmem_int4_wait_until(flag4, SHMEM_CMP_GE, 1_4)
  call check('shmem_int4_wait_until GE', left + 1, int(flag4))
  call shmem_barrier_all()
  if (me == 0) print '(a, i0, a)', 'sos_fortran_p2p: ok on ', npes, ' PEs'
  call shmem_finalize()

contains

  subroutine check(what, want, got)
    character(*), intent(in) :: what
    integer, intent(in) :: want, got
    if (want /= got) then
      print '(a, i0, 3a, i0, a, i0)', '[PE ', me, '] sos_fortran_p2p: ', what, ': want ', want, &
        ', got ', got
      stop 1
    end if
  end subroutine check

  ! About 50 ms, so that the neighbour really waits.
  subroutine nap()
    integer*8 :: start, now, rate
    call system_clock(start, rate)
    do
      call system_clock(now)
      if (now - start > rate / 20) exit
    end do
  end subroutine nap

end program sos_fortran_p2p
