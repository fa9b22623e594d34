//! JSON documents as MariaDB's JSON functions read and print them: text in, text out.
//!
//! A document is parsed into a tree whose scalars and keys keep their source text (a number
//! stays `1.50` or `1E2`, a string keeps its escapes; a key matches a path's key as written,
//! as in MariaDB), and a value
//! is printed with MariaDB's spacing:
//! `", "` between elements and `": "` after a key. A document that does not parse, or a path
//! that does not parse, gives NULL, as MariaDB does (with a warning there). Path steps are
//! `.key`, `."key"`, `[n]`, `[*]` and `.*`; the others (`**`, `last`, ranges, negative
//! indexes) are refused with 1235 rather than read differently.

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    /// A number, string, `true`, `false` or `null`, as written.
    Scalar(String),
    Array(Vec<Json>),
    /// Members in document order: the key as written (a string literal with its quotes: MariaDB
    /// prints it back and matches it as written), and the value.
    Object(Vec<(String, Json)>),
}

/// A path step.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    AnyKey,
    Index(usize),
    AnyIndex,
}

/// A path MariaDB reads but this module does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnsupportedPath(pub(crate) String);

/// Parses a whole document.
pub(crate) fn parse(text: &str) -> Option<Json> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        at: 0,
    };
    let v = p.value(0)?;
    p.space();
    (p.at == p.s.len()).then_some(v)
}

/// The document printed with MariaDB's spacing.
pub(crate) fn render(v: &Json) -> String {
    let mut out = String::new();
    render_into(v, &mut out);
    out
}

fn render_into(v: &Json, out: &mut String) {
    match v {
        Json::Scalar(s) => out.push_str(s),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_into(item, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push_str(": ");
                render_into(item, out);
            }
            out.push('}');
        }
    }
}

/// A string as a JSON string literal, escaped as MariaDB escapes it.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `JSON_UNQUOTE`: a JSON string literal decoded; anything else as it is.
pub(crate) fn unquote(s: &str) -> String {
    if s.len() >= 2
        && s.starts_with('"')
        && s.ends_with('"')
        && let Some(Json::Scalar(lit)) = parse(s)
        && let Some(decoded) = decode_string(&lit)
    {
        return decoded;
    }
    s.to_string()
}

/// `JSON_EXTRACT(doc, path, …)`: NULL for an invalid document or path or when nothing is
/// found; one path without a wildcard gives the value itself, otherwise an array of the finds.
pub(crate) fn extract(doc: &str, paths: &[&str]) -> Result<Option<String>, UnsupportedPath> {
    let Some(doc) = parse(doc) else {
        return Ok(None);
    };
    let mut found = Vec::new();
    let mut wrap = paths.len() > 1;
    for path in paths {
        let Some(steps) = parse_path(path)? else {
            return Ok(None);
        };
        wrap |= steps
            .iter()
            .any(|s| matches!(s, Step::AnyKey | Step::AnyIndex));
        walk(&doc, &steps, Keys::AsWritten, &mut found);
    }
    Ok(match found.as_slice() {
        [] => None,
        [one] if !wrap => Some(render(one)),
        _ => Some(render(&Json::Array(found.into_iter().cloned().collect()))),
    })
}

/// `JSON_LENGTH(doc [, path])`: elements of an array or object, 1 for a scalar.
pub(crate) fn length(doc: &str, path: Option<&str>) -> Result<Option<i64>, UnsupportedPath> {
    let Some(doc) = parse(doc) else {
        return Ok(None);
    };
    let target = match path {
        None => &doc,
        Some(path) => {
            let Some(steps) = parse_path(path)? else {
                return Ok(None);
            };
            if steps
                .iter()
                .any(|s| matches!(s, Step::AnyKey | Step::AnyIndex))
            {
                return Err(UnsupportedPath(format!("JSON_LENGTH with the path {path}")));
            }
            let mut found = Vec::new();
            walk(&doc, &steps, Keys::Decoded, &mut found);
            match found.first() {
                Some(v) => *v,
                None => return Ok(None),
            }
        }
    };
    Ok(Some(match target {
        Json::Scalar(_) => 1,
        Json::Array(items) => items.len() as i64,
        Json::Object(members) => members.len() as i64,
    }))
}

