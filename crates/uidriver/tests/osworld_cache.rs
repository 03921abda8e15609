//! `uidriver tasks osworld-cache fetch` against a loopback server standing in for OSWorld's
//! hosts (issue 25): an OSWorld-format task tree whose downloads point at it, some answering
//! 404, one a 500 before the file, one cut off mid-body (resumed with a Range), one cut off by
//! a server that ignores Range (started over), one that stalls (an idle timeout, not a hang),
//! a Google Drive-style confirm page and a `multi` cloud_file. The files land under the
//! SHA-256 of their URL with the right checksums in the manifest, a second run fetches
//! nothing, and failures are named with exit 1. (That a filled cache makes tasks runnable is
//! tests/osworld.rs's, since deciding it takes OSWorld's code.)
//!
//! The server is a few lines over `std::net` rather than hyper: it must cut a body at a byte it
//! chooses and ignore a Range on purpose, which a correct HTTP stack does not do readily.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The requests the server saw: path with query, and the Range header if any.
type Hits = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A body big enough that half of it leaves the server before it hangs up.
fn big(seed: u8) -> Vec<u8> {
    (0..300_000u32).map(|i| (i % 251) as u8 ^ seed).collect()
}

/// The files the server holds, by path and query.
fn files() -> HashMap<&'static str, Vec<u8>> {
    HashMap::from([
        ("/files/a.txt", b"the first a.txt\n".to_vec()),
        ("/files/other/a.txt", b"another a.txt, same name\n".to_vec()),
        ("/gold/b.txt", b"the expected b\n".to_vec()),
        ("/flaky/c.txt", b"c after a 500\n".to_vec()),
        ("/cut/d.bin", big(1)),
        ("/norange/f.bin", big(2)),
        (
            "/usercontent/download?id=gold2&export=download&confirm=t&uuid=u1",
            b"the file behind the confirm page\n".to_vec(),
        ),
        ("/multi/1.txt", b"one\n".to_vec()),
        ("/multi/2.txt", b"two\n".to_vec()),
    ])
}

/// Serves `files()` on a loopback port, one thread per connection, each answer closing it.
fn start_server() -> (String, Hits) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits: Hits = Arc::default();
    let (h, b) = (hits.clone(), base.clone());
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let (h, b) = (h.clone(), b.clone());
            std::thread::spawn(move || answer(conn, &h, &b));
        }
    });
    (base, hits)
}

fn answer(mut conn: TcpStream, hits: &Hits, base: &str) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    let target = first.split(' ').nth(1).unwrap_or("").to_string();
    let mut range = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("range") {
                range = Some(v.trim().to_string());
            }
        }
    }
    let seen = {
        let mut h = hits.lock().unwrap();
        h.push((target.clone(), range.clone()));
        h.iter().filter(|(t, _)| *t == target).count()
    };
    let head = |status: &str, len: usize, extra: &str| {
        format!("HTTP/1.1 {status}\r\nContent-Length: {len}\r\nConnection: close\r\n{extra}\r\n")
    };
    let send = |conn: &mut TcpStream, head: String, body: &[u8]| {
        let _ = conn.write_all(head.as_bytes());
        let _ = conn.write_all(body);
        let _ = conn.flush();
    };
    let all = files();
    match (target.as_str(), seen) {
        ("/flaky/c.txt", 1) => send(&mut conn, head("500 Internal Server Error", 0, ""), b""),
        ("/cut/d.bin" | "/norange/f.bin", 1) => {
            // The whole length announced, half of it sent, then the connection dropped.
            let body = &all[target.as_str()];
            send(
                &mut conn,
                head("200 OK", body.len(), ""),
                &body[..body.len() / 2],
            );
        }
        ("/cut/d.bin", _) if range.is_some() => {
            let body = &all["/cut/d.bin"];
            let from: usize = range.as_deref().unwrap()["bytes=".len()..]
                .trim_end_matches('-')
                .parse()
                .unwrap();
            let extra = format!(
                "Content-Range: bytes {from}-{}/{}\r\n",
                body.len() - 1,
                body.len()
            );
            send(
                &mut conn,
                head("206 Partial Content", body.len() - from, &extra),
                &body[from..],
            );
        }
        ("/stall/g.bin", _) => {
            send(&mut conn, head("200 OK", 10, ""), b"abc");
            std::thread::sleep(Duration::from_secs(6));
        }
        ("/uc?id=gold2&export=download", _) => {
            let page = format!(
                r#"<html><body><p>Google Drive can't scan this file for viruses.</p>
                <form id="download-form" action="{base}/usercontent/download" method="get">
                <input type="submit" id="uc-download-link" value="Download anyway"/>
                <input type="hidden" name="id" value="gold2"><input type="hidden" name="export" value="download">
                <input type="hidden" name="confirm" value="t"><input type="hidden" name="uuid" value="u1">
                </form></body></html>"#
            );
            send(
                &mut conn,
                head(
                    "200 OK",
                    page.len(),
                    "Content-Type: text/html; charset=utf-8\r\n",
                ),
                page.as_bytes(),
            );
        }
        (t, _) => match all.get(t) {
            Some(body) => send(&mut conn, head("200 OK", body.len(), ""), body),
            None => send(&mut conn, head("404 Not Found", 0, ""), b""),
        },
    }
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes `task` as `<root>/evaluation_examples/examples/<domain>/<id>.json`.
fn write_task(root: &Path, domain: &str, id: &str, config: Value, evaluator: Value) {
    let dir = root.join("evaluation_examples/examples").join(domain);
    std::fs::create_dir_all(&dir).unwrap();
    let task = json!({
        "id": id,
        "snapshot": domain,
        "instruction": format!("Task {id} of the fetch test."),
        "source": "uidriver test fixture",
        "config": config,
        "trajectory": "trajectories/",
        "related_apps": [domain],
        "evaluator": evaluator,
    });
    std::fs::write(
        dir.join(format!("{id}.json")),
        serde_json::to_string_pretty(&task).unwrap(),
    )
    .unwrap();
}

