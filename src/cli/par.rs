//! Records worked on by the machine's cores and folded in file order: [`ordered`].

use std::num::NonZeroUsize;

/// Records each thread takes per batch.
const BATCH: usize = 128;

/// Threads to use: the cores the process may run on, at most 4.
fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(4)
}

/// `fold(work(i))` for every `i` in `0..n`, in order of `i`, with `work` run on up to
/// [`threads`] threads in batches (at most a few hundred results are held at once). `fold`
/// runs on the calling thread, so sums taken there are added in file order, as one thread
/// would add them: the figures do not depend on the number of threads.
pub(crate) fn ordered<T: Send>(
    n: usize,
    work: impl Fn(usize) -> T + Sync,
    mut fold: impl FnMut(T),
) {
    let threads = threads();
    let mut start = 0;
    while start < n {
        let end = n.min(start + BATCH * threads);
        if threads == 1 || end - start <= BATCH {
            (start..end).map(&work).for_each(&mut fold);
            start = end;
            continue;
        }
        let chunk = (end - start).div_ceil(threads);
        let work = &work;
        let parts: Vec<Vec<T>> = std::thread::scope(|s| {
            let others: Vec<_> = (1..threads)
                .map(|k| {
                    let lo = (start + k * chunk).min(end);
                    let hi = (lo + chunk).min(end);
                    s.spawn(move || (lo..hi).map(work).collect::<Vec<T>>())
                })
                .collect();
            let mut parts = vec![(start..start + chunk).map(work).collect::<Vec<T>>()];
            for h in others {
                parts.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            }
            parts
        });
        parts.into_iter().flatten().for_each(&mut fold);
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_is_folded_once_in_order() {
        for n in [0, 1, BATCH - 1, BATCH + 1, 5 * BATCH + 7] {
            let mut seen = Vec::new();
            ordered(n, |i| i * 2, |x| seen.push(x));
            assert_eq!(seen, (0..n).map(|i| i * 2).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
