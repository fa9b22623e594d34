//! MySQL's ENUM and SET columns as tables without a kept definition declare them in SQLite.
//!
//! SQLite cannot parse `ENUM('a','b')` as a column type (a type name is words and at most two
//! numbers in parentheses), so such tables (created by nodes that ran statements as their text)
//! declare them `ENUM TEXT x61 x62` (or `MYSQL_SET TEXT …`: `SET` is an SQLite keyword), one
//! word per member, `x` and the member's UTF-8 bytes in hex. [`members`] reads the members back,
//! for the column's type (`classify_decl`) and its description in the catalog.

/// The first word of a SET column's declared type in SQLite.
pub(crate) const SET_WORD: &str = "MYSQL_SET";

/// The members of such a declaration: `(is SET, members)`; `None` for any other.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_read_from_their_hex_words() {
        assert_eq!(
            members("ENUM TEXT x61 x69742773 x x7072696e74").unwrap(),
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
        let (set, m) = members("MYSQL_SET TEXT x61 x62 x63 character set utf8mb4").unwrap();
        assert!(set);
        assert_eq!(m, vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
        assert_eq!(max_len(true, &m), 20);
        assert_eq!(max_len(false, &m), 4);
        assert_eq!(members("varchar(3)"), None);
        assert_eq!(members("ENUM TEXT"), None);
    }
}