/// `JSON_TYPE(doc)`: a number is DOUBLE when it has a fraction part, else INTEGER (as MariaDB
/// reads `1E2`).
pub(crate) fn type_name(doc: &str) -> Option<&'static str> {
    Some(match parse(doc)? {
        Json::Object(_) => "OBJECT",
        Json::Array(_) => "ARRAY",
        Json::Scalar(s) => match s.as_bytes().first() {
            Some(b'"') => "STRING",
            Some(b't' | b'f') => "BOOLEAN",
            Some(b'n') => "NULL",
            _ if s.contains('.') => "DOUBLE",
            _ => "INTEGER",
        },
    })
}

/// `JSON_KEYS(doc [, path])`: the keys of the object there, each once, as written; NULL for
/// anything else.
pub(crate) fn keys(doc: &str, path: Option<&str>) -> Result<Option<String>, UnsupportedPath> {
    let Some(doc) = parse(doc) else {
        return Ok(None);
    };
    let Some(Json::Object(members)) = target(&doc, path)? else {
        return Ok(None);
    };
    let mut names: Vec<&str> = Vec::new();
    for (key, _) in members {
        if !names.contains(&key.as_str()) {
            names.push(key);
        }
    }
    Ok(Some(format!("[{}]", names.join(", "))))
}

/// `JSON_CONTAINS(doc, candidate [, path])` as MariaDB decides it: an object contains an
/// object whose every key it has (the first member of that key) with a value that contains
/// the candidate's; an array contains an array whose every element it contains, and any other
/// value one of its elements contains; strings are equal as written, numbers as DOUBLEs.
/// NULL for an invalid document or a path with a wildcard; 0 where the path finds nothing.
pub(crate) fn contains(
    doc: &str,
    candidate: &str,
    path: Option<&str>,
) -> Result<Option<bool>, UnsupportedPath> {
    let (Some(doc), Some(candidate)) = (parse(doc), parse(candidate)) else {
        return Ok(None);
    };
    if let Some(p) = path
        && single_steps(p)?.is_none()
    {
        return Ok(None);
    }
    Ok(Some(
        target(&doc, path)?.is_some_and(|t| contains_value(t, &candidate)),
    ))
}

fn contains_value(target: &Json, candidate: &Json) -> bool {
    match (target, candidate) {
        (Json::Object(members), Json::Object(wanted)) => wanted.iter().all(|(key, value)| {
            members
                .iter()
                .find(|(k, _)| same_key(k, key))
                .is_some_and(|(_, item)| contains_value(item, value))
        }),
        (Json::Array(_), Json::Array(wanted)) => wanted.iter().all(|w| contains_value(target, w)),
        (Json::Array(items), _) => items.iter().any(|item| contains_value(item, candidate)),
        (Json::Scalar(a), Json::Scalar(b)) => match (number(a), number(b)) {
            (Some(x), Some(y)) => (x - y).abs() < 1e-12,
            (None, None) => a == b,
            _ => false,
        },
        _ => false,
    }
}

/// A scalar's value when it is a number.
fn number(scalar: &str) -> Option<f64> {
    scalar
        .starts_with(|c: char| c == '-' || c.is_ascii_digit())
        .then(|| scalar.parse().ok())?
}

/// `JSON_CONTAINS_PATH(doc, 'one'|'all', path, …)`; NULL for another mode, an invalid document
/// or path.
pub(crate) fn contains_path(
    doc: &str,
    mode: &str,
    paths: &[&str],
) -> Result<Option<bool>, UnsupportedPath> {
    let Some(doc) = parse(doc) else {
        return Ok(None);
    };
    let Some(all) = one_or_all(mode) else {
        return Ok(None);
    };
    let mut found = Vec::new();
    for path in paths {
        let Some(steps) = parse_path(path)? else {
            return Ok(None);
        };
        let mut finds = Vec::new();
        walk(&doc, &steps, Keys::AsWritten, &mut finds);
        found.push(!finds.is_empty());
    }
    Ok(Some(if all {
        found.iter().all(|f| *f)
    } else {
        found.iter().any(|f| *f)
    }))
}

/// The `'one'`/`'all'` argument of JSON_CONTAINS_PATH and JSON_SEARCH: whether it is `all`.
pub(crate) fn one_or_all(mode: &str) -> Option<bool> {
    match mode.to_ascii_lowercase().as_str() {
        "one" => Some(false),
        "all" => Some(true),
        _ => None,
    }
}

