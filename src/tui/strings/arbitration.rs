//! The arbitration screen: lanes, clusters, claims, resolutions and blind mode.

/// The reason of an auto-accept decision (visible in the log; undoable).
pub const AUTO_UNANIMOUS: &str = "auto: unanimous";

/// No disputed record found yet while clustering runs.
pub const NO_DISPUTED_YET: &str = "clustering: no disputed record found yet…";

/// The queue has no more disputed record, for now.
pub const DISPUTED_END_FOR_NOW: &str =
    "end of the disputed records found so far (clustering continues)";

/// Title of the arbitration output pane.
pub const LANES: &str = "Output · one lane per source";

/// Title of the cluster panel.
pub const CLUSTER: &str = "Cluster";

/// Lane label of the reviewed result.
pub const RESULT_LANE: &str = "result";

/// No cluster in the record.
pub const NO_CLUSTERS: &str = "no spans from any source: nothing to arbitrate";

/// No such source lane.
pub const NO_SUCH_LANE: &str = "no source with that number";

/// No unplaced claim.
pub const NO_CLAIMS: &str = "no unplaced judge claim";

/// Placing a claim: what to do.
pub const PLACE_CLAIM: &str = "place the claim: mark its start and end as in add";

/// Every disputed cluster of the record is resolved.
pub const ALL_RESOLVED: &str = "all clusters resolved: A accepts the rest and goes on";

/// Names are hidden in blind mode.
pub const BLIND: &str =
    "blind: names hidden until the record's clusters are resolved; keys 1, 2, 3… take A, B, C…";

/// A cluster header line.
#[must_use]
pub fn cluster_title(i: usize, n: usize, start: usize, end: usize, disputed: bool) -> String {
    format!(
        "cluster {} / {n} · [{start}, {end}) · {}",
        i + 1,
        if disputed { "disputed" } else { "agreed" }
    )
}

/// A resolution saved (possibly several rows).
#[must_use]
pub fn resolved(first: i64, last: i64, upheld: &str, dismissed: &str) -> String {
    let ids = if first == last {
        format!("#{first}")
    } else {
        format!("#{first}–#{last}")
    };
    format!("saved {ids} resolve · upheld {upheld} · dismissed {dismissed}")
}

/// Status line when the arbitration edit starts from a source's version.
#[must_use]
pub fn edit_from(lane: &str, who: &str, start: usize, end: usize) -> String {
    if lane == who {
        format!("edit from lane {lane}'s version [{start}, {end})")
    } else {
        format!("edit from lane {lane}'s version ({who}) [{start}, {end})")
    }
}

/// The arbitration edit has no source's version to start from.
pub const NO_VERSIONS: &str = "no source covers anything here: the edit starts from the cluster";

/// The lanes screen's title when source lanes are left out (the cluster panel lists them).
#[must_use]
pub fn more_lanes(k: usize) -> String {
    format!("+{k} more")
}

/// `r` on a cluster not resolved yet.
pub const RELABEL_UNRESOLVED: &str =
    "r relabels a resolution's span: resolve the cluster first (a take, U, I or t)";

/// `r` on a cluster whose resolution keeps no span.
pub const RELABEL_NOTHING_KEPT: &str = "the cluster's resolution keeps no span: nothing to relabel";

/// No source of the cluster gives the resolution's span a label: the picker opens.
pub const PICK_RESOLUTION_LABEL: &str =
    "no source here gives the span a label: pick one (Esc: nothing saved)";

/// The record on screen keeps its hallucination type and no span (an open item at export).
#[must_use]
pub fn typed_no_span(ty: &str) -> String {
    format!(
        "typed {ty} with no span left: c reclassifies it clean, T retypes it, R removes it \
         (export lists it as an open item)"
    )
}

/// The label picker's title for a resolution's spans.
#[must_use]
pub fn pick_resolution_label(spans: &[(usize, usize)]) -> String {
    let at: Vec<String> = spans.iter().map(|(a, b)| format!("[{a}, {b})")).collect();
    format!("Label of the resolution {}", at.join(" "))
}

/// The arbitration edit's line when no side gives its span a label (the picker asks on Enter).
pub const EDIT_NO_LABEL: &str = " (no label: Enter asks for one)";
