//! MySQL's ENUM and SET columns on SQLite.
//!
//! SQLite cannot parse `ENUM('a','b')` as a column type (a type name is words and at most two
//! numbers in parentheses). [`declare`] rewrites the declaration, in `CREATE TABLE` and `ALTER
//! TABLE … ADD`, to words SQLite accepts and keeps: `ENUM TEXT x61 x62` (or `MYSQL_SET TEXT …`:
//! `SET` is an SQLite keyword), one
//! word per member, `x` and the member's UTF-8 bytes in hex. Hex words keep the member list in
//! the declared type, where the strict-write triggers and the read path find it
//! ([`members`]), and cannot spell `INT`, `BLOB`, `REAL`, `FLOA` or `DOUB`, so the word `TEXT`
//! alone decides SQLite's affinity: TEXT, whatever the members are.
//!
//! Writes ([`check`]) accept what MySQL accepts: a member in any case and with trailing spaces,
//! a member's index (ENUM) or a bit set of members (SET) as a number, SET members in any order
//! and repeated; and they store MySQL's form ([`normalize`]: `'A'` is stored `'a'`, `'b,a'`
//! `'a,b'`, `2` the second member). A BEFORE trigger cannot change the value, so an AFTER
//! INSERT and an AFTER UPDATE trigger rewrite a row whose value is not in its stored form
//! (`strict::trigger_sql`). Tables whose triggers predate this, and WITHOUT ROWID tables (which
//! the rewrite cannot address), accept only the stored form, as before: exactly a member
//! (ENUM), or members in declaration order separated by commas, each at most once, or the empty
//! string (SET), and refuse other spellings with 1265 rather than store a spelling MySQL would
//! not return. Anything else is 1265, as in MySQL's strict mode. Reads return ENUM and SET
//! values with X types ENUM and SET.

use rusqlite::types::ValueRef;

use super::strict::Problem;
use crate::tokens::{Tok, tokens};

/// The first word of a SET column's declared type in SQLite.
pub(crate) const SET_WORD: &str = "MYSQL_SET";

/// The declaration SQLite stores for `ENUM(…)` or `SET(…)` written as `declared` (the type's
/// text, from its first word to its last); `None` when it is not one.
pub(crate) fn declare(declared: &str) -> Option<String> {
    let toks = tokens(declared)?;
    let head = toks.first().filter(|t| t.tok == Tok::Word)?;
    let word = declared[head.start..head.end].to_ascii_uppercase();
    if word != "ENUM" && word != "SET" {
        return None;
    }
    if toks.get(1)?.tok != Tok::Punct(b'(') {
        return None;
    }
    // `SET` is an SQLite keyword, which a type name cannot start with.
    let head = if word == "SET" { SET_WORD } else { "ENUM" };
    let mut out = format!("{head} TEXT");
    let mut i = 2;
    loop {
        let t = toks.get(i)?;
        if t.tok != Tok::String {
            return None;
        }
        let quoted = &declared[t.start + 1..t.end - 1];
        let member = quoted.replace("''", "'");
        out.push_str(" x");
        for b in member.as_bytes() {
            out.push_str(&format!("{b:02x}"));
        }
        match toks.get(i + 1)?.tok {
            Tok::Punct(b',') => i += 2,
            Tok::Punct(b')') => {
                i += 2;
                break;
            }
            _ => return None,
        }
    }
    // Whatever follows the list (CHARACTER SET, COLLATE) is kept as is.
    if let Some(rest) = toks.get(i) {
        out.push(' ');
        out.push_str(&declared[rest.start..]);
    }
    Some(out)
}

/// The members of a declaration written by [`declare`]: `(is SET, members)`.
pub(crate) fn members(decl: &str) -> Option<(bool, Vec<Vec<u8>>)> {
    let mut words = decl.split_ascii_whitespace();
    let set = match words.next()?.to_ascii_uppercase().as_str() {
        "ENUM" => false,
        SET_WORD => true,
        _ => return None,
    };
    if !words.next()?.eq_ignore_ascii_case("TEXT") {
        return None;
    }
    let mut members = Vec::new();
    for w in words {
        let Some(hex) = w.strip_prefix(['x', 'X']) else {
            break;
        };
        if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            break;
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        members.push(bytes);
    }
    (!members.is_empty()).then_some((set, members))
}

