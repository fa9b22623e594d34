//! JSON documents as MariaDB's JSON functions read and print them: text in, text out.
//!
//! A document is parsed into a tree whose scalars keep their source text (a number stays
//! `1.50` or `1E2`, a string keeps its escapes), and a value is printed with MariaDB's spacing:
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
    /// Members in document order: the key decoded, and the value.
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
                out.push_str(&quote(k));
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
        walk(&doc, &steps, &mut found);
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
            walk(&doc, &steps, &mut found);
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

fn walk<'a>(v: &'a Json, steps: &[Step], found: &mut Vec<&'a Json>) {
    let Some((step, rest)) = steps.split_first() else {
        found.push(v);
        return;
    };
    match (step, v) {
        (Step::Key(k), Json::Object(members)) => {
            if let Some((_, item)) = members.iter().find(|(key, _)| key == k) {
                walk(item, rest, found);
            }
        }
        (Step::AnyKey, Json::Object(members)) => {
            members.iter().for_each(|(_, item)| walk(item, rest, found));
        }
        (Step::Index(i), Json::Array(items)) => {
            if let Some(item) = items.get(*i) {
                walk(item, rest, found);
            }
        }
        // A scalar or object is an array of one for `[0]`.
        (Step::Index(0), _) => walk(v, rest, found),
        (Step::AnyIndex, Json::Array(items)) => {
            items.iter().for_each(|item| walk(item, rest, found));
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
                let Some(key) = decode_string(&r[..=i]) else {
                    return Ok(None);
                };
                steps.push(Step::Key(key));
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
                    let key = decode_string(&self.string()?)?;
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
    fn quote_escapes_as_mariadb_does() {
        assert_eq!(quote("a\"b\\c\t\u{1}é"), r#""a\"b\\c\t\u0001é""#);
    }
}
