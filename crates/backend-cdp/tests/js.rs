//! The JavaScript uidriver runs in pages, linted: every function in `src/js/` (sent with
//! `Runtime.callFunctionOn`) and the page walker parse as JavaScript (`node --check`). Their
//! behaviour is tested in the live tests against Chromium; this catches a syntax slip without
//! a browser, naming the file.

use std::path::{Path, PathBuf};
use std::process::Command;

fn check(path: &Path, source: &str) {
    let dir = std::env::temp_dir().join(format!("uidriver-js-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(path.file_name().unwrap());
    std::fs::write(&file, source).unwrap();
    let out = Command::new("node")
        .arg("--check")
        .arg(&file)
        .output()
        .expect(
        "node runs (apt-get install --no-install-recommends nodejs; scripts/install-deps.sh does)",
    );
    let _ = std::fs::remove_file(&file);
    assert!(
        out.status.success(),
        "{} does not parse:\n{}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_page_script_parses() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut n = 0;
    for entry in std::fs::read_dir(src.join("js")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "js") {
            let body = std::fs::read_to_string(&path).unwrap();
            assert!(
                body.trim_start().starts_with("function"),
                "{}: a function declaration for callFunctionOn",
                path.display()
            );
            // A function declaration is an expression to callFunctionOn.
            check(&path, &format!("({body});\n"));
            n += 1;
        }
    }
    assert!(n >= 20, "the page functions are in src/js ({n} found)");
    let walker = src.join("walker.js");
    check(&walker, &std::fs::read_to_string(&walker).unwrap());
}
