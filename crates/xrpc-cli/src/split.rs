//! Splitting SQL text into statements at `;`, the way the mysql client does.
//!
//! A [`Splitter`] takes text in pieces (lines typed at the prompt, or all of stdin) and hands back
//! each complete statement, without its `;`. A `;` ends a statement only outside quotes
//! (`'…'`, `"…"`, `` `…` ``, with backslash escapes in the first two and doubled quotes in all
//! three) and outside comments (`-- ` and `#` to the end of the line, `/* … */`). Comments stay in
//! the statement text: the server skips them.
//!
//! Invariant: the scanner's state (inside which quote or comment) is kept between pieces, so a
//! statement may span any number of lines, and feeding text whole or line by line gives the same
//! statements.

/// Where the scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    Quote(char),
    /// Just after a backslash inside a `'` or `"` quote.
    Escape(char),
    LineComment,
    BlockComment,
}

/// An incremental statement splitter; see the [module docs](self).
#[derive(Debug)]
pub struct Splitter {
    buf: String,
    state: State,
}

impl Default for Splitter {
    fn default() -> Self {
        Self::new()
    }
}

impl Splitter {
    /// A splitter with nothing pending.
    pub fn new() -> Self {
        Self {
            buf: String::new(),
            state: State::Code,
        }
    }

    /// Adds text; returns the statements it completed, trimmed, empty ones left out.
    pub fn push(&mut self, text: &str) -> Vec<String> {
        let mut done = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            self.state = match self.state {
                State::Code => match c {
                    ';' => {
                        let stmt = self.buf.trim().to_owned();
                        self.buf.clear();
                        if !stmt.is_empty() {
                            done.push(stmt);
                        }
                        continue;
                    }
                    '\'' | '"' | '`' => State::Quote(c),
                    '#' => State::LineComment,
                    '-' if next == Some('-') && self.dash_dash_comment(&mut chars) => {
                        State::LineComment
                    }
                    '/' if next == Some('*') => {
                        self.buf.push(c);
                        self.buf.push(chars.next().unwrap_or('*'));
                        self.state = State::BlockComment;
                        continue;
                    }
                    _ => State::Code,
                },
                State::Quote(q) => match c {
                    '\\' if q != '`' => State::Escape(q),
                    _ if c == q => State::Code,
                    _ => State::Quote(q),
                },
                State::Escape(q) => State::Quote(q),
                State::LineComment => {
                    if c == '\n' {
                        State::Code
                    } else {
                        State::LineComment
                    }
                }
                State::BlockComment => {
                    if c == '*' && next == Some('/') {
                        self.buf.push(c);
                        self.buf.push(chars.next().unwrap_or('/'));
                        self.state = State::Code;
                        continue;
                    }
                    State::BlockComment
                }
            };
            self.buf.push(c);
        }
        done
    }

    /// `--` starts a comment only when followed by whitespace or the end of the text (MySQL's
    /// rule, so `1--1` stays an expression). Consumes the second dash when it does.
    fn dash_dash_comment(&mut self, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> bool {
        let mut ahead = chars.clone();
        ahead.next();
        if ahead.peek().is_none_or(|c| c.is_whitespace()) {
            self.buf.push('-');
            chars.next();
            true
        } else {
            false
        }
    }

    /// Text of an unfinished statement, if any is pending.
    pub fn pending(&self) -> Option<&str> {
        let t = self.buf.trim();
        (!t.is_empty()).then_some(t)
    }

    /// Whether nothing is pending: the next line starts a new statement.
    pub fn is_empty(&self) -> bool {
        self.pending().is_none() && self.state == State::Code
    }

    /// Forgets the pending text (Ctrl-C at the prompt).
    pub fn clear(&mut self) {
        self.buf.clear();
        self.state = State::Code;
    }

    /// Ends the input: the pending text, if any, as a last statement.
    pub fn finish(&mut self) -> Option<String> {
        let last = self.pending().map(str::to_owned);
        self.clear();
        last
    }
}

/// Splits a whole text; a last statement without `;` counts too.
pub fn split_all(text: &str) -> Vec<String> {
    let mut s = Splitter::new();
    let mut out = s.push(text);
    out.extend(s.finish());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semicolons_inside_quotes_and_comments_do_not_split() {
        let text = "select 'a;b', \"c\\\";d\", `e;f`; -- x;y\nselect 2 /* ; */;# z;\nselect 3";
        assert_eq!(
            split_all(text),
            vec![
                "select 'a;b', \"c\\\";d\", `e;f`",
                "-- x;y\nselect 2 /* ; */",
                "# z;\nselect 3",
            ]
        );
    }

    #[test]
    fn lines_fed_one_by_one_give_the_same_statements() {
        let text = "select 1,\n'x;\ny';\nselect 1--1;\n\n;select 2;";
        let mut s = Splitter::new();
        let mut got = Vec::new();
        for line in text.split_inclusive('\n') {
            got.extend(s.push(line));
        }
        assert!(s.is_empty());
        assert_eq!(got, split_all(text));
        assert_eq!(got, vec!["select 1,\n'x;\ny'", "select 1--1", "select 2"]);
    }

    #[test]
    fn unfinished_statements_stay_pending() {
        let mut s = Splitter::new();
        assert!(s.push("select 'a;").is_empty());
        assert!(!s.is_empty());
        assert_eq!(s.push("';"), vec!["select 'a;'"]);
        assert!(s.is_empty());
        s.push("select 4");
        assert_eq!(s.finish().as_deref(), Some("select 4"));
    }
}
