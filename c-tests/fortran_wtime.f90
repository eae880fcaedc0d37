! pes: 1 2
! Sandia OpenSHMEM's Fortran SHMEMX_WTIME(), a REAL*8 function (its shmemx.fh declares it): seconds
! on a monotonic clock, never decreasing, advancing while the program waits.
program fortran_wtime
  implicit none
  include 'shmem_functions.fh'
  real*8 :: shmemx_wtime
  external :: shmemx_wtime
  real*8 :: t0, t, prev
  integer :: i

  call shmem_init()
  t0 = shmemx_wtime()
  prev = t0
  t = t0
  do i = 1, 100000000
    t = shmemx_wtime()
    if (t < prev) then
      print *, 'PE', shmem_my_pe(), ': shmemx_wtime went back from', prev, 'to', t
      stop 1
    end if
    prev = t
    if (t >= t0 + 0.01d0) exit
  end do
  if (t < t0 + 0.01d0 .or. t > t0 + 10d0) then
    print *, 'PE', shmem_my_pe(), ': shmemx_wtime', t, 'after', t0
    stop 1
  end if
  call shmem_finalize()
end program fortran_wtime
