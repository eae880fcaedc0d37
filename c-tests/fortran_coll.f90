! pes: 1 2 3 4 5 8
! The active-set collectives from Fortran, each against a serial reference, on the whole world and
! on the active set of the even PEs (PE_start 0, logPE_stride 1): SHMEM_BARRIER (puts completed),
! SHMEM_BROADCAST4/8/32/64 (the root's dest untouched), SHMEM_COLLECT4/8/32/64 (1 to 3 elements per
! PE), SHMEM_FCOLLECT4/8/32/64, SHMEM_ALLTOALL32/64, SHMEM_ALLTOALLS32/64 (dst 2, sst 3), and every
! *_TO_ALL reduction: INT2/INT4/INT8 AND, OR, XOR, MAX, MIN, SUM, PROD; REAL4/REAL8/REAL16 MAX,
! MIN, SUM, PROD; COMP4/COMP8 SUM, PROD (values, not the sign of a zero part: see test_comp) and
! XOR (an extension: the bits of each part). The data are in COMMON blocks (symmetric); every
! element of each dest array is checked, so an element the routine must not write keeps its
! sentinel. pSync arrays have the shmem.fh sizes and start at
! SHMEM_SYNC_VALUE; a barrier_all separates two uses of one. Every check prints the PE, the routine,
! the expected and the received value, and the program stops with status 1 on a mismatch.
program fortran_coll
  implicit none
  include 'shmem_functions.fh'
  ! Elements per PE; the most PEs the arrays hold; elements of the sized arrays (alltoalls spreads
  ! the source 3 apart); elements of the reduction arrays (nreduce is one less: the last element
  ! must keep its sentinel); pWrk elements (at least nreduce/2 + 1 and the shmem.fh minimum).
  integer, parameter :: n = 3, maxpes = 16, m = 3 * n * maxpes, nr = 5
  integer, parameter :: nwrk = max(nr, SHMEM_REDUCE_MIN_WRKDATA_SIZE)
  integer*8, parameter :: sentinel = -7777
  integer :: me, npes
  ! The active set under test and this PE's place in it (-1: not a member).
  integer :: pe_start, log_stride, set_size, idx

  integer :: psync_barrier(SHMEM_BARRIER_SYNC_SIZE), psync_bcast(SHMEM_BCAST_SYNC_SIZE)
  integer :: psync_collect(SHMEM_COLLECT_SYNC_SIZE), psync_reduce(SHMEM_REDUCE_SYNC_SIZE)
  integer :: psync_alltoall(SHMEM_ALLTOALL_SYNC_SIZE), psync_alltoalls(SHMEM_ALLTOALLS_SYNC_SIZE)
  common /syncs/ psync_barrier, psync_bcast, psync_collect, psync_reduce, psync_alltoall, &
    psync_alltoalls
  integer :: slot(1)
  common /barrier/ slot
  integer*4 :: s4(m), d4(m)
  common /sized4/ s4, d4
  integer*8 :: s8(m), d8(m)
  common /sized8/ s8, d8
  integer*2 :: si2(nr), di2(nr), wi2(nwrk)
  common /int2/ si2, di2, wi2
  integer*4 :: si4(nr), di4(nr), wi4(nwrk)
  common /int4/ si4, di4, wi4
  integer*8 :: si8(nr), di8(nr), wi8(nwrk)
  common /int8/ si8, di8, wi8
  real*4 :: sr4(nr), dr4(nr), wr4(nwrk)
  common /real4/ sr4, dr4, wr4
  real*8 :: sr8(nr), dr8(nr), wr8(nwrk)
  common /real8/ sr8, dr8, wr8
  real*16 :: sr16(nr), dr16(nr), wr16(nwrk)
  common /real16/ sr16, dr16, wr16
  complex*8 :: sc4(nr), dc4(nr), wc4(nwrk)
  common /comp4/ sc4, dc4, wc4
  complex*16 :: sc8(nr), dc8(nr), wc8(nwrk)
  common /comp8/ sc8, dc8, wc8

  character(len=17), parameter :: coll_names(16) = [character(len=17) :: &
    'shmem_broadcast4', 'shmem_broadcast8', 'shmem_broadcast32', 'shmem_broadcast64', &
    'shmem_collect4', 'shmem_collect8', 'shmem_collect32', 'shmem_collect64', &
    'shmem_fcollect4', 'shmem_fcollect8', 'shmem_fcollect32', 'shmem_fcollect64', &
    'shmem_alltoall32', 'shmem_alltoall64', 'shmem_alltoalls32', 'shmem_alltoalls64']
  ! The element size of each, and its kind: 1 broadcast, 2 collect, 3 fcollect, 4 alltoall,
  ! 5 alltoalls.
  integer, parameter :: coll_size(16) = [4, 8, 4, 8, 4, 8, 4, 8, 4, 8, 4, 8, 4, 8, 4, 8]
  integer, parameter :: coll_kind(16) = [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 5]
  character(len=4), parameter :: op_names(7) = ['and ', 'or  ', 'xor ', 'max ', 'min ', 'sum ', &
    'prod']
  integer, parameter :: op_and = 1, op_or = 2, op_xor = 3, op_max = 4, op_min = 5, op_sum = 6, &
    op_prod = 7
  integer :: set, id, op, kind

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  if (npes > maxpes) then
    print '(a, i0, a, i0, a)', 'PE ', me, ': fortran_coll holds at most ', maxpes, ' PEs'
    stop 1
  end if
  psync_barrier = int(SHMEM_SYNC_VALUE); psync_bcast = int(SHMEM_SYNC_VALUE)
  psync_collect = int(SHMEM_SYNC_VALUE); psync_reduce = int(SHMEM_SYNC_VALUE)
  psync_alltoall = int(SHMEM_SYNC_VALUE); psync_alltoalls = int(SHMEM_SYNC_VALUE)
  call shmem_barrier_all()

  do set = 1, 2
    if (set == 1) then
      pe_start = 0; log_stride = 0; set_size = npes
    else
      pe_start = 0; log_stride = 1; set_size = (npes + 1) / 2
    end if
    idx = -1
    if (mod(me - pe_start, 2**log_stride) == 0) idx = (me - pe_start) / 2**log_stride
    if (idx >= set_size) idx = -1

    call test_barrier()
    do id = 1, 16
      call test_coll(id)
    end do
    do kind = 2, 8, 2
      if (kind == 6) cycle
      do op = 1, 7
        call test_int(kind, op)
      end do
    end do
    do kind = 4, 16, 4
      if (kind == 12) cycle
      do op = op_max, op_prod
        call test_real(kind, op)
      end do
    end do
    do kind = 4, 8, 4
      call test_comp(kind, op_sum)
      call test_comp(kind, op_prod)
      call test_comp(kind, op_xor)
    end do
  end do

  call shmem_barrier_all()
  if (me == 0) print '(a, i0, a)', 'fortran_coll: ', npes, ' PEs passed'
  call shmem_finalize()

