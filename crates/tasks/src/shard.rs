//! Slicing a selection into N deterministic shards (`tasks run --shard I/N`), so N machines
//! (an Indexed Job's pods) run disjoint parts of the suite whose reports merge into one run's.
//! Tasks are dealt in order of domain then id, one to each shard in turn, counting on across
//! domains: every domain is spread over the shards, and no two shards differ by more than one
//! task. Skipped OSWorld tasks are dealt the same way, so merged reports count them once.

use std::fmt;
use std::str::FromStr;

/// The I-th of N slices, I counted from 1 (`--shard 1/4` … `--shard 4/4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which slice, 1 ..= `count`.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "--shard {s:?}: give I/N with 1 <= I <= N, e.g. 1/4 (an Indexed Job's pod k runs $((k+1))/N)"
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// This shard's part of `items`, dealt in order of `key` (domain, id).
    pub fn take<T>(&self, mut items: Vec<T>, key: impl Fn(&T) -> (String, String)) -> Vec<T> {
        items.sort_by_key(|t| key(t));
        items
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % self.count == self.index - 1)
            .map(|(_, t)| t)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite() -> Vec<(String, String)> {
        let mut v = Vec::new();
        for (d, n) in [("calc", 4), ("chrome", 6), ("writer", 4), ("terminal", 3)] {
            for k in 0..n {
                v.push((d.to_string(), format!("{d}-{k}")));
            }
        }
        v.reverse();
        v
    }

    #[test]
    fn shards_are_parsed_strictly() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("1/1".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in ["0/4", "5/4", "1/0", "4", "a/b", "1/4/2", "-1/4", ""] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("I/N"), "{bad}: {e}");
        }
    }

    #[test]
    fn shards_cover_every_task_once_balanced_and_spread_over_domains() {
        let all = suite();
        for n in 1..=5 {
            let mut seen: Vec<(String, String)> = Vec::new();
            let mut sizes = Vec::new();
            for i in 1..=n {
                let part = Shard { index: i, count: n }.take(all.clone(), |t| t.clone());
                sizes.push(part.len());
                let domains: std::collections::BTreeSet<_> =
                    part.iter().map(|t| t.0.as_str()).collect();
                for big in ["calc", "chrome", "writer", "terminal"] {
                    let size = all.iter().filter(|t| t.0 == big).count();
                    if size >= n {
                        assert!(domains.contains(big), "{i}/{n} has some of {big}");
                    }
                }
                seen.extend(part);
            }
            seen.sort();
            let mut want = all.clone();
            want.sort();
            assert_eq!(seen, want, "{n} shards: each task exactly once");
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "{n} shards balanced: {sizes:?}");
        }
        let again = Shard { index: 2, count: 3 }.take(suite(), |t| t.clone());
        assert_eq!(
            again,
            Shard { index: 2, count: 3 }.take(suite(), |t| t.clone()),
            "deterministic"
        );
    }
}
