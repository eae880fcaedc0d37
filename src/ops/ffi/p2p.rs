//! The C entry points of the array forms of `ops::p2p`: `status`, `cmp_values` and `indices` are
//! the program's arrays of `nelems` entries (NULL where the routine allows it: a NULL `status`
//! includes every element; a NULL `cmp_values` or `indices` is reported by the core when
//! `nelems` is not 0); `ivars` is a symmetric address, checked by the core.

use super::{dst_or_null, slice_of};
use crate::ops::p2p::{self, Ivar};
use crate::runtime::personality::Program;
use std::ffi::c_int;

/// `shmem_wait_until_all` family: returns when every active element satisfies the comparison.
///
/// # Safety
/// `status` (if not NULL) holds `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn wait_until_all<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_value: T,
) {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    p2p::wait_until_all(call, ivars, nelems, status, cmp, cmp_value)
}

/// `shmem_wait_until_all_vector` family: as [`wait_until_all`], one comparison value per element.
///
/// # Safety
/// `status` (if not NULL) and `cmp_values` (if not NULL) hold `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn wait_until_all_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_values: *const T,
) {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    // SAFETY: the C caller's `cmp_values`, if not NULL, holds `nelems` elements that the
    // program does not change during the call.
    let cmp_values = unsafe { slice_of(call, "nelems", cmp_values, nelems) };
    p2p::wait_until_all_vector(call, ivars, nelems, status, cmp, cmp_values)
}

/// `shmem_test_all` family: 1 if every active element satisfies the comparison now.
///
/// # Safety
/// `status` (if not NULL) holds `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn test_all<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_value: T,
) -> c_int {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    p2p::test_all(call, ivars, nelems, status, cmp, cmp_value)
}

/// `shmem_test_all_vector` family.
///
/// # Safety
/// `status` (if not NULL) and `cmp_values` (if not NULL) hold `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn test_all_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_values: *const T,
) -> c_int {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    // SAFETY: the C caller's `cmp_values`, if not NULL, holds `nelems` elements that the
    // program does not change during the call.
    let cmp_values = unsafe { slice_of(call, "nelems", cmp_values, nelems) };
    p2p::test_all_vector(call, ivars, nelems, status, cmp, cmp_values)
}

/// `shmem_wait_until_any` family: the index of a satisfying active element; `SIZE_MAX` if no
/// element is active.
///
/// # Safety
/// `status` (if not NULL) holds `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn wait_until_any<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_value: T,
) -> usize {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    p2p::wait_until_any(call, ivars, nelems, status, cmp, cmp_value)
}

/// `shmem_wait_until_any_vector` family.
///
/// # Safety
/// `status` (if not NULL) and `cmp_values` (if not NULL) hold `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn wait_until_any_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_values: *const T,
) -> usize {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    // SAFETY: the C caller's `cmp_values`, if not NULL, holds `nelems` elements that the
    // program does not change during the call.
    let cmp_values = unsafe { slice_of(call, "nelems", cmp_values, nelems) };
    p2p::wait_until_any_vector(call, ivars, nelems, status, cmp, cmp_values)
}

/// `shmem_test_any` family: the index of a satisfying active element, `SIZE_MAX` if none.
///
/// # Safety
/// `status` (if not NULL) holds `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn test_any<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_value: T,
) -> usize {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    p2p::test_any(call, ivars, nelems, status, cmp, cmp_value)
}

/// `shmem_test_any_vector` family.
///
/// # Safety
/// `status` (if not NULL) and `cmp_values` (if not NULL) hold `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn test_any_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_values: *const T,
) -> usize {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    // SAFETY: the C caller's `cmp_values`, if not NULL, holds `nelems` elements that the
    // program does not change during the call.
    let cmp_values = unsafe { slice_of(call, "nelems", cmp_values, nelems) };
    p2p::test_any_vector(call, ivars, nelems, status, cmp, cmp_values)
}

/// `shmem_wait_until_some` family: the indices of the satisfying active elements (at least one),
/// and how many; 0 if no element is active.
///
/// # Safety
/// `status` (if not NULL) holds `nelems` entries; `indices` (if not NULL) has room for `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn wait_until_some<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_value: T,
) -> usize {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    // SAFETY: the C caller's `indices`, if not NULL, has room for `nelems` entries, which
    // only this call uses while it runs.
    let indices = unsafe { dst_or_null(call, indices, nelems) };
    p2p::wait_until_some(call, ivars, nelems, indices, status, cmp, cmp_value)
}

/// `shmem_wait_until_some_vector` family.
///
/// # Safety
/// `status` (if not NULL) and `cmp_values` (if not NULL) hold `nelems` entries; `indices` (if not NULL) has room for `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn wait_until_some_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_values: *const T,
) -> usize {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    // SAFETY: the C caller's `indices`, if not NULL, has room for `nelems` entries, which
    // only this call uses while it runs.
    let indices = unsafe { dst_or_null(call, indices, nelems) };
    // SAFETY: the C caller's `cmp_values`, if not NULL, holds `nelems` elements that the
    // program does not change during the call.
    let cmp_values = unsafe { slice_of(call, "nelems", cmp_values, nelems) };
    p2p::wait_until_some_vector(call, ivars, nelems, indices, status, cmp, cmp_values)
}

/// `shmem_test_some` family: the indices of the satisfying active elements now, and how many.
///
/// # Safety
/// `status` (if not NULL) holds `nelems` entries; `indices` (if not NULL) has room for `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn test_some<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_value: T,
) -> usize {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    // SAFETY: the C caller's `indices`, if not NULL, has room for `nelems` entries, which
    // only this call uses while it runs.
    let indices = unsafe { dst_or_null(call, indices, nelems) };
    p2p::test_some(call, ivars, nelems, indices, status, cmp, cmp_value)
}

/// `shmem_test_some_vector` family.
///
/// # Safety
/// `status` (if not NULL) and `cmp_values` (if not NULL) hold `nelems` entries; `indices` (if not NULL) has room for `nelems` entries.
#[allow(clippy::too_many_arguments)]
pub unsafe fn test_some_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: Program<c_int>,
    cmp_values: *const T,
) -> usize {
    // SAFETY: the C caller's `status`, if not NULL, holds `nelems` entries that the program
    // does not change during the call.
    let status = unsafe { slice_of(call, "nelems", status, nelems) };
    // SAFETY: the C caller's `indices`, if not NULL, has room for `nelems` entries, which
    // only this call uses while it runs.
    let indices = unsafe { dst_or_null(call, indices, nelems) };
    // SAFETY: the C caller's `cmp_values`, if not NULL, holds `nelems` elements that the
    // program does not change during the call.
    let cmp_values = unsafe { slice_of(call, "nelems", cmp_values, nelems) };
    p2p::test_some_vector(call, ivars, nelems, indices, status, cmp, cmp_values)
}
