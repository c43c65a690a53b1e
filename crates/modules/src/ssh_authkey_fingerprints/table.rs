//! cloud-init's `SimpleTable` and `util.center`, for the fingerprint tables: columns as wide as
//! their widest cell plus a space each side, cells centred as Python's `str.center` centres
//! them, a title line centred in `+` over the table's width. Widths count characters.

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Python's `str.center(width)`: the extra space of an odd margin goes left when the width
/// is odd too.
fn center(s: &str, width: usize) -> String {
    let len = chars(s);
    if width <= len {
        return s.to_string();
    }
    let marg = width - len;
    let left = marg / 2 + (marg & width & 1);
    format!("{}{s}{}", " ".repeat(left), " ".repeat(marg - left))
}

/// Python's `format(text, fill + "^" + width)`: the extra fill goes right.
pub fn title(s: &str, fill: char, width: usize) -> String {
    let len = chars(s);
    if width <= len {
        return s.to_string();
    }
    let left = (width - len) / 2;
    let fill = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    format!("{}{s}{}", fill(left), fill(width - len - left))
}

/// The table's lines: a rule, the header, a rule, the rows, a rule.
pub fn table(header: &[String], rows: &[Vec<String>]) -> Vec<String> {
    let mut widths: Vec<usize> = header.iter().map(|h| chars(h)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(chars(cell));
        }
    }
    let rule = {
        let parts: Vec<String> = widths.iter().map(|w| "-".repeat(w + 2)).collect();
        format!("+{}+", parts.join("+"))
    };
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| center(c, w + 2))
            .collect();
        format!("|{}|", parts.join("|"))
    };
    let mut out = vec![rule.clone(), line(header), rule.clone()];
    out.extend(rows.iter().map(|r| line(r)));
    out.push(rule);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example in SimpleTable's own documentation.
    #[test]
    fn simple_table_docstring() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let got = table(&s(&["one", "two"]), &[s(&["1", "2"]), s(&["01", "10"])]);
        assert_eq!(
            got,
            [
                "+-----+-----+",
                "| one | two |",
                "+-----+-----+",
                "|  1  |  2  |",
                "|  01 |  10 |",
                "+-----+-----+",
            ]
        );
    }

    #[test]
    fn centring_as_python() {
        assert_eq!(center("ab", 5), "  ab ");
        assert_eq!(center("ab", 6), "  ab  ");
        assert_eq!(center("abc", 6), " abc  ");
        assert_eq!(title("ab", '+', 7), "++ab+++");
        assert_eq!(title("toolong", '+', 3), "toolong");
    }
}
