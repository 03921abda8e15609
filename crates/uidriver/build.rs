//! Tells the tests whether `npx` is on PATH (cfg `has_npx`), so the MCP Inspector test is
//! ignored, with its reason, where Node.js is missing instead of failing or passing unrun.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_npx)");
    println!("cargo::rerun-if-env-changed=PATH");
    let found = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("npx").is_file()));
    if found {
        println!("cargo::rustc-cfg=has_npx");
    }
}
