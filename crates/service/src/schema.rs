//! JSON Schemas of tool arguments and results, generated with schemars from the Rust types that
//! decode the arguments and build the results, then made compact: a host sends every tool's
//! name, description and argument schema to the model on every turn, so each token there is
//! paid for again and again; result schemas go to the host's validator instead.
//!
//! Both kinds:
//! - a `oneOf` of described `const` strings (a unit enum) becomes one plain `enum`; what each
//!   member means is said once in the tool or field description instead;
//! - schemars' `format` words (`uint32`, `double`) and the bounds that only restate an integer
//!   width (`minimum: 0`, `maximum: 255` or `65535`) go: the descriptions give the real ranges.
//!
//! Arguments (every field described; the model writes these):
//! - fields are optional unless required, so the `null` alternative schemars adds for `Option`
//!   goes (a caller leaves the field out), and so do `default: null` and `default: false`;
//! - the type docs of inlined subschemas (array items, `anyOf` alternatives) and of the
//!   arguments struct itself go: the field that holds them is described;
//! - id `pattern`s go (~12 tokens each, ~20 of them): the descriptions and the tool
//!   descriptions name the shapes (`@rN`, `sN`, `@eN`), and the decoder rejects a bad id with
//!   `invalid_args` naming the field.
//!
//! Results (a host validates `structuredContent` against them and does not show them to the
//! model, which reads the text content and each tool's description; issue 24):
//! - every field keeps its type, down to nested objects and array items, `null` included
//!   where the field can be null, and its `required` list; descriptions and id `pattern`s go.
//!   One field is any JSON value: `evaluate_browser`'s `result` (what the page returned);
//! - a named type used more than once (`Bounds`, `RootOut`, `Error`) stays in `$defs` where
//!   one definition and its `$ref`s are shorter than the copies, else it is inlined.
//!   Measured on the 17 tools (cl100k, `bench/tools_list.py`): ~6,700 tokens of result schemas
//!   typed, against ~570 when they named the top-level fields only; what the model sees
//!   (names, descriptions, argument schemas) is unchanged at ~3,900.

use schemars::JsonSchema;
use serde_json::{Map, Value};

/// An argument schema: subschemas inlined (some MCP clients do not follow `$ref`), compact.
pub(crate) fn input<T: JsonSchema>() -> Value {
    let mut v = generate::<T>(true);
    if let Some(o) = v.as_object_mut() {
        o.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    v
}

/// A result schema: every field typed, each shape used more than once kept once in `$defs`
/// where that is shorter than its copies (see the module doc).
pub(crate) fn output<T: JsonSchema>() -> Value {
    let mut v = generate::<T>(false);
    share(&mut v);
    compact(&mut v, false);
    v
}

/// The schema of `T` as it deserializes (arguments: subschemas inlined) or serializes
/// (results: fields skipped when empty are optional; named types in `$defs`), compacted,
/// without the root's title and doc.
fn generate<T: JsonSchema>(input: bool) -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12();
    let settings = if input {
        settings.for_deserialize()
    } else {
        settings.for_serialize()
    };
    let gen = settings
        .with(|s| s.inline_subschemas = input)
        .into_generator();
    let mut v = serde_json::to_value(gen.into_root_schema_for::<T>()).unwrap_or(Value::Null);
    compact(&mut v, input);
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        o.remove("description");
    }
    v
}