/// The longest value of the type in bytes, as MySQL reports a column's length in characters
/// times 4 (utf8mb4): the longest member, or every member and the commas between them.
pub(crate) fn max_len(set: bool, members: &[Vec<u8>]) -> u32 {
    let chars = |m: &Vec<u8>| String::from_utf8_lossy(m).chars().count() as u32;
    let n = if set {
        members.iter().map(chars).sum::<u32>() + members.len().saturating_sub(1) as u32
    } else {
        members.iter().map(chars).max().unwrap_or(0)
    };
    n.saturating_mul(4)
}

/// MySQL's stored form of a value written to an ENUM or SET column, as MySQL normalises it:
/// a member matched without regard to case (ASCII and simple Unicode lower case) or trailing
/// spaces, spelled as declared; a number (or a string of digits that is no member) as a
/// member's index (ENUM, 1-based) or a bit set of members (SET); SET members in declaration
/// order, each once. `Ok(None)` for NULL; anything else is 1265 (data truncated), as in
/// MySQL's strict mode. (MySQL's default collations also ignore accents; an accented
/// spelling of a member is refused here.)
pub(crate) fn normalize(
    set: bool,
    members: &[Vec<u8>],
    value: ValueRef<'_>,
) -> Result<Option<Vec<u8>>, Problem> {
    let owned;
    let bytes: &[u8] = match value {
        ValueRef::Null => return Ok(None),
        ValueRef::Text(t) | ValueRef::Blob(t) => t,
        ValueRef::Integer(i) => {
            owned = i.to_string();
            owned.as_bytes()
        }
        ValueRef::Real(f) if f.fract() == 0.0 && (0.0..1e19).contains(&f) => {
            owned = format!("{f:.0}");
            owned.as_bytes()
        }
        ValueRef::Real(_) => return Err(Problem::Truncated),
    };
    let folded = |b: &[u8]| -> String {
        String::from_utf8_lossy(b)
            .trim_end_matches(' ')
            .to_lowercase()
    };
    let folded_members: Vec<String> = members.iter().map(|m| folded(m)).collect();
    let index = |item: &[u8]| {
        let item = folded(item);
        folded_members.iter().position(|m| *m == item)
    };
    let number = |b: &[u8]| -> Option<u64> {
        (!b.is_empty() && b.iter().all(u8::is_ascii_digit))
            .then(|| std::str::from_utf8(b).ok()?.parse().ok())
            .flatten()
    };
    if !set {
        if let Some(at) = index(bytes) {
            return Ok(Some(members[at].clone()));
        }
        return match number(bytes) {
            Some(n) if n >= 1 && n as usize <= members.len() => {
                Ok(Some(members[n as usize - 1].clone()))
            }
            _ => Err(Problem::Truncated),
        };
    }
    let mut chosen = vec![false; members.len()];
    if let (None, Some(bits)) = (index(bytes), number(bytes)) {
        if members.len() < 64 && bits >> members.len() != 0 {
            return Err(Problem::Truncated);
        }
        for (k, slot) in chosen.iter_mut().enumerate() {
            *slot = k < 64 && bits >> k & 1 == 1;
        }
    } else if !bytes.is_empty() {
        for item in bytes.split(|&b| b == b',') {
            match index(item) {
                Some(at) => chosen[at] = true,
                // Including an empty item (`'a,'`), as MariaDB refuses it.
                None => return Err(Problem::Truncated),
            }
        }
    }
    let mut out = Vec::new();
    for (member, _) in members.iter().zip(&chosen).filter(|(_, c)| **c) {
        if !out.is_empty() {
            out.push(b',');
        }
        out.extend_from_slice(member);
    }
    Ok(Some(out))
}

