//! What an OSWorld task file downloads: the `files` of its `download` steps and the `path` of
//! its evaluator's `cloud_file` getters. The fetcher fills the cache with these; a run links
//! the cached files where OSWorld's own code looks for them.

use serde_json::Value;

/// The URLs the `download` steps among `steps` fetch (malformed entries left out: OSWorld's
/// setup reports them when it runs).
pub fn download_urls(steps: &[Value]) -> Vec<String> {
    steps
        .iter()
        .filter(|s| s["type"] == "download")
        .filter_map(|s| s["parameters"]["files"].as_array())
        .flatten()
        .filter_map(|f| f["url"].as_str())
        .map(str::to_string)
        .collect()
}

/// The URLs every `cloud_file` getter of the evaluator `ev` downloads (`result` and
/// `expected`, one getter or a list of them; `path` one URL, or a list with `multi`).
pub fn cloud_urls(ev: &Value) -> Vec<String> {
    let getters = |key: &str| match &ev[key] {
        Value::Array(gs) => gs.iter().collect(),
        g => vec![g],
    };
    let mut all = getters("result");
    all.extend(getters("expected"));
    all.into_iter()
        .filter(|g| g["type"] == "cloud_file")
        .flat_map(|g| match &g["path"] {
            Value::String(url) => vec![url.clone()],
            Value::Array(urls) => urls
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => vec![],
        })
        .collect()
}

/// The empty Chrome history that OSWorld's `update_browse_history` step downloads (the URL
/// is in OSWorld's setup controller, not in the task file).
pub const HISTORY_DB: &str = "https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/chrome/44ee5668-ecd5-4366-a6ce-c1c9b8d4e938/history_empty.sqlite?download=true";

/// Every URL the task file `v` downloads: config, postconfig, then the getters.
pub fn task_urls(v: &Value) -> Vec<String> {
    let none = Vec::new();
    let ev = &v["evaluator"];
    let config = v["config"].as_array().unwrap_or(&none);
    let postconfig = ev["postconfig"].as_array().unwrap_or(&none);
    let mut urls = download_urls(config);
    urls.extend(download_urls(postconfig));
    urls.extend(cloud_urls(ev));
    if config
        .iter()
        .chain(postconfig)
        .any(|s| s["type"] == "update_browse_history")
    {
        urls.push(HISTORY_DB.to_string());
    }
    urls
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn downloads_and_cloud_files_are_found_in_order() {
        let task = json!({
            "config": [
                {"type": "download", "parameters": {"files": [
                    {"url": "https://h/a.xlsx", "path": "/home/user/a.xlsx"}]}},
                {"type": "launch", "parameters": {"command": ["x"]}}
            ],
            "evaluator": {
                "postconfig": [{"type": "download", "parameters": {"files": [
                    {"url": "https://h/b.txt", "path": "/tmp/b.txt"}]}}],
                "result": {"type": "vm_file", "path": "/home/user/a.xlsx"},
                "expected": [
                    {"type": "cloud_file", "path": ["https://h/c", "https://h/d"], "multi": true},
                    {"type": "cloud_file", "path": "https://h/e"}
                ]
            }
        });
        assert_eq!(
            task_urls(&task),
            [
                "https://h/a.xlsx",
                "https://h/b.txt",
                "https://h/c",
                "https://h/d",
                "https://h/e"
            ]
        );
    }
}