/// Rewrites a schema in place (see the module doc). The members of `properties` and `$defs`
/// are names, not keywords: only their values are rewritten (`inspect_ui`'s node has a
/// `description` field).
fn compact(v: &mut Value, input: bool) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| compact(x, input)),
        Value::Object(o) => {
            o.remove("format");
            if o.get("minimum") == Some(&Value::from(0)) {
                o.remove("minimum");
            }
            if matches!(o.get("maximum"), Some(m) if *m == 255 || *m == 65535) {
                o.remove("maximum");
            }
            if input {
                if matches!(o.get("default"), Some(Value::Null | Value::Bool(false))) {
                    o.remove("default");
                }
                o.remove("pattern");
                if let Some(Value::Object(items)) = o.get_mut("items") {
                    items.remove("description");
                }
                for key in ["anyOf", "oneOf"] {
                    if let Some(Value::Array(alts)) = o.get_mut(key) {
                        for a in alts.iter_mut().filter_map(Value::as_object_mut) {
                            a.remove("description");
                        }
                    }
                }
            } else {
                o.remove("description");
                o.remove("pattern");
            }
            for (k, x) in o.iter_mut() {
                match (k.as_str(), x) {
                    ("properties" | "$defs", Value::Object(named)) => {
                        named.values_mut().for_each(|x| compact(x, input))
                    }
                    (_, x) => compact(x, input),
                }
            }
            if let Some(t) = bare_types(o.get("anyOf")) {
                o.remove("anyOf");
                o.insert("type".into(), Value::Array(t));
            }
            if let Some(e) = const_strings(o.get("oneOf")) {
                o.remove("oneOf");
                o.insert("type".into(), "string".into());
                o.insert("enum".into(), Value::Array(e));
            }
            if input {
                drop_null(o);
            } else {
                merge_null(o);
            }
        }
        _ => {}
    }
}

/// Inlines each `$defs` entry whose copies are no longer than the entry plus its `$ref`s, one
/// at a time (each inlining makes the entries around it longer), until every entry left saves
/// characters; then removes `$defs` if it is empty.
fn share(root: &mut Value) {
    loop {
        let Some(Value::Object(defs)) = root.get("$defs") else {
            return;
        };
        let pick = defs.iter().find_map(|(name, def)| {
            let target = format!("#/$defs/{name}");
            let n = refs(root, &target);
            // Recursive: it can only be referred to. Not referred to as spelt here: left as is.
            if refs(def, &target) > 0 || n == 0 {
                return None;
            }
            let len = def.to_string().len();
            let reference = format!(r#"{{"$ref":"{target}"}}"#).len();
            let keep = len + name.len() + 4 + n * reference;
            (n * len <= keep).then(|| name.clone())
        });
        let Some(name) = pick else { break };
        let Some(Value::Object(defs)) = root.get_mut("$defs") else {
            return;
        };
        let def = defs.remove(&name).unwrap_or(Value::Bool(true));
        if defs.is_empty() {
            if let Some(o) = root.as_object_mut() {
                o.remove("$defs");
            }
        }
        inline(root, &format!("#/$defs/{name}"), &def);
    }
}

/// How many `$ref`s to `target` there are in `v`.
fn refs(v: &Value, target: &str) -> usize {
    match v {
        Value::Array(a) => a.iter().map(|x| refs(x, target)).sum(),
        Value::Object(o) => {
            usize::from(o.get("$ref").and_then(Value::as_str) == Some(target))
                + o.values().map(|x| refs(x, target)).sum::<usize>()
        }
        _ => 0,
    }
}

/// Replaces every `$ref` to `target` in `v` with `def`, keeping the referring schema's other
/// keywords.
fn inline(v: &mut Value, target: &str, def: &Value) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| inline(x, target, def)),
        Value::Object(o) => {
            if o.get("$ref").and_then(Value::as_str) == Some(target) {
                o.remove("$ref");
                match def {
                    Value::Object(d) => {
                        for (k, x) in d {
                            o.entry(k.clone()).or_insert_with(|| x.clone());
                        }
                    }
                    _ => return, // `true`: any value, which the rest of `o` already says
                }
            }
            o.values_mut().for_each(|x| inline(x, target, def));
        }
        _ => {}
    }
}

