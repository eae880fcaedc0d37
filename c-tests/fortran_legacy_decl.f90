! pes: 1 2 3 4
! A legacy program in the style of public Fortran test suites and the NPB benchmarks: it includes
! the default shmem.fh and declares the functions it calls itself, with IMPLICIT NONE (integer
! shmem_my_pe, shmem_n_pes, integer*8 shmem_int8_fadd). A second declaration of their types in
! the header would stop it from compiling. Each PE adds its number + 1 to a counter on PE 0 with
! the fetching add, and PE 0 checks the sum; shmem_pe_accessible, declared by the header, is
! checked for every PE and one past the last.
program legacy_decl
  implicit none
  include 'shmem.fh'
  integer shmem_my_pe, shmem_n_pes
  integer*8 shmem_int8_fadd
  integer me, npes, pe
  integer*8 counter, old, expected
  common /cnt/ counter

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  counter = 0
  call shmem_barrier_all()
  old = shmem_int8_fadd(counter, int(me + 1, 8), 0)
  if (old < 0) then
    print *, 'PE', me, ': fadd returned a negative old value', old
    stop 1
  end if
  call shmem_barrier_all()
  if (me == 0) then
    expected = int(npes, 8) * int(npes + 1, 8) / 2
    if (counter /= expected) then
      print *, 'PE 0: counter expected', expected, ', got', counter
      stop 1
    end if
  end if
  do pe = 0, npes - 1
    if (.not. shmem_pe_accessible(pe)) then
      print *, 'PE', me, ': PE', pe, 'is not accessible'
      stop 1
    end if
  end do
  if (shmem_pe_accessible(npes)) then
    print *, 'PE', me, ': PE', npes, '(past the last) is accessible'
    stop 1
  end if
  call shmem_barrier_all()
  if (me == 0) print *, 'fortran_legacy_decl: passed on', npes, 'PEs'
  call shmem_finalize()
end program legacy_decl
