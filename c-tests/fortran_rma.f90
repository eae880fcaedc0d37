! pes: 1 2 3 4 8
! Remote memory access from Fortran on COMMON blocks (symmetric data): every typed, sized and
! strided put and get, the non-blocking forms, SHMEM_PUT (64-bit elements), to the right
! neighbour; shmem_ptr (non-NULL exactly for a neighbour on this host), pe/addr_accessible,
! info_get_version/name. Every check prints the PE, what, the expected and the received value,
! and the program stops with status 1 on a mismatch.
program fortran_rma
  implicit none
  include 'shmem_functions.fh'
  integer, parameter :: n = 8
  integer :: me, npes, right, left, i
  integer :: ia(n), ib(n)
  real :: ra(n)
  double precision :: da(n)
  complex :: ca(n)
  logical :: la(n)
  character(len=n) :: cha
  integer*4 :: s4(n), s32(n)
  integer*8 :: s8(n), s64(n), s128(2*n), sput(n)
  integer*1 :: smem(n)
  integer :: ist(2*n)
  integer :: inbi(n)
  real :: rnbi(n)
  common /typed/ ia, ib, ra, da, ca, la
  common /chars/ cha
  character(len=64) :: myhost
  common /host/ myhost
  common /sized/ s4, s32, s8, s64, s128, sput, smem, ist, inbi, rnbi
  integer :: li(n)
  real :: lr(n)
  double precision :: ld(n)
  complex :: lc(n)
  logical :: ll(n)
  character(len=n) :: lch
  integer*4 :: l4(n)
  integer*8 :: l8(n), l128(2*n)
  integer*1 :: lmem(n)
  integer :: lst(2*n)
  integer :: major, minor
  character(len=40) :: vendor
  character(len=8) :: transport
  character(len=64) :: theirhost
  logical :: on_host
  integer*8 :: remote
  integer :: peer_ia(n)
  pointer (remote, peer_ia)

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  right = mod(me + 1, npes)
  left = mod(me + npes - 1, npes)

  ! Typed puts: each PE writes its own pattern into its right neighbour's COMMON arrays.
  call clear_all()
  call shmem_barrier_all()
  do i = 1, n
    li(i) = 1000 * me + i
    lr(i) = real(me) + 0.25 * real(i)
    ld(i) = dble(me) + 0.125d0 * dble(i)
    lc(i) = cmplx(real(me), real(i))
    ll(i) = mod(i + me, 2) == 0
  end do
  lch = 'abcdefgh'
  lch(1:1) = achar(iachar('A') + mod(me, 26))
  call shmem_integer_put(ia, li, n, right)
  call shmem_real_put(ra, lr, n, right)
  call shmem_double_put(da, ld, n, right)
  call shmem_complex_put(ca, lc, n, right)
  call shmem_logical_put(la, ll, n, right)
  call shmem_character_put(cha, lch, n, right)
  call shmem_barrier_all()
  do i = 1, n
    call check_i('integer_put', int(1000 * left + i, 8), int(ia(i), 8))
    call check_r('real_put', dble(real(left) + 0.25 * real(i)), dble(ra(i)))
    call check_r('double_put', dble(left) + 0.125d0 * dble(i), da(i))
    call check_r('complex_put re', dble(left), dble(real(ca(i))))
    call check_r('complex_put im', dble(i), dble(aimag(ca(i))))
    call check_l('logical_put', mod(i + left, 2) == 0, la(i))
  end do
  call check_c('character_put', achar(iachar('A') + mod(left, 26)) // 'bcdefgh', cha)

  ! Typed gets: read the right neighbour's arrays (which hold what this PE put there).
  li = 0; lr = 0; ld = 0; lc = (0.0, 0.0); ll = .false.; lch = ' '
  call shmem_barrier_all()
  call shmem_integer_get(li, ia, n, right)
  call shmem_real_get(lr, ra, n, right)
  call shmem_double_get(ld, da, n, right)
  call shmem_complex_get(lc, ca, n, right)
  call shmem_logical_get(ll, la, n, right)
  call shmem_character_get(lch, cha, n, right)
  do i = 1, n
    call check_i('integer_get', int(1000 * me + i, 8), int(li(i), 8))
    call check_r('real_get', dble(real(me) + 0.25 * real(i)), dble(lr(i)))
    call check_r('double_get', dble(me) + 0.125d0 * dble(i), ld(i))
    call check_r('complex_get', dble(i), dble(aimag(lc(i))))
    call check_l('logical_get', mod(i + me, 2) == 0, ll(i))
  end do
  call check_c('character_get', achar(iachar('A') + mod(me, 26)) // 'bcdefgh', lch)

  ! Sized puts: 4 and 32 bits, 8 and 64 bits, 128 bits (pairs of 8-byte integers), bytes, and
  ! the deprecated SHMEM_PUT (64-bit elements).
  do i = 1, n
    l4(i) = 100 * me + i
    l8(i) = 10000000000_8 * me + i
    lmem(i) = int(mod(me * 7 + i, 100), 1)
  end do
  do i = 1, 2 * n
    l128(i) = -1000_8 * me - i
  end do
  call shmem_barrier_all()
  call shmem_put4(s4, l4, n, right)
  call shmem_put32(s32, l4, n, right)
  call shmem_put8(s8, l8, n, right)
  call shmem_put64(s64, l8, n, right)
  call shmem_put128(s128, l128, n, right)
  call shmem_putmem(smem, lmem, n, right)
  call shmem_put(sput, l8, n, right)
  call shmem_barrier_all()
  do i = 1, n
    call check_i('put4', int(100 * left + i, 8), int(s4(i), 8))
    call check_i('put32', int(100 * left + i, 8), int(s32(i), 8))
    call check_i('put8', 10000000000_8 * left + i, s8(i))
    call check_i('put64', 10000000000_8 * left + i, s64(i))
    call check_i('putmem', int(mod(left * 7 + i, 100), 8), int(smem(i), 8))
    call check_i('put', 10000000000_8 * left + i, sput(i))
  end do
  do i = 1, 2 * n
    call check_i('put128', -1000_8 * left - i, s128(i))
  end do

  ! Sized gets from the right neighbour: what this PE put there.
  l4 = 0; l8 = 0; l128 = 0; lmem = 0
  call shmem_barrier_all()
  call shmem_get4(l4, s4, n, right)
  call shmem_get8(l8, s8, n, right)
  call shmem_get128(l128, s128, n, right)
  call shmem_getmem(lmem, smem, n, right)
  do i = 1, n
    call check_i('get4', int(100 * me + i, 8), int(l4(i), 8))
    call check_i('get8', 10000000000_8 * me + i, l8(i))
    call check_i('getmem', int(mod(me * 7 + i, 100), 8), int(lmem(i), 8))
  end do
  do i = 1, 2 * n
    call check_i('get128', -1000_8 * me - i, l128(i))
  end do
  l4 = 0; l8 = 0
  call shmem_get32(l4, s32, n, right)
  call shmem_get64(l8, s64, n, right)
  do i = 1, n
    call check_i('get32', int(100 * me + i, 8), int(l4(i), 8))
    call check_i('get64', 10000000000_8 * me + i, l8(i))
  end do

  ! Strided: every other element of ist on the right neighbour gets li(1:n:1) reversed stride.
  do i = 1, n
    li(i) = 7 * me + i
  end do
  ist = -1
  call shmem_barrier_all()
  call shmem_integer_iput(ist, li, 2, 1, n, right)
  call shmem_barrier_all()
  do i = 1, n
    call check_i('integer_iput stride 2', int(7 * left + i, 8), int(ist(2 * i - 1), 8))
    call check_i('integer_iput gap', -1_8, int(ist(2 * i), 8))
  end do
  lst = 0
  call shmem_integer_iget(lst, ist, 1, 2, n, right)
  do i = 1, n
    call check_i('integer_iget', int(7 * me + i, 8), int(lst(i), 8))
  end do

  ! Non-blocking: put_nbi then quiet, get_nbi then quiet.
  do i = 1, n
    li(i) = 31 * me + i
    lr(i) = 0.5 * real(me + i)
  end do
  call shmem_barrier_all()
  call shmem_integer_put_nbi(inbi, li, n, right)
  call shmem_real_put_nbi(rnbi, lr, n, right)
  call shmem_quiet()
  call shmem_barrier_all()
  do i = 1, n
    call check_i('integer_put_nbi', int(31 * left + i, 8), int(inbi(i), 8))
    call check_r('real_put_nbi', dble(0.5 * real(left + i)), dble(rnbi(i)))
  end do
  li = 0
  call shmem_integer_get_nbi(li, inbi, n, right)
  call shmem_quiet()
  do i = 1, n
    call check_i('integer_get_nbi', int(31 * me + i, 8), int(li(i), 8))
  end do

  ! shmem_ptr: the right neighbour's ia is directly addressable through a Cray pointer when it
  ! runs on this PE's host (same host name), unless SHMEM_TRANSPORT (ucx, loopback: any value but
  ! auto) puts every PE on a network's route; otherwise shmem_ptr is NULL.
  call shmem_barrier_all()
  call shmem_integer_put(ia, [(me * 3 + i, i = 1, n)], n, right)
  myhost = ''
  call hostnm(myhost)
  call shmem_barrier_all()
  call shmem_character_get(theirhost, myhost, 64, right)
  transport = ''
  call get_environment_variable('SHMEM_TRANSPORT', transport)
  on_host = right == me .or. ((transport == '' .or. transport == 'auto') .and. theirhost == myhost)
  remote = shmem_ptr(ia, right)
  if (.not. on_host) then
    call check_l('shmem_ptr is null for another host', .true., remote == 0)
  else
    call check_l('shmem_ptr is not null', .true., remote /= 0)
    do i = 1, n
      call check_i('load through shmem_ptr', int(me * 3 + i, 8), int(peer_ia(i), 8))
    end do
  end if
  call check_l('pe_accessible(right)', .true., shmem_pe_accessible(right))
  call check_l('pe_accessible(npes)', .false., shmem_pe_accessible(npes))
  call check_l('addr_accessible(ia)', .true., shmem_addr_accessible(ia, right))
  call check_l('addr_accessible(local)', .false., shmem_addr_accessible(li, right))

  call shmem_info_get_version(major, minor)
  call check_i('info_get_version major', int(SHMEM_MAJOR_VERSION, 8), int(major, 8))
  call check_i('info_get_version minor', int(SHMEM_MINOR_VERSION, 8), int(minor, 8))
  call shmem_info_get_name(vendor)
  call check_c('info_get_name', SHMEM_VENDOR_STRING, trim(vendor))

  call shmem_barrier_all()
  if (me == 0) print '(a, i0, a)', 'fortran_rma: ', npes, ' PEs passed'
  call shmem_finalize()

contains

  subroutine clear_all()
    ia = 0; ib = 0; ra = 0; da = 0; ca = (0.0, 0.0); la = .false.; cha = ' '
    s4 = 0; s32 = 0; s8 = 0; s64 = 0; s128 = 0; sput = 0; smem = 0; ist = 0
    inbi = 0; rnbi = 0
  end subroutine

  subroutine check_i(what, expected, got)
    character(len=*), intent(in) :: what
    integer*8, intent(in) :: expected, got
    if (expected /= got) then
      print '(a, i0, 3a, i0, a, i0)', 'PE ', me, ': ', what, ': expected ', expected, ', got ', got
      stop 1
    end if
  end subroutine

  subroutine check_r(what, expected, got)
    character(len=*), intent(in) :: what
    double precision, intent(in) :: expected, got
    if (expected /= got) then
      print '(a, i0, 3a, g0, a, g0)', 'PE ', me, ': ', what, ': expected ', expected, ', got ', got
      stop 1
    end if
  end subroutine

  subroutine check_l(what, expected, got)
    character(len=*), intent(in) :: what
    logical, intent(in) :: expected, got
    if (expected .neqv. got) then
      print '(a, i0, 3a, l1, a, l1)', 'PE ', me, ': ', what, ': expected ', expected, ', got ', got
      stop 1
    end if
  end subroutine

  subroutine check_c(what, expected, got)
    character(len=*), intent(in) :: what, expected, got
    if (expected /= got) then
      print '(a, i0, 7a)', 'PE ', me, ': ', what, ': expected "', expected, '", got "', got, '"'
      stop 1
    end if
  end subroutine

end program fortran_rma
