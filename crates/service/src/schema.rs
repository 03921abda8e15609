//! JSON Schemas of tool arguments and results, generated with schemars from the Rust types that
//! decode the arguments and build the results, then made compact: a host sends every tool's
//! schemas to the model on every turn, so each token here is paid for again and again.
//!
//! Both kinds:
//! - a `oneOf` of described `const` strings (a unit enum) becomes one plain `enum`; what each
//!   member means is said once in the tool or field description instead;
//! - schemars' `format` words (`uint32`, `double`) and the bounds that only restate an integer
//!   width (`minimum: 0`, `maximum: 255`) go: the descriptions give the real ranges.
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
//! Results (hosts validate `structuredContent` against them; the text content is what the
//! model reads, and each tool's description says what it returns):
//! - the top level lists every field by name, with its enum values where it has a closed set
//!   (`outcome`); its type and what is inside it are left open, and descriptions and
//!   `required` go. Measured on the 13 tools: ~870 cl100k tokens with each field's type,
//!   against ~7,000 for the full schemas without descriptions and ~11,000 with them, which
//!   alone would be twice the whole tool list's budget (5,000); on 17 tools the types alone
//!   were ~480 tokens of 5,735 (issue 16 added browser_log and save_browser_state), so they
//!   went too. Every real result validates against it.

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

/// The schema of `T` as it deserializes (arguments) or serializes (results: fields skipped
/// when empty are optional), subschemas inlined, compacted, without the root's title and doc.
fn generate<T: JsonSchema>(input: bool) -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12();
    let settings = if input {
        settings.for_deserialize()
    } else {
        settings.for_serialize()
    };
    let gen = settings
        .with(|s| s.inline_subschemas = true)
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

/// A result schema: the top level of what serializing `T` produces (see the module doc).
pub(crate) fn output<T: JsonSchema>() -> Value {
    let mut v = generate::<T>(false);
    if let Some(o) = v.as_object_mut() {
        let required: Vec<Value> = match o.get("required") {
            Some(Value::Array(r)) => r.clone(),
            _ => vec![],
        };
        if let Some(Value::Object(props)) = o.get_mut("properties") {
            for (name, p) in props.iter_mut() {
                *p = shape(p);
                // A field left out when empty never carries null.
                if !required.contains(&Value::String(name.clone())) {
                    if let Some(po) = p.as_object_mut() {
                        drop_null(po);
                    }
                }
            }
        }
        o.remove("required");
    }
    v
}

/// A top-level result field reduced to what a host can check cheaply: its enum values when it
/// has a closed set (`outcome`, `kind`), else nothing (any value).
fn shape(v: &Value) -> Value {
    let mut out = Map::new();
    if let Some(o) = v.as_object() {
        for k in ["enum", "const"] {
            if let Some(x) = o.get(k) {
                out.insert(k.to_string(), x.clone());
            }
        }
    }
    Value::Object(out)
}

/// Rewrites a schema in place (see the module doc).
fn compact(v: &mut Value, input: bool) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| compact(x, input)),
        Value::Object(o) => {
            o.remove("format");
            if o.get("minimum") == Some(&Value::from(0)) {
                o.remove("minimum");
            }
            if o.get("maximum") == Some(&Value::from(255)) {
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
            }
            for x in o.values_mut() {
                compact(x, input);
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
            }
        }
        _ => {}
    }
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
    fn result_fields_keep_their_enum_only() {
        let v = json!({"description": "d", "type": ["object", "null"], "properties": {
            "a": {"type": "array", "items": {"type": "string"}}
        }, "required": ["a"]});
        assert_eq!(shape(&v), json!({}));
        let e = json!({"description": "d", "type": "string", "enum": ["x", "y"]});
        assert_eq!(shape(&e), json!({"enum": ["x", "y"]}));
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
