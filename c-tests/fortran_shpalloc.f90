! pes: 1 2 3 4 8
! The symmetric heap from Fortran through Cray pointers: SHPALLOC (length in 4-byte words), puts
! and gets into the allocated arrays on the right neighbour, SHPCLMOVE growing a block with its
! contents kept, SHPDEALLC, and the error codes with abort = 0: -1 for a length that is not
! positive, -3 for an address outside the heap, -4 for a block already deallocated, -5 for an
! address inside a block. Every check prints the PE, what, the expected and the received value;
! a mismatch stops with status 1.
program fortran_shpalloc
  implicit none
  include 'shmem_functions.fh'
  integer, parameter :: n = 64
  integer :: me, npes, right, left, i, errcode, status
  integer :: a(2 * n), c(1)
  double precision :: b(n)
  pointer (pa, a)
  pointer (pb, b)
  pointer (pc, c)
  integer*8 :: pa_old, bad
  integer :: plain
  common /data/ plain
  integer :: local(2 * n)

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  right = mod(me + 1, npes)
  left = mod(me + npes - 1, npes)

  ! n default INTEGERs (n words) and n DOUBLE PRECISION (2n words).
  call shpalloc(pa, n, errcode, 0)
  call check('shpalloc(a) errcode', 0, errcode)
  call shpalloc(pb, 2 * n, errcode, 1)
  call check('shpalloc(b) errcode', 0, errcode)
  call check('shpalloc(a) is symmetric', 1, merge(1, 0, shmem_addr_accessible(a, right)))
  do i = 1, n
    a(i) = -1
    b(i) = -1d0
    local(i) = 100 * me + i
  end do
  call shmem_barrier_all()
  call shmem_integer_put(a, local, n, right)
  call shmem_double_put(b, [(dble(me) + 0.5d0 * i, i = 1, n)], n, right)
  call shmem_barrier_all()
  do i = 1, n
    call check('put into shpalloc array', 100 * left + i, a(i))
    if (b(i) /= dble(left) + 0.5d0 * i) call check('double put into shpalloc array', 1, 0)
  end do
  local = 0
  call shmem_integer_get(local, a, n, right)
  do i = 1, n
    call check('get from shpalloc array', 100 * me + i, local(i))
  end do
  call shmem_barrier_all()

  ! Grow a to 2n words: the first n keep their values (a may move; status says whether it did).
  pa_old = pa
  call shpclmove(pa, 2 * n, status, 0)
  if (status /= 0 .and. status /= 1) call check('shpclmove status', 0, status)
  call check('shpclmove status matches the move', merge(0, 1, pa == pa_old), status)
  do i = 1, n
    call check('contents after shpclmove', 100 * left + i, a(i))
  end do
  do i = n + 1, 2 * n
    a(i) = me
  end do
  call shmem_barrier_all()
  call shmem_integer_get(local, a, 2 * n, right)
  call check('get from the grown block', right, local(2 * n))

  ! Error codes, abort = 0 (every PE gets the same ones: the calls are collective).
  call shpalloc(pc, 0, errcode, 0)
  call check('shpalloc length 0', -1, errcode)
  call shpclmove(pa, -4, status, 0)
  call check('shpclmove length -4', -1, status)
  bad = loc(plain)
  call shpdeallc(bad, errcode, 0)
  call check('shpdeallc outside the heap', -3, errcode)
  bad = pa + 8
  call shpdeallc(bad, errcode, 0)
  call check('shpdeallc inside a block', -5, errcode)

  call shmem_barrier_all()
  call shpdeallc(pb, errcode, 0)
  call check('shpdeallc(b)', 0, errcode)
  call shpdeallc(pb, errcode, 0)
  call check('shpdeallc(b) again', -4, errcode)
  call shpdeallc(pa, errcode, 1)
  call check('shpdeallc(a)', 0, errcode)

  call shmem_barrier_all()
  if (me == 0) print '(a, i0, a)', 'fortran_shpalloc: ', npes, ' PEs passed'
  call shmem_finalize()

contains

  subroutine check(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    if (expected /= got) then
      print '(a, i0, 3a, i0, a, i0)', 'PE ', me, ': ', what, ': expected ', expected, ', got ', got
      stop 1
    end if
  end subroutine

end program fortran_shpalloc