/// A nullable field the way schemars writes an inlined one: `anyOf: [{type: T, …}, {type:
/// null}]` → `{type: [T, "null"], …}`, where the rest of the alternative says nothing that
/// `null` would fail (an `enum` or `const` would; those keep their `anyOf`).
fn merge_null(o: &mut Map<String, Value>) {
    let Some(Value::Array(alts)) = o.get("anyOf") else {
        return;
    };
    let [a, b] = alts.as_slice() else { return };
    let (some, null) = if b == &serde_json::json!({"type": "null"}) {
        (a, b)
    } else {
        (b, a)
    };
    let Some(inner) = some.as_object() else {
        return;
    };
    if null != &serde_json::json!({"type": "null"})
        || !inner.get("type").is_some_and(Value::is_string)
        || inner.contains_key("enum")
        || inner.contains_key("const")
        || inner.keys().any(|k| o.contains_key(k))
    {
        return;
    }
    let mut inner = inner.clone();
    if let Some(t) = inner.remove("type") {
        inner.insert("type".into(), Value::Array(vec![t, "null".into()]));
    }
    o.remove("anyOf");
    o.extend(inner);
}

/// The types of an `anyOf` whose alternatives are bare `{type: T}` (an untagged number-or-text).
fn bare_types(any_of: Option<&Value>) -> Option<Vec<Value>> {
    let alts = any_of?.as_array()?;
    alts.iter()
        .map(|a| {
            let o = a.as_object()?;
            (o.len() == 1).then(|| o.get("type")?.as_str().map(Value::from))?
        })
        .collect()
}

/// The members of a `oneOf` made only of string `const`s.
fn const_strings(one_of: Option<&Value>) -> Option<Vec<Value>> {
    let alts = one_of?.as_array()?;
    alts.iter()
        .map(|a| {
            let o = a.as_object()?;
            let only_const = o
                .keys()
                .all(|k| matches!(k.as_str(), "const" | "description" | "type"));
            o.get("const")
                .filter(|c| c.is_string() && only_const)
                .cloned()
        })
        .collect()
}

