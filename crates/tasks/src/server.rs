//! The local web server a task may start: serves files from a directory over loopback HTTP and
//! records every request (method, path, form and query fields, body), so a checker can judge
//! what a browser actually sent. Blocking std networking, a thread per connection: Chromium
//! opens speculative connections that send nothing, which must not stall the others.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

/// A request longer than this is cut (uploads in tasks are small).
const MAX_BODY: usize = 4 << 20;
/// A connection that sends nothing for this long is closed.
const IDLE: Duration = Duration::from_secs(10);

/// One request as received.
#[derive(Debug, Clone, Serialize)]
pub struct Recorded {
    /// GET, POST, …
    pub method: String,
    /// The path without the query.
    pub path: String,
    /// Query and form fields (urlencoded, or the text parts and file names of multipart).
    pub fields: BTreeMap<String, String>,
    /// The body as text (lossy).
    pub body: String,
}

/// A running server; stopped on drop.
pub struct LocalServer {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl LocalServer {
    /// Binds a free loopback port and serves `root`.
    pub fn start(root: PathBuf) -> std::io::Result<LocalServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (reqs, stopping) = (requests.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (root, reqs) = (root.clone(), reqs.clone());
                std::thread::spawn(move || serve(conn, &root, &reqs));
            }
        });
        Ok(LocalServer {
            url: format!("http://127.0.0.1:{port}"),
            requests,
            stop,
            port,
        })
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(
            &([127, 0, 0, 1], self.port).into(),
            Duration::from_millis(200),
        );
    }
}

/// Serves requests on one connection until it closes (keep-alive is honoured).
fn serve(conn: TcpStream, root: &std::path::Path, reqs: &Mutex<Vec<Recorded>>) {
    let _ = conn.set_read_timeout(Some(IDLE));
    let Ok(mut out) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(conn);
    while let Some(req) = read_request(&mut reader) {
        let response = respond(&req, root);
        if let Ok(mut r) = reqs.lock() {
            r.push(req);
        }
        if out.write_all(&response).is_err() {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut line = String::new();
    reader.read_line(&mut line).ok().filter(|n| *n > 0)?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut length = 0usize;
    let mut content_type = String::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok().filter(|n| *n > 0)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            match k.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = v.trim().parse().unwrap_or(0),
                "content-type" => content_type = v.trim().to_string(),
                _ => {}
            }
        }
    }
    let mut body = vec![0u8; length.min(MAX_BODY)];
    reader.read_exact(&mut body).ok()?;
    let body = String::from_utf8_lossy(&body).to_string();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut fields = BTreeMap::new();
    parse_urlencoded(query, &mut fields);
    if content_type.starts_with("application/x-www-form-urlencoded") {
        parse_urlencoded(&body, &mut fields);
    } else if let Some(b) = content_type.split("boundary=").nth(1) {
        parse_multipart(&body, b.trim_matches('"'), &mut fields);
    }
    Some(Recorded {
        method,
        path: percent_decode(path),
        fields,
        body,
    })
}

/// Files for GET (index.html for a directory); a short confirmation page for anything else.
fn respond(req: &Recorded, root: &std::path::Path) -> Vec<u8> {
    if req.method != "GET" && req.method != "HEAD" {
        let page = "<!doctype html><html><head><title>Received</title></head>\
                    <body><h1>Thank you</h1><p>Your submission was received.</p></body></html>";
        return reply("200 OK", "text/html; charset=utf-8", page.as_bytes());
    }
    let rel = req.path.trim_start_matches('/');
    if rel.split('/').any(|c| c == "..") {
        return reply("403 Forbidden", "text/plain", b"forbidden");
    }
    let mut file = root.join(rel);
    if file.is_dir() {
        file = file.join("index.html");
    }
    match std::fs::read(&file) {
        Ok(bytes) => reply("200 OK", content_type(&file), &bytes),
        Err(_) => reply("404 Not Found", "text/plain", b"not found"),
    }
}

fn content_type(p: &std::path::Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css",
        "js" => "text/javascript",
        "json" => "application/json",
        "csv" => "text/csv",
        "png" => "image/png",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn reply(status: &str, ctype: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

fn parse_urlencoded(s: &str, into: &mut BTreeMap<String, String>) {
    for pair in s.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        into.insert(
            percent_decode(&k.replace('+', " ")),
            percent_decode(&v.replace('+', " ")),
        );
    }
}

/// Text parts by name; a file part records its file name under its field name.
fn parse_multipart(body: &str, boundary: &str, into: &mut BTreeMap<String, String>) {
    for part in body.split(&format!("--{boundary}")) {
        let Some((head, value)) = part.split_once("\r\n\r\n") else {
            continue;
        };
        let attr = |name: &str| {
            head.split(&format!("{name}=\""))
                .nth(1)
                .and_then(|s| s.split('"').next())
                .map(str::to_string)
        };
        let Some(name) = attr(" name").or_else(|| attr(";name")) else {
            continue;
        };
        match attr("filename") {
            Some(file) => {
                into.insert(name.clone(), file);
                into.insert(
                    format!("{name}.content"),
                    value.trim_end_matches("\r\n").to_string(),
                );
            }
            None => {
                into.insert(name, value.trim_end_matches("\r\n").to_string());
            }
        }
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_fields_are_decoded() {
        let mut f = BTreeMap::new();
        parse_urlencoded("name=Ada+Lovelace&city=K%C3%B6ln&x", &mut f);
        assert_eq!(f["name"], "Ada Lovelace");
        assert_eq!(f["city"], "Köln");
        assert_eq!(f["x"], "");
        assert_eq!(percent_decode("a%2"), "a%2");
    }

    #[test]
    fn the_server_records_a_post_and_serves_files() {
        let dir = std::env::temp_dir().join(format!("uidriver-srv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "<p>hi</p>").unwrap();
        let srv = LocalServer::start(dir.clone()).unwrap();
        let port = srv.url.rsplit(':').next().unwrap().parse::<u16>().unwrap();
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        c.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut buf = [0u8; 256];
        let n = c.read(&mut buf).unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).contains("<p>hi</p>"));
        let body = "a=1&b=two+words";
        let post = format!("POST /submit HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        c.write_all(post.as_bytes()).unwrap();
        let n = c.read(&mut buf).unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).contains("Received"));
        let reqs = srv.requests();
        assert_eq!(reqs.len(), 2);
        assert_eq!(reqs[1].path, "/submit");
        assert_eq!(reqs[1].fields["b"], "two words");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
