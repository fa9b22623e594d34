//! MySQL's LIKE matcher, for `SHOW … LIKE 'pat'` and `WHERE … LIKE 'pat'`.

/// MySQL LIKE: `%` any run, `_` one character, `\` takes the next character literally;
/// case-insensitive.
pub(super) fn like(pattern: &str, text: &str) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum P {
        Any,
        One,
        Lit(char),
    }
    let mut pat = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        pat.push(match c {
            '%' => P::Any,
            '_' => P::One,
            '\\' => P::Lit(chars.next().unwrap_or('\\')),
            c => P::Lit(c),
        });
    }
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let text: Vec<char> = text.chars().map(fold).collect();
    // Greedy match with one backtrack point: the last `%` and where its run started.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pat.get(p) {
            Some(P::Any) => {
                star = Some((p, t));
                p += 1;
            }
            Some(P::One) => {
                p += 1;
                t += 1;
            }
            Some(P::Lit(c)) if fold(*c) == text[t] => {
                p += 1;
                t += 1;
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
    pat[p..].iter().all(|x| *x == P::Any)
}

#[cfg(test)]
mod tests {
    use super::like;

    #[test]
    fn like_matches_mysql() {
        assert!(like("%", ""));
        assert!(like("a%c", "ABBBC"));
        assert!(like("a_c", "abc"));
        assert!(!like("a_c", "abbc"));
        assert!(like("%a%b%", "xxaxxbxx"));
        assert!(!like("%a%b", "xxaxxbxxc"));
        assert!(like("100\\%", "100%"));
        assert!(!like("100\\%", "1000"));
        assert!(like("x\\_y", "x_y"));
        assert!(!like("x\\_y", "xzy"));
    }
}
