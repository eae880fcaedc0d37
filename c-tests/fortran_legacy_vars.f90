! pes: 1 2 3 4
! A legacy program that uses the names of library functions as its own variables (my_pe, n_pes,
! num_pes), as older Fortran codes do; it starts with start_pes and gets the PE number and count
! from shmem_my_pe and shmem_n_pes, which it declares itself. With the default shmem.fh this
! must compile (it would not if the header declared MY_PE as a function). Each PE puts its
! number into slot my_pe of an array on every PE; every PE checks the whole array.
program legacy_vars
  implicit none
  include 'shmem.fh'
  integer shmem_my_pe, shmem_n_pes
  integer my_pe, n_pes, num_pes, pe, i
  integer slots(64)
  common /s/ slots

  call start_pes(0)
  my_pe = shmem_my_pe()
  n_pes = shmem_n_pes()
  num_pes = n_pes
  if (n_pes > 64) then
    print *, 'fortran_legacy_vars: at most 64 PEs'
    stop 2
  end if
  slots = -1
  call shmem_barrier_all()
  do pe = 0, num_pes - 1
    call shmem_integer_put(slots(my_pe + 1), my_pe, 1, pe)
  end do
  call shmem_barrier_all()
  do i = 1, n_pes
    if (slots(i) /= i - 1) then
      print *, 'PE', my_pe, ': slot', i, 'expected', i - 1, ', got', slots(i)
      stop 1
    end if
  end do
  if (my_pe == 0) print *, 'fortran_legacy_vars: passed on', n_pes, 'PEs'
end program legacy_vars