fn download(urls: &[String]) -> Value {
    let files: Vec<Value> = urls
        .iter()
        .enumerate()
        .map(|(i, u)| json!({"url": u, "path": format!("/home/user/Desktop/f{i}")}))
        .collect();
    json!([{"type": "download", "parameters": {"files": files}}])
}

fn compare_with(url: &str) -> Value {
    json!({
        "func": "compare_text_file",
        "result": {"type": "vm_file", "path": "/home/user/Desktop/f0", "dest": "f0"},
        "expected": {"type": "cloud_file", "path": url, "dest": "gold"},
    })
}

fn command_check() -> Value {
    json!({
        "func": "check_include_exclude",
        "result": {"type": "vm_command_line", "command": "ls /home/user/Desktop"},
        "expected": {"type": "rule", "rules": {"include": ["f0"], "exclude": []}},
    })
}

/// The task tree: what becomes runnable once fetched, and what stays skipped.
fn write_tree(root: &Path, base: &str) {
    let u = |p: &str| format!("{base}{p}");
    write_task(
        root,
        "os",
        "t1-two-a",
        download(&[u("/files/a.txt"), u("/files/other/a.txt")]),
        compare_with(&u("/gold/b.txt")),
    );
    write_task(
        root,
        "os",
        "t2-retries",
        download(&[u("/flaky/c.txt"), u("/cut/d.bin"), u("/norange/f.bin")]),
        command_check(),
    );
    write_task(
        root,
        "os",
        "t3-missing",
        download(&[u("/missing/e.txt"), u("/files/a.txt")]),
        command_check(),
    );
    write_task(
        root,
        "os",
        "t5-stall",
        download(&[u("/stall/g.bin")]),
        command_check(),
    );
    let mut drive = compare_with(&u("/uc?id=gold2&export=download"));
    drive["postconfig"] = download(&[u("/files/a.txt")]);
    write_task(root, "chrome", "t4-drive", json!([]), drive);
    write_task(
        root,
        "calc",
        "t6-multi",
        json!([]),
        json!({
            "func": "compare_table",
            "result": {"type": "vm_file", "path": "/home/user/a.xlsx", "dest": "a.xlsx"},
            "expected": {"type": "cloud_file", "path": [u("/multi/1.txt"), u("/multi/2.txt")],
                         "dest": ["1.txt", "2.txt"], "multi": true, "gives": [0, 1]},
        }),
    );
}

