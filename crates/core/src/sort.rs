//! Stable sorts that share one copy of the standard library's sort.
//!
//! `slice::sort_by` is compiled again for every element type and comparator, about 4.5 KiB
//! each; the binaries held some forty copies (issue 36). Here the standard sort runs once, on
//! indices, through a `dyn` comparator; each caller adds only its comparison and the swaps
//! that put the items in that order. The result is the same as `slice::sort_by`'s (stable).

use std::cmp::Ordering;

/// Sorts `items` stably by `cmp`, as `slice::sort_by` does.
pub fn sort_by<T>(items: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = stable_order(items.len(), &mut |a, b| cmp(&items[a], &items[b]));
    for (a, b) in swaps(order) {
        items.swap(a, b);
    }
}

/// Sorts `items` stably by the key `key` gives, as `slice::sort_by_key` does.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably in their natural order, as `slice::sort` does.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Collecting pairs into a map by inserting them one by one: the `FromIterator` of `BTreeMap`
/// (and so of `serde_json::Map`) sorts its input first, one more sort copy per key, value and
/// iterator type. The map is the same (a repeated key keeps its last value).
pub trait IntoMap<K, V>: Iterator<Item = (K, V)> + Sized {
    fn into_map<M: Default + Extend<(K, V)>>(self) -> M {
        let mut map = M::default();
        map.extend(self);
        map
    }
}

impl<K, V, I: Iterator<Item = (K, V)>> IntoMap<K, V> for I {}

/// The same for a set: `BTreeSet`'s `FromIterator` sorts its input first too.
pub trait IntoSet<T>: Iterator<Item = T> + Sized {
    fn into_set<S: Default + Extend<T>>(self) -> S {
        let mut set = S::default();
        set.extend(self);
        set
    }
}

impl<T, I: Iterator<Item = T>> IntoSet<T> for I {}

/// The indices of `len` items in their stably sorted order.
fn stable_order(len: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// The swaps that move the item at `order[i]` to `i` for every `i`.
fn swaps(order: Vec<usize>) -> Vec<(usize, usize)> {
    // `at[p]`: the original index of the item now at p; `pos[k]`: where item k is now.
    let mut at: Vec<usize> = (0..order.len()).collect();
    let mut pos = at.clone();
    let mut out = Vec::new();
    for (i, &want) in order.iter().enumerate() {
        let j = pos[want];
        if j != i {
            out.push((i, j));
            let moved = at[i];
            at.swap(i, j);
            pos[want] = i;
            pos[moved] = j;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_standard_sorts() {
        // Pairs compared by their first half only, so stability shows in the second.
        let mut seed = 7u32;
        for len in 0..40 {
            let items: Vec<(u32, usize)> = (0..len)
                .map(|i| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ((seed >> 16) % 5, i)
                })
                .collect();
            let mut ours = items.clone();
            let mut std = items.clone();
            sort_by_key(&mut ours, |p| p.0);
            std.sort_by_key(|p| p.0);
            assert_eq!(ours, std);
            let mut ours = items.clone();
            let mut std = items;
            sort_by(&mut ours, |a, b| {
                (a.0 % 2).cmp(&(b.0 % 2)).then(b.0.cmp(&a.0))
            });
            std.sort_by(|a, b| (a.0 % 2).cmp(&(b.0 % 2)).then(b.0.cmp(&a.0)));
            assert_eq!(ours, std);
        }
        let map: std::collections::BTreeMap<_, _> =
            [(2, "b"), (1, "a"), (2, "c")].into_iter().into_map();
        assert_eq!(map, std::collections::BTreeMap::from([(1, "a"), (2, "c")]));
        let set: std::collections::BTreeSet<_> = [3, 1, 3].into_iter().into_set();
        assert_eq!(set, std::collections::BTreeSet::from([1, 3]));
        let mut words = vec!["b", "a", "c", "a"];
        sort(&mut words);
        assert_eq!(words, ["a", "a", "b", "c"]);
    }
}
