//! The environment table of the user's guide, rendered from the config table and checked.
//!
//! `docs/guide/environment.md` holds, between its two marker lines, one markdown row per row of
//! `config_table!`: the variable, its default (as `oshinfo` prints it) and its help text. The test
//! fails when the file differs from what the table renders, naming the command that rewrites it:
//! `RSHMEM_BLESS=1 cargo test --lib env_table`. Nothing outside the markers is touched.

use super::{Config, VARIABLES};

const DOC: &str = "docs/guide/environment.md";
const BEGIN: &str = "<!-- BEGIN generated from config_table! in src/runtime/config.rs: RSHMEM_BLESS=1 cargo test --lib env_table -->";
const END: &str = "<!-- END generated -->";

/// One markdown row per variable, in table order, under a header row.
fn render() -> String {
    let (defaults, _) = Config::parse(&|_| None).expect("the defaults parse");
    let values = defaults.values();
    assert_eq!(values.len(), VARIABLES.len());
    let mut out = String::from("| variable | default | meaning |\n|---|---|---|\n");
    for ((name, help), (_, default)) in VARIABLES.iter().zip(values) {
        let cell = |s: &str| s.replace('|', "\\|");
        let default = if default.is_empty() {
            "(empty)".to_string()
        } else {
            default
        };
        out.push_str(&format!(
            "| `{name}` | {} | {} |\n",
            cell(&default),
            cell(help)
        ));
    }
    out
}

/// The file with the part between the markers replaced by `table`.
fn splice(doc: &str, table: &str) -> Result<String, String> {
    let begin = doc
        .find(BEGIN)
        .ok_or(format!("{DOC} has no line {BEGIN}"))?;
    let body = begin + BEGIN.len();
    let end = doc[body..]
        .find(END)
        .ok_or(format!("{DOC} has no line {END} after the first marker"))?
        + body;
    Ok(format!("{}\n{table}{}", &doc[..body], &doc[end..]))
}

#[test]
fn env_table_matches_the_guide() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC);
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {DOC}: {e}"));
    let want = splice(&doc, &render()).unwrap_or_else(|e| panic!("{e}"));
    if doc == want {
        return;
    }
    if std::env::var_os("RSHMEM_BLESS").is_some() {
        std::fs::write(&path, want).unwrap_or_else(|e| panic!("writing {DOC}: {e}"));
        return;
    }
    panic!(
        "{DOC}'s environment table differs from config_table! in src/runtime/config.rs; \
         regenerate it with: RSHMEM_BLESS=1 cargo test --lib env_table"
    );
}

#[test]
fn env_table_splices_between_the_markers_only() {
    let doc = format!("intro\n{BEGIN}\nold row\n{END}\noutro\n");
    assert_eq!(
        splice(&doc, "new\n").unwrap(),
        format!("intro\n{BEGIN}\nnew\n{END}\noutro\n")
    );
    assert!(splice("no markers", "x").is_err());
    let table = render();
    assert!(
        table.contains("| `SHMEM_SYMMETRIC_SIZE` | 1073741824 |"),
        "{table}"
    );
    assert_eq!(table.lines().count(), VARIABLES.len() + 2);
}
