//! Where OSWorld's downloads come from here: a local directory instead of the network, so a
//! run is offline and repeatable. A URL's file is looked up by the SHA-256 of the whole URL in
//! lowercase hex (the name `tasks osworld-cache fetch` gives it: two URLs never share one, and
//! URLs such as `…/download?id=…&export=download` need no name of their own), then by the URL's
//! last path segment (query and fragment dropped), for a directory filled by hand.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The download cache given by `--osworld-cache` (none: every download step is unsupported).
#[derive(Debug, Clone, Default)]
pub struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    /// A cache over `dir`, or none.
    pub fn new(dir: Option<&Path>) -> Cache {
        Cache {
            dir: dir.map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf())),
        }
    }

    /// The cached file for `url`, or why there is none (the names that were tried).
    pub fn find(&self, url: &str) -> Result<PathBuf, String> {
        let dir = self
            .dir
            .as_ref()
            .ok_or(format!("downloads {url}, and no --osworld-cache was given"))?;
        let names = names_for(url);
        names
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file())
            .ok_or(format!(
                "{url} is not in the cache {} (looked for {})",
                dir.display(),
                names.join(" and ")
            ))
    }
}

/// The name `url`'s file has in the cache when fetched: the SHA-256 of the URL, lowercase hex.
pub fn file_name(url: &str) -> String {
    Sha256::digest(url.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The file names `url` may have in the cache, in the order they are tried.
fn names_for(url: &str) -> Vec<String> {
    let sha = file_name(url);
    let path = url.split(['?', '#']).next().unwrap_or("");
    let base = path.rsplit('/').next().unwrap_or("");
    let after_host = path
        .split("://")
        .nth(1)
        .is_some_and(|rest| rest.contains('/'));
    let mut names = vec![sha];
    if !base.is_empty() && after_host && base != "." && base != ".." {
        names.push(base.to_string());
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_found_by_its_last_segment_or_its_sha256() {
        let n = names_for("https://example.org/files/Grades.xlsx?raw=1");
        assert_eq!(
            n[0],
            file_name("https://example.org/files/Grades.xlsx?raw=1")
        );
        assert_eq!(n[1], "Grades.xlsx");
        // sha256("abc") is the FIPS 180-2 test vector.
        assert_eq!(
            names_for("abc"),
            vec!["ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".to_string()]
        );
        assert_eq!(names_for("https://example.org").len(), 1);

        let dir = std::env::temp_dir().join(format!("uidriver-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Grades.xlsx"), b"x").unwrap();
        let c = Cache::new(Some(&dir));
        assert!(c
            .find("https://example.org/files/Grades.xlsx?raw=1")
            .is_ok());
        let miss = c.find("https://example.org/other.txt").unwrap_err();
        assert!(miss.contains("other.txt"), "{miss}");
        assert!(Cache::new(None).find("https://x/y").is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
