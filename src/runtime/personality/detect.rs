//! Which header the program's objects were compiled with, decided per loaded object from what
//! each object's file says (docs/ABI.md, "How the personality is decided").
//!
//! `dl_iterate_phdr` lists the loaded objects. rshmem itself is the object that holds this code,
//! whatever name it was loaded by (a `libsma.so` symlink to rshmem is rshmem). A foreign library
//! is another object whose file name starts with a personality's `library` (`liboshmem.so`,
//! `libsma.so`): it stays loaded, never initialized, as a dependency of the objects built for it.
//! Every other object that calls OpenSHMEM routines or carries rshmem's ABI marker is a user, and
//! its evidence decides its ABI ([`elf`] reads it from the object's file):
//!   1. it refers to the marker that rshmem's `shmem.h` plants: rshmem's values;
//!   2. else it was linked against another object that defines `shmem_init` and that no
//!      personality describes: an implementation rshmem does not know, an error;
//!   3. else it was linked against a foreign library: that implementation's values (also when
//!      it was linked against rshmem too: it was compiled for the foreign one);
//!   4. else it was linked against rshmem (a `DT_NEEDED` that resolves to this library, by
//!      whatever name): rshmem's values;
//!   5. else nothing is known of it (a plugin loaded by name, a header older than the marker).
//!
//! The users with evidence must agree: objects built for two ABIs stop the job at `shmem_init`,
//! naming them, since one value (SOS's `SHMEM_CMP_EQ` is rshmem's `SHMEM_CMP_NE`) would mean two
//! things. Users without evidence take the decided ABI; with no evidence at all, one foreign
//! library loaded decides (as a binary preloaded under a launcher looks when its objects are
//! stripped of sections), none means rshmem's values, and another object than rshmem that
//! defines `shmem_init` is an implementation rshmem does not know: an error, never a guess.
//!
//! The values the foreign library's own handle symbols hold are read through
//! `dlopen(RTLD_NOLOAD)` and `dlsym` on its handle (SOS initializes `SHMEM_TEAM_WORLD` statically to
//! the address of its own team object), so that a program that reads the foreign copy still names
//! the right rshmem object.

use super::elf;
use super::tables::{self, HandleSymbol, Personality};
use crate::transport::shm::loader::{self, Handle, Object};
use std::path::PathBuf;

/// The detected personality, with the nonzero values of its library's handle symbols.
pub struct Found {
    pub personality: &'static Personality,
    pub handles: Vec<(&'static HandleSymbol, usize)>,
}

/// The file to read of a loaded object, and the name to show in messages.
trait Loaded {
    fn file(&self) -> PathBuf;
    fn shown(&self) -> String;
}

impl Loaded for Object {
    fn file(&self) -> PathBuf {
        if self.name.is_empty() {
            PathBuf::from("/proc/self/exe")
        } else {
            PathBuf::from(&self.name)
        }
    }

