! pes: 1 2 3 4 8
! Atomic memory operations from Fortran: every PE hammers counters on PE 0 (and on its right
! neighbour) with the INT4/INT8 add, fadd, inc, finc and cswap forms, and the totals must be exact;
! fetch, set and swap on INT4, INT8, REAL4, REAL8 and SHMEM_SWAP on a default INTEGER. Every check
! prints the PE, what, the expected and the received value, and stops with status 1 on a mismatch.
program fortran_amo
  implicit none
  include 'shmem_functions.fh'
  integer, parameter :: iters = 200
  integer :: me, npes, right, left, i
  integer*4 :: c4add, c4fadd, c4inc, c4finc, c4cas, v4
  integer*8 :: c8add, c8fadd, c8inc, c8finc, c8cas, v8
  real*4 :: r4
  real*8 :: r8
  integer :: dflt
  integer*4 :: seen4(iters)
  common /counters/ c4add, c4fadd, c4inc, c4finc, c4cas, v4, c8add, c8fadd, c8inc, c8finc, c8cas, v8
  common /values/ r8, r4, dflt
  integer*4 :: old4, got4
  integer*8 :: old8, got8
  real*4 :: old_r4
  real*8 :: old_r8
  integer :: old_dflt
  integer*8 :: total

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  right = mod(me + 1, npes)
  left = mod(me + npes - 1, npes)
  c4add = 0; c4fadd = 0; c4inc = 0; c4finc = 0; c4cas = 0; v4 = 0
  c8add = 0; c8fadd = 0; c8inc = 0; c8finc = 0; c8cas = 0; v8 = 0
  r4 = 0; r8 = 0; dflt = 0
  call shmem_barrier_all()

  ! Concurrent updates of PE 0's counters.
  do i = 1, iters
    call shmem_int4_add(c4add, int(me + 1, 4), 0)
    call shmem_int8_add(c8add, int(me + 1, 8), 0)
    old4 = shmem_int4_fadd(c4fadd, 2_4, 0)
    old8 = shmem_int8_fadd(c8fadd, 3_8, 0)
    call shmem_int4_inc(c4inc, 0)
    call shmem_int8_inc(c8inc, 0)
    seen4(i) = shmem_int4_finc(c4finc, 0)
    old8 = shmem_int8_finc(c8finc, 0)
    ! A compare-and-swap increment: retry until this PE's swap wins.
    do
      old4 = shmem_int4_fetch(c4cas, 0)
      if (shmem_int4_cswap(c4cas, old4, old4 + 1_4, 0) == old4) exit
    end do
    do
      old8 = shmem_int8_fetch(c8cas, 0)
      if (shmem_int8_cswap(c8cas, old8, old8 + 1_8, 0) == old8) exit
    end do
  end do
  ! finc hands out distinct, increasing tickets to one PE.
  do i = 2, iters
    if (seen4(i) <= seen4(i - 1)) then
      call check('int4_finc increasing', int(seen4(i - 1), 8) + 1, int(seen4(i), 8))
    end if
  end do
  call shmem_barrier_all()
  if (me == 0) then
    total = int(iters, 8) * npes * (npes + 1) / 2
    call check('int4_add total', total, int(c4add, 8))
    call check('int8_add total', total, c8add)
    call check('int4_fadd total', 2_8 * iters * npes, int(c4fadd, 8))
    call check('int8_fadd total', 3_8 * iters * npes, c8fadd)
    call check('int4_inc total', int(iters, 8) * npes, int(c4inc, 8))
    call check('int8_inc total', int(iters, 8) * npes, c8inc)
    call check('int4_finc total', int(iters, 8) * npes, int(c4finc, 8))
    call check('int8_finc total', int(iters, 8) * npes, c8finc)
    call check('int4_cswap total', int(iters, 8) * npes, int(c4cas, 8))
    call check('int8_cswap total', int(iters, 8) * npes, c8cas)
  end if
  call shmem_barrier_all()

  ! fetch, set, swap on the right neighbour.
  call shmem_int4_set(v4, int(10 * me + 1, 4), right)
  call shmem_int8_set(v8, 5000000000_8 + me, right)
  call shmem_real4_set(r4, 0.5 * real(me), right)
  call shmem_real8_set(r8, 0.25d0 * dble(me), right)
  call shmem_barrier_all()
  call check('int4_set', int(10 * left + 1, 8), int(v4, 8))
  call check('int8_set', 5000000000_8 + left, v8)
  call checkr('real4_set', dble(0.5 * real(left)), dble(r4))
  call checkr('real8_set', 0.25d0 * dble(left), r8)
  got4 = shmem_int4_fetch(v4, right)
  got8 = shmem_int8_fetch(v8, right)
  call check('int4_fetch', int(10 * me + 1, 8), int(got4, 8))
  call check('int8_fetch', 5000000000_8 + me, got8)
  call checkr('real4_fetch', dble(0.5 * real(me)), dble(shmem_real4_fetch(r4, right)))
  call checkr('real8_fetch', 0.25d0 * dble(me), shmem_real8_fetch(r8, right))
  call shmem_barrier_all()
  old4 = shmem_int4_swap(v4, -7_4, right)
  old8 = shmem_int8_swap(v8, -9_8, right)
  old_r4 = shmem_real4_swap(r4, 1.5, right)
  old_r8 = shmem_real8_swap(r8, 2.5d0, right)
  old_dflt = shmem_swap(dflt, me + 100, right)
  call check('int4_swap old', int(10 * me + 1, 8), int(old4, 8))
  call check('int8_swap old', 5000000000_8 + me, old8)
  call checkr('real4_swap old', dble(0.5 * real(me)), dble(old_r4))
  call checkr('real8_swap old', 0.25d0 * dble(me), old_r8)
  call check('swap old', 0_8, int(old_dflt, 8))
  call shmem_barrier_all()
  call check('int4_swap new', -7_8, int(v4, 8))
  call check('int8_swap new', -9_8, v8)
  call checkr('real4_swap new', 1.5d0, dble(r4))
  call checkr('real8_swap new', 2.5d0, r8)
  call check('swap new', int(left + 100, 8), int(dflt, 8))

  call shmem_barrier_all()
  if (me == 0) print '(a, i0, a)', 'fortran_amo: ', npes, ' PEs passed'
  call shmem_finalize()

contains

  subroutine check(what, expected, got)
    character(len=*), intent(in) :: what
    integer*8, intent(in) :: expected, got
    if (expected /= got) then
      print '(a, i0, 3a, i0, a, i0)', 'PE ', me, ': ', what, ': expected ', expected, ', got ', got
      stop 1
    end if
  end subroutine

  subroutine checkr(what, expected, got)
    character(len=*), intent(in) :: what
    double precision, intent(in) :: expected, got
    if (expected /= got) then
      print '(a, i0, 3a, g0, a, g0)', 'PE ', me, ': ', what, ': expected ', expected, ', got ', got
      stop 1
    end if
  end subroutine

end program fortran_amo
