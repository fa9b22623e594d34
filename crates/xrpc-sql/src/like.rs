//! MySQL's LIKE wildcard match, shared by every part of the node that matches a pattern (the
//! SQLite engine's `LIKE` under a collation, admin SQL's `SHOW … LIKE`). Each caller supplies the
//! character key its collation compares by.

/// Whether `text` matches the LIKE `pattern`: `%` any run, `_` one character, and `escape`
/// taking the next character literally (an escape at the end stands for itself). Characters
/// compare by `key`, which folds case (and accents) as the caller's collation does; trailing
/// spaces count, as in MySQL's LIKE.
pub fn like_matches(
    text: &str,
    pattern: &str,
    escape: Option<char>,
    key: impl Fn(char) -> char,
) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum P {
        Lit(char),
        One,
        Any,
    }
    let text: Vec<char> = text.chars().map(&key).collect();
    let mut tokens = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if Some(c) == escape {
            tokens.push(P::Lit(key(chars.next().unwrap_or(c))));
        } else if c == '%' {
            tokens.push(P::Any);
        } else if c == '_' {
            tokens.push(P::One);
        } else {
            tokens.push(P::Lit(key(c)));
        }
    }
    // Iterative wildcard match with one backtrack point: the last `%` and where its run started.
    let (mut t, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match tokens.get(p) {
            Some(P::Any) => {
                star = Some((p, t));
                p += 1;
            }
            Some(P::One) => {
                t += 1;
                p += 1;
            }
            Some(P::Lit(c)) if *c == text[t] => {
                t += 1;
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    tokens[p..].iter().all(|token| *token == P::Any)
}

#[cfg(test)]
mod tests {
    use super::like_matches;

    fn exact(text: &str, pattern: &str) -> bool {
        like_matches(text, pattern, Some('\\'), |c| c)
    }

    #[test]
    fn wildcards_and_escapes() {
        assert!(exact("", "%"));
        assert!(exact("xxaxxbxx", "%a%b%"));
        assert!(!exact("xxaxxbxxc", "%a%b"));
        assert!(exact("abc", "a_c"));
        assert!(!exact("abbc", "a_c"));
        assert!(exact("100%", "100\\%"));
        assert!(!exact("1000", "100\\%"));
        assert!(exact("a\\", "a\\"));
        assert!(!exact("abc ", "abc"));
    }

    #[test]
    fn characters_compare_by_the_key() {
        let fold = |c: char| c.to_ascii_lowercase();
        assert!(like_matches("ABBBC", "a%c", None, fold));
        assert!(!exact("ABBBC", "a%c"));
    }
}
