//! What `oshinfo` reports about UCX: which libucp the route loads and from where (found as the
//! network's first use finds it, `super::library`; `oshinfo` loads it to ask its version), or
//! what was tried when none loads; the minimum version; the devices UCX sees (from `ucx_info -d`,
//! when it is installed) and the UCX settings the library changes. Changes nothing; needs no
//! `shmem_init`.

use std::process::Command;

/// `ucx.library`, `ucx.version`, `ucx.minimum`, `ucx.devices` and `ucx.settings`, for `oshinfo`.
pub(crate) fn about() -> Vec<(String, String)> {
    let (version, library) = super::library::describe();
    let (major, minor) = ucx_sys::MINIMUM_VERSION;
    let devices = match ucx_devices() {
        Some(devices) if devices.is_empty() => "none".to_string(),
        Some(devices) => devices.join(" "),
        None => "unknown (ucx_info not found; Debian: ucx-utils)".to_string(),
    };
    vec![
        ("ucx.library".to_string(), library),
        ("ucx.version".to_string(), version),
        ("ucx.minimum".to_string(), format!("{major}.{minor}")),
        ("ucx.devices".to_string(), devices),
        ("ucx.settings".to_string(), settings()),
    ]
}

/// The route's departures from UCX's defaults (`context::ROUTE_DEFAULTS`) as they stand here:
/// each the library's value, or the environment's where it sets the variable.
fn settings() -> String {
    let each: Vec<String> = super::context::ROUTE_DEFAULTS
        .iter()
        .map(|d| match std::env::var(d.variable) {
            Ok(set) => format!("{}={set} (environment)", d.variable),
            Err(_) => format!("{}={} (library default)", d.variable, d.value),
        })
        .collect();
    each.join(", ")
}

/// `transport/device` for each device `ucx_info -d` lists, or None without ucx_info.
fn ucx_devices() -> Option<Vec<String>> {
    let out = Command::new("ucx_info").arg("-d").output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut transport = "";
    let mut devices = Vec::new();
    for line in text.lines() {
        let line = line.trim_start_matches('#').trim();
        if let Some(t) = line.strip_prefix("Transport:") {
            transport = t.trim();
        } else if let Some(d) = line.strip_prefix("Device:") {
            let entry = format!("{transport}/{}", d.trim());
            if !devices.contains(&entry) {
                devices.push(entry);
            }
        }
    }
    Some(devices)
}

#[cfg(test)]
mod tests {
    #[test]
    fn says_which_ucx_it_loads_and_from_where() {
        let pairs = super::about();
        let get = |key: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("no {key}"))
        };
        // The system UCX (Debian libucx0), found by its soname.
        let library = get("ucx.library");
        assert!(
            library.starts_with('/') && library.contains("libucp"),
            "{library}"
        );
        let version: Vec<u32> = get("ucx.version")
            .split('.')
            .map(|n| n.parse().expect("a number"))
            .collect();
        assert_eq!(version.len(), 3);
        assert!((version[0], version[1]) >= ucx_sys::MINIMUM_VERSION);
        assert_eq!(get("ucx.minimum"), "1.10");
    }
}