contains

  ! The world PE of member i of the active set.
  integer function pe_of(i)
    integer, intent(in) :: i
    pe_of = pe_start + i * 2**log_stride
  end function

  ! An element value: PE, block (the destination member for alltoall), element.
  integer*8 function val(pe, b, j)
    integer, intent(in) :: pe, b, j
    val = int(pe, 8) * 1000 + b * 10 + j + 1
  end function

  ! Elements PE i contributes to a collect.
  integer function count_of(i)
    integer, intent(in) :: i
    count_of = mod(i, 3) + 1
  end function

  ! Source values of the reductions: small, so that every result is exact in every type.
  integer*8 function arith_value(pe, k)
    integer, intent(in) :: pe, k
    arith_value = mod(pe * 5 + k * 3, 7) - 3
  end function

  ! Products stay small: factors of magnitude 1 or 2 with either sign.
  integer*8 function prod_value(pe, k)
    integer, intent(in) :: pe, k
    prod_value = 1 + mod(pe * k + pe, 2)
    if (mod(pe + k, 3) == 0) prod_value = -prod_value
  end function

  integer*8 function bits_value(pe, k)
    integer, intent(in) :: pe, k
    bits_value = mod(pe * 37 + k * 11, 128) - 40
  end function

  ! The source value of element k (0-based) on PE pe for op.
  integer*8 function src_value(op, pe, k)
    integer, intent(in) :: op, pe, k
    select case (op)
    case (op_and, op_or, op_xor)
      src_value = bits_value(pe, k)
    case (op_prod)
      src_value = prod_value(pe, k)
    case default
      src_value = arith_value(pe, k)
    end select
  end function

  ! The serial reference of an integer reduction of element k over the active set.
  integer*8 function int_reference(op, k)
    integer, intent(in) :: op, k
    integer :: i
    integer*8 :: x
    int_reference = src_value(op, pe_of(0), k)
    do i = 1, set_size - 1
      x = src_value(op, pe_of(i), k)
      select case (op)
      case (op_and)
        int_reference = iand(int_reference, x)
      case (op_or)
        int_reference = ior(int_reference, x)
      case (op_xor)
        int_reference = ieor(int_reference, x)
      case (op_max)
        int_reference = max(int_reference, x)
      case (op_min)
        int_reference = min(int_reference, x)
      case (op_sum)
        int_reference = int_reference + x
      case default
        int_reference = int_reference * x
      end select
    end do
  end function

  subroutine check(routine, k, expected, got)
    character(len=*), intent(in) :: routine
    integer, intent(in) :: k
    integer*8, intent(in) :: expected, got
    if (expected /= got) then
      print '(a, i0, 3a, i0, a, i0, a, i0, a, i0, a, i0)', 'PE ', me, ': ', trim(routine), &
        ' (PE_size ', set_size, ', logPE_stride ', log_stride, ') element ', k, ': expected ', &
        expected, ', got ', got
      stop 1
    end if
  end subroutine

  subroutine check_real(routine, k, expected, got)
    character(len=*), intent(in) :: routine
    integer, intent(in) :: k
    real*16, intent(in) :: expected, got
    if (expected /= got) then
      print '(a, i0, 3a, i0, a, i0, a, i0, a, g0, a, g0)', 'PE ', me, ': ', trim(routine), &
        ' (PE_size ', set_size, ', logPE_stride ', log_stride, ') element ', k, ': expected ', &
        expected, ', got ', got
      stop 1
    end if
  end subroutine

  ! Each member puts its number into the next member's slot; after SHMEM_BARRIER the put is
  ! complete and visible. Twice, reusing pSync after a barrier_all.
  subroutine test_barrier()
    integer :: round, next, prev
    do round = 1, 2
      slot(1) = -1
      call shmem_barrier_all()
      if (idx >= 0) then
        next = pe_of(mod(idx + 1, set_size))
        prev = pe_of(mod(idx + set_size - 1, set_size))
        call shmem_integer_put(slot, [me * 10 + round], 1, next)
        call shmem_barrier(pe_start, log_stride, set_size, psync_barrier)
        call check('shmem_barrier', 1, int(prev * 10 + round, 8), int(slot(1), 8))
      end if
      call shmem_barrier_all()
    end do
  end subroutine

  ! Collective id of coll_names against its reference: every element of dest is compared.
  subroutine test_coll(id)
    integer, intent(in) :: id
    integer*8 :: src(m), want(m), got(m)
    integer :: root, i, b, j, off
    src = sentinel - 1
    want = sentinel
    root = mod(id, set_size)
    if (idx >= 0) then
      select case (coll_kind(id))
      case (1)
        do j = 0, n - 1
          src(j + 1) = val(me, 0, j)
          if (idx /= root) want(j + 1) = val(pe_of(root), 0, j)
        end do
      case (2)
        do j = 0, count_of(idx) - 1
          src(j + 1) = val(me, 0, j)
        end do
        off = 0
        do i = 0, set_size - 1
          do j = 0, count_of(i) - 1
            want(off + j + 1) = val(pe_of(i), 0, j)
          end do
          off = off + count_of(i)
        end do
      case (3)
        do j = 0, n - 1
          src(j + 1) = val(me, 0, j)
        end do
        do i = 0, set_size - 1
          do j = 0, n - 1
            want(i * n + j + 1) = val(pe_of(i), 0, j)
          end do
        end do
      case (4)
        do b = 0, set_size - 1
          do j = 0, n - 1
            src(b * n + j + 1) = val(me, b, j)
            want(b * n + j + 1) = val(pe_of(b), idx, j)
          end do
        end do
      case default
        do b = 0, set_size - 1
          do j = 0, n - 1
            src((b * n + j) * 3 + 1) = val(me, b, j)
            want((b * n + j) * 2 + 1) = val(pe_of(b), idx, j)
          end do
        end do
      end select
    end if
    s4 = int(src, 4); d4 = int(sentinel, 4)
    s8 = src; d8 = sentinel
    call shmem_barrier_all()
    if (idx >= 0) then
      select case (id)
      case (1)
        call shmem_broadcast4(d4, s4, n, root, pe_start, log_stride, set_size, psync_bcast)
      case (2)
        call shmem_broadcast8(d8, s8, n, root, pe_start, log_stride, set_size, psync_bcast)
      case (3)
        call shmem_broadcast32(d4, s4, n, root, pe_start, log_stride, set_size, psync_bcast)
      case (4)
        call shmem_broadcast64(d8, s8, n, root, pe_start, log_stride, set_size, psync_bcast)
      case (5)
        call shmem_collect4(d4, s4, count_of(idx), pe_start, log_stride, set_size, psync_collect)
      case (6)
        call shmem_collect8(d8, s8, count_of(idx), pe_start, log_stride, set_size, psync_collect)
      case (7)
        call shmem_collect32(d4, s4, count_of(idx), pe_start, log_stride, set_size, psync_collect)
      case (8)
        call shmem_collect64(d8, s8, count_of(idx), pe_start, log_stride, set_size, psync_collect)
      case (9)
        call shmem_fcollect4(d4, s4, n, pe_start, log_stride, set_size, psync_collect)
      case (10)
        call shmem_fcollect8(d8, s8, n, pe_start, log_stride, set_size, psync_collect)
      case (11)
        call shmem_fcollect32(d4, s4, n, pe_start, log_stride, set_size, psync_collect)
      case (12)
        call shmem_fcollect64(d8, s8, n, pe_start, log_stride, set_size, psync_collect)
      case (13)
        call shmem_alltoall32(d4, s4, n, pe_start, log_stride, set_size, psync_alltoall)
      case (14)
        call shmem_alltoall64(d8, s8, n, pe_start, log_stride, set_size, psync_alltoall)
      case (15)
        call shmem_alltoalls32(d4, s4, 2, 3, n, pe_start, log_stride, set_size, psync_alltoalls)
      case (16)
        call shmem_alltoalls64(d8, s8, 2, 3, n, pe_start, log_stride, set_size, psync_alltoalls)
      end select
    end if
    if (coll_size(id) == 4) then
      got = int(d4, 8)
    else
      got = d8
    end if
    do j = 1, m
      call check(coll_names(id), j, want(j), got(j))
    end do
    call shmem_barrier_all()
  end subroutine

  ! SHMEM_INT<kind>_<op>_TO_ALL against int_reference.
  subroutine test_int(kind, op)
    integer, intent(in) :: kind, op
    character(len=32) :: routine
    integer*8 :: got(nr), want(nr)
    integer :: k
    write (routine, '(a, i0, 3a)') 'shmem_int', kind, '_', trim(op_names(op)), '_to_all'
    do k = 1, nr
      si2(k) = int(src_value(op, me, k - 1), 2)
      si4(k) = int(src_value(op, me, k - 1), 4)
      si8(k) = src_value(op, me, k - 1)
      want(k) = sentinel
      if (k < nr .and. idx >= 0) want(k) = int_reference(op, k - 1)
    end do
    di2 = int(sentinel, 2); di4 = int(sentinel, 4); di8 = sentinel
    call shmem_barrier_all()
    if (idx >= 0) then
      select case (kind * 10 + op)
      case (21)
        call shmem_int2_and_to_all(di2, si2, nr - 1, pe_start, log_stride, set_size, wi2, psync_reduce)
      case (22)
        call shmem_int2_or_to_all(di2, si2, nr - 1, pe_start, log_stride, set_size, wi2, psync_reduce)
      case (23)
        call shmem_int2_xor_to_all(di2, si2, nr - 1, pe_start, log_stride, set_size, wi2, psync_reduce)
      case (24)
        call shmem_int2_max_to_all(di2, si2, nr - 1, pe_start, log_stride, set_size, wi2, psync_reduce)
      case (25)
        call shmem_int2_min_to_all(di2, si2, nr - 1, pe_start, log_stride, set_size, wi2, psync_reduce)
      case (26)
        call shmem_int2_sum_to_all(di2, si2, nr - 1, pe_start, log_stride, set_size, wi2, psync_reduce)
      case (27)
        call shmem_int2_prod_to_all(di2, si2, nr - 1, pe_start, log_stride, set_size, wi2, psync_reduce)
      case (41)
        call shmem_int4_and_to_all(di4, si4, nr - 1, pe_start, log_stride, set_size, wi4, psync_reduce)
      case (42)
        call shmem_int4_or_to_all(di4, si4, nr - 1, pe_start, log_stride, set_size, wi4, psync_reduce)
      case (43)
        call shmem_int4_xor_to_all(di4, si4, nr - 1, pe_start, log_stride, set_size, wi4, psync_reduce)
      case (44)
        call shmem_int4_max_to_all(di4, si4, nr - 1, pe_start, log_stride, set_size, wi4, psync_reduce)
      case (45)
        call shmem_int4_min_to_all(di4, si4, nr - 1, pe_start, log_stride, set_size, wi4, psync_reduce)
      case (46)
        call shmem_int4_sum_to_all(di4, si4, nr - 1, pe_start, log_stride, set_size, wi4, psync_reduce)
      case (47)
        call shmem_int4_prod_to_all(di4, si4, nr - 1, pe_start, log_stride, set_size, wi4, psync_reduce)
      case (81)
        call shmem_int8_and_to_all(di8, si8, nr - 1, pe_start, log_stride, set_size, wi8, psync_reduce)
      case (82)
        call shmem_int8_or_to_all(di8, si8, nr - 1, pe_start, log_stride, set_size, wi8, psync_reduce)
      case (83)
        call shmem_int8_xor_to_all(di8, si8, nr - 1, pe_start, log_stride, set_size, wi8, psync_reduce)
      case (84)
        call shmem_int8_max_to_all(di8, si8, nr - 1, pe_start, log_stride, set_size, wi8, psync_reduce)
      case (85)
        call shmem_int8_min_to_all(di8, si8, nr - 1, pe_start, log_stride, set_size, wi8, psync_reduce)
      case (86)
        call shmem_int8_sum_to_all(di8, si8, nr - 1, pe_start, log_stride, set_size, wi8, psync_reduce)
      case (87)
        call shmem_int8_prod_to_all(di8, si8, nr - 1, pe_start, log_stride, set_size, wi8, psync_reduce)
      end select
    end if
    select case (kind)
    case (2)
      got = int(di2, 8)
    case (4)
      got = int(di4, 8)
    case default
      got = di8
    end select
    do k = 1, nr
      call check(routine, k, want(k), got(k))
    end do
    call shmem_barrier_all()
  end subroutine

  ! SHMEM_REAL<kind>_<op>_TO_ALL against int_reference (every value is a small integer).
  subroutine test_real(kind, op)
    integer, intent(in) :: kind, op
    character(len=32) :: routine
    real*16 :: got(nr), want(nr)
    integer :: k
    write (routine, '(a, i0, 3a)') 'shmem_real', kind, '_', trim(op_names(op)), '_to_all'
    do k = 1, nr
      sr4(k) = real(src_value(op, me, k - 1), 4)
      sr8(k) = real(src_value(op, me, k - 1), 8)
      sr16(k) = real(src_value(op, me, k - 1), 16)
      want(k) = real(sentinel, 16)
      if (k < nr .and. idx >= 0) want(k) = real(int_reference(op, k - 1), 16)
    end do
    dr4 = real(sentinel, 4); dr8 = real(sentinel, 8); dr16 = real(sentinel, 16)
    call shmem_barrier_all()
    if (idx >= 0) then
      select case (kind * 10 + op)
      case (44)
        call shmem_real4_max_to_all(dr4, sr4, nr - 1, pe_start, log_stride, set_size, wr4, psync_reduce)
      case (45)
        call shmem_real4_min_to_all(dr4, sr4, nr - 1, pe_start, log_stride, set_size, wr4, psync_reduce)
      case (46)
        call shmem_real4_sum_to_all(dr4, sr4, nr - 1, pe_start, log_stride, set_size, wr4, psync_reduce)
      case (47)
        call shmem_real4_prod_to_all(dr4, sr4, nr - 1, pe_start, log_stride, set_size, wr4, psync_reduce)
      case (84)
        call shmem_real8_max_to_all(dr8, sr8, nr - 1, pe_start, log_stride, set_size, wr8, psync_reduce)
      case (85)
        call shmem_real8_min_to_all(dr8, sr8, nr - 1, pe_start, log_stride, set_size, wr8, psync_reduce)
      case (86)
        call shmem_real8_sum_to_all(dr8, sr8, nr - 1, pe_start, log_stride, set_size, wr8, psync_reduce)
      case (87)
        call shmem_real8_prod_to_all(dr8, sr8, nr - 1, pe_start, log_stride, set_size, wr8, psync_reduce)
      case (164)
        call shmem_real16_max_to_all(dr16, sr16, nr - 1, pe_start, log_stride, set_size, wr16, &
          psync_reduce)
      case (165)
        call shmem_real16_min_to_all(dr16, sr16, nr - 1, pe_start, log_stride, set_size, wr16, &
          psync_reduce)
      case (166)
        call shmem_real16_sum_to_all(dr16, sr16, nr - 1, pe_start, log_stride, set_size, wr16, &
          psync_reduce)
      case (167)
        call shmem_real16_prod_to_all(dr16, sr16, nr - 1, pe_start, log_stride, set_size, wr16, &
          psync_reduce)
      end select
    end if
    select case (kind)
    case (4)
      got = real(dr4, 16)
    case (8)
      got = real(dr8, 16)
    case default
      got = dr16
    end select
    do k = 1, nr
      call check_real(routine, k, want(k), got(k))
    end do
    call shmem_barrier_all()
  end subroutine

  ! SHMEM_COMP<kind>_<op>_TO_ALL: SUM and PROD against a complex*16 reference (exact: small
  ! Gaussian integers, whatever the order of combination), compared as values: the sign of a zero
  ! part depends on the order in which the factors are combined (a tree across nodes combines
  ! them in another order than this serial loop), and the spec promises an associative operation,
  ! not an order. XOR against the bits of each part, XORed as integers. The real part of
  ! element k comes from the op's value of element k, the imaginary part from element k + 1.
  subroutine test_comp(kind, op)
    integer, intent(in) :: kind, op
    character(len=32) :: routine
    complex*16 :: want(nr), x, got
    ! XOR: the parts' bits as kind-byte integers; part 1 real, 2 imaginary.
    integer*8 :: want_bits(2, nr), got_bits(2, nr)
    integer :: k, i
    write (routine, '(a, i0, 3a)') 'shmem_comp', kind, '_', trim(op_names(op)), '_to_all'
    do k = 1, nr
      x = cmplx(src_value(op, me, k - 1), src_value(op, me, k), kind=8)
      sc4(k) = cmplx(x, kind=4)
      sc8(k) = x
      want(k) = cmplx(sentinel, sentinel, kind=8)
      want_bits(:, k) = [bits_of(kind, real(want(k), 8)), bits_of(kind, aimag(want(k)))]
      if (k < nr .and. idx >= 0) then
        want(k) = cmplx(src_value(op, pe_of(0), k - 1), src_value(op, pe_of(0), k), kind=8)
        want_bits(:, k) = [bits_of(kind, real(want(k), 8)), bits_of(kind, aimag(want(k)))]
        do i = 1, set_size - 1
          x = cmplx(src_value(op, pe_of(i), k - 1), src_value(op, pe_of(i), k), kind=8)
          select case (op)
          case (op_sum)
            want(k) = want(k) + x
          case (op_prod)
            want(k) = want(k) * x
          case default
            want_bits(:, k) = ieor(want_bits(:, k), [bits_of(kind, real(x, 8)), bits_of(kind, aimag(x))])
          end select
        end do
      end if
    end do
    dc4 = cmplx(sentinel, sentinel, kind=4); dc8 = cmplx(sentinel, sentinel, kind=8)
    call shmem_barrier_all()
    if (idx >= 0) then
      select case (kind * 10 + op)
      case (46)
        call shmem_comp4_sum_to_all(dc4, sc4, nr - 1, pe_start, log_stride, set_size, wc4, psync_reduce)
      case (47)
        call shmem_comp4_prod_to_all(dc4, sc4, nr - 1, pe_start, log_stride, set_size, wc4, psync_reduce)
      case (43)
        call shmem_comp4_xor_to_all(dc4, sc4, nr - 1, pe_start, log_stride, set_size, wc4, psync_reduce)
      case (86)
        call shmem_comp8_sum_to_all(dc8, sc8, nr - 1, pe_start, log_stride, set_size, wc8, psync_reduce)
      case (87)
        call shmem_comp8_prod_to_all(dc8, sc8, nr - 1, pe_start, log_stride, set_size, wc8, psync_reduce)
      case (83)
        call shmem_comp8_xor_to_all(dc8, sc8, nr - 1, pe_start, log_stride, set_size, wc8, psync_reduce)
      end select
    end if
    do k = 1, nr
      if (op /= op_xor) then
        if (kind == 4) then
          got = cmplx(dc4(k), kind=8)
        else
          got = dc8(k)
        end if
        call check_real(trim(routine) // ' (real part)', k, real(real(want(k), 8), 16), &
          real(real(got, 8), 16))
        call check_real(trim(routine) // ' (imaginary part)', k, real(aimag(want(k)), 16), &
          real(aimag(got), 16))
        cycle
      end if
      if (kind == 4) then
        got_bits(:, k) = [int(transfer(real(dc4(k)), 0_4), 8), int(transfer(aimag(dc4(k)), 0_4), 8)]
      else
        got_bits(:, k) = [transfer(real(dc8(k)), 0_8), transfer(aimag(dc8(k)), 0_8)]
      end if
      call check(trim(routine) // ' (real part bits)', k, want_bits(1, k), got_bits(1, k))
      call check(trim(routine) // ' (imaginary part bits)', k, want_bits(2, k), got_bits(2, k))
    end do
    call shmem_barrier_all()
  end subroutine

  ! The bits of x as a REAL*<kind> (4 or 8), as an integer.
  integer*8 function bits_of(kind, x)
    integer, intent(in) :: kind
    real*8, intent(in) :: x
    if (kind == 4) then
      bits_of = int(transfer(real(x, 4), 0_4), 8)
    else
      bits_of = transfer(x, 0_8)
    end if
  end function

end program fortran_coll
