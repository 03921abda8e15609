//! A form with every input kind: filled through act steps, submitted with a press, judged by
//! the exact body the server received.

use uidriver_core::action::Scalar;
use uidriver_core::{Outcome, RawStep, Role, StateFlag};

use crate::support::{find, live, Env};

const FORM: &str = r#"<!doctype html><title>Form</title>
<form method="post" action="/submit">
  <p><label for="name">Name</label> <input id="name" name="name" required></p>
  <p><label>Password <input type="password" name="pw"></label></p>
  <p><label for="plan">Plan</label>
    <select id="plan" name="plan"><option value="free">Free</option><option value="pro">Professional</option><option value="team">Team</option><option value="xl">Excel 2007–365 (.xlsx)</option></select></p>
  <p><label><input type="checkbox" name="news" value="yes"> Newsletter</label></p>
  <fieldset><legend>Size</legend>
    <label><input type="radio" name="size" value="s"> Small</label>
    <label><input type="radio" name="size" value="m"> Medium</label>
    <label><input type="radio" name="size" value="l"> Large</label></fieldset>
  <p><textarea name="notes" aria-label="Notes"></textarea></p>
  <p><input type="range" name="vol" min="0" max="10" value="5" aria-label="Volume"></p>
  <button type="submit">Send</button>
</form>
<script>
  let inputs = 0;
  document.querySelector('#name').addEventListener('input', () => { inputs++; document.body.dataset.inputs = inputs; });
</script>"#;

fn step(json: serde_json::Value) -> uidriver_core::Step {
    let raw: RawStep = serde_json::from_value(json).unwrap();
    raw.validate("test").unwrap()
}

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn form_fields_submit_exact_body() {
    live("form_fields_submit_exact_body", 120, || async {
        let mut env = Env::start(&[("/form.html", FORM)], None).await;
        env.goto("/form.html").await;
        let s = env.observe(None).await;

        let name = find(&s, Some(Role::Text), "Name");
        let pw = find(&s, Some(Role::PasswordText), "Password");
        let plan = find(&s, Some(Role::ComboBox), "Plan");
        let news = find(&s, Some(Role::CheckBox), "Newsletter");
        let medium = find(&s, Some(Role::RadioButton), "Medium");
        let notes = find(&s, Some(Role::Text), "Notes");
        let vol = find(&s, Some(Role::Slider), "Volume");
        assert!(s.node(name).unwrap().has_state(StateFlag::Required));
        assert!(s.node(name).unwrap().has_state(StateFlag::Editable));
        assert_eq!(
            s.node(plan).unwrap().value.known().map(String::as_str),
            Some("Free")
        );
        assert_eq!(s.node(vol).unwrap().numeric.unwrap().current, 5.0);

        let steps = vec![
            step(serde_json::json!({"action": "setText", "ref": name.to_string(), "text": "x"})),
            step(
                serde_json::json!({"action": "keypress", "ref": name.to_string(), "keys": ["ctrl+a", "BackSpace"]}),
            ),
            step(
                serde_json::json!({"action": "typeText", "ref": name.to_string(), "text": "Ada Lovelace"}),
            ),
            step(serde_json::json!({"action": "setText", "ref": pw.to_string(), "text": "s3cret"})),
            step(
                serde_json::json!({"action": "select", "ref": plan.to_string(), "value": "Professional"}),
            ),
            step(serde_json::json!({"action": "check", "ref": news.to_string()})),
            step(serde_json::json!({"action": "check", "ref": medium.to_string()})),
            step(
                serde_json::json!({"action": "setText", "ref": notes.to_string(), "text": "line one\nline two"}),
            ),
            step(serde_json::json!({"action": "setValue", "ref": vol.to_string(), "value": 7})),
        ];
        let reports = env.act(&s, steps).await;
        for r in &reports {
            assert_eq!(r.outcome, Outcome::Worked, "{r:#?}");
        }
        assert_eq!(reports.len(), 9);
        assert_eq!(reports[1].delivery.method.as_str(), "cdp-input");
        // Typing fired real input events in the page.
        let inputs = env.eval("Number(document.body.dataset.inputs)").await;
        assert!(
            inputs.as_f64().unwrap() >= 2.0,
            "input events seen: {inputs}"
        );

        // The successor shows the new values, the password redacted; refs carry over.
        let s2 = env.observe(Some(s.clone())).await;
        assert_eq!(
            s2.node(name).unwrap().value.known().map(String::as_str),
            Some("Ada Lovelace")
        );
        assert_eq!(
            s2.node(pw).unwrap().value.known().map(String::as_str),
            Some("••••")
        );
        assert!(s2.node(pw).unwrap().has_state(StateFlag::Password));
        assert_eq!(
            s2.node(plan).unwrap().value.known().map(String::as_str),
            Some("Professional")
        );
        assert!(s2.node(news).unwrap().has_state(StateFlag::Checked));
        assert!(s2.node(medium).unwrap().has_state(StateFlag::Checked));

        // check on a checked box sends nothing and still works.
        let again = env
            .act(
                &s2,
                vec![step(
                    serde_json::json!({"action": "check", "ref": news.to_string()}),
                )],
            )
            .await;
        assert_eq!(again[0].outcome, Outcome::Worked);
        assert_eq!(
            again[0].delivery.delivered,
            uidriver_core::Delivery::NotDelivered
        );

        // A select with an unknown option is refused before anything is sent.
        let bad = env
            .act(
                &s2,
                vec![uidriver_core::Step::Select(plan, "Enterprise".into())],
            )
            .await;
        assert_eq!(bad[0].outcome, Outcome::Didnt);
        assert_eq!(
            bad[0].error.as_ref().unwrap().code,
            uidriver_core::ErrorCode::InvalidArgs
        );
        // The refusal lists the options; a label written with a hyphen for the en dash, in
        // other case, is taken (core's matching rule), and the page's value says so.
        let listed = &bad[0].error.as_ref().unwrap().message;
        assert!(
            listed.contains("\"Professional\"") && listed.contains("Excel 2007–365 (.xlsx)"),
            "{listed}"
        );
        let dash = env
            .act(
                &s2,
                vec![uidriver_core::Step::Select(
                    plan,
                    "excel 2007-365 (.XLSX)".into(),
                )],
            )
            .await;
        assert_eq!(dash[0].outcome, Outcome::Worked, "{dash:#?}");
        assert_eq!(
            env.eval("document.querySelector('#plan').value").await,
            "xl"
        );
        let back = env
            .act(
                &s2,
                vec![uidriver_core::Step::Select(plan, "Professional".into())],
            )
            .await;
        assert_eq!(back[0].outcome, Outcome::Worked, "{back:#?}");

        let send = find(&s2, Some(Role::Button), "Send");
        let r = env.act(&s2, vec![uidriver_core::Step::Press(send)]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(r[0].delivery.method.as_str(), "cdp-input");
        let mut posts = env.server.posts();
        for _ in 0..100 {
            if !posts.is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            posts = env.server.posts();
        }
        assert_eq!(posts.len(), 1, "one POST");
        assert_eq!(posts[0].path, "/submit");
        assert_eq!(
            posts[0].body,
            "name=Ada+Lovelace&pw=s3cret&plan=pro&news=yes&size=m&notes=line+one%0D%0Aline+two&vol=7"
        );
        let _ = Scalar::Number(0.0);
        env.finish().await;
    });
}
