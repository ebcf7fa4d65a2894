use super::*;

#[test]
fn skimmed_records_keep_spans_and_drop_the_context() {
    let dir = tempfile::tempdir().expect("tmp");
    let recs = dir.path().join("r.jsonl");
    let preds = dir.path().join("predictions_det_combined.jsonl");
    std::fs::write(
        &recs,
        concat!(
            r#"{"id":"a","query":"q","context":"{\"x\": \"é\"}","output":"It is 25°C","hallucination_labels":[{"start":6,"end":10,"text":"25°C","label":"contradiction"}],"meta":{"corruption_type":"contradiction"}}"#,
            "\n",
            r#"{"id":"b","query":"q","context":"c","output":"ok","hallucination_labels":[],"meta":{"corruption_type":"clean"}}"#,
            "\n"
        ),
    )
    .expect("write");
    std::fs::write(
        &preds,
        concat!(
            r#"{"id":"b","output":"ok","gold_spans":[],"pred_spans":[]}"#,
            "\n",
            r#"{"id":"a","output":"It is 25°C","gold_spans":[],"pred_spans":[{"start":5,"end":10,"text":" 25°C","label":"x"}]}"#,
            "\n"
        ),
    )
    .expect("write");
    let ds = Dataset::open(&[recs, preds], None).expect("open");
    let paths: Vec<PathBuf> = ds.files().map(|f| f.path().to_path_buf()).collect();
    let own = SpanReader::open(&paths, None).expect("open");
    for reader in [SpanReader::new(&ds), own] {
        assert_eq!(reader.len(), 2);
        for i in 0..2 {
            let full = ds.record(i).expect("full");
            let skim = reader.record(i).expect("skim");
            assert_eq!(skim.sources, full.sources);
            assert_eq!(skim.output, full.output);
            assert!(skim.context.is_empty() && skim.query.is_empty());
        }
    }
}
