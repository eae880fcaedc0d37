! pes: 1 2 3 4 8
! timeout: 90
! The Fortran active-set collectives at their edges (fortran_coll.f90 covers the usual calls):
!  - nelems 0 (nreduce 0): SHMEM_BROADCAST64, SHMEM_COLLECT64, SHMEM_FCOLLECT64, SHMEM_ALLTOALL64,
!    SHMEM_ALLTOALLS64 and SHMEM_INT8_SUM_TO_ALL return and write nothing;
!  - a reduction in place (dest and source the same array), SHMEM_INT8_SUM_TO_ALL and
!    SHMEM_REAL8_MAX_TO_ALL over the world;
!  - active sets of one PE (PE_start = the PE, PE_size 1): the broadcast writes nothing (the root's
!    dest is not updated), collect, fcollect and alltoall copy the PE's own data, the sum is the
!    source;
!  - SHMEM_BROADCAST64 from the last member of the world (PE_root = npes - 1);
!  - SHMEM_COLLECT64 where the odd PEs contribute no element.
! Every element of each dest array is checked against its expected value or its sentinel; a
! mismatch prints the PE, the case, the element and both values, and the program stops with 1.
program fortran_coll_edges
  implicit none
  include 'shmem_functions.fh'
  integer, parameter :: n = 4, maxpes = 16, m = n * maxpes
  integer, parameter :: nwrk = max(n, SHMEM_REDUCE_MIN_WRKDATA_SIZE)
  integer*8, parameter :: sentinel = -7777
  integer :: psync_bcast(SHMEM_BCAST_SYNC_SIZE), psync_collect(SHMEM_COLLECT_SYNC_SIZE)
  integer :: psync_reduce(SHMEM_REDUCE_SYNC_SIZE), psync_alltoall(SHMEM_ALLTOALL_SYNC_SIZE)
  integer :: psync_alltoalls(SHMEM_ALLTOALLS_SYNC_SIZE)
  common /syncs/ psync_bcast, psync_collect, psync_reduce, psync_alltoall, psync_alltoalls
  integer*8 :: src(m), dst(m), red(n), wrk(nwrk)
  common /data8/ src, dst, red, wrk
  real*8 :: rred(n), rwrk(nwrk)
  common /datar/ rred, rwrk
  integer :: me, npes, i, pe, got_n
  integer*8 :: expect(m)

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  if (npes > maxpes) then
    print '(a, i0, a, i0, a)', 'PE ', me, ': fortran_coll_edges holds at most ', maxpes, ' PEs'
    stop 1
  end if
  psync_bcast = int(SHMEM_SYNC_VALUE); psync_collect = int(SHMEM_SYNC_VALUE)
  psync_reduce = int(SHMEM_SYNC_VALUE); psync_alltoall = int(SHMEM_SYNC_VALUE)
  psync_alltoalls = int(SHMEM_SYNC_VALUE)

  ! nelems 0: nothing written.
  call reset()
  expect = sentinel
  call shmem_broadcast64(dst, src, 0, 0, 0, 0, npes, psync_bcast)
  call check('broadcast64 of 0', m)
  call reset()
  call shmem_collect64(dst, src, 0, 0, 0, npes, psync_collect)
  call check('collect64 of 0', m)
  call reset()
  call shmem_fcollect64(dst, src, 0, 0, 0, npes, psync_collect)
  call check('fcollect64 of 0', m)
  call reset()
  call shmem_alltoall64(dst, src, 0, 0, 0, npes, psync_alltoall)
  call check('alltoall64 of 0', m)
  call reset()
  call shmem_alltoalls64(dst, src, 2, 3, 0, 0, 0, npes, psync_alltoalls)
  call check('alltoalls64 of 0', m)
  call reset()
  call shmem_int8_sum_to_all(dst, src, 0, 0, 0, npes, wrk, psync_reduce)
  call check('int8_sum_to_all of 0', m)

  ! Reductions in place.
  call reset()
  do i = 1, n
    red(i) = int(me + 1, 8) * i
    rred(i) = real(mod(me * 7 + i, npes + 3), 8)
  end do
  call shmem_barrier_all()
  call shmem_int8_sum_to_all(red, red, n, 0, 0, npes, wrk, psync_reduce)
  call shmem_barrier_all()
  do i = 1, n
    if (red(i) /= int(npes, 8) * (npes + 1) / 2 * i) call fail('int8_sum_to_all in place', i, &
      int(npes, 8) * (npes + 1) / 2 * i, red(i))
  end do
  call shmem_real8_max_to_all(rred, rred, n, 0, 0, npes, rwrk, psync_reduce)
  call shmem_barrier_all()
  do i = 1, n
    if (rred(i) /= maxr(i)) call fail('real8_max_to_all in place', i, int(maxr(i), 8), &
      int(rred(i), 8))
  end do

  ! Active sets of one: each PE alone.
  call reset()
  call shmem_broadcast64(dst, src, n, 0, me, 0, 1, psync_bcast)
  expect = sentinel
  call check('broadcast64 on a set of one', m)
  call reset()
  call shmem_collect64(dst, src, n, me, 0, 1, psync_collect)
  expect = sentinel
  expect(1:n) = src(1:n)
  call check('collect64 on a set of one', m)
  call reset()
  call shmem_fcollect64(dst, src, n, me, 0, 1, psync_collect)
  call check('fcollect64 on a set of one', m)
  call reset()
  call shmem_alltoall64(dst, src, n, me, 0, 1, psync_alltoall)
  call check('alltoall64 on a set of one', m)
  call reset()
  call shmem_int8_sum_to_all(dst, src, n, me, 0, 1, wrk, psync_reduce)
  call check('int8_sum_to_all on a set of one', m)

  ! Broadcast from the last PE of the world: the root's dest keeps its sentinels.
  call reset()
  call shmem_broadcast64(dst, src, n, npes - 1, 0, 0, npes, psync_bcast)
  expect = sentinel
  if (me /= npes - 1) then
    do i = 1, n
      expect(i) = value(npes - 1, i)
    end do
  end if
  call check('broadcast64 from the last PE', m)

  ! Collect where the odd PEs contribute nothing: the even PEs' n elements, in PE order.
  call reset()
  call shmem_collect64(dst, src, n * (1 - mod(me, 2)), 0, 0, npes, psync_collect)
  expect = sentinel
  got_n = 0
  do pe = 0, npes - 1, 2
    do i = 1, n
      expect(got_n + i) = value(pe, i)
    end do
    got_n = got_n + n
  end do
  call check('collect64 with the odd PEs empty', m)

  call shmem_barrier_all()
  if (me == 0) print '(a, i0, a)', 'fortran_coll_edges: ', npes, ' PEs passed'
  call shmem_finalize()

