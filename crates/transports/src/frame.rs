//! The size limit where request bytes arrive (MCP stdio lines, MCP HTTP bodies, daemon socket
//! lines, CLI arguments), and what lets a transport refuse an oversized frame with an answer
//! instead of a dropped connection: a line reader that never buffers more than the limit and
//! discards the rest of a refused line, and a scanner that finds the top-level `id` and
//! `method` (or `op`) of a JSON object without holding it. What a refused call answers is each
//! transport's business; the wording of the refusal is [`too_large`].

use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use uidriver_core::{Error, ErrorCode};

/// Largest request accepted from any caller, in bytes (a 100 000-character `setText` fits with
/// room to spare, even with every character escaped).
pub const MAX_REQUEST_BYTES: usize = 4_000_000;

/// `invalid_args` for a request of `bytes` bytes: names its size and the limit.
pub fn too_large(bytes: usize) -> Error {
    Error::new(
        ErrorCode::InvalidArgs,
        format!(
            "request is {}; the limit is {}",
            megabytes(bytes),
            megabytes(MAX_REQUEST_BYTES)
        ),
    )
    .with_hint("send less per call: split long text over several typeText steps or calls")
}

/// `5.2 MB`, `4 MB` (decimal megabytes, one decimal when it is not whole).
fn megabytes(bytes: usize) -> String {
    let tenths = (bytes as u64 + 50_000) / 100_000;
    if tenths.is_multiple_of(10) {
        format!("{} MB", tenths / 10)
    } else {
        format!("{}.{} MB", tenths / 10, tenths % 10)
    }
}

/// One frame read by [`LineReader::next`].
#[derive(Debug)]
pub(crate) enum Line {
    /// A whole line (without its `\n`) within the limit.
    Fits(Vec<u8>),
    /// A line longer than the limit, read to its end and dropped: its length and what the
    /// scanner found in it.
    Refused { bytes: usize, head: Head },
    /// The peer closed the stream. A last line without its `\n` is dropped: a writer that
    /// died mid-line never sent a whole request.
    Eof,
}

/// The bytes of one frame as they arrive: kept while they fit in the limit; past it, dropped
/// and only counted and scanned.
#[derive(Debug, Default)]
pub(crate) struct Bounded {
    kept: Vec<u8>,
    refused: Option<(usize, Scanner)>,
}

impl Bounded {
    /// Adds the next piece of the frame.
    pub(crate) fn take(&mut self, chunk: &[u8], max: usize) {
        match self.refused.as_mut() {
            Some((n, scan)) => {
                *n += chunk.len();
                scan.feed(chunk);
            }
            None if self.kept.len() + chunk.len() > max => {
                let mut scan = Scanner::default();
                scan.feed(&self.kept);
                scan.feed(chunk);
                self.refused = Some((self.kept.len() + chunk.len(), scan));
                self.kept = Vec::new();
            }
            None => self.kept.extend_from_slice(chunk),
        }
    }

    /// The whole frame, or (when it was too long) its length and what the scanner found.
    /// Leaves `self` empty for the next frame.
    pub(crate) fn finish(&mut self) -> Line {
        match std::mem::take(self) {
            Bounded {
                refused: Some((bytes, scan)),
                ..
            } => Line::Refused {
                bytes,
                head: scan.head().clone(),
            },
            Bounded { kept, .. } => Line::Fits(kept),
        }
    }
}

/// Reads `\n`-terminated lines holding at most `max` bytes of one; a longer line is consumed
/// to its end (so the stream stays in step) while the scanner looks for its id. The partial
/// line lives here, not in the future, so a read cancelled by a `select!` loses nothing.
#[derive(Debug, Default)]
pub(crate) struct LineReader {
    line: Bounded,
}

impl LineReader {
    /// The next line. Cancel-safe: the only await is `fill_buf`, which consumes nothing, and
    /// what it returned is copied and consumed with no await between.
    pub(crate) async fn next<R: AsyncBufRead + Unpin>(
        &mut self,
        r: &mut R,
        max: usize,
    ) -> std::io::Result<Line> {
        loop {
            let (used, done) = {
                let buf = r.fill_buf().await?;
                if buf.is_empty() {
                    self.line = Bounded::default();
                    return Ok(Line::Eof);
                }
                let end = buf.iter().position(|b| *b == b'\n');
                self.line.take(&buf[..end.unwrap_or(buf.len())], max);
                (end.map_or(buf.len(), |e| e + 1), end.is_some())
            };
            r.consume(used);
            if done {
                return Ok(self.line.finish());
            }
        }
    }
}

