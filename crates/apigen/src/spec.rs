//! The vendored spec tables (`spec/openshmem-c-api.tsv`, `spec/openshmem-type-tables.tsv`,
//! `spec/openshmem-fortran-api.tsv`) and the parsers for the C and Fortran signatures they hold. Every malformed row or signature is a hard error: the
//! generator must never guess.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// One row of `openshmem-c-api.tsv`.
#[derive(Clone, Debug)]
pub struct ApiRow {
    pub name: String,
    pub kind: String,
    pub group: String,
    pub c_signature: String,
    /// `current`, `deprecated` or `removed`.
    pub status: String,
    pub deprecated_since: String,
    pub spec_file: String,
    pub notes: String,
}

/// One row of `openshmem-type-tables.tsv`: a C type of a spec type table.
#[derive(Clone, Debug)]
pub struct TypeRow {
    pub table: String,
    /// The C type, e.g. `unsigned long long`.
    pub c_type: String,
    /// The name part in the function names, e.g. `ulonglong`.
    pub typename: String,
    /// The reduction operations of the row (`AND,MAX,...`; reduction tables only).
    pub ops: String,
}

/// The C API table (a name may have a function row and a generic row), plus the type tables, each
/// in file order.
pub struct Spec {
    pub api: Vec<ApiRow>,
    pub tables: BTreeMap<String, Vec<TypeRow>>,
}

fn read_tsv(path: &Path) -> Result<Vec<BTreeMap<String, String>>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| format!("{}: empty file", path.display()))?
        .split('\t')
        .collect();
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        if line.is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split('\t').collect();
        if cells.len() != header.len() {
            return Err(format!(
                "{}:{}: {} cells, header has {}",
                path.display(),
                i + 2,
                cells.len(),
                header.len()
            ));
        }
        rows.push(
            header
                .iter()
                .zip(cells)
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect(),
        );
    }
    Ok(rows)
}

impl Spec {
    pub fn load(dir: &Path) -> Result<Spec, String> {
        let mut api: Vec<ApiRow> = Vec::new();
        for mut r in read_tsv(&dir.join("openshmem-c-api.tsv"))? {
            let mut take = |k: &str| {
                r.remove(k)
                    .ok_or_else(|| format!("c-api tsv: no column {k}"))
            };
            let row = ApiRow {
                name: take("name")?,
                kind: take("kind")?,
                group: take("group")?,
                c_signature: take("c_signature")?,
                status: take("status")?,
                deprecated_since: take("deprecated_since")?,
                spec_file: take("spec_file")?,
                notes: take("notes")?,
            };
            if api.iter().any(|r| r.name == row.name && r.kind == row.kind) {
                return Err(format!("c-api tsv: {} {} twice", row.kind, row.name));
            }
            api.push(row);
        }
        let mut tables: BTreeMap<String, Vec<TypeRow>> = BTreeMap::new();
        for mut r in read_tsv(&dir.join("openshmem-type-tables.tsv"))? {
            let mut take = |k: &str| {
                r.remove(k)
                    .ok_or_else(|| format!("type tsv: no column {k}"))
            };
            let row = TypeRow {
                table: take("table")?,
                c_type: take("TYPE")?,
                typename: take("TYPENAME")?,
                ops: take("ops")?,
            };
            tables.entry(row.table.clone()).or_default().push(row);
        }
        Ok(Spec { api, tables })
    }

    /// The row of a name of the given kind (`function`, `generic`, ...).
    pub fn row(&self, name: &str, kind: &str) -> Result<&ApiRow, String> {
        self.api
            .iter()
            .find(|r| r.name == name && r.kind == kind)
            .ok_or_else(|| format!("{name}: no {kind} of that name in openshmem-c-api.tsv"))
    }

    /// The row of an emitted function: it must exist, be a function and not be removed.
    pub fn function(&self, name: &str) -> Result<&ApiRow, String> {
        let row = self.row(name, "function")?;
        if row.status == "removed" {
            return Err(format!("{name}: removed from the spec; not emitted"));
        }
        Ok(row)
    }

    pub fn table(&self, name: &str) -> Result<&[TypeRow], String> {
        self.tables
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| format!("type table {name}: not in openshmem-type-tables.tsv"))
    }

    /// The rows of table `name` whose `ops` list `op` (`SUM`, `AND`, ...).
    pub fn with_op(&self, name: &str, op: &str) -> Result<Vec<&TypeRow>, String> {
        let rows: Vec<&TypeRow> = self
            .table(name)?
            .iter()
            .filter(|r| r.ops.split(',').any(|o| o == op))
            .collect();
        if rows.is_empty() {
            return Err(format!("type table {name}: no row has op {op}"));
        }
        Ok(rows)
    }

    /// The rows of table `name` whose TYPENAME is in `only`, each of which must be in the table.
    pub fn subset(&self, name: &str, only: &[&str]) -> Result<Vec<&TypeRow>, String> {
        let rows = self.table(name)?;
        for t in only {
            if !rows.iter().any(|r| r.typename == *t) {
                return Err(format!("type table {name}: no TYPENAME {t}"));
            }
        }
        Ok(rows
            .iter()
            .filter(|r| only.contains(&r.typename.as_str()))
            .collect())
    }
}