    fn shown(&self) -> String {
        if self.name.is_empty() {
            std::fs::read_link("/proc/self/exe")
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "the executable".to_string())
        } else {
            self.name.clone()
        }
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The personality whose library file `name` is.
fn library_of(name: &str) -> Option<&'static Personality> {
    let file = file_name(name);
    tables::ALL[1..]
        .iter()
        .copied()
        .find(|p| file.starts_with(p.library))
}

/// What one user of OpenSHMEM was built for.
#[derive(Clone, Copy, Debug)]
pub enum Abi {
    /// rshmem's values, and why: the marker, or a link against rshmem.
    Native(&'static str),
    /// A foreign implementation's values: its personality and its library.
    Foreign(&'static Personality),
    /// Linked against an OpenSHMEM library that no personality describes.
    Unknown,
    /// No evidence.
    Silent,
}

/// One user of OpenSHMEM and what it was built for.
#[derive(Clone, Debug)]
pub struct User {
    pub shown: String,
    pub abi: Abi,
    /// The library it was linked against that decided (foreign or unknown).
    pub library: String,
}

/// The decision from the users' evidence and the foreign libraries loaded: the personality, or
/// the message saying why there is no single one. `libraries` holds each loaded foreign library
/// (its path and personality); `unknown` the other objects that define `shmem_init`.
pub fn decide(
    users: &[User],
    libraries: &[(String, &'static Personality)],
    unknown: &[String],
) -> Result<&'static Personality, String> {
    if let Some(u) = users.iter().find(|u| matches!(u.abi, Abi::Unknown)) {
        return Err(format!(
            "{} was linked against {}, which also defines shmem_init, and rshmem knows no ABI personality for it (known: {}): its constants cannot be translated",
            u.shown,
            u.library,
            known()
        ));
    }
    let mut native: Vec<&User> = Vec::new();
    let mut foreign: Vec<&User> = Vec::new();
    for u in users {
        match u.abi {
            Abi::Native(_) => native.push(u),
            Abi::Foreign(_) => foreign.push(u),
            Abi::Unknown | Abi::Silent => {}
        }
    }
    let first_foreign = foreign.first().map(|u| match u.abi {
        Abi::Foreign(p) => p,
        _ => unreachable!("only foreign users are kept"),
    });
    let other_foreign = foreign.iter().find(|u| match u.abi {
        Abi::Foreign(p) => !std::ptr::eq(p, first_foreign.unwrap_or(p)),
        _ => false,
    });
    let describe = |u: &User| match u.abi {
        Abi::Native(why) => format!("{} ({why})", u.shown),
        Abi::Foreign(p) => format!("{} (linked against {}: {})", u.shown, u.library, p.name),
        _ => u.shown.clone(),
    };
    let mixed = |a: &User, b: &User| {
        Err(format!(
            "this process holds objects built for two OpenSHMEM ABIs, whose constants cannot be told apart at run time: {} and {}; build them all with one implementation's header",
            describe(a),
            describe(b)
        ))
    };
    if let (Some(a), Some(b)) = (foreign.first(), other_foreign) {
        return mixed(a, b);
    }
    match (native.first(), foreign.first()) {
        (Some(a), Some(b)) => mixed(a, b),
        (Some(_), None) => Ok(&tables::NATIVE),
        (None, Some(_)) => Ok(first_foreign.expect("a foreign user")),
        (None, None) => match (libraries, unknown) {
            ([], []) => Ok(&tables::NATIVE),
            ([(_, p)], _) => Ok(p),
            ([], [path, ..]) => Err(format!(
                "{path} also defines shmem_init, and rshmem knows no ABI personality for it (known: {}): its constants cannot be translated",
                known()
            )),
            (several, _) => Err(format!(
                "the process has loaded {}: more than one OpenSHMEM implementation, and no object says which one it was built for",
                several
                    .iter()
                    .map(|(path, p)| format!("{path} ({})", p.name))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )),
        },
    }
}

/// The personality of this process, or why there is no single one.
pub fn detect() -> Result<Found, String> {
    let objects = loader::objects();
    // The loader's handle of rshmem and of each foreign library, to resolve `DT_NEEDED` names.
    let own = objects
        .iter()
        .find(|o| o.is_self)
        .and_then(|o| Handle::loaded(&o.name));
    let mut libraries: Vec<(String, &'static Personality, Option<Handle>)> = Vec::new();
    let mut unknown: Vec<(String, Option<Handle>)> = Vec::new();
    let mut candidates: Vec<(&Object, elf::Object)> = Vec::new();
    for o in objects.iter().filter(|o| !o.is_self) {
        let Some(info) = elf::read(&o.file()) else {
            continue;
        };
        if let Some(p) = library_of(&o.name) {
            libraries.push((o.name.clone(), p, Handle::loaded(&o.name)));
        } else if info.defines_init {
            unknown.push((o.shown(), Handle::loaded(&o.name)));
        } else if info.marker || info.uses_shmem {
            candidates.push((o, info));
        }
    }
    let users: Vec<User> = candidates
        .iter()
        .map(|(o, info)| {
            let mut user = User {
                shown: o.shown(),
                abi: Abi::Silent,
                library: String::new(),
            };
            if info.marker {
                user.abi = Abi::Native("compiled with rshmem's shmem.h");
                return user;
            }
            // A link against a foreign (or unknown) implementation outweighs one against rshmem:
            // the stand-ins of the preload tests, like any object built for SOS and also linked
            // with rshmem by name, were compiled with the foreign values.
            let mut linked_self = false;
            for needed in &info.needed {
                let Some(h) = Handle::loaded(needed) else {
                    continue;
                };
                let h = Some(h);
                if h == own {
                    linked_self = true;
                } else if let Some((path, p, _)) = libraries.iter().find(|l| l.2 == h) {
                    if matches!(user.abi, Abi::Silent) {
                        user.library = path.clone();
                        user.abi = Abi::Foreign(p);
                    }
                } else if let Some((path, _)) = unknown.iter().find(|u| u.1 == h) {
                    user.library = path.clone();
                    user.abi = Abi::Unknown;
                }
            }
            if linked_self && matches!(user.abi, Abi::Silent) {
                user.abi = Abi::Native("linked against rshmem");
            }
            user
        })
        .collect();
    drop(own);
    let loaded: Vec<(String, &'static Personality)> = libraries
        .iter()
        .map(|(path, p, _)| (path.clone(), *p))
        .collect();
    drop(libraries);
    let unknown: Vec<String> = unknown.into_iter().map(|(path, _)| path).collect();
    let personality = decide(&users, &loaded, &unknown)?;
    let library = loaded
        .iter()
        .find(|(_, p)| std::ptr::eq(*p, personality))
        .map(|(path, _)| path.as_str());
    Ok(Found {
        personality,
        handles: match library {
            None => Vec::new(),
            Some(path) => personality
                .handles
                .iter()
                .map(|h| (h, Handle::loaded(path).map_or(0, |o| o.word(h.symbol))))
                .filter(|(_, v)| *v != 0)
                .collect(),
        },
    })
}

fn known() -> String {
    tables::ALL[1..]
        .iter()
        .map(|p| format!("{} ({})", p.name, p.library))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(shown: &str, abi: Abi) -> User {
        User {
            shown: shown.to_string(),
            abi,
            library: "/x/libsma.so".to_string(),
        }
    }

    #[test]
    fn libraries_are_known_by_file_name() {
        assert_eq!(
            library_of("/usr/lib/x86_64-linux-gnu/liboshmem.so.40").map(|p| p.name),
            Some(tables::OSHMEM_4_1.name)
        );
        assert_eq!(
            library_of("/opt/sos/lib/libsma.so.0").map(|p| p.name),
            Some(tables::SOS_1_5.name)
        );
        assert!(library_of("/x/libsmash.so").is_none());
        assert!(library_of("/x/mylibsma.so.1").is_none());
        assert!(library_of("").is_none());
    }

    #[test]
    fn the_users_evidence_decides() {
        let sos = &tables::SOS_1_5;
        let lib = || vec![("/x/libsma.so".to_string(), sos)];
        // A program with the marker, linked as -lsma to rshmem: no foreign library is loaded.
        let marked = user("prog", Abi::Native("compiled with rshmem's shmem.h"));
        assert_eq!(
            decide(std::slice::from_ref(&marked), &[], &[])
                .unwrap()
                .name,
            "rshmem"
        );
        // The marker wins over a loaded foreign library no one was built for.
        assert_eq!(
            decide(std::slice::from_ref(&marked), &lib(), &[])
                .unwrap()
                .name,
            "rshmem"
        );
        // A binary built for SOS.
        let sos_user = user("prog", Abi::Foreign(sos));
        assert_eq!(
            decide(std::slice::from_ref(&sos_user), &lib(), &[])
                .unwrap()
                .name,
            sos.name
        );
        // Users without evidence follow; with none at all, the one foreign library decides.
        let silent = user("plugin.so", Abi::Silent);
        assert_eq!(
            decide(&[sos_user.clone(), silent.clone()], &lib(), &[])
                .unwrap()
                .name,
            sos.name
        );
        assert_eq!(
            decide(std::slice::from_ref(&silent), &lib(), &[])
                .unwrap()
                .name,
            sos.name
        );
        assert_eq!(decide(&[silent], &[], &[]).unwrap().name, "rshmem");
    }

    #[test]
    fn two_abis_in_one_process_stop() {
        let sos = &tables::SOS_1_5;
        let oshmem = &tables::OSHMEM_4_1;
        let marked = user("/bin/prog", Abi::Native("compiled with rshmem's shmem.h"));
        let sos_lib = user("/x/libpart.so", Abi::Foreign(sos));
        let err = decide(&[marked, sos_lib.clone()], &[], &[]).unwrap_err();
        assert!(err.contains("two OpenSHMEM ABIs"), "{err}");
        assert!(
            err.contains("/bin/prog (compiled with rshmem's shmem.h)"),
            "{err}"
        );
        assert!(
            err.contains("/x/libpart.so (linked against /x/libsma.so: Sandia"),
            "{err}"
        );
        let osh = user("/bin/other", Abi::Foreign(oshmem));
        assert!(decide(&[sos_lib, osh], &[], &[]).is_err());
    }

    #[test]
    fn unknown_implementations_stop() {
        let u = User {
            shown: "/bin/prog".to_string(),
            abi: Abi::Unknown,
            library: "/opt/x/libshmem.so".to_string(),
        };
        let err = decide(&[u], &[], &[]).unwrap_err();
        assert!(err.contains("/opt/x/libshmem.so"), "{err}");
        let err = decide(&[], &[], &["/opt/x/libshmem.so".to_string()]).unwrap_err();
        assert!(err.contains("knows no ABI personality"), "{err}");
        let sos = &tables::SOS_1_5;
        let oshmem = &tables::OSHMEM_4_1;
        let two = [
            ("/a/libsma.so".to_string(), sos),
            ("/b/liboshmem.so".to_string(), oshmem),
        ];
        assert!(decide(&[], &two, &[]).is_err());
    }
}
