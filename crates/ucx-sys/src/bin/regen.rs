//! Regenerates `src/bindings.rs` from the installed UCX headers with bindgen, or checks that the
//! committed file is what they give (`--check`). Not part of a normal build: it needs the UCX
//! headers and pkg-config file (Debian `libucx-dev`), libclang (`libclang-dev`, loaded at run time
//! by bindgen) and `rustfmt`, and is built only with the `regenerate` feature:
//!
//! ```text
//! cargo run -p ucx-sys --features regenerate --bin regen            # rewrite src/bindings.rs
//! cargo run -p ucx-sys --features regenerate --bin regen -- --check # exit 1 if it would differ
//! ```
//!
//! Only what rshmem uses is bound (the allowlists below); add an item here when the transport
//! needs it, regenerate, and commit the file. One bindgen run gives the file: the types and
//! constants, then the function prototypes, moved to the end inside `crate::functions! { ... }`, which
//! `src/lib.rs` turns into the table filled by `dlsym` and one wrapper per function, so no UCX
//! symbol is referenced at link time.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bindgen::{RustEdition, RustTarget};

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

/// The command that regenerates the file, as its first line says.
const COMMAND: &str = "cargo run -p ucx-sys --features regenerate --bin regen";

/// The bindings of everything the allowlists name (and the types those items reach), in one
/// bindgen run over `<ucp/api/ucp.h>`.
fn run_bindgen(include: &[PathBuf]) -> Result<String, String> {
    let target = RustTarget::stable(85, 0).map_err(|e| e.to_string())?;
    let mut builder = bindgen::Builder::default()
        .header_contents("ucx_sys.h", "#include <ucp/api/ucp.h>\n")
        .clang_args(include.iter().map(|p| format!("-I{}", p.display())))
        .rust_target(target)
        .rust_edition(RustEdition::Edition2024)
        // All the prototypes in one `unsafe extern "C"` block, which `generate` moves out.
        .merge_extern_blocks(true)
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
    let bindings = builder.generate().map_err(|e| {
        format!(
            "bindgen could not read the UCX headers: {e} (Debian: apt-get install libclang-dev)"
        )
    })?;
    Ok(bindings.to_string())
}

/// The whole file: the header line, the types and constants, then the function prototypes (the
/// one extern block bindgen wrote, moved out of the types) inside `crate::functions! { ... }`.
fn generate() -> Result<String, String> {
    let ucx = pkg_config::Config::new()
        .cargo_metadata(false)
        .env_metadata(false)
        .probe("ucx")
        .map_err(|e| {
            format!("pkg-config does not find UCX: {e} (Debian: apt-get install libucx-dev)")
        })?;
    let all = run_bindgen(&ucx.include_paths)?;
    // bindgen's own first line names its version: taken into ours.
    let (bindgen, all) = strip_header(&all)?;
    const OPEN: &str = "unsafe extern \"C\" {\n";
    let start = all
        .find(&format!("\n{OPEN}"))
        .map(|at| at + 1)
        .ok_or("bindgen wrote no block of function prototypes")?;
    let len = all[start..]
        .find("\n}\n")
        .map(|at| at + 3)
        .ok_or("bindgen's block of function prototypes is not closed")?;
    let functions = &all[start..start + len];
    if all[start + len..].contains(OPEN) {
        return Err("bindgen wrote more than one block of function prototypes".into());
    }
    let types = format!("{}{}", &all[..start], &all[start + len..]);
    Ok(format!(
        "// @generated by `{COMMAND}` (bindgen {bindgen}, rustfmt) from <ucp/api/ucp.h> of UCX \
         {version} ({system}, {arch}). Do not edit: change the lists of \
         crates/ucx-sys/src/bin/regen.rs and run that command.\n\n\
         {types}\n\
         // The functions: `crate::functions!` makes of them the table that `dlsym` fills when UCX \
         is loaded, and one wrapper each that calls through it.\n\
         crate::functions! {{\n{functions}}}\n",
        version = ucx.version,
        system = system_name(),
        arch = std::env::consts::ARCH,
    ))
}

/// The system the headers came from: `PRETTY_NAME` of /etc/os-release (`Debian GNU/Linux 12
/// (bookworm)`, whose UCX headers are the package libucx-dev).
fn system_name() -> String {
    let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    text.lines()
        .find_map(|line| line.strip_prefix("PRETTY_NAME="))
        .map(|name| name.trim_matches('"').to_string())
        .unwrap_or_else(|| "an unnamed system".to_string())
}

/// bindgen's version from the comment it writes first (`/* automatically generated by
/// rust-bindgen 0.72.1 */`), and the text after that comment.
fn strip_header(text: &str) -> Result<(&str, &str), String> {
    const START: &str = "/* automatically generated by rust-bindgen ";
    let rest = text
        .strip_prefix(START)
        .ok_or("bindgen's output does not start with its usual comment")?;
    let (version, rest) = rest
        .split_once(" */")
        .ok_or("bindgen's first comment is not closed")?;
    Ok((version, rest.trim_start_matches('\n')))
}

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("regen: unknown argument '{other}' (usage: regen [--check])");
            return ExitCode::from(2);
        }
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bindings.rs");
    let text = match generate() {
        Ok(text) => text,
        Err(why) => {
            eprintln!("regen: {why}");
            return ExitCode::FAILURE;
        }
    };
    if check {
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed == text {
            println!(
                "regen: {} matches the installed UCX headers",
                path.display()
            );
            return ExitCode::SUCCESS;
        }
        let fresh =
            std::env::temp_dir().join(format!("ucx-sys-bindings-{}.rs", std::process::id()));
        let _ = std::fs::write(&fresh, &text);
        eprintln!(
            "regen: {} differs from what the installed UCX headers give (written to {}; \
             `diff -u` them, then run `{COMMAND}` and commit)",
            path.display(),
            fresh.display()
        );
        return ExitCode::FAILURE;
    }
    if let Err(e) = std::fs::write(&path, &text) {
        eprintln!("regen: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("regen: wrote {}", path.display());
    ExitCode::SUCCESS
}