/// How JSON_SET, JSON_INSERT and JSON_REPLACE treat a path: SET writes whether or not a value
/// is there, INSERT only where none is, REPLACE only where one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    Set,
    Insert,
    Replace,
}

/// JSON_SET, JSON_INSERT, JSON_REPLACE: each (path, value) in turn on the document, the value
/// JSON text already. A missing key is appended to its object, an index past an array's end
/// appends to it, and an index past 0 of a value that is not an array makes it an array of the
/// value and the new one. NULL for an invalid document or path, or a path with a wildcard.
pub(crate) fn modify(
    doc: &str,
    change: Change,
    pairs: &[(&str, &str)],
) -> Result<Option<String>, UnsupportedPath> {
    let Some(mut doc) = parse(doc) else {
        return Ok(None);
    };
    for (path, value) in pairs {
        let Some(steps) = single_steps(path)? else {
            return Ok(None);
        };
        let value = parse(value).unwrap_or_else(|| Json::Scalar(value.to_string()));
        let Some((last, parents)) = steps.split_last() else {
            if change != Change::Insert {
                doc = value;
            }
            continue;
        };
        let Some(parent) = find_mut(&mut doc, parents) else {
            continue;
        };
        match (last, parent) {
            (Step::Key(k), Json::Object(members)) => {
                match members
                    .iter_mut()
                    .find(|(key, _)| key_is(key, k, Keys::Decoded))
                {
                    Some((_, item)) if change != Change::Insert => *item = value,
                    None if change != Change::Replace => members.push((format!("\"{k}\""), value)),
                    _ => {}
                }
            }
            (Step::Index(i), Json::Array(items)) => match items.get_mut(*i) {
                Some(item) if change != Change::Insert => *item = value,
                None if change != Change::Replace => items.push(value),
                _ => {}
            },
            (Step::Index(0), parent) if change != Change::Insert => *parent = value,
            (Step::Index(1..), parent) if change != Change::Replace => {
                let old = std::mem::replace(parent, Json::Array(Vec::new()));
                *parent = Json::Array(vec![old, value]);
            }
            _ => {}
        }
    }
    Ok(Some(render(&doc)))
}

/// `JSON_REMOVE(doc, path, …)`: each path's member or element removed in turn (the first
/// member of a key); NULL for an invalid document or path, `$`, or a path with a wildcard.
pub(crate) fn remove(doc: &str, paths: &[&str]) -> Result<Option<String>, UnsupportedPath> {
    let Some(mut doc) = parse(doc) else {
        return Ok(None);
    };
    for path in paths {
        let Some(steps) = single_steps(path)? else {
            return Ok(None);
        };
        let Some((last, parents)) = steps.split_last() else {
            return Ok(None);
        };
        match (last, find_mut(&mut doc, parents)) {
            (Step::Key(k), Some(Json::Object(members))) => {
                if let Some(at) = members
                    .iter()
                    .position(|(key, _)| key_is(key, k, Keys::Decoded))
                {
                    members.remove(at);
                }
            }
            (Step::Index(i), Some(Json::Array(items))) if *i < items.len() => {
                items.remove(*i);
            }
            _ => {}
        }
    }
    Ok(Some(render(&doc)))
}

/// `JSON_MERGE_PATCH(doc, patch, …)` (RFC 7396) as MariaDB folds it: a patch that is not an
/// object replaces the result; an object patches the result's members in their order (by the
/// patch's first member of each key; `null` removes) and appends its other members. A NULL
/// argument makes the result NULL until a patch that is not an object; an invalid document
/// makes it NULL.
pub(crate) fn merge_patch(docs: &[Option<&str>]) -> Option<String> {
    let mut parsed = Vec::with_capacity(docs.len());
    for doc in docs {
        parsed.push(match doc {
            Some(text) => Some(parse(text)?),
            None => None,
        });
    }
    let mut docs = parsed.into_iter();
    let mut result = docs.next()?;
    for patch in docs {
        result = match patch {
            None => None,
            Some(patch @ Json::Object(_)) => result.map(|r| apply_patch(r, &patch)),
            Some(patch) => Some(patch),
        };
    }
    result.map(|r| render(&r))
}

