//! MySQL's LIKE matcher, for `SHOW … LIKE 'pat'` and `WHERE … LIKE 'pat'`.

/// MySQL LIKE: `%` any run, `_` one character, `\` takes the next character literally;
/// case-insensitive.
pub(super) fn like(pattern: &str, text: &str) -> bool {
    xrpc_sql::like_matches(text, pattern, Some('\\'), |c| {
        c.to_lowercase().next().unwrap_or(c)
    })
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
