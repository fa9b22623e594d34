//! MySQL's text comparison: `utf8mb4_general_ci` and `utf8mb4_bin`, both PAD SPACE, LIKE under
//! either, and the order of `information_schema`'s names.

use std::cmp::Ordering;

use crate::types::Collation;

/// The weight of a character under `utf8mb4_general_ci`: its upper case, with the accented
/// Latin-1 letters weighed as their base letter (`é` = `e` = `E`, `ß` = `s`). Characters with
/// a multi-character upper case keep their own weight.
pub(crate) fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    match c {
        'À'..='Å' | 'à'..='å' => 'A',
        'Ç' | 'ç' => 'C',
        'È'..='Ë' | 'è'..='ë' => 'E',
        'Ì'..='Ï' | 'ì'..='ï' => 'I',
        'Ñ' | 'ñ' => 'N',
        'Ò'..='Ö' | 'ò'..='ö' => 'O',
        'Ù'..='Ü' | 'ù'..='ü' => 'U',
        'Ý' | 'ý' | 'ÿ' => 'Y',
        'ß' => 'S',
        _ => {
            let mut upper = c.to_uppercase();
            match (upper.next(), upper.next()) {
                (Some(u), None) => u,
                _ => c,
            }
        }
    }
}

/// Compares two strings under a collation, ignoring trailing spaces but under
/// [`Collation::Exact`].
pub(crate) fn compare(collation: Collation, a: &str, b: &str) -> Ordering {
    if collation == Collation::Exact {
        return a.cmp(b);
    }
    let a = a.trim_end_matches(' ');
    let b = b.trim_end_matches(' ');
    match collation {
        Collation::Bin | Collation::Exact => a.cmp(b),
        Collation::Ci | Collation::Name => a.chars().map(fold).cmp(b.chars().map(fold)),
    }
}

/// The order ORDER BY gives names ([`Collation::Name`], [`crate::NAME_COLLATION`]):
/// `utf8mb4_general_ci`'s (letters as capitals, so `_` sorts after them; `é` as `E`), then
/// byte by byte, so `T1` comes before `t1`.
pub fn compare_names(a: &str, b: &str) -> Ordering {
    compare(Collation::Ci, a, b).then_with(|| a.cmp(b))
}

/// Whether `text` matches the LIKE `pattern` (`%`, `_`, `escape`) under a collation. Unlike
/// `=`, trailing spaces count.
pub(crate) fn like(collation: Collation, text: &str, pattern: &str, escape: Option<char>) -> bool {
    let key = |c: char| match collation {
        Collation::Ci | Collation::Name => fold(c),
        Collation::Bin | Collation::Exact => c,
    };
    xrpc_sql::like_matches(text, pattern, escape, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_ci_ignores_case_accents_and_trailing_spaces() {
        assert_eq!(compare(Collation::Ci, "apple", "APPLE "), Ordering::Equal);
        assert_eq!(compare(Collation::Ci, "café", "CAFE"), Ordering::Equal);
        assert_eq!(compare(Collation::Ci, "apple", "Banana"), Ordering::Less);
        assert_eq!(
            compare(Collation::Bin, "apple", "Banana"),
            Ordering::Greater
        );
        assert_eq!(compare(Collation::Bin, "a", "a  "), Ordering::Equal);
    }

    #[test]
    fn names_order_as_mariadb_lists_them_and_compare_without_regard_to_case() {
        let mut names = ["t1", "b_x", "f1", "T1", "Ba", "e2", "é1"];
        names.sort_by(|a, b| compare_names(a, b));
        assert_eq!(names, ["Ba", "b_x", "é1", "e2", "f1", "T1", "t1"]);
        assert_ne!(compare(Collation::Exact, "P", "P "), Ordering::Equal);
        assert_eq!(compare(Collation::Name, "t1", "T1"), Ordering::Equal);
        assert!(like(Collation::Name, "t1", "T_", None));
    }

    #[test]
    fn like_follows_the_collation() {
        assert!(like(Collation::Ci, "Hello", "h%O", Some('\\')));
        assert!(!like(Collation::Bin, "Hello", "h%", Some('\\')));
        assert!(like(Collation::Bin, "a%b", "a\\%b", Some('\\')));
        assert!(!like(Collation::Bin, "axb", "a\\%b", Some('\\')));
        assert!(like(Collation::Ci, "abc", "_b_", None));
        assert!(!like(Collation::Ci, "abc ", "abc", None));
    }
}
