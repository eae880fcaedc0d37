//! The function-like macros and `static inline` functions of the UCX headers, which bindgen does not
//! carry, re-implemented with the same arithmetic as the C text they cite.

use crate::{
    MINIMUM_VERSION, UCP_API_MAJOR, UCP_API_MINOR, UCP_DATATYPE_CONTIG, UCP_DATATYPE_SHIFT,
    UCP_VERSION_MAJOR_SHIFT, UCP_VERSION_MINOR_SHIFT, UCS_ERR_LAST, UCS_INPROGRESS, ucp_config_t,
    ucp_context_h, ucp_datatype_t, ucp_init_version, ucp_params_t, ucs_status_ptr_t, ucs_status_t,
};

/// `UCS_PTR_IS_ERR(_ptr)`: `((uintptr_t)(_ptr)) >= ((uintptr_t)UCS_ERR_LAST)`.
///
/// True when a `ucs_status_ptr_t` returned by a non-blocking call carries an error status.
#[inline(always)]
#[allow(non_snake_case)]
pub fn UCS_PTR_IS_ERR(ptr: ucs_status_ptr_t) -> bool {
    ptr as usize >= UCS_ERR_LAST as isize as usize
}

/// `UCS_PTR_IS_PTR(_ptr)`: `((uintptr_t)(_ptr) - 1) < ((uintptr_t)UCS_ERR_LAST - 1)`.
///
/// True when a `ucs_status_ptr_t` is a request handle (neither NULL nor an error).
#[inline(always)]
#[allow(non_snake_case)]
pub fn UCS_PTR_IS_PTR(ptr: ucs_status_ptr_t) -> bool {
    (ptr as usize).wrapping_sub(1) < (UCS_ERR_LAST as isize as usize).wrapping_sub(1)
}

/// `UCS_PTR_RAW_STATUS(_ptr)`: `((ucs_status_t)(intptr_t)(_ptr))`.
#[inline(always)]
#[allow(non_snake_case)]
pub fn UCS_PTR_RAW_STATUS(ptr: ucs_status_ptr_t) -> ucs_status_t {
    ptr as isize as ucs_status_t
}

/// `UCS_PTR_STATUS(_ptr)`:
/// `(UCS_PTR_IS_PTR(_ptr) ? UCS_INPROGRESS : UCS_PTR_RAW_STATUS(_ptr))`.
///
/// `UCS_OK` for NULL (completed in place), `UCS_INPROGRESS` for a request, else the error.
#[inline(always)]
#[allow(non_snake_case)]
pub fn UCS_PTR_STATUS(ptr: ucs_status_ptr_t) -> ucs_status_t {
    if UCS_PTR_IS_PTR(ptr) {
        UCS_INPROGRESS
    } else {
        UCS_PTR_RAW_STATUS(ptr)
    }
}

/// `UCS_STATUS_PTR(_status)`: `((void*)(intptr_t)(_status))`.
#[inline(always)]
#[allow(non_snake_case)]
pub fn UCS_STATUS_PTR(status: ucs_status_t) -> ucs_status_ptr_t {
    status as isize as ucs_status_ptr_t
}

/// `UCS_STATUS_IS_ERR(_status)`: `((_status) < 0)`.
#[inline(always)]
#[allow(non_snake_case)]
pub fn UCS_STATUS_IS_ERR(status: ucs_status_t) -> bool {
    status < 0
}

/// `UCP_VERSION(_major, _minor)`:
/// `(((_major) << UCP_VERSION_MAJOR_SHIFT) | ((_minor) << UCP_VERSION_MINOR_SHIFT))`.
#[inline(always)]
#[allow(non_snake_case)]
pub const fn UCP_VERSION(major: u32, minor: u32) -> u32 {
    (major << UCP_VERSION_MAJOR_SHIFT) | (minor << UCP_VERSION_MINOR_SHIFT)
}

/// `UCP_API_VERSION`: `UCP_VERSION(UCP_API_MAJOR, UCP_API_MINOR)`, of the headers bound at build
/// time.
pub const UCP_API_VERSION: u32 = UCP_VERSION(UCP_API_MAJOR, UCP_API_MINOR);

/// `ucp_dt_make_contig(_elem_size)`:
/// `(((ucp_datatype_t)(_elem_size) << UCP_DATATYPE_SHIFT) | UCP_DATATYPE_CONTIG)`.
#[inline(always)]
pub const fn ucp_dt_make_contig(elem_size: usize) -> ucp_datatype_t {
    ((elem_size as ucp_datatype_t) << UCP_DATATYPE_SHIFT) | UCP_DATATYPE_CONTIG as ucp_datatype_t
}