/// Top-level fields of a JSON object that say how to answer it.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Head {
    /// `id` (a number or a string), as JSON.
    pub id: Option<serde_json::Value>,
    /// `method` (JSON-RPC) or `op` (daemon protocol).
    pub method: Option<String>,
}

/// Longest top-level key or scalar value the scanner keeps (`id` and `method` are short).
const KEEP: usize = 256;

/// An incremental scanner over a JSON object's bytes: tracks nesting and strings, and keeps the
/// scalar values of the top-level keys `id`, `method` and `op`. Memory is bounded by [`KEEP`]
/// whatever it is fed; malformed input only means nothing is found.
#[derive(Debug, Default)]
pub(crate) struct Scanner {
    head: Head,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// At depth 1: the next string is a key (after `{` or `,`).
    want_key: bool,
    /// The token being kept (a depth-1 key or scalar value), with whether it is a key.
    token: Option<(Vec<u8>, bool)>,
    /// The last depth-1 key seen.
    key: Vec<u8>,
}

impl Scanner {
    /// Scans more bytes.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.step(b);
        }
    }

    /// What was found so far.
    pub(crate) fn head(&self) -> &Head {
        &self.head
    }

    fn step(&mut self, b: u8) {
        if self.in_string {
            self.keep(b);
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                self.finish_token();
            }
            return;
        }
        match b {
            b'{' | b'[' => {
                self.finish_token();
                self.depth += 1;
                self.want_key = self.depth == 1 && b == b'{';
            }
            b'}' | b']' => {
                self.finish_token();
                self.depth = self.depth.saturating_sub(1);
            }
            b'"' => {
                if self.depth == 1 {
                    self.token = Some((vec![b'"'], self.want_key));
                    self.want_key = false;
                }
                self.in_string = true;
            }
            b',' => {
                self.finish_token();
                self.want_key = self.depth == 1;
            }
            b':' | b' ' | b'\t' | b'\r' | b'\n' => self.finish_token(),
            _ if self.depth == 1 => match self.token.as_mut() {
                Some((t, false)) => {
                    if t.len() < KEEP {
                        t.push(b);
                    }
                }
                _ => self.token = Some((vec![b], false)),
            },
            _ => {}
        }
    }

    fn keep(&mut self, b: u8) {
        if let Some((t, _)) = self.token.as_mut() {
            if t.len() < KEEP {
                t.push(b);
            }
        }
    }

    /// Ends the depth-1 token being kept: a key becomes the current key; a value of `id`,
    /// `method` or `op` is recorded (the first one wins).
    fn finish_token(&mut self) {
        let Some((raw, is_key)) = self.token.take() else {
            return;
        };
        let value = serde_json::from_slice::<serde_json::Value>(&raw).ok();
        if is_key {
            let key = value.as_ref().and_then(|v| v.as_str()).unwrap_or_default();
            self.key = key.as_bytes().to_vec();
            return;
        }
        let key = std::mem::take(&mut self.key);
        let Some(value) = value else {
            return;
        };
        match key.as_slice() {
            b"id" if self.head.id.is_none() && (value.is_number() || value.is_string()) => {
                self.head.id = Some(value)
            }
            b"method" | b"op" if self.head.method.is_none() => {
                self.head.method = value.as_str().map(str::to_string)
            }
            _ => {}
        }
    }
}

