//! "Did you mean ...?": the nearest name by edit distance.

/// The candidate closest to `target` by edit distance, if close enough to be a typo.
pub(super) fn nearest<'a>(
    target: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (target.chars().count() / 3).max(2);
    candidates
        .map(|c| (edit_distance(&target.to_lowercase(), &c.to_lowercase()), c))
        .filter(|&(d, _)| d <= limit && d < target.chars().count())
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_finds_typos_only() {
        let names = ["Add", "AddN", "HcomAllReduce"];
        assert_eq!(nearest("Ad", names.iter().copied()), Some("Add"));
        assert_eq!(
            nearest("hcomallreduce", names.iter().copied()),
            Some("HcomAllReduce")
        );
        assert_eq!(nearest("Conv2D", names.iter().copied()), None);
        assert_eq!(nearest("y", ["a", "x"].iter().copied()), None);
    }
}