fn apply_patch(target: Json, patch: &Json) -> Json {
    let Json::Object(patch) = patch else {
        return patch.clone();
    };
    let members = match target {
        Json::Object(members) => members,
        _ => Vec::new(),
    };
    let is_null = |v: &Json| matches!(v, Json::Scalar(s) if s == "null");
    let mut out = Vec::with_capacity(members.len() + patch.len());
    for (key, value) in &members {
        match patch.iter().find(|(k, _)| same_key(k, key)) {
            Some((_, p)) if is_null(p) => {}
            Some((_, p)) => out.push((key.clone(), apply_patch(value.clone(), p))),
            None => out.push((key.clone(), value.clone())),
        }
    }
    for (key, p) in patch {
        if !is_null(p) && !members.iter().any(|(k, _)| same_key(k, key)) {
            out.push((key.clone(), apply_patch(Json::Object(Vec::new()), p)));
        }
    }
    Json::Object(out)
}

/// `JSON_SEARCH(doc, 'one'|'all', …)`: the paths of the scalars that `matches` (a LIKE
/// pattern; a string decoded, a number, `true`, `false` or `null` as written), in document order, under any of `paths` when
/// given; one path as a JSON string, several as an array of them, none NULL.
pub(crate) fn search(
    doc: &str,
    all: bool,
    matches: &dyn Fn(&str) -> bool,
    paths: &[&str],
) -> Result<Option<String>, UnsupportedPath> {
    let Some(doc) = parse(doc) else {
        return Ok(None);
    };
    let mut filters = Vec::with_capacity(paths.len());
    for path in paths {
        let Some(steps) = parse_path(path)? else {
            return Ok(None);
        };
        filters.push(steps);
    }
    let mut search = Search {
        all,
        matches,
        filters: &filters,
        at: Vec::new(),
        found: Vec::new(),
    };
    search.visit(&doc);
    Ok(match search.found.as_slice() {
        [] => None,
        [one] => Some(format!("\"{one}\"")),
        many => Some(format!(
            "[{}]",
            many.iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    })
}

/// A place in a document: a member's key as written (without its quotes), or an index.
enum Place<'a> {
    Key(&'a str),
    Index(usize),
}

struct Search<'a, 'd> {
    all: bool,
    matches: &'a dyn Fn(&str) -> bool,
    filters: &'a [Vec<Step>],
    at: Vec<Place<'d>>,
    found: Vec<String>,
}

impl<'d> Search<'_, 'd> {
    fn visit(&mut self, v: &'d Json) {
        if !self.all && !self.found.is_empty() {
            return;
        }
        match v {
            Json::Scalar(s) => {
                let text = if s.starts_with('"') {
                    decode_string(s)
                } else {
                    Some(s.clone())
                };
                if text.is_some_and(|t| (self.matches)(&t)) && self.under_filter() {
                    self.found.push(self.path());
                }
            }
            Json::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.at.push(Place::Index(i));
                    self.visit(item);
                    self.at.pop();
                }
            }
            Json::Object(members) => {
                for (key, item) in members {
                    self.at.push(Place::Key(&key[1..key.len() - 1]));
                    self.visit(item);
                    self.at.pop();
                }
            }
        }
    }

    fn under_filter(&self) -> bool {
        self.filters.is_empty()
            || self.filters.iter().any(|steps| {
                steps.len() <= self.at.len()
                    && steps
                        .iter()
                        .zip(&self.at)
                        .all(|(step, place)| match (step, place) {
                            (Step::Key(k), Place::Key(raw)) => k == raw,
                            (Step::AnyKey, Place::Key(_)) | (Step::AnyIndex, Place::Index(_)) => {
                                true
                            }
                            (Step::Index(i), Place::Index(j)) => i == j,
                            _ => false,
                        })
            })
    }

    fn path(&self) -> String {
        let mut out = String::from("$");
        for place in &self.at {
            match place {
                Place::Key(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Place::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

/// How a path's key matches a member's: MariaDB's JSON_EXTRACT, JSON_CONTAINS_PATH and
/// JSON_SEARCH compare them as written (`"\u0041"` is not `A`), its other functions decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    AsWritten,
    Decoded,
}

/// Whether a member's key (a string literal as written) is a path's key (as written).
fn key_is(literal: &str, name: &str, keys: Keys) -> bool {
    let written = literal.get(1..literal.len() - 1);
    match keys {
        Keys::AsWritten => written == Some(name),
        Keys::Decoded => written == Some(name) || same_key(literal, &format!("\"{name}\"")),
    }
}

/// Whether two keys (string literals as written) are the same decoded.
fn same_key(a: &str, b: &str) -> bool {
    a == b || decode_string(a) == decode_string(b)
}

/// A path's steps when it names one place (no wildcard); `Ok(None)` for a path that does not
/// parse or has a wildcard (MariaDB's NULL where one place is wanted).
fn single_steps(path: &str) -> Result<Option<Vec<Step>>, UnsupportedPath> {
    Ok(parse_path(path)?.filter(|steps| {
        !steps
            .iter()
            .any(|s| matches!(s, Step::AnyKey | Step::AnyIndex))
    }))
}

/// The value at an optional one-place path: the document itself without one; `None` where
/// the path does not parse, has a wildcard or finds nothing.
fn target<'a>(doc: &'a Json, path: Option<&str>) -> Result<Option<&'a Json>, UnsupportedPath> {
    let Some(path) = path else {
        return Ok(Some(doc));
    };
    let Some(steps) = single_steps(path)? else {
        return Ok(None);
    };
    let mut found = Vec::new();
    walk(doc, &steps, Keys::Decoded, &mut found);
    Ok(found.first().copied())
}

/// The value at one-place steps, to change (`[0]` of a value that is not an array is the value).
fn find_mut<'a>(v: &'a mut Json, steps: &[Step]) -> Option<&'a mut Json> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(v);
    };
    match (step, v) {
        (Step::Key(k), Json::Object(members)) => {
            let (_, item) = members
                .iter_mut()
                .find(|(key, _)| key_is(key, k, Keys::Decoded))?;
            find_mut(item, rest)
        }
        (Step::Index(i), Json::Array(items)) => find_mut(items.get_mut(*i)?, rest),
        (Step::Index(0), v) => find_mut(v, rest),
        _ => None,
    }
}