/// Scans a whole frame (for a frame held but not parsable, to answer it by id).
pub(crate) fn scan(bytes: &[u8]) -> Head {
    let mut s = Scanner::default();
    s.feed(bytes);
    s.head().clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sizes_are_named_in_megabytes() {
        assert_eq!(megabytes(MAX_REQUEST_BYTES), "4 MB");
        assert_eq!(megabytes(5_200_000), "5.2 MB");
        assert_eq!(megabytes(5_000_123), "5 MB");
        let e = too_large(5_242_961);
        assert_eq!(e.code, ErrorCode::InvalidArgs);
        assert_eq!(e.message, "request is 5.2 MB; the limit is 4 MB");
    }

    #[test]
    fn the_scanner_finds_top_level_id_and_method_only() {
        let h = scan(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":9,"method":"x"}}"#,
        );
        assert_eq!(h.id, Some(json!(7)));
        assert_eq!(h.method.as_deref(), Some("tools/call"));
        // After a large nested value, with spaces, string ids and escapes.
        let big = "a\\\"}{".repeat(1000);
        let text = format!(
            r#"{{ "params" : {{"arguments": {{"text": "{big}", "list": [1, {{"id": 3}}]}}}},
               "method" : "tools/call", "id" : "req-\"1\"" }}"#
        );
        let h = scan(text.as_bytes());
        assert_eq!(h.id, Some(json!("req-\"1\"")));
        assert_eq!(h.method.as_deref(), Some("tools/call"));
        // The daemon protocol's `op`.
        let h = scan(br#"{"id":12,"op":"call","tool":"act_ui","args":{"id":1}}"#);
        assert_eq!((h.id, h.method.as_deref()), (Some(json!(12)), Some("call")));
        // A notification has no id; objects and nulls are not ids.
        assert_eq!(
            scan(br#"{"method":"notifications/x","params":{}}"#).id,
            None
        );
        assert_eq!(scan(br#"{"id":{"a":1}}"#).id, None);
        assert_eq!(scan(br#"{"id":null}"#).id, None);
        // A key that is a value elsewhere is not a key.
        assert_eq!(scan(br#"{"x":"id","y":5}"#).id, None);
    }

    #[tokio::test]
    async fn an_oversized_line_is_refused_and_the_next_one_read() {
        let big = format!(
            "{{\"id\":4,\"op\":\"call\",\"args\":{{\"t\":\"{}\"}}}}\n",
            "x".repeat(10_000)
        );
        let input = format!("{{\"id\":1}}\n{big}{{\"id\":5}}\nno newline");
        // A small buffer forces the line across many reads.
        let mut r = tokio::io::BufReader::with_capacity(64, input.as_bytes());
        let (max, mut lines) = (1000, LineReader::default());
        assert!(
            matches!(lines.next(&mut r, max).await.unwrap(), Line::Fits(l) if l == b"{\"id\":1}")
        );
        match lines.next(&mut r, max).await.unwrap() {
            Line::Refused { bytes, head } => {
                assert_eq!(bytes, big.len() - 1);
                assert_eq!(head.id, Some(json!(4)));
                assert_eq!(head.method.as_deref(), Some("call"));
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(lines.next(&mut r, max).await.unwrap(), Line::Fits(l) if l == b"{\"id\":5}")
        );
        assert!(matches!(lines.next(&mut r, max).await.unwrap(), Line::Eof));
    }

    /// rmcp polls `receive` inside a `select!`: a read dropped half-way must lose nothing.
    #[tokio::test]
    async fn a_cancelled_read_resumes_the_same_line() {
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut r = tokio::io::BufReader::new(rx);
        let mut lines = LineReader::default();
        tokio::io::AsyncWriteExt::write_all(&mut tx, b"{\"id\":1,")
            .await
            .unwrap();
        let cut = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            lines.next(&mut r, 1000),
        )
        .await;
        assert!(cut.is_err(), "no whole line yet");
        tokio::io::AsyncWriteExt::write_all(&mut tx, b"\"x\":2}\n")
            .await
            .unwrap();
        match lines.next(&mut r, 1000).await.unwrap() {
            Line::Fits(l) => assert_eq!(l, b"{\"id\":1,\"x\":2}"),
            other => panic!("{other:?}"),
        }
    }

    proptest::proptest! {
        /// Whatever bytes arrive, in whatever pieces, the scanner neither panics nor disagrees
        /// with itself, and a real object's id is found after any amount of padding.
        #[test]
        fn scanning_is_total_and_split_independent(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400),
            cut in 0usize..400,
            pad in "[ -~]{0,300}",
            id in 0u64..u64::MAX,
        ) {
            let cut = cut.min(bytes.len());
            let mut s = Scanner::default();
            s.feed(&bytes[..cut]);
            s.feed(&bytes[cut..]);
            proptest::prop_assert_eq!(s.head(), &scan(&bytes));
            let obj = serde_json::to_vec(&json!({"params": {"pad": pad, "id": "no"}, "id": id})).unwrap();
            proptest::prop_assert_eq!(scan(&obj).id, Some(json!(id)));
        }
    }
}