/// `ucp_init` (a `static inline` in `ucp.h`, which passes the headers' `UCP_API_MAJOR/MINOR`), with
/// the API version rshmem is written against instead: [`MINIMUM_VERSION`], which `load` checks the
/// library has. (UCX only compares the two, to warn when the library is older than the API asked
/// for; the headers' own version would make a 1.10 to 1.12 library warn at every init.)
///
/// # Safety
/// As `ucp_init`: `params` and `config` valid (or `config` NULL), `context_p` writable; UCX loaded.
#[inline]
pub unsafe fn ucp_init(
    params: *const ucp_params_t,
    config: *const ucp_config_t,
    context_p: *mut ucp_context_h,
) -> ucs_status_t {
    // SAFETY: the caller's contract (`# Safety` above): `params` and `config` valid (or
    // `config` NULL) and `context_p` writable for the call; UCX is loaded.
    unsafe {
        ucp_init_version(
            MINIMUM_VERSION.0,
            MINIMUM_VERSION.1,
            params,
            config,
            context_p,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        UCP_FEATURE_RMA, UCP_PARAM_FIELD_FEATURES, UCS_ERR_IO_ERROR, UCS_ERR_NO_MEMORY, UCS_OK,
        ucp_cleanup, ucp_config_read, ucp_config_release, ucs_status_string,
    };
    use std::ffi::CStr;
    use std::ptr;

    fn as_ptr(value: usize) -> ucs_status_ptr_t {
        value as ucs_status_ptr_t
    }

    #[test]
    fn null_is_ok_not_error_not_request() {
        assert!(!UCS_PTR_IS_ERR(ptr::null_mut()));
        assert!(!UCS_PTR_IS_PTR(ptr::null_mut()));
        assert_eq!(UCS_PTR_STATUS(ptr::null_mut()), UCS_OK);
    }

    #[test]
    fn request_pointer_is_in_progress() {
        for p in [1usize, 0x1000, 0x7fff_dead_beef, usize::MAX - 100] {
            assert!(!UCS_PTR_IS_ERR(as_ptr(p)), "{p:#x}");
            assert!(UCS_PTR_IS_PTR(as_ptr(p)), "{p:#x}");
            assert_eq!(UCS_PTR_STATUS(as_ptr(p)), UCS_INPROGRESS, "{p:#x}");
        }
    }

    #[test]
    fn error_statuses_round_trip_through_a_pointer() {
        for status in [UCS_ERR_NO_MEMORY, UCS_ERR_IO_ERROR, UCS_ERR_LAST, -1] {
            let p = UCS_STATUS_PTR(status);
            assert_eq!(p as isize, status as isize);
            assert!(UCS_PTR_IS_ERR(p), "{status}");
            assert!(!UCS_PTR_IS_PTR(p), "{status}");
            assert_eq!(UCS_PTR_STATUS(p), status);
            assert_eq!(UCS_PTR_RAW_STATUS(p), status);
            assert!(UCS_STATUS_IS_ERR(status));
        }
        // The boundary: the pointer just below UCS_ERR_LAST's is a request, not an error.
        let below = (UCS_ERR_LAST as isize as usize) - 1;
        assert!(!UCS_PTR_IS_ERR(as_ptr(below)));
        assert!(UCS_PTR_IS_PTR(as_ptr(below)));
        assert!(!UCS_STATUS_IS_ERR(UCS_OK) && !UCS_STATUS_IS_ERR(UCS_INPROGRESS));
    }

    #[test]
    fn status_is_the_c_packed_enum() {
        // `ucs_status_t` is UCS_S_PACKED: one signed byte in the C ABI.
        assert_eq!(std::mem::size_of::<ucs_status_t>(), 1);
        assert_eq!(UCS_ERR_LAST, -100);
    }

    #[test]
    fn version_and_datatype_arithmetic() {
        assert_eq!(UCP_VERSION(1, 13), (1 << 24) | (13 << 16));
        assert_eq!(UCP_API_VERSION, UCP_VERSION(UCP_API_MAJOR, UCP_API_MINOR));
        assert_eq!(ucp_dt_make_contig(1), 8);
        assert_eq!(ucp_dt_make_contig(4), 32);
        assert_eq!(ucp_dt_make_contig(8), 64);
    }

    #[test]
    fn status_strings_come_from_the_library() {
        crate::tests::system();
        // SAFETY: ucs_status_string returns a static NUL-terminated string for any status.
        let ok = unsafe { CStr::from_ptr(ucs_status_string(UCS_OK)) };
        assert_eq!(ok.to_str().unwrap(), "Success");
        // SAFETY: ucs_status_string returns a static NUL-terminated string for any status,
        // UCS_ERR_NO_MEMORY included.
        let nomem = unsafe { CStr::from_ptr(ucs_status_string(UCS_ERR_NO_MEMORY)) };
        assert_eq!(nomem.to_str().unwrap(), "Out of memory");
    }

    #[test]
    fn ucp_init_accepts_the_minimum_version() {
        crate::tests::system();
        let mut config = ptr::null_mut();
        // SAFETY: NULL prefix and file mean the defaults; `config` is writable.
        let status = unsafe { ucp_config_read(ptr::null(), ptr::null(), &mut config) };
        assert_eq!(status, UCS_OK);
        let params = ucp_params_t {
            field_mask: UCP_PARAM_FIELD_FEATURES as u64,
            features: UCP_FEATURE_RMA as u64,
            ..Default::default()
        };
        let mut context = ptr::null_mut();
        // SAFETY: params and config are valid, context is writable.
        let status = unsafe { ucp_init(&params, config, &mut context) };
        // SAFETY: config came from ucp_config_read and is released once.
        unsafe { ucp_config_release(config) };
        assert_eq!(status, UCS_OK);
        assert!(!context.is_null());
        // SAFETY: context came from ucp_init and is cleaned up once.
        unsafe { ucp_cleanup(context) };
    }
}
