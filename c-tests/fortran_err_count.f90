! pes: 2
! expect-fail: shmem_integer_put: nelems = -3 is negative
! A negative element count from Fortran is reported, naming the routine and the argument, and the
! job stops with a non-zero status.
program fortran_err_count
  implicit none
  include 'shmem_functions.fh'
  integer :: dest(4), src(4)
  common /d/ dest
  call shmem_init()
  src = 1
  call shmem_integer_put(dest, src, -3, mod(shmem_my_pe() + 1, shmem_n_pes()))
  call shmem_finalize()
end program fortran_err_count