/// A C type as written in the spec's synopses: a base type, const-ness of the pointee, pointer depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CType {
    pub base: String,
    pub is_const: bool,
    pub pointers: usize,
}

impl CType {
    fn parse(text: &str) -> Result<CType, String> {
        let pointers = text.matches('*').count();
        let words: Vec<&str> = text
            .split(|c: char| c == '*' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        let is_const = words.contains(&"const");
        let base: Vec<&str> = words.into_iter().filter(|w| *w != "const").collect();
        if base.is_empty() {
            return Err(format!("no type in {text:?}"));
        }
        Ok(CType {
            base: base.join(" "),
            is_const,
            pointers,
        })
    }

    /// The type as C source, e.g. `const long double *`.
    pub fn to_c(&self) -> String {
        let mut s = String::new();
        if self.is_const {
            s.push_str("const ");
        }
        s.push_str(&self.base);
        if self.pointers > 0 {
            s.push(' ');
            s.push_str(&"*".repeat(self.pointers));
        }
        s
    }

    pub fn is_void(&self) -> bool {
        self.base == "void" && self.pointers == 0
    }
}

#[derive(Clone, Debug)]
pub struct CParam {
    pub name: String,
    pub ty: CType,
}

/// A parsed synopsis: `RET NAME(PARAMS)`.
#[derive(Clone, Debug)]
pub struct CSignature {
    pub ret: CType,
    pub name: String,
    /// The named parameters.
    pub params: Vec<CParam>,
    /// The parameter list ends in `...` (only `shmem_pcontrol`).
    pub variadic: bool,
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

impl CSignature {
    pub fn parse(sig: &str) -> Result<CSignature, String> {
        let err = |m: &str| format!("signature {sig:?}: {m}");
        let open = sig.find('(').ok_or_else(|| err("no '('"))?;
        if !sig.ends_with(')') || sig[open + 1..sig.len() - 1].contains(['(', ')']) {
            return Err(err("expected RET NAME(PARAMS) without function pointers"));
        }
        let head = sig[..open].trim_end();
        let split = head
            .rfind(|c: char| c.is_whitespace() || c == '*')
            .ok_or_else(|| err("no return type"))?;
        let name = head[split + 1..].to_string();
        if !is_ident(&name) {
            return Err(err("bad function name"));
        }
        let ret = CType::parse(&head[..split + 1]).map_err(|e| err(&e))?;
        let inner = sig[open + 1..sig.len() - 1].trim();
        let mut params = Vec::new();
        let mut variadic = false;
        if inner != "void" {
            for p in inner.split(',') {
                let p = p.trim();
                if p == "..." {
                    variadic = true;
                    continue;
                }
                if variadic {
                    return Err(err("parameters after '...'"));
                }
                let split = p
                    .rfind(|c: char| c.is_whitespace() || c == '*')
                    .ok_or_else(|| err(&format!("parameter {p:?} has no name")))?;
                let pname = p[split + 1..].to_string();
                if !is_ident(&pname) || p.contains('[') {
                    return Err(err(&format!("parameter {p:?}: unsupported form")));
                }
                let ty = CType::parse(&p[..split + 1]).map_err(|e| err(&e))?;
                params.push(CParam { name: pname, ty });
            }
        }
        Ok(CSignature {
            ret,
            name,
            params,
            variadic,
        })
    }
}

/// One row of `openshmem-fortran-api.tsv`: a legacy Fortran routine.
#[derive(Clone, Debug)]
pub struct FortranRow {
    /// The spec's upper-case name, e.g. `SHMEM_INTEGER_PUT`.
    pub name: String,
    /// The symbol gfortran calls, e.g. `shmem_integer_put_`.
    pub symbol: String,
    /// `function` or `subroutine`.
    pub kind: String,
    pub group: String,
    /// The synopsis, empty for an extension.
    pub f_signature: String,
}

/// Reads `openshmem-fortran-api.tsv`.
pub fn load_fortran(dir: &Path) -> Result<Vec<FortranRow>, String> {
    let mut rows: Vec<FortranRow> = Vec::new();
    for mut r in read_tsv(&dir.join("openshmem-fortran-api.tsv"))? {
        let mut take = |k: &str| {
            r.remove(k)
                .ok_or_else(|| format!("fortran-api tsv: no column {k}"))
        };
        let row = FortranRow {
            name: take("name")?,
            symbol: take("symbol")?,
            kind: take("kind")?,
            group: take("group")?,
            f_signature: take("f_signature")?,
        };
        if rows.iter().any(|r| r.name == row.name) {
            return Err(format!("fortran-api tsv: {} twice", row.name));
        }
        if row.symbol != format!("{}_", row.name.to_lowercase()) {
            return Err(format!(
                "fortran-api tsv: {}: symbol {} is not the lower-case name with `_`",
                row.name, row.symbol
            ));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// A parsed Fortran synopsis: `CALL NAME(PARAMS)` or `TYPE FUNCTION NAME(PARAMS)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FSignature {
    /// The function's Fortran type (`INTEGER*4`, `LOGICAL`, `?`), `None` for a subroutine.
    pub ret: Option<String>,
    pub name: String,
    /// Parameter names, lower case.
    pub params: Vec<String>,
}

impl FSignature {
    pub fn parse(sig: &str) -> Result<FSignature, String> {
        let err = |m: &str| format!("Fortran signature {sig:?}: {m}");
        let (ret, rest) = if let Some(rest) = sig.strip_prefix("CALL ") {
            (None, rest)
        } else if let Some((ty, rest)) = sig.split_once(" FUNCTION ") {
            (Some(ty.trim().to_string()), rest)
        } else {
            return Err(err("expected CALL or FUNCTION"));
        };
        let rest = rest.trim();
        let (name, params) = match rest.split_once('(') {
            None => (rest, Vec::new()),
            Some((name, inner)) => {
                let inner = inner
                    .strip_suffix(')')
                    .ok_or_else(|| err("no closing ')'"))?;
                let params: Vec<String> = inner
                    .split(',')
                    .map(|p| p.trim().to_lowercase())
                    .filter(|p| !p.is_empty())
                    .collect();
                (name.trim(), params)
            }
        };
        if !is_ident(name) || params.iter().any(|p| !is_ident(p)) {
            return Err(err("bad name or parameter"));
        }
        Ok(FSignature {
            ret,
            name: name.to_string(),
            params,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_fortran_synopses() {
        let s =
            FSignature::parse("INTEGER*4 FUNCTION SHMEM_INT4_CSWAP(dest, cond_i4, value_i4, pe)")
                .unwrap();
        assert_eq!(s.ret.as_deref(), Some("INTEGER*4"));
        assert_eq!(s.name, "SHMEM_INT4_CSWAP");
        assert_eq!(s.params, ["dest", "cond_i4", "value_i4", "pe"]);
        let s = FSignature::parse("CALL SHMEM_BARRIER_ALL").unwrap();
        assert_eq!((s.ret, s.params.len()), (None, 0));
        let s = FSignature::parse("CALL SHMEM_INFO_GET_VERSION(MAJOR, MINOR)").unwrap();
        assert_eq!(s.params, ["major", "minor"]);
        assert!(FSignature::parse("SHMEM_X(a)").is_err());
    }

    use super::*;

    #[test]
    fn parses_a_typed_put() {
        let s = CSignature::parse(
            "void shmem_ctx_longdouble_put(shmem_ctx_t ctx, long double *dest, const long double *source, size_t nelems, int pe)",
        )
        .unwrap();
        assert_eq!(s.name, "shmem_ctx_longdouble_put");
        assert!(s.ret.is_void());
        assert_eq!(s.params.len(), 5);
        assert_eq!(
            s.params[2].ty,
            CType {
                base: "long double".into(),
                is_const: true,
                pointers: 1
            }
        );
        assert_eq!(s.params[2].ty.to_c(), "const long double *");
    }

    #[test]
    fn parses_a_variadic_list() {
        let s = CSignature::parse("void shmem_pcontrol(int level, ...)").unwrap();
        assert!(s.variadic);
        assert_eq!(s.params.len(), 1);
        assert_eq!(s.params[0].name, "level");
        assert!(CSignature::parse("void f(..., int x)").is_err());
    }

    #[test]
    fn parses_pointer_returns_and_void_lists() {
        let s = CSignature::parse("void *shmem_malloc(size_t size)").unwrap();
        assert_eq!(
            s.ret,
            CType {
                base: "void".into(),
                is_const: false,
                pointers: 1
            }
        );
        assert_eq!(s.name, "shmem_malloc");
        let s = CSignature::parse("int shmem_my_pe(void)").unwrap();
        assert!(s.params.is_empty());
    }
}