fn walk<'a>(v: &'a Json, steps: &[Step], keys: Keys, found: &mut Vec<&'a Json>) {
    let Some((step, rest)) = steps.split_first() else {
        found.push(v);
        return;
    };
    match (step, v) {
        (Step::Key(k), Json::Object(members)) => {
            if let Some((_, item)) = members.iter().find(|(key, _)| key_is(key, k, keys)) {
                walk(item, rest, keys, found);
            }
        }
        (Step::AnyKey, Json::Object(members)) => {
            members
                .iter()
                .for_each(|(_, item)| walk(item, rest, keys, found));
        }
        (Step::Index(i), Json::Array(items)) => {
            if let Some(item) = items.get(*i) {
                walk(item, rest, keys, found);
            }
        }
        // A scalar or object is an array of one for `[0]`.
        (Step::Index(0), _) => walk(v, rest, keys, found),
        (Step::AnyIndex, Json::Array(items)) => {
            items.iter().for_each(|item| walk(item, rest, keys, found));
        }
        _ => {}
    }
}

/// A path's steps; `Ok(None)` for a path that does not parse.
fn parse_path(path: &str) -> Result<Option<Vec<Step>>, UnsupportedPath> {
    let refuse = || UnsupportedPath(format!("JSON path {path}"));
    let path = path.trim();
    let Some(mut rest) = path.strip_prefix('$') else {
        return Ok(None);
    };
    let mut steps = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(Some(steps));
        }
        if rest.starts_with("**") {
            return Err(refuse());
        } else if let Some(r) = rest.strip_prefix('.') {
            let r = r.trim_start();
            if let Some(r) = r.strip_prefix('*') {
                steps.push(Step::AnyKey);
                rest = r;
            } else if r.starts_with('"') {
                let bytes = r.as_bytes();
                let mut i = 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i >= bytes.len() {
                    return Ok(None);
                }
                // MariaDB matches a key as written, escapes and all.
                if decode_string(&r[..=i]).is_none() {
                    return Ok(None);
                }
                steps.push(Step::Key(r[1..i].to_string()));
                rest = &r[i + 1..];
            } else {
                let end = r
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .unwrap_or(r.len());
                if end == 0 {
                    return Ok(None);
                }
                steps.push(Step::Key(r[..end].to_string()));
                rest = &r[end..];
            }
        } else if let Some(r) = rest.strip_prefix('[') {
            let Some(close) = r.find(']') else {
                return Ok(None);
            };
            let inner = r[..close].trim();
            if inner == "*" {
                steps.push(Step::AnyIndex);
            } else if let Ok(i) = inner.parse::<usize>() {
                steps.push(Step::Index(i));
            } else if inner.starts_with('-') || inner.contains("last") || inner.contains("to") {
                return Err(refuse());
            } else {
                return Ok(None);
            }
            rest = &r[close + 1..];
        } else {
            return Ok(None);
        }
    }
}

