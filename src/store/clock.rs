//! Timestamps (RFC 3339, UTC) and row origins, without a date-time crate.

use std::collections::hash_map::RandomState;
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The current time as RFC 3339 UTC with milliseconds: `2026-11-30T05:52:34.123Z`.
#[must_use]
pub fn now() -> String {
    rfc3339(SystemTime::now())
}

/// `t` as RFC 3339 UTC with milliseconds (times before 1970 print as the epoch).
#[must_use]
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (y, m, day) = civil_from_days(secs / 86_400);
    let sod = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        d.subsec_millis()
    )
}

/// `t` to the second for a file name, UTC: `20261130T055234` (a rescue file's name).
#[must_use]
pub fn file_stamp(t: SystemTime) -> String {
    rfc3339(t)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(15)
        .collect()
}

/// Seconds since the Unix epoch of an RFC 3339 UTC stamp ([`parse_rfc3339`]).
#[must_use]
pub fn unix_seconds(s: &str) -> Option<f64> {
    parse_rfc3339(s)?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs_f64())
}

/// The time of an RFC 3339 UTC stamp as [`rfc3339`] writes it (`2026-11-30T05:52:34.123Z`;
/// fractional seconds optional). `None` for anything else, or a date before 1970.
#[must_use]
pub fn parse_rfc3339(s: &str) -> Option<SystemTime> {
    let (main, rest) = s.split_at_checked(19)?;
    let b = main.as_bytes();
    let sep_ok = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')]
        .iter()
        .all(|&(i, c)| b[i] == c || (i == 10 && b[i] == b't'));
    if !sep_ok {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<u64> {
        let t = main.get(from..to)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let (y, m, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hh, mm, ss) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let rest = rest.strip_suffix(['Z', 'z'])?;
    let nanos = match rest.strip_prefix('.') {
        None if rest.is_empty() => 0,
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|c| c.is_ascii_digit()) => {
            f.parse::<u32>().ok()? * 10u32.pow(9 - u32::try_from(f.len()).ok()?)
        }
        _ => return None,
    };
    let secs = days_from_civil(y, m, d)? * 86_400 + hh * 3600 + mm * 60 + ss;
    Some(UNIX_EPOCH + std::time::Duration::new(secs, nanos))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`);
/// `None` before the epoch.
fn days_from_civil(y: u64, m: u64, d: u64) -> Option<u64> {
    let y = if m <= 2 { y.checked_sub(1)? } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).checked_sub(719_468)
}

/// Proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's `civil_from_days`,
/// restricted to dates from the epoch on).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

/// A new globally unique row origin: 128 bits as 32 hex digits, from the OS-seeded keys of
/// [`RandomState`] mixed with the time, the process id and a counter.
#[must_use]
pub fn new_origin() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut out = String::with_capacity(32);
    for salt in 0..2u8 {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(nanos);
        h.write_u32(std::process::id());
        h.write_u64(n);
        h.write_u8(salt);
        let _ = write!(out, "{:016x}", h.finish());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use std::time::Duration;

    #[rstest]
    #[case(0, "1970-01-01T00:00:00.000Z")]
    #[case(951_782_400_000, "2000-02-29T00:00:00.000Z")]
    #[case(1_700_000_000_250, "2023-11-14T22:13:20.250Z")]
    #[case(1_709_251_199_999, "2024-02-29T23:59:59.999Z")]
    #[case(4_107_542_400_000, "2100-03-01T00:00:00.000Z")]
    fn formats_utc(#[case] millis: u64, #[case] want: &str) {
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_millis(millis)), want);
        let compact: String = want[..19]
            .chars()
            .filter(|c| *c != '-' && *c != ':')
            .collect();
        assert_eq!(
            file_stamp(UNIX_EPOCH + Duration::from_millis(millis)),
            compact
        );
        assert_eq!(
            parse_rfc3339(want),
            Some(UNIX_EPOCH + Duration::from_millis(millis)),
            "round trip"
        );
    }

    #[rstest]
    #[case("2024-02-29T23:59:59Z", Some(1_709_251_199_000))]
    #[case("2024-02-29T23:59:59.5Z", Some(1_709_251_199_500))]
    #[case("2024-02-29 23:59:59Z", None)]
    #[case("2024-02-29T23:59:59", None)]
    #[case("2024-13-01T00:00:00Z", None)]
    #[case("1969-12-31T23:59:59Z", None)]
    #[case("2024-02-29T23:59:59.Z", None)]
    #[case("２０24-02-29T23:59:59Z", None)]
    #[case("", None)]
    fn parses_what_it_writes_and_nothing_else(#[case] s: &str, #[case] millis: Option<u64>) {
        assert_eq!(
            parse_rfc3339(s),
            millis.map(|m| UNIX_EPOCH + Duration::from_millis(m))
        );
    }

    #[test]
    fn origins_are_distinct_hex() {
        let a = new_origin();
        let b = new_origin();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