contains

  integer*8 function value(pe, i)
    integer, intent(in) :: pe, i
    value = int(pe, 8) * 1000 + i
  end function

  ! The largest contribution to element i of the real reduction.
  real*8 function maxr(i)
    integer, intent(in) :: i
    integer :: p
    maxr = -1
    do p = 0, npes - 1
      maxr = max(maxr, real(mod(p * 7 + i, npes + 3), 8))
    end do
  end function

  ! Sentinels in dst, this PE's values in src, and every PE past its previous call.
  subroutine reset()
    integer :: j
    call shmem_barrier_all()
    dst = sentinel
    do j = 1, m
      src(j) = value(me, j)
    end do
    call shmem_barrier_all()
  end subroutine

  ! dst(1:k) against expect(1:k), after every PE has returned.
  subroutine check(what, k)
    character(len=*), intent(in) :: what
    integer, intent(in) :: k
    integer :: j
    call shmem_barrier_all()
    do j = 1, k
      if (dst(j) /= expect(j)) call fail(what, j, expect(j), dst(j))
    end do
  end subroutine

  subroutine fail(what, j, want, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: j
    integer*8, intent(in) :: want, got
    print '(a, i0, a, a, a, i0, a, i0, a, i0)', 'PE ', me, ': ', what, ': element ', j, &
      ' expected ', want, ' got ', got
    stop 1
  end subroutine
end program