/// Removes the `null` alternative of an optional field: `type: [T, "null"]` → `type: T`;
/// `null` in an `enum`; `anyOf: [S, {type: null}]` → S merged into the field (keeping the
/// field's description).
fn drop_null(o: &mut Map<String, Value>) {
    if let Some(Value::Array(e)) = o.get_mut("enum") {
        e.retain(|m| !m.is_null());
    }
    if let Some(Value::Array(types)) = o.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let t = types.remove(0);
            o.insert("type".into(), t);
        }
    }
    let Some(Value::Array(alts)) = o.get("anyOf") else {
        return;
    };
    let rest: Vec<&Value> = alts.iter().filter(|a| a["type"] != "null").collect();
    if rest.len() == 1 && rest.len() < alts.len() {
        if let Some(inner) = rest[0].as_object().cloned() {
            o.remove("anyOf");
            for (k, val) in inner {
                o.entry(k).or_insert(val);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unit_enums_become_plain_enums_and_null_leaves_arguments() {
        let mut v = json!({"properties": {
            "mode": {"description": "m", "oneOf": [
                {"const": "a", "description": "A", "type": "string"},
                {"const": "b", "description": "B", "type": "string"}]},
            "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "default": null},
            "k": {"description": "kind", "anyOf": [{"type": "string", "enum": ["x"]}, {"type": "null"}]},
            "c": {"type": "string", "enum": ["p", null]},
            "b": {"type": "boolean", "default": false},
            "y": {"type": "boolean", "default": true}
        }});
        compact(&mut v, true);
        assert_eq!(
            v,
            json!({"properties": {
                "mode": {"description": "m", "type": "string", "enum": ["a", "b"]},
                "n": {"type": "integer"},
                "k": {"description": "kind", "type": "string", "enum": ["x"]},
                "c": {"type": "string", "enum": ["p"]},
                "b": {"type": "boolean"},
                "y": {"type": "boolean", "default": true}
            }})
        );
    }

    #[test]
    fn a_shape_used_twice_stays_shared_and_one_used_once_is_inlined() {
        let big = json!({"type": "object", "properties": {
            "x": {"type": "integer"}, "y": {"type": "integer"},
            "width": {"type": "integer"}, "height": {"type": "integer"}}});
        let mut v = json!({"type": "object", "$defs": {"Big": big, "Id": {"type": "string"}},
            "properties": {
                "a": {"$ref": "#/$defs/Big"},
                "b": {"anyOf": [{"$ref": "#/$defs/Big"}, {"type": "null"}]},
                "c": {"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "null"}]}}});
        share(&mut v);
        compact(&mut v, false);
        assert_eq!(v["$defs"], json!({"Big": big}));
        assert_eq!(
            v["properties"]["b"]["anyOf"][0],
            json!({"$ref": "#/$defs/Big"})
        );
        assert_eq!(v["properties"]["c"], json!({"type": ["string", "null"]}));
    }

    #[test]
    fn an_inlined_nullable_object_is_one_type_list_and_a_nullable_enum_keeps_its_any_of() {
        let mut v = json!({"$defs": {"P": {"type": "object", "properties": {}}, "E": {
            "type": "string", "enum": ["a"]}}, "properties": {
            "p": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]},
            "e": {"anyOf": [{"$ref": "#/$defs/E"}, {"type": "null"}]}}});
        share(&mut v);
        compact(&mut v, false);
        assert_eq!(
            v,
            json!({"properties": {
                "p": {"type": ["object", "null"], "properties": {}},
                "e": {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}}})
        );
    }

    #[test]
    fn field_names_are_not_keywords() {
        let mut v = json!({"description": "d", "properties": {
            "description": {"type": "string", "description": "d"},
            "format": {"type": "string"}}});
        compact(&mut v, false);
        assert_eq!(
            v,
            json!({"properties": {
                "description": {"type": "string"}, "format": {"type": "string"}}})
        );
    }

    /// Issue 24: a result schema property without a type is a contract that says nothing.
    #[test]
    fn every_result_property_has_a_type_and_every_ref_resolves() {
        fn walk(name: &str, at: &str, v: &Value, root: &Value) {
            let Some(o) = v.as_object() else { return };
            if let Some(r) = o.get("$ref").and_then(Value::as_str) {
                let def = r.strip_prefix("#/$defs/").unwrap_or(r);
                assert!(root["$defs"].get(def).is_some(), "{name}: {at}: {r}");
            }
            if let Some(Value::Object(props)) = o.get("properties") {
                for (field, p) in props {
                    let typed = |s: &Value| s.get("type").is_some() || s.get("$ref").is_some();
                    let alts = p["anyOf"].as_array().into_iter().flatten();
                    let any_json = field == "result";
                    assert!(
                        typed(p)
                            || (alts.clone().count() > 0 && alts.clone().all(typed))
                            || any_json,
                        "{name}: {at}.{field} has no type: {p}"
                    );
                }
            }
            for (k, x) in o {
                let at = format!("{at}.{k}");
                match x {
                    Value::Object(named) if k == "properties" || k == "$defs" => {
                        for (n, x) in named {
                            walk(name, &format!("{at}.{n}"), x, root)
                        }
                    }
                    Value::Array(a) => a.iter().for_each(|x| walk(name, &at, x, root)),
                    x => walk(name, &at, x, root),
                }
            }
        }
        for t in crate::tools::TOOLS {
            let s = (t.output_schema)();
            assert_eq!(s["type"], "object", "{}", t.name);
            walk(t.name.as_str(), "", &s, &s);
        }
    }

    #[test]
    fn results_keep_null_and_mixed_one_ofs_stay() {
        let mut v =
            json!({"type": ["string", "null"], "oneOf": [{"const": "a"}, {"type": "integer"}]});
        let before = v.clone();
        compact(&mut v, false);
        assert_eq!(v, before);
    }
}