/// Runs the binary with `args`: exit code, stdout, stderr; a run past 60 s fails the test.
fn uidriver(args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_uidriver"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("uidriver {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn hits_of(hits: &Hits, target: &str) -> Vec<Option<String>> {
    hits.lock()
        .unwrap()
        .iter()
        .filter(|(t, _)| t == target)
        .map(|(_, r)| r.clone())
        .collect()
}

#[test]
fn fetch_fills_the_cache_resumes_retries_and_names_what_failed() {
    let (base, hits) = start_server();
    let tmp = std::env::temp_dir().join(format!("uidriver-osworld-fetch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (tree, cache): (PathBuf, PathBuf) = (tmp.join("OSWorld"), tmp.join("cache"));
    write_tree(&tree, &base);
    std::fs::create_dir_all(&cache).unwrap();

    let fetch = [
        "tasks",
        "osworld-cache",
        "fetch",
        tree.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--timeout",
        "1",
        "--retries",
        "2",
    ];
    let (code, out, err) = uidriver(&fetch);
    assert_eq!(code, 1, "some failed:\n{out}\n{err}");
    assert!(
        out.starts_with("fetched 9 ("),
        "fetched: the same a.txt once, the two a.txt apart:\n{out}\n{err}"
    );
    assert!(out.contains("already present 0, failed 2"), "{out}");
    assert!(
        out.contains(&format!("FAILED {base}/missing/e.txt: HTTP 404 Not Found")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "FAILED {base}/stall/g.bin: no data for 1 s (3 attempts)"
        )),
        "a stall is a timeout, retried, then a failure:\n{out}"
    );
    assert!(
        err.contains("[11/11 files,"),
        "plain progress lines off a terminal:\n{err}"
    );

    // Every file under the SHA-256 of its URL, as the manifest records it.
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(cache.join("manifest.json")).unwrap())
            .unwrap();
    let mut expect: Vec<(String, Vec<u8>)> = files()
        .into_iter()
        .filter(|(p, _)| !p.starts_with("/usercontent"))
        .map(|(p, b)| (format!("{base}{p}"), b))
        .collect();
    expect.push((
        format!("{base}/uc?id=gold2&export=download"),
        b"the file behind the confirm page\n".to_vec(),
    ));
    for (url, body) in &expect {
        let name = sha256(url.as_bytes());
        let got = std::fs::read(cache.join(&name)).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert!(got == *body, "{url}: wrong content");
        let entry = &manifest["files"][url];
        assert_eq!(entry["file"], name.as_str(), "{url}");
        assert_eq!(entry["sha256"], sha256(body).as_str(), "{url}");
        assert_eq!(entry["size"], body.len(), "{url}");
        assert!(entry["error"].is_null(), "{url}: {entry}");
        assert!(entry["fetched"].as_str().unwrap().ends_with('Z'), "{entry}");
    }
    assert_eq!(
        manifest["files"][format!("{base}/cut/d.bin")]["status"],
        206
    );
    assert_eq!(
        manifest["files"][format!("{base}/norange/f.bin")]["status"],
        200
    );
    let failed = &manifest["files"][format!("{base}/missing/e.txt")];
    assert_eq!(failed["status"], 404);
    assert_eq!(failed["error"], "HTTP 404 Not Found");
    assert!(!cache
        .join(format!(
            "{}.part",
            sha256(format!("{base}/cut/d.bin").as_bytes())
        ))
        .exists());

    // The 500 was retried; the cut body resumed from where it stopped; the server that
    // ignored the Range gave the whole file again, and the file is still right.
    assert_eq!(hits_of(&hits, "/flaky/c.txt").len(), 2);
    let cut = hits_of(&hits, "/cut/d.bin");
    assert_eq!(cut.len(), 2, "{cut:?}");
    let resumed_at: usize = cut[1].as_deref().expect("a Range on the retry")["bytes=".len()..]
        .trim_end_matches('-')
        .parse()
        .unwrap();
    assert!(resumed_at > 0 && resumed_at < 300_000, "{cut:?}");
    let norange = hits_of(&hits, "/norange/f.bin");
    assert!(norange.len() == 2 && norange[1].is_some(), "{norange:?}");
    assert_eq!(
        hits_of(&hits, "/files/a.txt").len(),
        1,
        "one URL fetched once"
    );

    // A second run fetches nothing that is already there.
    let before = hits.lock().unwrap().len();
    let (code, out, _) = uidriver(&fetch);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("fetched 0 (") && out.contains("already present 9, failed 2"),
        "{out}"
    );
    let asked: Vec<String> = hits.lock().unwrap()[before..]
        .iter()
        .map(|(t, _)| t.clone())
        .collect();
    assert!(
        asked
            .iter()
            .all(|t| t == "/missing/e.txt" || t == "/stall/g.bin"),
        "only the failed ones are asked again: {asked:?}"
    );

    // --only narrows what is fetched; a tree that is not there is a usage error.
    let (code, out, _) = uidriver(&[&fetch[..], &["--only", "t1-two-a"]].concat());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("fetched 0 (0 B), already present 3, failed 0"),
        "{out}"
    );
    let (code, _, err) = uidriver(&[
        "tasks",
        "osworld-cache",
        "fetch",
        tmp.join("nowhere").to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}