/// A JSON string literal (with its quotes) decoded.
fn decode_string(lit: &str) -> Option<String> {
    let inner = lit.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                fn unit(chars: &mut std::str::Chars<'_>) -> Option<u32> {
                    let hex: String = chars.take(4).collect();
                    (hex.len() == 4).then(|| u32::from_str_radix(&hex, 16).ok())?
                }
                let hi = unit(&mut chars)?;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    if chars.next()? != '\\' || chars.next()? != 'u' {
                        return None;
                    }
                    let lo = unit(&mut chars)?;
                    0x10000 + ((hi - 0xD800) << 10) + (lo.checked_sub(0xDC00)?)
                } else {
                    hi
                };
                out.push(char::from_u32(code)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Deeper nesting than this is not a document (MariaDB's limit is 32).
const MAX_DEPTH: usize = 32;

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn space(&mut self) {
        while self.at < self.s.len() && matches!(self.s[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.space();
        if self.s.get(self.at) == Some(&b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        match *self.s.get(self.at)? {
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Some(Json::Array(items));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                if self.eat(b'}') {
                    return Some(Json::Object(members));
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    decode_string(&key)?;
                    if !self.eat(b':') {
                        return None;
                    }
                    members.push((key, self.value(depth + 1)?));
                    if self.eat(b'}') {
                        return Some(Json::Object(members));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'"' => {
                let lit = self.string()?;
                decode_string(&lit)?;
                Some(Json::Scalar(lit))
            }
            b't' | b'f' | b'n' => {
                for word in ["true", "false", "null"] {
                    if self.s[self.at..].starts_with(word.as_bytes()) {
                        self.at += word.len();
                        return Some(Json::Scalar(word.to_string()));
                    }
                }
                None
            }
            _ => self.number(),
        }
    }

    /// A string literal with its quotes, as written.
    fn string(&mut self) -> Option<String> {
        let start = self.at;
        if self.s.get(self.at) != Some(&b'"') {
            return None;
        }
        self.at += 1;
        loop {
            match *self.s.get(self.at)? {
                b'"' => break,
                b'\\' => self.at += 2,
                c if c < 0x20 => return None,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        Some(self.text.get(start..self.at)?.to_string())
    }

    fn number(&mut self) -> Option<Json> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.at < p.s.len() && p.s[p.at].is_ascii_digit() {
                p.at += 1;
            }
            p.at > from
        };
        if self.s.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        if !digits(self) {
            return None;
        }
        if self.s.get(self.at) == Some(&b'.') {
            self.at += 1;
            if !digits(self) {
                return None;
            }
        }
        if matches!(self.s.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.s.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return None;
            }
        }
        Some(Json::Scalar(self.text[start..self.at].to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extract_prints_with_mariadbs_spacing_and_keeps_scalars_as_written() {
        let doc = r#"{"a":{"b":  [1,2]}, "n": 1.50, "e": 1E2, "s": "x\"y"}"#;
        assert_eq!(
            extract(doc, &["$.a"]).unwrap().as_deref(),
            Some(r#"{"b": [1, 2]}"#)
        );
        assert_eq!(
            extract(doc, &["$.n", "$.e"]).unwrap().as_deref(),
            Some("[1.50, 1E2]")
        );
        assert_eq!(
            extract(doc, &["$.s"]).unwrap().as_deref(),
            Some(r#""x\"y""#)
        );
        assert_eq!(extract(doc, &["$.missing"]).unwrap(), None);
        assert_eq!(
            extract("[1,2]", &["$[*]"]).unwrap().as_deref(),
            Some("[1, 2]")
        );
        assert_eq!(extract("{\"a\":1", &["$.a"]).unwrap(), None);
        assert_eq!(extract("{\"a\":1}", &["a"]).unwrap(), None);
    }

    #[test]
    fn paths_read_differently_by_mariadb_are_refused() {
        assert!(extract("[1]", &["$**.a"]).is_err());
        assert!(extract("[1]", &["$[last]"]).is_err());
        assert!(extract("[1]", &["$[-1]"]).is_err());
    }

    #[test]
    fn unquote_decodes_only_a_whole_string_literal() {
        assert_eq!(unquote(r#""a\tb\u00e9""#), "a\tbé");
        assert_eq!(unquote(r#""abc"#), r#""abc"#);
        assert_eq!(unquote("[1, 2]"), "[1, 2]");
    }

    #[test]
    fn length_counts_members_and_a_scalar_is_one() {
        assert_eq!(length(r#"{"a": [1,2,3]}"#, Some("$.a")).unwrap(), Some(3));
        assert_eq!(length("3", None).unwrap(), Some(1));
        assert_eq!(length("[1", None).unwrap(), None);
        assert_eq!(length("{}", Some("$.b")).unwrap(), None);
    }

    #[test]
    fn set_insert_replace_write_where_each_may() {
        let pairs = [("$.a", "2"), ("$.b", "3")];
        let run = |change| modify(r#"{"a":1}"#, change, &pairs).unwrap().unwrap();
        assert_eq!(run(Change::Set), r#"{"a": 2, "b": 3}"#);
        assert_eq!(run(Change::Insert), r#"{"a": 1, "b": 3}"#);
        assert_eq!(run(Change::Replace), r#"{"a": 2}"#);
        // Past an array's end appends; past 0 of a scalar wraps it in an array.
        assert_eq!(
            modify("[1]", Change::Set, &[("$[5]", "2")])
                .unwrap()
                .as_deref(),
            Some("[1, 2]")
        );
        assert_eq!(
            modify("1", Change::Insert, &[("$[1]", "2")])
                .unwrap()
                .as_deref(),
            Some("[1, 2]")
        );
        assert_eq!(modify("[1]", Change::Set, &[("$[*]", "2")]).unwrap(), None);
    }

    #[test]
    fn keys_are_printed_as_written() {
        assert_eq!(
            keys(r#"{"\u0041":1,"b":2,"b":3}"#, None)
                .unwrap()
                .as_deref(),
            Some(r#"["\u0041", "b"]"#)
        );
        assert_eq!(extract(r#"{"\u0041":1}"#, &["$.A"]).unwrap(), None);
        assert_eq!(
            extract(r#"{"\u0041":1}"#, &[r#"$."\u0041""#])
                .unwrap()
                .as_deref(),
            Some("1")
        );
    }

    #[test]
    fn contains_follows_mariadbs_containment() {
        let c = |doc, candidate| contains(doc, candidate, None).unwrap();
        assert_eq!(c("[1,2,[3,4]]", "[1,3]"), Some(true));
        assert_eq!(c("[1,2]", "[[1,2]]"), Some(true));
        assert_eq!(c(r#"{"a":1,"a":2}"#, r#"{"a":2}"#), Some(false));
        assert_eq!(c("1", "1.0"), Some(true));
        assert_eq!(c("true", "1"), Some(false));
        assert_eq!(contains("[1]", "1", Some("$[*]")).unwrap(), None);
    }

    #[test]
    fn merge_patch_removes_nulls_and_replaces_non_objects() {
        let m = |docs: &[Option<&str>]| merge_patch(docs);
        assert_eq!(
            m(&[
                Some(r#"{"a":1,"b":2}"#),
                Some(r#"{"b":null,"c":{"d":null}}"#)
            ])
            .as_deref(),
            Some(r#"{"a": 1, "c": {}}"#)
        );
        assert_eq!(m(&[None, Some("[1]")]).as_deref(), Some("[1]"));
        assert_eq!(m(&[None, Some(r#"{"a":1}"#)]), None);
    }

    #[test]
    fn search_gives_paths_in_document_order() {
        let eq = |text: &str| text == "x";
        assert_eq!(
            search(r#"{"a":"x","b":["x"]}"#, true, &eq, &["$.b", "$.a"])
                .unwrap()
                .as_deref(),
            Some(r#"["$.a", "$.b[0]"]"#)
        );
        assert_eq!(
            search(r#"["y","x","x"]"#, false, &eq, &[])
                .unwrap()
                .as_deref(),
            Some(r#""$[1]""#)
        );
    }

    #[test]
    fn quote_escapes_as_mariadb_does() {
        assert_eq!(quote("a\"b\\c\t\u{1}é"), r#""a\"b\\c\t\u0001é""#);
    }
}
