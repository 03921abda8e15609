//! File upload (issue 16.3): `setFiles` on a file input, and on a button whose press opens the
//! file chooser (intercepted and answered), the input's `input`/`change` events fired; the
//! form's multipart POST is judged by the bytes the server received.

use uidriver_core::{Delivery, ErrorCode, Outcome, RawStep, Step};

use crate::support::{find, live, Env};

const UPLOAD: &str = r#"<!doctype html><title>Upload</title>
<form method="post" action="/upload" enctype="multipart/form-data">
  <p><label for="doc">Document</label> <input id="doc" name="doc" type="file"></p>
  <p><input id="many" name="many" type="file" multiple hidden>
    <button type="button" onclick="many.click()">Attach files</button></p>
  <p><button type="button">Does nothing</button></p>
  <button type="submit">Send</button>
</form>
<script>
  window.seen = [];
  for (const i of document.querySelectorAll('input'))
    for (const k of ['input', 'change']) i.addEventListener(k, () => seen.push(`${i.id}:${k}`));
</script>"#;

fn set_files(r: uidriver_core::ElementRef, paths: &[&std::path::Path]) -> Step {
    let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let raw: RawStep = serde_json::from_value(
        serde_json::json!({"action": "setFiles", "ref": r.to_string(), "paths": paths}),
    )
    .unwrap();
    raw.validate("actions[0]").unwrap()
}

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn set_files_on_an_input_and_through_a_chooser_uploads_the_bytes() {
    live(
        "set_files_on_an_input_and_through_a_chooser_uploads_the_bytes",
        120,
        || async {
            let dir = tempfile::tempdir().unwrap();
            let (a, b, c) = (
                dir.path().join("report.txt"),
                dir.path().join("one.csv"),
                dir.path().join("two.md"),
            );
            std::fs::write(&a, "alpha bytes 1\n").unwrap();
            std::fs::write(&b, "x,y\n1,2\n").unwrap();
            std::fs::write(&c, "# two\n").unwrap();
            let mut env = Env::start(&[("/upload.html", UPLOAD)], None).await;
            env.goto("/upload.html").await;
            let s = env.observe(None).await;

            // The input itself, found by its label.
            let doc = find(&s, None, "Document");
            let r = env.act(&s, vec![set_files(doc, &[&a])]).await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            assert_eq!(r[0].delivery.delivered, Delivery::Delivered);
            // Two files on a single-file input: refused, nothing sent.
            let r = env.act(&s, vec![set_files(doc, &[&a, &b])]).await;
            let e = r[0].error.as_ref().expect("refused");
            assert_eq!(e.code, ErrorCode::InvalidArgs, "{e:?}");
            assert_eq!(r[0].delivery.delivered, Delivery::NotDelivered);

            // A button that opens the (hidden) input's chooser: intercepted and answered.
            let attach = find(&s, None, "Attach files");
            let r = env.act(&s, vec![set_files(attach, &[&b, &c])]).await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            // A button that opens no chooser: the press was delivered, no files were set.
            let nothing = find(&s, None, "Does nothing");
            let r = env.act(&s, vec![set_files(nothing, &[&a])]).await;
            let e = r[0].error.as_ref().expect("no chooser");
            assert_eq!(e.code, ErrorCode::NotSupported, "{e:?}");
            assert_eq!(r[0].delivery.delivered, Delivery::Delivered);

            // The page saw the events and holds the files (an independent read).
            let seen = env.eval("seen.join(' ')").await;
            for ev in ["doc:input", "doc:change", "many:input", "many:change"] {
                assert!(seen.as_str().unwrap().contains(ev), "{ev} in {seen}");
            }
            let held = env
                .eval("[doc.files.length, many.files.length, many.files[1].name]")
                .await;
            assert_eq!(held, serde_json::json!([1, 2, "two.md"]));

            let send = find(&s, Some(uidriver_core::Role::Button), "Send");
            let r = env.act(&s, vec![Step::Press(send)]).await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            let t = std::time::Instant::now();
            while env.server.posts().is_empty() && t.elapsed().as_secs() < 10 {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            let posts = env.server.posts();
            assert_eq!(posts.len(), 1, "{posts:?}");
            assert_eq!(posts[0].path, "/upload");
            let body = &posts[0].body;
            for part in [
                "name=\"doc\"; filename=\"report.txt\"\r\nContent-Type: text/plain\r\n\r\nalpha bytes 1\n\r\n",
                "name=\"many\"; filename=\"one.csv\"",
                "x,y\n1,2\n\r\n",
                "name=\"many\"; filename=\"two.md\"",
                "# two\n\r\n",
            ] {
                assert!(body.contains(part), "{part:?} in {body:?}");
            }
            env.finish().await;
        },
    );
}
