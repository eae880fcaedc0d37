! pes: 1 2 3 4 8
! Point-to-point synchronization, locks and barriers from Fortran: a token passed round the ring
! with shmem_int4_wait_until and the Fortran SHMEM_CMP_* codes, shmem_wait on a default INTEGER,
! shmem_int8_wait_until with SHMEM_CMP_EQ, a counter in PE 0's COMMON block incremented under
! shmem_set_lock / shmem_test_lock (a default INTEGER lock) with plain get and put, and barrier_all.
! Every check prints the PE, what, the expected and the received value; a mismatch stops with 1.
program fortran_sync
  implicit none
  include 'shmem_functions.fh'
  integer, parameter :: rounds = 3, iters = 50
  integer :: me, npes, right, left, r, i, hop
  integer*4 :: token
  integer*8 :: stamp
  integer :: flag, lock, counter
  common /sync/ stamp, token, flag, lock, counter
  integer :: value
  integer*8 :: arrived

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  right = mod(me + 1, npes)
  left = mod(me + npes - 1, npes)
  token = 0; stamp = 0; flag = 0; lock = 0; counter = 0
  call shmem_barrier_all()

  ! A token goes round the ring `rounds` times, counting hops: PE p (p > 0) receives hop
  ! (r-1)*npes + p in round r, PE 0 receives hop r*npes, and each passes hop + 1 on.
  if (me == 0) call put_token(right, 1)
  do r = 1, rounds
    if (me == 0) then
      hop = r * npes
    else
      hop = (r - 1) * npes + me
    end if
    call shmem_int4_wait_until(token, SHMEM_CMP_EQ, int(hop, 4))
    call check('token hop', int(hop, 8), int(token, 8))
    if (me /= 0 .or. r < rounds) call put_token(right, hop + 1)
  end do
  call shmem_barrier_all()

  ! shmem_wait on a default INTEGER: returns once the left neighbour changed it from 0.
  call shmem_integer_put(flag, [me + 1], 1, right)
  call shmem_wait(flag, 0)
  call check('shmem_wait value', int(left + 1, 8), int(flag, 8))
  call shmem_barrier_all()

  ! shmem_int8_wait_until with SHMEM_CMP_EQ and an 8-byte value from every PE, via atomics.
  call shmem_int8_add(stamp, 1_8, 0)
  if (me == 0) then
    call shmem_int8_wait_until(stamp, SHMEM_CMP_EQ, int(npes, 8))
    arrived = stamp
    call check('int8_wait_until', int(npes, 8), arrived)
  end if
  call shmem_barrier_all()

  ! A critical section: read-modify-write of PE 0's counter with get and put under the lock.
  do i = 1, iters
    if (mod(i, 2) == 0) then
      call shmem_set_lock(lock)
    else
      do while (shmem_test_lock(lock) /= 0)
      end do
    end if
    call shmem_integer_get_one(value)
    call shmem_integer_put_one(value + 1)
    call shmem_clear_lock(lock)
  end do
  call shmem_barrier_all()
  if (me == 0) call check('counter under lock', int(iters, 8) * npes, int(counter, 8))
  call shmem_barrier_all()
  if (me == 0) print '(a, i0, a)', 'fortran_sync: ', npes, ' PEs passed'
  call shmem_finalize()

contains

  ! Puts `v` into PE `pe`'s token with a one-element put (the Fortran API has no p routine).
  subroutine put_token(pe, v)
    integer, intent(in) :: pe, v
    integer*4 :: src(1)
    src(1) = int(v, 4)
    call shmem_put4(token, src, 1, pe)
  end subroutine

  subroutine shmem_integer_get_one(v)
    integer, intent(out) :: v
    integer :: dst(1)
    call shmem_integer_get(dst, counter, 1, 0)
    v = dst(1)
  end subroutine

  subroutine shmem_integer_put_one(v)
    integer, intent(in) :: v
    call shmem_integer_put(counter, [v], 1, 0)
  end subroutine

  subroutine check(what, expected, got)
    character(len=*), intent(in) :: what
    integer*8, intent(in) :: expected, got
    if (expected /= got) then
      print '(a, i0, 3a, i0, a, i0)', 'PE ', me, ': ', what, ': expected ', expected, ', got ', got
      stop 1
    end if
  end subroutine

end program fortran_sync
