//! Records worked on by the machine's cores and folded in file order: [`ordered`].

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{mpsc, Mutex};

/// Records each thread takes per batch.
const BATCH: usize = 128;

/// Threads to use: the cores the process may run on, at most 4.
fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(4)
}

/// Batches handed out ahead of the one folded next, per thread: what is held at once.
const AHEAD: usize = 2;

/// `fold(work(i))` for every `i` in `0..n`, in order of `i`, with `work` run on up to
/// [`threads`] threads in batches (at most a few hundred results are held at once). `fold`
/// runs on the calling thread, so sums taken there are added in file order, as one thread
/// would add them: the figures do not depend on the number of threads.
///
/// The threads live for the whole run and take batches as they come free: threads started
/// per batch each began with a fresh allocator heap, and the pages it took from the kernel
/// (zeroed there) were a sixth of `compare`'s time.
pub(crate) fn ordered<T: Send>(
    n: usize,
    work: impl Fn(usize) -> T + Sync,
    mut fold: impl FnMut(T),
) {
    let threads = threads();
    if threads == 1 || n <= BATCH {
        (0..n).map(&work).for_each(&mut fold);
        return;
    }
    let batches = n.div_ceil(BATCH);
    let work = &work;
    let (job_tx, job_rx) = mpsc::channel::<usize>();
    let job_rx = Mutex::new(job_rx);
    let job_rx = &job_rx;
    std::thread::scope(|s| {
        let (done_tx, done_rx) = mpsc::channel::<(usize, std::thread::Result<Vec<T>>)>();
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            s.spawn(move || loop {
                let next = job_rx.lock().map_or(None, |rx| rx.recv().ok());
                let Some(k) = next else { return };
                let (lo, hi) = (k * BATCH, n.min((k + 1) * BATCH));
                let out = panic::catch_unwind(AssertUnwindSafe(|| (lo..hi).map(work).collect()));
                if done_tx.send((k, out)).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        let mut sent = 0;
        let mut ahead = || {
            let send = sent < batches && job_tx.send(sent).is_ok();
            sent += usize::from(send);
        };
        for _ in 0..threads * AHEAD {
            ahead();
        }
        // Batches done out of order wait here for the ones before them.
        let mut waiting: BTreeMap<usize, Vec<T>> = BTreeMap::new();
        let mut next = 0;
        while next < batches {
            let Ok((k, out)) = done_rx.recv() else { break };
            match out {
                Ok(v) => waiting.insert(k, v),
                Err(p) => panic::resume_unwind(p),
            };
            while let Some(v) = waiting.remove(&next) {
                v.into_iter().for_each(&mut fold);
                next += 1;
                ahead();
            }
        }
        drop(job_tx);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_is_folded_once_in_order() {
        for n in [
            0,
            1,
            BATCH - 1,
            BATCH,
            BATCH + 1,
            5 * BATCH + 7,
            40 * BATCH + 3,
        ] {
            let mut seen = Vec::new();
            ordered(n, |i| i * 2, |x| seen.push(x));
            assert_eq!(seen, (0..n).map(|i| i * 2).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn batches_done_out_of_order_are_folded_in_order() {
        // Early batches are the slow ones, so later ones finish first.
        let n = 12 * BATCH;
        let mut seen = Vec::new();
        ordered(
            n,
            |i| {
                if i % BATCH == 0 && i < 4 * BATCH {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                i
            },
            |x| seen.push(x),
        );
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            ordered(
                8 * BATCH,
                |i| assert!(i != 5 * BATCH + 1, "bad record"),
                |()| {},
            );
        });
        assert!(caught.is_err(), "the panic was lost");
    }
}
