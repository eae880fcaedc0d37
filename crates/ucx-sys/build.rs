//! Finds the system UCX with pkg-config and generates the bindings with bindgen.
//!
//! Only what rshmem uses is bound (the allowlists below); add an item here when the transport needs
//! it. The bindings are written to `$OUT_DIR/bindings.rs` and included by `src/lib.rs`.

use std::env;
use std::path::PathBuf;

/// The UCP functions rshmem calls.
const FUNCTIONS: &[&str] = &[
    "ucs_status_string",
    "ucp_config_read",
    "ucp_config_modify",
    "ucp_config_release",
    "ucp_init_version",
    "ucp_get_version",
    "ucp_cleanup",
    "ucp_context_print_info",
    "ucp_worker_create",
    "ucp_worker_destroy",
    "ucp_worker_query",
    "ucp_worker_get_address",
    "ucp_worker_release_address",
    "ucp_worker_progress",
    "ucp_worker_get_efd",
    "ucp_worker_arm",
    "ucp_worker_signal",
    "ucp_worker_fence",
    "ucp_worker_flush_nbx",
    "ucp_ep_create",
    "ucp_ep_close_nbx",
    "ucp_ep_flush_nbx",
    "ucp_mem_map",
    "ucp_mem_unmap",
    "ucp_rkey_pack",
    "ucp_rkey_buffer_release",
    "ucp_ep_rkey_unpack",
    "ucp_rkey_destroy",
    "ucp_rkey_ptr",
    "ucp_put_nbx",
    "ucp_get_nbx",
    "ucp_atomic_op_nbx",
    "ucp_request_check_status",
    "ucp_request_free",
    "ucp_mem_query",
    "ucp_tag_send_nbx",
    "ucp_tag_probe_nb",
    "ucp_tag_msg_recv_nbx",
    "ucp_tag_recv_nbx",
    "ucp_tag_recv_request_test",
    "ucp_request_cancel",
];

/// The parameter and attribute structs, handles, and the enums whose values those calls take.
const TYPES: &[&str] = &[
    "ucs_status_t",
    "ucs_status_ptr_t",
    "ucs_thread_mode_t",
    "ucp_params_t",
    "ucp_params_field",
    "ucp_feature",
    "ucp_worker_params_t",
    "ucp_worker_params_field",
    "ucp_worker_attr_t",
    "ucp_worker_attr_field",
    "ucp_ep_params_t",
    "ucp_ep_params_field",
    "ucp_ep_close_flags_t",
    "ucp_mem_map_params_t",
    "ucp_mem_map_params_field",
    "ucp_request_param_t",
    "ucp_op_attr_t",
    "ucp_atomic_op_t",
    "ucp_dt_type",
    "ucp_datatype_t",
    "ucp_mem_attr_t",
    "ucp_mem_attr_field",
    "ucp_tag_recv_info_t",
    "ucp_tag_message_h",
];

/// The object-like macros the re-implemented function-like ones need.
const VARS: &[&str] = &[
    "UCP_API_MAJOR",
    "UCP_API_MINOR",
    "UCP_VERSION_MAJOR_SHIFT",
    "UCP_VERSION_MINOR_SHIFT",
    // The flags of ucp_mem_map (an anonymous enum).
    "UCP_MEM_MAP_NONBLOCK",
    "UCP_MEM_MAP_ALLOCATE",
    "UCP_MEM_MAP_FIXED",
];

fn main() {
    let ucx = pkg_config::Config::new()
        .atleast_version("1.10")
        .probe("ucx")
        .expect("the system UCX was not found by pkg-config (Debian: apt-get install libucx-dev)");

    let mut builder = bindgen::Builder::default()
        .header_contents("ucx_sys.h", "#include <ucp/api/ucp.h>\n")
        .clang_args(
            ucx.include_paths
                .iter()
                .map(|p| format!("-I{}", p.display())),
        )
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        // Enum values keep their C names (`UCS_OK`, `UCP_FEATURE_RMA`) as typed constants.
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_debug(false)
        .layout_tests(true)
        .generate_comments(false);
    for name in FUNCTIONS {
        builder = builder.allowlist_function(name);
    }
    for name in TYPES {
        builder = builder.allowlist_type(name);
    }
    for name in VARS {
        builder = builder.allowlist_var(name);
    }
    let bindings = builder.generate().expect(
        "bindgen could not generate the UCX bindings (Debian: apt-get install libclang-dev)",
    );

    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    bindings
        .write_to_file(out.join("bindings.rs"))
        .expect("could not write the UCX bindings");
}