/// Checks a value written to an ENUM or SET column (see the module docs): with `normalized`
/// (the table's triggers store [`normalize`]'s form) any spelling MySQL accepts, else only
/// the stored form itself.
pub(crate) fn check(
    set: bool,
    members: &[Vec<u8>],
    value: ValueRef<'_>,
    normalized: bool,
) -> Result<(), Problem> {
    if normalized {
        return normalize(set, members, value).map(drop);
    }
    let bytes = match value {
        ValueRef::Null => return Ok(()),
        ValueRef::Text(t) | ValueRef::Blob(t) => t,
        // A member's index (MySQL's numeric form) is not stored as MySQL would store it.
        ValueRef::Integer(_) | ValueRef::Real(_) => return Err(Problem::Truncated),
    };
    let index = |item: &[u8]| members.iter().position(|m| m == item);
    if !set {
        return index(bytes).map(drop).ok_or(Problem::Truncated);
    }
    if bytes.is_empty() {
        return Ok(());
    }
    let mut last: Option<usize> = None;
    for item in bytes.split(|&b| b == b',') {
        let at = index(item).ok_or(Problem::Truncated)?;
        if last.is_some_and(|l| at <= l) {
            return Err(Problem::Truncated);
        }
        last = Some(at);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_keep_their_members_in_words_sqlite_accepts() {
        let d = declare("ENUM('a', 'it''s', '', 'print')").unwrap();
        assert_eq!(d, "ENUM TEXT x61 x69742773 x x7072696e74");
        assert!(
            !d.to_ascii_uppercase()
                .replace("ENUM TEXT", "")
                .contains("INT")
        );
        assert_eq!(
            members(&d).unwrap(),
            (
                false,
                vec![
                    b"a".to_vec(),
                    b"it's".to_vec(),
                    b"".to_vec(),
                    b"print".to_vec()
                ]
            )
        );
        assert_eq!(
            declare("set('x','y') character set utf8mb4").unwrap(),
            "MYSQL_SET TEXT x78 x79 character set utf8mb4"
        );
        assert_eq!(declare("varchar(3)"), None);
        assert_eq!(declare("enum(1, 2)"), None);
    }

    #[test]
    fn only_members_in_their_declared_form_are_accepted() {
        let m = vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()];
        let t = |s: &'static str| ValueRef::Text(s.as_bytes());
        assert_eq!(check(false, &m, t("b"), false), Ok(()));
        assert_eq!(check(false, &m, t("B"), false), Err(Problem::Truncated));
        assert_eq!(check(false, &m, t(""), false), Err(Problem::Truncated));
        assert_eq!(
            check(false, &m, ValueRef::Integer(1), false),
            Err(Problem::Truncated)
        );
        assert_eq!(check(true, &m, t("a,c"), false), Ok(()));
        assert_eq!(check(true, &m, t(""), false), Ok(()));
        assert_eq!(check(true, &m, t("c,a"), false), Err(Problem::Truncated));
        assert_eq!(check(true, &m, t("a,a"), false), Err(Problem::Truncated));
        assert_eq!(check(true, &m, t("a,z"), false), Err(Problem::Truncated));
        assert_eq!(max_len(true, &m), 20);
        assert_eq!(max_len(false, &m), 4);
    }

    #[test]
    fn spellings_mysql_accepts_are_normalized() {
        let m = vec![b"a".to_vec(), b"b".to_vec(), "é".as_bytes().to_vec()];
        let t = |s: &'static str| ValueRef::Text(s.as_bytes());
        let n = |set, v| normalize(set, &m, v).map(|b| b.map(|b| String::from_utf8(b).unwrap()));
        let ok = |s: &str| Ok(Some(s.to_owned()));
        assert_eq!(n(false, t("B")), ok("b"));
        assert_eq!(n(false, t("É ")), ok("é"));
        assert_eq!(n(false, t("2")), ok("b"));
        assert_eq!(n(false, ValueRef::Integer(3)), ok("é"));
        assert_eq!(n(false, ValueRef::Integer(0)), Err(Problem::Truncated));
        assert_eq!(n(false, t(" a")), Err(Problem::Truncated));
        assert_eq!(n(true, t("é,A,a")), ok("a,é"));
        assert_eq!(n(true, ValueRef::Integer(6)), ok("b,é"));
        assert_eq!(n(true, ValueRef::Integer(8)), Err(Problem::Truncated));
        assert_eq!(n(true, t("")), ok(""));
        assert_eq!(n(true, ValueRef::Null), Ok(None));
        assert_eq!(check(true, &m, t("b,a"), true), Ok(()));
        assert_eq!(check(true, &m, t("b,a"), false), Err(Problem::Truncated));
    }
}
